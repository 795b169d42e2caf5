// The sweep's two output forms: CSV (one row per point and mode) and JSON (preemptlab.sweep.v1).
#include "core/cost/sweep_output.h"

#include "core/number_text.h"


namespace pl::cost {

namespace {

// Means are ratios of integers; six decimals print them the same way everywhere.
std::string fixed6(double v) { return formatFixed(v, 6); }

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) {
        return s;
    }
    std::string out = "\"";
    for (char c : s) {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

} // namespace

nlohmann::json sweepTotalsJson(const Totals& t) {
    return {{"ticks", t.ticks},
            {"request_ticks", t.request_ticks},
            {"pressure_events", t.pressure_events},
            {"evictions", t.evictions},
            {"freed_blocks", t.freed_blocks},
            {"replay_tokens", t.replay_tokens},
            {"swap_out_bytes", t.swap_out_bytes},
            {"swap_in_bytes", t.swap_in_bytes},
            {"peak_host_bytes", t.peak_host_bytes},
            {"completed", t.completed},
            {"censored", t.censored},
            {"queue_reentries", t.queue_reentries}};
}

nlohmann::json sweepSlosJson(const review::Slos& slos) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [slo, name] : {std::pair{&slos.ttft, "ttft"}, std::pair{&slos.tpot, "tpot"}}) {
        if (slo->has_value()) {
            out[name] = {{(*slo)->unit == review::SloUnit::Ticks ? "ticks" : "us", (*slo)->value}};
        }
    }
    return out;
}

nlohmann::json sweepGoodputJson(const review::Goodput& g) {
    return {{"requests", g.requests},
            {"good", g.good},
            {"censored", g.censored},
            {"missed_ttft", g.missed_ttft},
            {"missed_tpot", g.missed_tpot}};
}

namespace {
// The keys of the axes a point flips along, joined by '|' (empty: none).
std::string flipAxesText(const SweepSpec& spec, const SweepPoint& p) {
    std::string out;
    for (const std::size_t a : p.flip_axes) {
        if (!out.empty()) {
            out += '|';
        }
        out += spec.axes[a].key;
    }
    return out;
}
} // namespace

std::string sweepCsv(const SweepResult& r) {
    std::string out = "point";
    for (const auto& axis : r.spec.axes) {
        out += ',';
        out += csvField(axis.key);
    }
    out += ",mode,input_hash,ticks,request_ticks,pressure_events,evictions,freed_blocks,replay_tokens,"
           "swap_out_bytes,swap_in_bytes,peak_host_bytes,completed,censored,queue_reentries,mean_queue_ticks,"
           "p95_queue_ticks,max_queue_ticks,mean_completion_ticks,p95_completion_ticks,metric_" +
           std::string(toString(r.spec.metric)) + ",winner,flip,margin,flip_axes";
    // With SLOs (issue 26): each result's goodput, after every older column (a sweep without SLOs keeps its bytes).
    const bool slos = r.spec.slos.any();
    out += slos ? ",goodput_percent,goodput_good,goodput_requests\n" : "\n";
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const auto& p = r.points[i];
        for (const auto& m : p.results) {
            const auto& t = m.totals;
            out += std::to_string(i);
            for (const auto& v : p.values) {
                out += ',';
                out += csvField(v);
            }
            for (const std::string& f :
                 {std::string(toString(m.mode)), m.input_hash, std::to_string(t.ticks), std::to_string(t.request_ticks),
                  std::to_string(t.pressure_events), std::to_string(t.evictions), std::to_string(t.freed_blocks),
                  std::to_string(t.replay_tokens), std::to_string(t.swap_out_bytes), std::to_string(t.swap_in_bytes),
                  std::to_string(t.peak_host_bytes), std::to_string(t.completed), std::to_string(t.censored),
                  std::to_string(t.queue_reentries), fixed6(m.mean_queue_ticks), std::to_string(m.p95_queue_ticks),
                  std::to_string(m.max_queue_ticks), fixed6(m.mean_completion_ticks),
                  std::to_string(m.p95_completion_ticks), fixed6(m.metric), p.winner,
                  std::string(p.flip ? "true" : "false"), fixed6(p.margin), flipAxesText(r.spec, p)}) {
                out += ',';
                out += csvField(f);
            }
            if (slos) {
                const review::Goodput g = m.goodput.value_or(review::Goodput{});
                out.append(",").append(fixed6(g.percent())).append(",").append(std::to_string(g.good));
                out.append(",").append(std::to_string(g.requests));
            }
            out += "\n";
        }
    }
    return out;
}

