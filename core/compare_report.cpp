#include "core/compare_report.h"

#include "core/fallbacks.h"
#include "core/review/goodput.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <utility>

namespace pl {
namespace {

// Each percentile row is taken over its own population: queue delay over every request, TTFT over those
// that produced a token, completion over those that completed. A mode that censors more leaves its slowest
// requests out of TTFT and completion, so each group shows its count (n) and is marked where the modes'
// counts differ: their percentiles then describe different requests.
struct Row {
    std::string label;
    std::function<std::string(const CompareColumn&)> get;
    const Percentiles RunSummary::*population = nullptr; // the percentile group the row belongs to
    bool isCount = false;                                // the group's n row
};

std::function<std::string(const CompareColumn&)> number(std::int64_t Totals::*field) {
    return [field](const CompareColumn& c) { return std::to_string(c.summary.totals.*field); };
}

std::function<std::string(const CompareColumn&)> bytes(std::int64_t Totals::*field) {
    return [field](const CompareColumn& c) { return formatBytes(c.summary.totals.*field); };
}

std::function<std::string(const CompareColumn&)> percentile(const Percentiles RunSummary::*group,
                                                            std::int64_t Percentiles::*figure) {
    return [group, figure](const CompareColumn& c) { return std::to_string(c.summary.*group.*figure); };
}

const std::vector<Row>& rows() {
    using S = RunSummary;
    using P = Percentiles;
    static const std::vector<Row> kRows = {
        {"ticks", number(&Totals::ticks)},
        {"pressure events", number(&Totals::pressure_events)},
        {"evictions", number(&Totals::evictions)},
        // Evictions that did not run as the policy asked (the evict events' fallback): a swap mode whose swaps
        // all found host memory full ran recompute's run, and says so here and in the note under the table.
        {"fallback: host full", [](const CompareColumn& c) { return std::to_string(c.summary.fallbacks.host_full); }},
        {"fallback: prefix shrunk",
         [](const CompareColumn& c) { return std::to_string(c.summary.fallbacks.hybrid_shrunk); }},
        {"fallback: no full block",
         [](const CompareColumn& c) { return std::to_string(c.summary.fallbacks.nothing_to_swap); }},
        {"freed blocks", number(&Totals::freed_blocks)},
        {"replay tokens", number(&Totals::replay_tokens)},
        {"swap out", bytes(&Totals::swap_out_bytes)},
        {"swap in", bytes(&Totals::swap_in_bytes)},
        {"peak host", bytes(&Totals::peak_host_bytes)},
        {"completed", number(&Totals::completed)},
        {"censored", number(&Totals::censored)},
        {"queue delay n (all)", percentile(&S::queue_ticks, &P::count), &S::queue_ticks, true},
        {"queue delay p50", percentile(&S::queue_ticks, &P::p50), &S::queue_ticks},
        {"queue delay p99", percentile(&S::queue_ticks, &P::p99), &S::queue_ticks},
        {"TTFT n (got a token)", percentile(&S::ttft_ticks, &P::count), &S::ttft_ticks, true},
        {"TTFT p50 (ticks)", percentile(&S::ttft_ticks, &P::p50), &S::ttft_ticks},
        {"TTFT p99 (ticks)", percentile(&S::ttft_ticks, &P::p99), &S::ttft_ticks},
        {"completion n", percentile(&S::completion_ticks, &P::count), &S::completion_ticks, true},
        {"completion p99", percentile(&S::completion_ticks, &P::p99), &S::completion_ticks},
        {"flag: excessive wait", [](const CompareColumn& c) { return std::to_string(c.summary.flagged_excessive_wait); }},
        {"flag: repeated preempt",
         [](const CompareColumn& c) { return std::to_string(c.summary.flagged_repeated_preemption); }},
        {"conservation", [](const CompareColumn& c) { return std::string(c.conservation_passed ? "passed" : "FAILED"); }},
    };
    return kRows;
}

// The percentile groups of the --out file, by name.
const std::pair<const char*, const Percentiles RunSummary::*> kGroups[] = {
    {"queue_ticks", &RunSummary::queue_ticks},
    {"ttft_ticks", &RunSummary::ttft_ticks},
    {"tpot_ticks_x100", &RunSummary::tpot_ticks_x100},
    {"completion_ticks", &RunSummary::completion_ticks}};

// True when the modes' counts for `group` differ (the table stars the group's rows).
bool populationsDiffer(const std::vector<CompareColumn>& columns, const Percentiles RunSummary::*group) {
    return group != nullptr && std::any_of(columns.begin(), columns.end(), [&](const CompareColumn& c) {
               return (c.summary.*group).count != (columns.front().summary.*group).count;
           });
}

// `text` padded with spaces to `width` bytes, on the right (`left`) or on the left, as printf's %-Ns and %Ns.
std::string padded(const std::string& text, std::size_t width, bool left) {
    if (text.size() >= width) {
        return text;
    }
    const std::string fill(width - text.size(), ' ');
    return left ? text + fill : fill + text;
}

// A percentile group as numbers; `tickUs` > 0: in ms (no count: the ticks' object has it).
nlohmann::ordered_json figuresJson(const Percentiles& p, std::int64_t tickUs) {
    if (tickUs > 0) {
        return nlohmann::ordered_json{{"p50", review::ticksToMs(p.p50, tickUs)},
                                      {"p90", review::ticksToMs(p.p90, tickUs)},
                                      {"p99", review::ticksToMs(p.p99, tickUs)},
                                      {"max", review::ticksToMs(p.max, tickUs)}};
    }
    return nlohmann::ordered_json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}, {"count", p.count}};
}

