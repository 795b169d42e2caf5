#include "core/review/report.h"

#include "core/number_text.h"
#include "core/review/text_table.h"
#include "core/trace/fixed_point.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace pl::review {
namespace {

// A metric's three percentiles as ticks (TPOT: its x100 figures divided back), or as ms at tick_us.
struct Metric {
    const char* name;
    Percentiles LatencyFigures::*member;
    bool x100;
};
const std::vector<Metric>& metrics() {
    static const std::vector<Metric> m = {{"queue", &LatencyFigures::queue_ticks, false},
                                          {"ttft", &LatencyFigures::ttft_ticks, false},
                                          {"tpot", &LatencyFigures::tpot_ticks_x100, true},
                                          {"itl", &LatencyFigures::itl_ticks, false},
                                          {"completion", &LatencyFigures::completion_ticks, false}};
    return m;
}

std::string valueText(std::int64_t v, bool x100, std::int64_t tickUs) {
    if (tickUs > 0) {
        return x100 ? ticksX100AsMs(v, tickUs) : ticksAsMs(v, tickUs);
    }
    return x100 ? formatGeneral(static_cast<double>(v) / 100.0) : std::to_string(v);
}

double valueNumber(std::int64_t v, bool x100, std::int64_t tickUs) {
    const double ticks = x100 ? static_cast<double>(v) / 100.0 : static_cast<double>(v);
    return tickUs > 0 ? ticks * static_cast<double>(tickUs) / 1000.0 : ticks;
}

using GroupKey = std::pair<std::int64_t, std::string>; // numeric order first, then byte order

void addDimension(Report& report, const RunOutcomes& run, const ReportOptions& options, const std::string& dimension,
                  GroupKey (*keyOf)(const RequestOutcome&, const ReportOptions&)) {
    std::map<GroupKey, std::vector<const RequestOutcome*>> groups;
    for (const auto& r : run.requests) {
        groups[keyOf(r, options)].push_back(&r);
    }
    for (const auto& entry : groups) {
        ReportGroup g;
        g.dimension = dimension;
        g.key = entry.first.second;
        g.figures = latencyFigures(entry.second);
        if (options.slos.any()) {
            RunOutcomes part;
            part.ticks = run.ticks;
            part.tick_us = run.tick_us;
            for (const RequestOutcome* r : entry.second) {
                part.requests.push_back(*r);
            }
            g.goodput = goodput(part, options.slos);
        }
        report.groups.push_back(std::move(g));
    }
}

std::int64_t bucketIndex(std::int64_t value, const std::vector<std::int64_t>& edges) {
    return static_cast<std::int64_t>(std::upper_bound(edges.begin(), edges.end(), value) - edges.begin());
}

} // namespace

std::variant<std::vector<std::int64_t>, std::string> parseBucketEdges(std::string_view text) {
    std::vector<std::int64_t> edges;
    std::size_t at = 0;
    while (true) {
        const std::size_t comma = text.find(',', at);
        const std::string_view part = text.substr(at, comma == std::string_view::npos ? text.npos : comma - at);
        const auto n = trace::parseNonNegative(part);
        if (!n || *n < 1) {
            return std::string("expected ascending whole numbers from 1, separated by commas (e.g. 128,512,2048), got '") +
                   std::string(text) + "'";
        }
        if (!edges.empty() && *n <= edges.back()) {
            return std::string("edges must be strictly ascending, got ") + std::to_string(*n) + std::string(" after ") +
                   std::to_string(edges.back());
        }
        edges.push_back(*n);
        if (comma == std::string_view::npos) {
            break;
        }
        at = comma + 1;
    }
    return edges;
}

std::string bucketLabel(std::int64_t value, const std::vector<std::int64_t>& edges) {
    const auto i = static_cast<std::size_t>(bucketIndex(value, edges));
    if (edges.empty()) {
        return "all";
    }
    if (i == 0) {
        return std::string("<") + std::to_string(edges[0]);
    }
    if (i == edges.size()) {
        return std::string(">=") + std::to_string(edges.back());
    }
    return std::to_string(edges[i - 1]) + std::string("-") + std::to_string(edges[i] - 1);
}

Report buildReport(const RunOutcomes& run, const ReportOptions& options) {
    Report report;
    report.tick_us = run.tick_us;
    addDimension(report, run, options, "all", [](const RequestOutcome&, const ReportOptions&) {
        return GroupKey{0, "all"};
    });
    addDimension(report, run, options, "prompt_tokens", [](const RequestOutcome& r, const ReportOptions& o) {
        return GroupKey{bucketIndex(r.prompt_tokens, o.prompt_edges), bucketLabel(r.prompt_tokens, o.prompt_edges)};
    });
    addDimension(report, run, options, "output_tokens", [](const RequestOutcome& r, const ReportOptions& o) {
        return GroupKey{bucketIndex(r.output_tokens, o.output_edges), bucketLabel(r.output_tokens, o.output_edges)};
    });
    addDimension(report, run, options, "priority", [](const RequestOutcome& r, const ReportOptions&) {
        return GroupKey{r.priority, std::to_string(r.priority)};
    });
    addDimension(report, run, options, "tenant", [](const RequestOutcome& r, const ReportOptions&) {
        return GroupKey{0, r.tenant};
    });
    addDimension(report, run, options, "preemptions", [](const RequestOutcome& r, const ReportOptions&) {
        return GroupKey{r.preemptions, std::to_string(r.preemptions)};
    });
    return report;
}

