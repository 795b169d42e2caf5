#include "core/cost/calibrated_rates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace pl::cost {

namespace {

constexpr double kMaxRate = 9007199254740991.0; // 2^53 - 1, the workload format's integer ceiling

double swapUs(const SwapFit& f, double bytes) { return f.fixed_us + bytes / (f.bandwidth_gbps * 1e3); }

double prefillUs(const QuadraticFit& f, double tokens) { return f.c0 + f.c1 * tokens + f.c2 * tokens * tokens; }

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// "per-block at 8, 16; gather at 16" for an error that says what the file does hold.
std::string fitsAvailable(const Calibration& c) {
    std::set<std::pair<std::string, std::int64_t>> pairs;
    for (const SwapFit& f : c.swap_fits) {
        pairs.insert({f.method, f.block_size});
    }
    std::string out;
    for (const auto& [method, bs] : pairs) {
        out += (out.empty() ? "" : ", ") + method + " at " + std::to_string(bs);
    }
    return out.empty() ? "none" : out;
}

// The measured range of one fit's copy sizes, to say when a rate is extrapolated.
std::pair<double, double> measuredBytes(const Calibration& c, const SwapFit& f) {
    double lo = 0.0, hi = 0.0;
    for (const SwapSample& s : c.swaps) {
        if (s.method == f.method && s.direction == f.direction && s.block_size == f.block_size) {
            const double b = static_cast<double>(s.bytes);
            lo = lo == 0.0 ? b : std::min(lo, b);
            hi = std::max(hi, b);
        }
    }
    return {lo, hi};
}

} // namespace

std::optional<std::pair<SwapFit, SwapFit>> swapFitsOf(const Calibration& c, SwapMethod method,
                                                      std::int64_t blockSize) {
    const SwapFit* out = nullptr;
    const SwapFit* in = nullptr;
    for (const SwapFit& f : c.swap_fits) {
        if (f.method == toString(method) && f.block_size == blockSize) {
            (f.direction == "d2h" ? out : in) = &f;
        }
    }
    if (!out || !in) {
        return std::nullopt;
    }
    return std::make_pair(*out, *in);
}

