#pragma once
// Latency distributions, SLOs and goodput over a finished run's outcomes (review/outcomes.h). Integer
// arithmetic throughout (nearest-rank percentiles, SLO tests by cross-multiplication), so a figure is the same
// on every machine; only the ms and rate figures shown to people are floating point, and nothing here is hashed.

#include "core/review/outcomes.h"
#include "core/summary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl::review {

// Distributions of one group of requests (a whole run, or one bucket of a report).
struct LatencyFigures {
    std::int64_t requests = 0;
    std::int64_t censored = 0;
    Percentiles queue_ticks;      // every request (censored ones with the queue time they had)
    Percentiles ttft_ticks;       // requests with a first token
    Percentiles tpot_ticks_x100;  // completed requests with more than one token: (completion - first) * 100 / (n - 1)
    Percentiles itl_ticks;        // every inter-token gap of every request, pooled (outcomes.h: itlGaps)
    Percentiles completion_ticks; // completed requests: completion - arrival
};
LatencyFigures latencyFigures(const std::vector<const RequestOutcome*>& requests);
LatencyFigures latencyFigures(const RunOutcomes& run);

// percentiles() of `values` together with `ones` more values of 1 (every value at least 1): ITL's gaps.
Percentiles percentilesWithOnes(std::vector<std::int64_t> values, std::int64_t ones);

// A tick count in milliseconds at `tickUs` microseconds a tick, as text ("12.5"); x100 for TPOT's x100 figures.
std::string ticksAsMs(std::int64_t ticks, std::int64_t tickUs);
std::string ticksX100AsMs(std::int64_t ticksX100, std::int64_t tickUs);
double ticksToMs(std::int64_t ticks, std::int64_t tickUs);

// a x b for non-negative a and b, saturated at INT64_MAX (comparisons of absurd figures stay comparisons).
std::int64_t mulSaturated(std::int64_t a, std::int64_t b);
std::int64_t addSaturated(std::int64_t a, std::int64_t b);

// A latency objective: at most `value` ticks, or `value` microseconds (given in ms on the command line).
enum class SloUnit : std::uint8_t { Ticks, Micros };
struct Slo {
    std::int64_t value = 0;
    SloUnit unit = SloUnit::Ticks;
};
struct Slos {
    std::optional<Slo> ttft;
    std::optional<Slo> tpot;
    bool any() const { return ttft.has_value() || tpot.has_value(); }
};
// "250" ticks (a whole number) or "12.5" ms (at most 3 decimals: whole microseconds); the reason otherwise.
std::variant<Slo, std::string> parseSlo(std::string_view text, SloUnit unit);
// Why these SLOs cannot be applied to a run whose tick length is `tickUs` (0: unknown): an SLO in ms needs the
// workload's config.tick_us. `flag` names the offending flag ("--slo-ttft-ms").
std::optional<std::string> sloProblem(const Slos& slos, std::int64_t tickUs);
// The SLO as text: "200 ticks" or "12.5 ms".
std::string sloText(const Slo& slo);

// Whether a request met each objective. TTFT: first_token - arrival <= SLO. TPOT: (completion - first_token) /
// (generated - 1) <= SLO, tested as (completion - first_token) <= SLO x (generated - 1); a one-token request's
// TPOT is 0. A request that never completed meets neither (censored requests are misses, never dropped).
bool meetsTtft(const RequestOutcome& r, const Slo& slo, std::int64_t tickUs);
bool meetsTpot(const RequestOutcome& r, const Slo& slo, std::int64_t tickUs);

struct Goodput {
    std::int64_t requests = 0;     // every request of the run, censored ones included
    std::int64_t good = 0;         // completed within every given SLO
    std::int64_t censored = 0;     // never completed: counted as misses
    std::int64_t missed_ttft = 0;  // completed, over the TTFT SLO
    std::int64_t missed_tpot = 0;  // completed, over the TPOT SLO
    std::int64_t ticks = 0;        // the run's length (totals.ticks)
    std::int64_t tick_us = 0;
    double percent() const;        // good / requests x 100 (0 for no requests)
    // good per second of run time (tick_us known), else per 1000 ticks; `perSecond` says which.
    double rate(bool* perSecond = nullptr) const;
    std::string rateText() const;  // "3.21 req/s" or "4.50 req/1000 ticks"
    // good / requests >= basisPoints / 10000, exactly.
    bool atLeast(std::int64_t basisPoints) const;
};
Goodput goodput(const RunOutcomes& run, const Slos& slos);

} // namespace pl::review