std::string reportTableText(const Report& report) {
    const std::string unit = report.tick_us > 0 ? "ms" : "ticks";
    std::vector<std::string> head = {"dimension", "group", "requests", "censored"};
    for (const auto& m : metrics()) {
        head.push_back(std::string(m.name) + std::string(" p50/p90/p99 ") + unit);
    }
    const bool withGoodput = !report.groups.empty() && report.groups.front().goodput.has_value();
    if (withGoodput) {
        head.push_back("goodput");
    }
    std::vector<std::vector<std::string>> lines = {head};
    for (const auto& g : report.groups) {
        std::vector<std::string> l = {g.dimension, g.key, std::to_string(g.figures.requests),
                                      std::to_string(g.figures.censored)};
        for (const auto& m : metrics()) {
            const Percentiles& p = g.figures.*(m.member);
            l.push_back(p.count == 0 ? "-"
                                     : valueText(p.p50, m.x100, report.tick_us) + std::string("/") +
                                           valueText(p.p90, m.x100, report.tick_us) + std::string("/") +
                                           valueText(p.p99, m.x100, report.tick_us));
        }
        if (withGoodput) {
            l.push_back(formatFixed(g.goodput->percent(), 1) + "%");
        }
        lines.push_back(std::move(l));
    }
    std::string out;
    if (report.tick_us > 0) {
        out += std::string("one tick = ") + std::to_string(report.tick_us) + " us; latencies in ms\n";
    } else {
        out += "latencies in ticks (the workload gives no tick_us)\n";
    }
    return out + alignedColumns(lines);
}

std::string reportCsvText(const Report& report) {
    std::string out = "dimension,group,requests,censored";
    for (const auto& m : metrics()) {
        for (const char* p : {"p50", "p90", "p99"}) {
            out += std::string(",") + m.name + std::string("_") + p + "_ticks";
        }
        if (report.tick_us > 0) {
            for (const char* p : {"p50", "p90", "p99"}) {
                out += std::string(",") + m.name + std::string("_") + p + "_ms";
            }
        }
    }
    const bool withGoodput = !report.groups.empty() && report.groups.front().goodput.has_value();
    if (withGoodput) {
        out += ",good,goodput_percent";
    }
    out += "\n";
    for (const auto& g : report.groups) {
        // Group keys are numbers, bucket labels and tenants (A-Z a-z 0-9 . _ -): nothing to quote.
        out += g.dimension + std::string(",") + g.key + std::string(",") + std::to_string(g.figures.requests) + std::string(",") +
               std::to_string(g.figures.censored);
        for (const auto& m : metrics()) {
            const Percentiles& p = g.figures.*(m.member);
            for (std::int64_t v : {p.p50, p.p90, p.p99}) {
                out += ',';
                out += p.count == 0 ? std::string() : valueText(v, m.x100, 0);
            }
            if (report.tick_us > 0) {
                for (std::int64_t v : {p.p50, p.p90, p.p99}) {
                    out += ',';
                    out += p.count == 0 ? std::string() : valueText(v, m.x100, report.tick_us);
                }
            }
        }
        if (withGoodput) {
            out += std::string(",") + std::to_string(g.goodput->good) + std::string(",") + formatFixed(g.goodput->percent(), 2);
        }
        out += "\n";
    }
    return out;
}

std::string reportJsonText(const Report& report) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : report.groups) {
        nlohmann::json j = {{"dimension", g.dimension},
                            {"group", g.key},
                            {"requests", g.figures.requests},
                            {"censored", g.figures.censored}};
        for (const auto& m : metrics()) {
            const Percentiles& p = g.figures.*(m.member);
            nlohmann::json fig = {{"count", p.count}};
            if (p.count > 0) {
                fig["p50_ticks"] = valueNumber(p.p50, m.x100, 0);
                fig["p90_ticks"] = valueNumber(p.p90, m.x100, 0);
                fig["p99_ticks"] = valueNumber(p.p99, m.x100, 0);
                if (report.tick_us > 0) {
                    fig["p50_ms"] = valueNumber(p.p50, m.x100, report.tick_us);
                    fig["p90_ms"] = valueNumber(p.p90, m.x100, report.tick_us);
                    fig["p99_ms"] = valueNumber(p.p99, m.x100, report.tick_us);
                }
            }
            j[m.name] = std::move(fig);
        }
        if (g.goodput) {
            j["goodput"] = {{"good", g.goodput->good}, {"percent", g.goodput->percent()}};
        }
        groups.push_back(std::move(j));
    }
    nlohmann::json doc = {{"format", "preemptlab.report.v1"}, {"groups", std::move(groups)}};
    if (report.tick_us > 0) {
        doc["tick_us"] = report.tick_us;
    }
    return doc.dump(2) + "\n";
}

} // namespace pl::review