// An SLO as numbers: {"ticks": N} or {"ms": X} (given in ms: whole microseconds).
nlohmann::ordered_json sloJson(const review::Slo& slo) {
    if (slo.unit == review::SloUnit::Ticks) {
        return nlohmann::ordered_json{{"ticks", slo.value}};
    }
    return nlohmann::ordered_json{{"ms", static_cast<double>(slo.value) / 1000.0}};
}

nlohmann::ordered_json compareDocument(const Workload& base, const std::vector<CompareColumn>& columns,
                                       const review::Slos& slos) {
    nlohmann::ordered_json doc;
    doc["format"] = "preemptlab.compare.v1";
    doc["workload"] = base.name;
    doc["input_hash"] = columns.empty() ? std::string() : columns.front().hashes.input_hash;
    doc["populations_differ"] = nlohmann::ordered_json::array();
    for (const auto& [name, group] : kGroups) {
        if (populationsDiffer(columns, group)) {
            doc["populations_differ"].push_back(name);
        }
    }
    // Added 2026-12-04 (issue 26; additive keys, the format stays v1): the tick's length when the workload gives
    // it, and the SLOs the goodput below was taken under.
    if (base.config.tick_us > 0) {
        doc["tick_us"] = base.config.tick_us;
    }
    if (slos.any()) {
        doc["slos"] = nlohmann::ordered_json::object();
        if (slos.ttft) {
            doc["slos"]["ttft"] = sloJson(*slos.ttft);
        }
        if (slos.tpot) {
            doc["slos"]["tpot"] = sloJson(*slos.tpot);
        }
    }
    for (const auto& c : columns) {
        nlohmann::ordered_json col;
        for (const auto& row : rows()) {
            col[row.label] = row.get(c); // the table as printed (display strings)
        }
        col["policy_hash"] = c.hashes.policy_hash;
        col["event_hash"] = c.hashes.event_hash;
        col["flagged"] = c.summary.flagged_ids;
        // The same figures as numbers, for scripts: the receipt's totals and nearest-rank percentiles.
        col["totals"] =
            nlohmann::ordered_json::parse(receiptTotalsJson(c.summary.totals, sharesPrefixes(base)));
        col["percentiles"] = nlohmann::ordered_json::object();
        for (const auto& [name, group] : kGroups) {
            const Percentiles& p = c.summary.*group;
            col["percentiles"][name] = nlohmann::ordered_json{
                {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}, {"count", p.count}};
        }
        // Evictions that did not run as the policy asked, by reason (numbers), and the note printed under the
        // table when every swap the mode tried found host memory full ("" otherwise).
        const auto& f = c.summary.fallbacks;
        col["fallbacks"] = nlohmann::ordered_json{{"host_full", f.host_full},
                                                  {"hybrid_shrunk", f.hybrid_shrunk},
                                                  {"nothing_to_swap", f.nothing_to_swap},
                                                  {"total", f.total()}};
        col["fallback_note"] = hostFullNote(base, c.mode, f); // the modes differ from base only in recovery
        // Inter-token latency (every gap of every request, pooled; docs/receipt.md, "Latency figures"), in ticks
        // and, with tick_us, in ms; with SLOs, the goodput (censored requests count as misses). Additive keys.
        const review::LatencyFigures latency = review::latencyFigures(c.outcomes);
        col["itl_ticks"] = figuresJson(latency.itl_ticks, 0);
        if (base.config.tick_us > 0) {
            col["itl_ms"] = figuresJson(latency.itl_ticks, base.config.tick_us);
        }
        if (slos.any()) {
            const review::Goodput g = review::goodput(c.outcomes, slos);
            bool perSecond = false;
            const double rate = g.rate(&perSecond);
            col["goodput"] = nlohmann::ordered_json{{"requests", g.requests},
                                                    {"good", g.good},
                                                    {"censored", g.censored},
                                                    {"missed_ttft", g.missed_ttft},
                                                    {"missed_tpot", g.missed_tpot},
                                                    {"percent", g.percent()},
                                                    {"rate", rate},
                                                    {"rate_unit", perSecond ? "req/s" : "req/1000 ticks"}};
        }
        // compare --engines: the columns are engine profiles (each column's policy_hash names its policy).
        doc[c.engine ? "engines" : "modes"][c.label] = col;
    }
    return doc;
}

