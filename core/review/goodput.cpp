#include "core/review/goodput.h"

#include "core/number_text.h"
#include "core/trace/fixed_point.h"

#include <algorithm>
#include <limits>

namespace pl::review {
namespace {

std::int64_t mulSat(std::int64_t a, std::int64_t b) { return mulSaturated(a, b); }

// `ticks` against the SLO: ticks x (tick_us when the SLO is in microseconds) <= value x `times`.
bool within(std::int64_t ticks, std::int64_t times, const Slo& slo, std::int64_t tickUs) {
    const std::int64_t scale = slo.unit == SloUnit::Micros ? tickUs : 1;
    return mulSat(ticks, scale) <= mulSat(slo.value, times);
}

} // namespace

Percentiles percentilesWithOnes(std::vector<std::int64_t> values, std::int64_t ones) {
    if (ones == 0) {
        return percentiles(std::move(values));
    }
    // Nearest rank as percentiles() takes it, over `ones` gaps of 1 followed by the sorted others (every gap is
    // at least 1, so the ones sort first).
    std::sort(values.begin(), values.end());
    Percentiles p;
    p.count = addSaturated(static_cast<std::int64_t>(values.size()), ones);
    auto rank = [&](std::int64_t pct) {
        // ceil(pct x count / 100) without forming pct x count (count may be near INT64_MAX here).
        const std::int64_t r = std::max<std::int64_t>(1, p.count / 100 * pct + (p.count % 100 * pct + 99) / 100);
        return r <= ones ? std::int64_t{1} : values[static_cast<std::size_t>(r - ones - 1)];
    };
    p.p50 = rank(50);
    p.p90 = rank(90);
    p.p99 = rank(99);
    p.max = values.empty() ? 1 : std::max<std::int64_t>(1, values.back());
    return p;
}

std::int64_t addSaturated(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) {
        return std::numeric_limits<std::int64_t>::max();
    }
    return out;
}

std::int64_t mulSaturated(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
        return std::numeric_limits<std::int64_t>::max();
    }
    return out;
}

LatencyFigures latencyFigures(const std::vector<const RequestOutcome*>& requests) {
    LatencyFigures f;
    std::vector<std::int64_t> queue, ttft, tpot, itl, completion;
    std::int64_t itlOnes = 0;
    for (const RequestOutcome* r : requests) {
        f.requests += 1;
        f.censored += r->completed ? 0 : 1;
        queue.push_back(r->queue_ticks);
        if (r->hasFirstToken()) {
            ttft.push_back(r->ttftTicks());
        }
        if (r->completed) {
            completion.push_back(r->completionTicks());
            if (r->generated_tokens > 1) {
                tpot.push_back((r->completion_tick - r->first_token_tick) * 100 / (r->generated_tokens - 1));
            }
        }
        itl.insert(itl.end(), r->itl.longer.begin(), r->itl.longer.end());
        itlOnes = addSaturated(itlOnes, r->itl.one_tick); // a hostile receipt may claim 2^53 tokens a request
    }
    f.queue_ticks = percentiles(std::move(queue));
    f.ttft_ticks = percentiles(std::move(ttft));
    f.tpot_ticks_x100 = percentiles(std::move(tpot));
    f.itl_ticks = percentilesWithOnes(std::move(itl), itlOnes);
    f.completion_ticks = percentiles(std::move(completion));
    return f;
}

LatencyFigures latencyFigures(const RunOutcomes& run) {
    std::vector<const RequestOutcome*> all;
    all.reserve(run.requests.size());
    for (const auto& r : run.requests) {
        all.push_back(&r);
    }
    return latencyFigures(all);
}

double ticksToMs(std::int64_t ticks, std::int64_t tickUs) {
    return static_cast<double>(ticks) * static_cast<double>(tickUs) / 1000.0;
}

std::string ticksAsMs(std::int64_t ticks, std::int64_t tickUs) { return formatGeneral(ticksToMs(ticks, tickUs)); }