nlohmann::json sweepJson(const SweepResult& r) {
    nlohmann::json vary = nlohmann::json::array();
    for (const auto& axis : r.spec.axes) {
        vary.push_back({{"key", axis.key}, {"values", axis.values}});
    }
    nlohmann::json modes = nlohmann::json::array();
    for (auto m : r.spec.modes) {
        modes.push_back(std::string(toString(m)));
    }
    nlohmann::json points = nlohmann::json::array();
    nlohmann::json flips = nlohmann::json::array();
    nlohmann::json crossovers = nlohmann::json::array(); // flips along every axis
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const auto& p = r.points[i];
        nlohmann::json values = nlohmann::json::object();
        for (std::size_t a = 0; a < p.values.size(); ++a) {
            values[r.spec.axes[a].key] = p.values[a];
        }
        nlohmann::json results = nlohmann::json::object();
        for (const auto& m : p.results) {
            results[std::string(toString(m.mode))] = {
                {"totals", sweepTotalsJson(m.totals)},
                {"mean_queue_ticks", fixed6(m.mean_queue_ticks)},
                {"p95_queue_ticks", m.p95_queue_ticks},
                {"max_queue_ticks", m.max_queue_ticks},
                {"mean_completion_ticks", fixed6(m.mean_completion_ticks)},
                {"p95_completion_ticks", m.p95_completion_ticks},
                {"metric", fixed6(m.metric)}};
            if (m.goodput) {
                nlohmann::json g = sweepGoodputJson(*m.goodput);
                g["percent"] = fixed6(m.goodput->percent());
                results[std::string(toString(m.mode))]["goodput"] = std::move(g);
            }
        }
        nlohmann::json axes = nlohmann::json::array();
        std::size_t stride = 1;
        std::vector<std::size_t> strides(r.spec.axes.size(), 1);
        for (std::size_t a = r.spec.axes.size(); a-- > 0;) {
            strides[a] = stride;
            stride *= r.spec.axes[a].values.size();
        }
        for (const std::size_t a : p.flip_axes) {
            axes.push_back(r.spec.axes[a].key);
            crossovers.push_back({{"index", i}, {"axis", r.spec.axes[a].key}, {"values", values},
                                  {"from", r.points[i - strides[a]].winner}, {"to", p.winner}});
        }
        points.push_back({{"index", i}, {"values", values}, {"input_hash", p.input_hash}, {"results", results},
                          {"winner", p.winner}, {"flip", p.flip}, {"margin", fixed6(p.margin)}, {"flip_axes", axes}});
        if (p.flip) {
            flips.push_back({{"index", i}, {"values", values}, {"from", r.points[i - 1].winner}, {"to", p.winner}});
        }
    }
    nlohmann::json doc = {{"format", "preemptlab.sweep.v1"}, {"workload", r.workload_name}, {"vary", vary},
                          {"modes", modes}, {"metric", std::string(toString(r.spec.metric))}, {"points", points},
                          {"flips", flips}, {"crossovers", crossovers},
                          {"notes", "means are printed with six decimals; completion counts censored requests at max_ticks"}};
    if (r.spec.slos.any()) {
        doc["slos"] = sweepSlosJson(r.spec.slos); // added with issue 26's sweep SLOs; absent without them
    }
    return doc;
}

} // namespace pl::cost