// One row per mode with the document's numbers, for spreadsheets.
std::string csvOf(const nlohmann::ordered_json& doc) {
    const bool engines = doc.contains("engines");
    std::string header = engines ? "engine,policy_hash,event_hash" : "mode,policy_hash,event_hash";
    std::string body;
    bool first = true;
    for (const auto& [mode, col] : doc.at(engines ? "engines" : "modes").items()) {
        std::string line = mode + "," + col.at("policy_hash").get<std::string>() + "," +
                           col.at("event_hash").get<std::string>();
        const auto add = [&](const std::string& name, const nlohmann::ordered_json& value) {
            if (first) {
                header.append(",").append(name);
            }
            line.append(",").append(value.dump());
        };
        for (const auto& [key, value] : col.at("totals").items()) {
            add(key, value);
        }
        for (const auto& [group, figures] : col.at("percentiles").items()) {
            for (const auto& [key, value] : figures.items()) {
                add(group + "_" + key, value);
            }
        }
        for (const auto& [key, value] : col.at("fallbacks").items()) {
            add("fallbacks_" + key, value);
        }
        // The additions after the original columns, so a script reading by position still finds those.
        for (const char* group : {"itl_ticks", "itl_ms", "goodput"}) {
            if (!col.contains(group)) {
                continue;
            }
            for (const auto& [key, value] : col.at(group).items()) {
                if (key != "rate_unit") {
                    add(std::string(group) + "_" + key, value);
                }
            }
        }
        body += line + "\n";
        first = false;
    }
    return header + "\n" + body;
}

} // namespace

const std::vector<Recovery>& comparedModes() {
    static const std::vector<Recovery> kModes = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive,
                                                 Recovery::Hybrid};
    return kModes;
}

CompareColumn compareColumn(const Workload& workload, const RunResult& run, bool keepReceipt,
                            const std::atomic<bool>* stop) {
    CompareColumn c;
    c.mode = workload.policy.recovery;
    c.label = std::string(toString(c.mode));
    c.summary = summarize(workload, run);
    c.outcomes = review::outcomesFromRun(workload, run);
    ReceiptFacts facts;
    c.receipt = receiptText(workload, run, stop, &facts);
    c.conservation_passed = facts.conservation_passed;
    c.hashes = std::move(facts.hashes);
    if (!keepReceipt) {
        c.receipt = std::string();
    }
    return c;
}

std::vector<CompareColumn> compareRuns(const Workload& base, const RunControl& control, bool keepReceipts,
                                       std::atomic<int>* columnsDone, const ColumnDone& onColumn) {
    std::vector<CompareColumn> columns;
    for (Recovery mode : comparedModes()) {
        Workload w = base;
        w.policy.recovery = mode;
        const RunResult run = runWorkload(w, nullptr, control);
        columns.push_back(compareColumn(w, run, keepReceipts, control.cancel));
        if (columnsDone != nullptr) {
            columnsDone->store(static_cast<int>(columns.size()));
        }
        if (onColumn) onColumn(columns.back(), columns.size(), comparedModes().size());
    }
    return columns;
}

const std::vector<EngineProfile>& comparedProfiles() {
    static const std::vector<EngineProfile> kProfiles = {EngineProfile::TickModel1, EngineProfile::VllmV1,
                                                         EngineProfile::Sglang, EngineProfile::TrtllmMaxUtilization,
                                                         EngineProfile::TrtllmGuaranteedNoEvict};
    return kProfiles;
}