std::string ticksX100AsMs(std::int64_t ticksX100, std::int64_t tickUs) {
    return formatGeneral(static_cast<double>(ticksX100) * static_cast<double>(tickUs) / 100000.0);
}

std::variant<Slo, std::string> parseSlo(std::string_view text, SloUnit unit) {
    Slo slo;
    slo.unit = unit;
    if (unit == SloUnit::Ticks) {
        const auto n = trace::parseNonNegative(text);
        if (!n) {
            return std::string("expected a whole number of ticks from 0 to 2^53-1, got '") + std::string(text) + "'";
        }
        slo.value = *n;
        return slo;
    }
    const auto us = trace::parseScaledDecimal(text, 3);
    if (!us) {
        return std::string("expected milliseconds (a non-negative decimal, e.g. 200 or 12.5), got '") + std::string(text) + "'";
    }
    slo.value = *us;
    return slo;
}

std::optional<std::string> sloProblem(const Slos& slos, std::int64_t tickUs) {
    if (tickUs > 0) {
        return std::nullopt;
    }
    for (const auto& [slo, name] : {std::pair{&slos.ttft, "ttft"}, std::pair{&slos.tpot, "tpot"}}) {
        if (slo->has_value() && (*slo)->unit == SloUnit::Micros) {
            return std::string("--slo-") + name + std::string("-ms: the workload has no tick length (config.tick_us), so ticks ") +
                   std::string("cannot be read as milliseconds; give --slo-") + name + "-ticks, or set tick_us in the workload";
        }
    }
    return std::nullopt;
}

std::string sloText(const Slo& slo) {
    if (slo.unit == SloUnit::Ticks) {
        return std::to_string(slo.value) + " ticks";
    }
    return formatGeneral(static_cast<double>(slo.value) / 1000.0) + " ms";
}

bool meetsTtft(const RequestOutcome& r, const Slo& slo, std::int64_t tickUs) {
    return r.completed && r.hasFirstToken() && within(r.ttftTicks(), 1, slo, tickUs);
}

bool meetsTpot(const RequestOutcome& r, const Slo& slo, std::int64_t tickUs) {
    if (!r.completed) {
        return false;
    }
    if (r.generated_tokens <= 1) {
        return true; // no second token: no time per output token
    }
    return within(r.completion_tick - r.first_token_tick, r.generated_tokens - 1, slo, tickUs);
}

double Goodput::percent() const {
    return requests == 0 ? 0.0 : static_cast<double>(good) * 100.0 / static_cast<double>(requests);
}

double Goodput::rate(bool* perSecond) const {
    if (perSecond != nullptr) {
        *perSecond = tick_us > 0;
    }
    if (ticks <= 0) {
        return 0.0;
    }
    if (tick_us > 0) {
        return static_cast<double>(good) * 1e6 / (static_cast<double>(ticks) * static_cast<double>(tick_us));
    }
    return static_cast<double>(good) * 1000.0 / static_cast<double>(ticks);
}

std::string Goodput::rateText() const {
    bool perSecond = false;
    const double r = rate(&perSecond);
    return formatFixed(r, 2) + (perSecond ? " req/s" : " req/1000 ticks");
}

bool Goodput::atLeast(std::int64_t basisPoints) const {
    return mulSat(good, 10000) >= mulSat(basisPoints, requests);
}

Goodput goodput(const RunOutcomes& run, const Slos& slos) {
    Goodput g;
    g.ticks = run.ticks;
    g.tick_us = run.tick_us;
    for (const auto& r : run.requests) {
        g.requests += 1;
        if (!r.completed) {
            g.censored += 1;
            continue;
        }
        const bool ttftOk = !slos.ttft || meetsTtft(r, *slos.ttft, run.tick_us);
        const bool tpotOk = !slos.tpot || meetsTpot(r, *slos.tpot, run.tick_us);
        g.missed_ttft += ttftOk ? 0 : 1;
        g.missed_tpot += tpotOk ? 0 : 1;
        g.good += ttftOk && tpotOk ? 1 : 0;
    }
    return g;
}

} // namespace pl::review