std::variant<CalibratedRates, RatesError> deriveRates(const Calibration& c, const RatesRequest& q) {
    if (!std::isfinite(q.tick_us) || q.tick_us <= 0.0 || q.tick_us > 1e12) {
        return RatesError{"tick", "must be above 0 and at most 1e9 ms"};
    }
    if (q.context_tokens < 1) {
        return RatesError{"context", "must be at least 1 token"};
    }
    if (q.kv_bytes_per_token < 1) {
        return RatesError{"kv_bytes_per_token", "must be at least 1"};
    }
    const auto fits = swapFitsOf(c, q.method, q.block_size_tokens);
    if (!fits) {
        return RatesError{"block_size_tokens",
                          "the calibration has no " + std::string(toString(q.method)) + " swap fit (both directions) at " +
                              std::to_string(q.block_size_tokens) + "-token blocks; it has: " + fitsAvailable(c) +
                              " (measure with `calibrate --block-sizes " + std::to_string(q.block_size_tokens) + "`)"};
    }
    if (!c.prefill_fit) {
        return RatesError{"prefill", "the calibration has no prefill fit (it needs 3 or more prefill lengths)"};
    }
    CalibratedRates r;
    std::tie(r.out_fit, r.in_fit) = *fits;
    r.prefill_fit = *c.prefill_fit;
    const double L = static_cast<double>(q.context_tokens);
    r.swap_bytes = L * static_cast<double>(q.kv_bytes_per_token);
    r.swap_out_us = swapUs(r.out_fit, r.swap_bytes);
    r.swap_in_us = swapUs(r.in_fit, r.swap_bytes);
    r.replay_us = prefillUs(r.prefill_fit, L);
    if (r.swap_out_us <= 0.0 || r.swap_in_us <= 0.0) {
        return RatesError{"context", "the swap fits give a non-positive time for " + fmt("%.0f", r.swap_bytes) +
                                         " bytes (a negative fixed cost extrapolated below the measured sizes)"};
    }
    if (r.replay_us <= 0.0) {
        return RatesError{"context", "the prefill fit gives " + fmt("%.3f", r.replay_us) + " us for " +
                                         std::to_string(q.context_tokens) +
                                         " tokens (extrapolated below the measured lengths)"};
    }
    r.effective_gbps = 2.0 * r.swap_bytes / (r.swap_out_us + r.swap_in_us) / 1e3;
    const double transfer = std::floor(q.tick_us * 2.0 * r.swap_bytes / (r.swap_out_us + r.swap_in_us));
    const double prefill = std::floor(q.tick_us * L / r.replay_us);
    if (transfer < 1.0 || prefill < 1.0) {
        return RatesError{"tick", "a tick of " + fmt("%.6g", q.tick_us / 1e3) + " ms " +
                                      (transfer < 1.0 ? "moves less than one byte" : "prefills less than one token") +
                                      " on the measured curves; use a longer tick"};
    }
    if (transfer > kMaxRate || prefill > kMaxRate) {
        return RatesError{"tick", "the rates exceed 2^53-1; use a shorter tick"};
    }
    r.transfer_bytes_per_tick = static_cast<std::int64_t>(transfer);
    r.prefill_tokens_per_tick = static_cast<std::int64_t>(prefill);

    for (const SwapFit* f : {&r.out_fit, &r.in_fit}) {
        const auto [lo, hi] = measuredBytes(c, *f);
        if (r.swap_bytes < lo || r.swap_bytes > hi) {
            r.notes.push_back(f->method + " " + f->direction + " is extrapolated: " + fmt("%.0f", r.swap_bytes) +
                              " bytes is outside the measured " + fmt("%.0f", lo) + " to " + fmt("%.0f", hi));
        }
    }
    std::int64_t lo = 0, hi = 0;
    for (const PrefillSample& p : c.prefills) {
        lo = lo == 0 ? p.tokens : std::min(lo, p.tokens);
        hi = std::max(hi, p.tokens);
    }
    if (q.context_tokens < lo || q.context_tokens > hi) {
        r.notes.push_back("prefill is extrapolated: " + std::to_string(q.context_tokens) +
                          " tokens is outside the measured " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    if (q.kv_bytes_per_token != c.kv_bytes_per_token) {
        r.notes.push_back("prefill was measured on " + c.model + " (" + std::to_string(c.kv_bytes_per_token) +
                          " B of KV per token); this workload declares " + std::to_string(q.kv_bytes_per_token) +
                          " B per token, so its replay rate is " + c.model + "'s");
    }
    return r;
}

std::variant<CalibratedMachine, RatesError> calibrateMachine(const Calibration& c, const Config& machine,
                                                             double tickUs, std::int64_t contextTokens,
                                                             SwapMethod method) {
    CalibratedMachine m;
    m.request.block_size_tokens = machine.block_size_tokens;
    m.request.kv_bytes_per_token = machine.kv_bytes_per_token;
    m.request.context_tokens = contextTokens;
    m.request.tick_us = tickUs;
    m.request.method = method;
    auto derived = deriveRates(c, m.request);
    if (auto* e = std::get_if<RatesError>(&derived)) return std::move(*e);
    m.rates = std::get<CalibratedRates>(std::move(derived));
    m.config = machine;
    m.config.transfer_bytes_per_tick = m.rates.transfer_bytes_per_tick;
    m.config.prefill_tokens_per_tick = m.rates.prefill_tokens_per_tick;
    // The rates are per tick of `tickUs`: that is the machine's tick length (config.tick_us, so its latencies read
    // in ms too), when it is a whole number of microseconds; otherwise config.tick_us stays as it was.
    if (const double whole = std::round(tickUs); whole >= 1.0 && whole < 9e15 && std::fabs(tickUs - whole) < 1e-6) {
        m.config.tick_us = static_cast<std::int64_t>(whole);
    }
    return m;
}

std::string describeRates(const Calibration& c, const RatesRequest& q, const CalibratedRates& r) {
    const std::string L = std::to_string(q.context_tokens);
    std::string s;
    s += "calibration: " + c.device_name + ", model " + c.model + "; tick " + fmt("%.3f", q.tick_us / 1e3) +
         " ms; victim length L = " + L + " tokens; " + std::string(toString(q.method)) + " swaps at " + std::to_string(q.block_size_tokens) +
         "-token blocks\n";
    s += "  swap fits       d2h " + fmt("%.3f", r.out_fit.fixed_us) + " us + bytes / " +
         fmt("%.3f", r.out_fit.bandwidth_gbps) + " GB/s (r2 " + fmt("%.4f", r.out_fit.r2) + "), h2d " +
         fmt("%.3f", r.in_fit.fixed_us) + " us + bytes / " + fmt("%.3f", r.in_fit.bandwidth_gbps) + " GB/s (r2 " +
         fmt("%.4f", r.in_fit.r2) + ")\n";
    s += "  swap of L       " + fmt("%.0f", r.swap_bytes) + " B each way (L x " + std::to_string(q.kv_bytes_per_token) +
         " B/token): out " + fmt("%.3f", r.swap_out_us) + " us + in " + fmt("%.3f", r.swap_in_us) + " us = " +
         fmt("%.3f", r.effective_gbps) + " GB/s effective\n";
    s += "  transfer_bytes_per_tick = " + std::to_string(r.transfer_bytes_per_tick) +
         " = floor(tick x 2 x bytes / (out + in))\n";
    s += "  prefill fit     " + fmt("%.6g", r.prefill_fit.c0) + " + " + fmt("%.6g", r.prefill_fit.c1) + " T + " +
         fmt("%.6g", r.prefill_fit.c2) + " T^2 us (r2 " + fmt("%.4f", r.prefill_fit.r2) + "): replay of L = " +
         fmt("%.3f", r.replay_us) + " us, " + fmt("%.4f", r.replay_us / static_cast<double>(q.context_tokens)) +
         " us/token\n";
    s += "  prefill_tokens_per_tick = " + std::to_string(r.prefill_tokens_per_tick) + " = floor(tick x L / replay)\n";
    for (const std::string& n : r.notes) {
        s += "note: " + n + "\n";
    }
    return s;
}

std::int64_t meanRequestContext(const pl::Workload& w) {
    if (w.requests.empty()) {
        return 1;
    }
    // Integer arithmetic: the default must not depend on floating-point rounding.
    std::int64_t sum = 0;
    for (const auto& r : w.requests) {
        sum += r.prompt_tokens + r.output_tokens;
    }
    return std::max<std::int64_t>(1, sum / static_cast<std::int64_t>(w.requests.size()));
}

std::optional<double> measuredSwapUsPerToken(const Calibration& c, SwapMethod method, std::int64_t blockSize,
                                             std::int64_t kvBytesPerToken, double context) {
    const auto fits = swapFitsOf(c, method, blockSize);
    if (!fits || context <= 0.0) {
        return std::nullopt;
    }
    const double bytes = context * static_cast<double>(kvBytesPerToken);
    return (swapUs(fits->first, bytes) + swapUs(fits->second, bytes)) / context;
}

std::optional<double> measuredRecomputeUsPerToken(const Calibration& c, double context) {
    if (!c.prefill_fit || context <= 0.0) {
        return std::nullopt;
    }
    return prefillUs(*c.prefill_fit, context) / context;
}

std::vector<double> measuredBreakevenContexts(const Calibration& c, SwapMethod method, std::int64_t blockSize,
                                              std::int64_t kvBytesPerToken) {
    const auto fits = swapFitsOf(c, method, blockSize);
    if (!fits || !c.prefill_fit) {
        return {};
    }
    const auto& [out, in] = *fits;
    const QuadraticFit& p = *c.prefill_fit;
    const double F = out.fixed_us + in.fixed_us;
    const double k = static_cast<double>(kvBytesPerToken) * (1.0 / out.bandwidth_gbps + 1.0 / in.bandwidth_gbps) / 1e3;
    // c2 L^2 + b L + c0' = 0
    const double a = p.c2, b = p.c1 - k, c0 = p.c0 - F;
    std::vector<double> roots;
    if (std::fabs(a) < 1e-300) {
        if (b != 0.0) {
            roots.push_back(-c0 / b);
        }
    } else {
        const double disc = b * b - 4.0 * a * c0;
        if (disc >= 0.0) {
            // The numerically stable pair: q = -(b + sign(b) sqrt(disc)) / 2, roots q / a and c0 / q.
            const double qv = -0.5 * (b + std::copysign(std::sqrt(disc), b));
            roots.push_back(qv / a);
            if (qv != 0.0) {
                roots.push_back(c0 / qv);
            }
        }
    }
    std::vector<double> positive;
    for (double r : roots) {
        if (std::isfinite(r) && r > 0.0) {
            positive.push_back(r);
        }
    }
    std::sort(positive.begin(), positive.end());
    positive.erase(std::unique(positive.begin(), positive.end()), positive.end());
    return positive;
}

} // namespace pl::cost