Workload engineVariant(const Workload& base, EngineProfile profile) {
    Workload w = base;
    w.policy.engine_profile = profile;
    if (profile == EngineProfile::TickModel1) {
        return w;
    }
    w.policy.recovery = Recovery::Recompute;
    w.policy.preempt_ahead = false;
    if (profile == EngineProfile::VllmV1 && w.policy.victim_rule != VictimRule::PriorityNewest) {
        w.policy.victim_rule = VictimRule::LastAdmitted; // vLLM's fcfs unless the workload asks for priority
    } else if (profile == EngineProfile::Sglang) {
        w.policy.victim_rule = VictimRule::FewestDecoded;
    }
    return w;
}

std::vector<CompareColumn> compareEngineRuns(const Workload& base, const RunControl& control, bool keepReceipts,
                                             std::atomic<int>* columnsDone, const ColumnDone& onColumn) {
    std::vector<CompareColumn> columns;
    for (EngineProfile profile : comparedProfiles()) {
        const Workload w = engineVariant(base, profile);
        const RunResult run = runWorkload(w, nullptr, control);
        columns.push_back(compareColumn(w, run, keepReceipts, control.cancel));
        columns.back().label = std::string(toString(profile));
        columns.back().engine = true;
        if (columnsDone != nullptr) {
            columnsDone->store(static_cast<int>(columns.size()));
        }
        if (onColumn) onColumn(columns.back(), columns.size(), comparedProfiles().size());
    }
    return columns;
}

std::string compareTableText(const Workload& base, const std::vector<CompareColumn>& columns) {
    // Recovery modes under an engine profile: the profile, not the tick model's resume guard (unused there), and
    // that every mode but recompute is a what-if on that engine.
    const bool profileModes = base.policy.engine_profile != EngineProfile::TickModel1 &&
                              std::none_of(columns.begin(), columns.end(), [](const CompareColumn& c) { return c.engine; });
    const std::string setting =
        profileModes ? "engine " + std::string(toString(base.policy.engine_profile)) +
                           ", which recovers by recompute: the other modes are what-ifs, docs/engines.md"
                     : "resume guard " + std::string(toString(base.policy.resume_guard));
    std::string out = "compare: " + base.name + " (" + std::to_string(base.requests.size()) + " requests, victim rule " +
                      std::string(toString(base.policy.victim_rule)) + ", " + setting + ")\ninput_hash " +
                      (columns.empty() ? std::string() : columns.front().hashes.input_hash) + "\n\n";
    out += padded("", 24, true);
    for (const auto& c : columns) {
        out += padded(c.label, c.engine ? 28 : 14, false);
    }
    out += "\n";
    bool anyDiffers = false;
    for (const auto& row : rows()) {
        const bool mark = populationsDiffer(columns, row.population);
        anyDiffers = anyDiffers || mark;
        out += padded(row.label + (mark ? " *" : ""), 24, true);
        for (const auto& c : columns) {
            // A percentile over no request is no figure (it read 0, the best-looking value): a dash, as in the lab.
            const bool none = row.population && !row.isCount && (c.summary.*row.population).count == 0;
            out += padded(none ? "-" : row.get(c), c.engine ? 28 : 14, false);
        }
        out += "\n";
    }
    if (anyDiffers) {
        out += "* taken over different requests in different modes (see n): a mode that censors more\n"
               "  leaves its slowest requests out, so a lower figure there is not by itself better\n";
    }
    for (const auto& c : columns) {
        if (const auto note = hostFullNote(base, c.mode, c.summary.fallbacks); !note.empty()) {
            out += "note: " + note + "\n";
        }
    }
    for (const auto& c : columns) {
        const auto& ids = c.summary.flagged_ids;
        if (ids.empty()) {
            continue;
        }
        std::string list;
        for (std::size_t i = 0; i < ids.size() && i < 12; ++i) {
            list += (i ? ", " : "") + ids[i];
        }
        if (ids.size() > 12) {
            list += ", ... (" + std::to_string(ids.size()) + " in all)";
        }
        out += "flagged under " + c.label + ": " + list + "\n";
    }
    return out;
}

std::string compareFileText(const Workload& base, const std::vector<CompareColumn>& columns, bool csv,
                            const review::Slos& slos) {
    const nlohmann::ordered_json doc = compareDocument(base, columns, slos);
    return csv ? csvOf(doc) : doc.dump(2) + "\n";
}

} // namespace pl
