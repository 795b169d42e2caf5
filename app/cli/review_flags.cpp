#include "app/cli/review_flags.h"

#include "core/number_text.h"

namespace pl::cli {

std::set<std::string> sloFlagNames() { return {"slo-ttft-ms", "slo-tpot-ms", "slo-ttft-ticks", "slo-tpot-ticks"}; }

std::optional<std::string> slosFromArgs(const Args& args, review::Slos& slos) {
    for (const char* what : {"ttft", "tpot"}) {
        const std::string ms = std::string("slo-") + what + "-ms";
        const std::string ticks = std::string("slo-") + what + "-ticks";
        if (args.has(ms) && args.has(ticks)) {
            return std::string("--") + ms + std::string(" and --") + ticks + std::string(" both give the ") + what + " SLO; give one";
        }
        std::optional<review::Slo>& target = std::string(what) == "ttft" ? slos.ttft : slos.tpot;
        for (const auto& [flag, unit] : {std::pair{ms, review::SloUnit::Micros}, std::pair{ticks, review::SloUnit::Ticks}}) {
            if (auto v = args.value(flag)) {
                auto parsed = review::parseSlo(*v, unit);
                if (auto* why = std::get_if<std::string>(&parsed)) {
                    return std::string("--") + flag + std::string(": ") + *why;
                }
                target = std::get<review::Slo>(parsed);
            }
        }
    }
    return std::nullopt;
}

namespace {

std::string triple(const Percentiles& p, bool x100, std::int64_t tickUs) {
    auto ticks = [&](std::int64_t v) {
        return x100 ? formatGeneral(static_cast<double>(v) / 100.0) : std::to_string(v);
    };
    auto ms = [&](std::int64_t v) { return x100 ? review::ticksX100AsMs(v, tickUs) : review::ticksAsMs(v, tickUs); };
    std::string s = ticks(p.p50) + std::string("/") + ticks(p.p90) + std::string("/") + ticks(p.p99) + " ticks";
    if (tickUs > 0) {
        s += std::string(" (") + ms(p.p50) + std::string("/") + ms(p.p90) + std::string("/") + ms(p.p99) + " ms)";
    }
    return s;
}

} // namespace

std::string latencyLines(const review::RunOutcomes& run, const review::Slos& slos, const std::string& label) {
    const review::LatencyFigures f = review::latencyFigures(run);
    const std::string head = label.empty() ? "" : label + ": ";
    std::string out = head + std::string("p50/p90/p99 TTFT ") + triple(f.ttft_ticks, false, run.tick_us) + std::string(", TPOT ") +
                      triple(f.tpot_ticks_x100, true, run.tick_us) + std::string(", ITL ") +
                      triple(f.itl_ticks, false, run.tick_us) + ", longest gap " + std::to_string(f.itl_ticks.max) +
                      (run.tick_us > 0 ? " ticks (" + review::ticksAsMs(f.itl_ticks.max, run.tick_us) + " ms)" : " ticks") +
                      "\n";
    if (slos.any()) {
        const review::Goodput g = review::goodput(run, slos);
        std::string what;
        if (slos.ttft) what += std::string("TTFT <= ") + review::sloText(*slos.ttft);
        if (slos.tpot) what += (what.empty() ? "" : ", ") + std::string("TPOT <= ") + review::sloText(*slos.tpot);
        out += head + std::string("goodput (") + what + std::string("): ") + std::to_string(g.good) + std::string(" of ") + std::to_string(g.requests) +
               std::string(" requests = ") + formatFixed(g.percent(), 2) + std::string("%, ") + g.rateText() + std::string(" (") +
               std::to_string(g.censored) + std::string(" censored, ") + std::to_string(g.missed_ttft) + std::string(" over TTFT, ") +
               std::to_string(g.missed_tpot) + " over TPOT)\n";
    }
    return out;
}

} // namespace pl::cli
