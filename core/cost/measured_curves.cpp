#include "core/cost/measured_curves.h"

#include "core/cost/calibrated_rates.h"

#include <algorithm>
#include <cmath>

namespace pl::cost {

namespace {

// The block size whose fits are drawn: the wanted one if measured, else 16, else the first measured.
std::int64_t drawnBlockSize(const Calibration& c, std::int64_t wanted) {
    std::int64_t first = -1;
    bool has16 = false;
    for (const auto& f : c.swap_fits) {
        if (f.block_size == wanted) return wanted;
        has16 = has16 || f.block_size == 16;
        if (first < 0) first = f.block_size;
    }
    return has16 ? 16 : first;
}

// lo x (hi / lo)^(i / steps): `steps` + 1 log-spaced points from lo to hi.
double logStep(double lo, double hi, int i, int steps) {
    return lo * std::pow(hi / lo, static_cast<double>(i) / static_cast<double>(steps));
}

} // namespace

MeasuredCurves measuredCurves(const Calibration& c, std::int64_t wantedBlockSize, int steps, int fitSteps) {
    MeasuredCurves m;
    m.block_size = drawnBlockSize(c, wantedBlockSize);
    const std::int64_t bs = m.block_size;
    m.method = swapFitsOf(c, SwapMethod::Gather, bs) || c.swap_fits.empty()
                   ? SwapMethod::Gather
                   : parseSwapMethod(c.swap_fits.front().method).value_or(SwapMethod::Gather);
    // The measured ranges: the method's copy sizes at this block size, and the prefill lengths.
    const double kv = static_cast<double>(c.kv_bytes_per_token);
    double bytesLo = 0, bytesHi = 0, tokLo = 0, tokHi = 0;
    for (const auto& s : c.swaps) {
        if (s.method != toString(m.method) || s.block_size != bs) continue;
        const double b = static_cast<double>(s.bytes);
        bytesLo = bytesLo == 0 ? b : std::min(bytesLo, b);
        bytesHi = std::max(bytesHi, b);
    }
    for (const auto& p : c.prefills) {
        const double t = static_cast<double>(p.tokens);
        tokLo = tokLo == 0 ? t : std::min(tokLo, t);
        tokHi = std::max(tokHi, t);
    }
    for (int i = 0; i <= steps; ++i) {
        if (bytesHi > 0) {
            const double L = logStep(bytesLo, bytesHi, i, steps) / kv;
            if (auto v = measuredSwapUsPerToken(c, m.method, bs, c.kv_bytes_per_token, L)) {
                m.swap_us_per_token.x.push_back(L);
                m.swap_us_per_token.y.push_back(*v);
            }
        }
        if (tokHi > 0) {
            const double L = logStep(tokLo, tokHi, i, steps);
            if (auto v = measuredRecomputeUsPerToken(c, L)) {
                m.recompute_us_per_token.x.push_back(L);
                m.recompute_us_per_token.y.push_back(*v);
            }
        }
    }
    m.breakevens = measuredBreakevenContexts(c, m.method, bs, c.kv_bytes_per_token);
    // Every method and direction measured at this block size: the points, and the fitted line through their range.
    for (const SwapMethod method : kSwapMethods) {
        const auto fits = swapFitsOf(c, method, bs);
        for (const char* dir : {"d2h", "h2d"}) {
            SwapMeasurements s;
            s.method = method;
            s.direction = dir;
            for (const auto& sample : c.swaps) {
                if (sample.method == toString(method) && sample.direction == dir && sample.block_size == bs) {
                    s.points.x.push_back(static_cast<double>(sample.bytes));
                    s.points.y.push_back(sample.us);
                }
            }
            if (s.points.x.empty()) continue;
            if (fits) {
                const SwapFit& f = s.direction == "d2h" ? fits->first : fits->second;
                s.fit.x = s.points.x;
                std::sort(s.fit.x.begin(), s.fit.x.end());
                for (double b : s.fit.x) s.fit.y.push_back(f.fixed_us + b / (f.bandwidth_gbps * 1e3));
            }
            m.swaps.push_back(std::move(s));
        }
    }
    for (const auto& p : c.prefills) {
        m.prefill_points.x.push_back(static_cast<double>(p.tokens));
        m.prefill_points.y.push_back(p.us);
    }
    if (c.prefill_fit && tokHi > 0) {
        for (int i = 0; i <= fitSteps; ++i) {
            const double T = logStep(tokLo, tokHi, i, fitSteps);
            m.prefill_fit.x.push_back(T);
            m.prefill_fit.y.push_back(c.prefill_fit->c0 + c.prefill_fit->c1 * T + c.prefill_fit->c2 * T * T);
        }
    }
    return m;
}

} // namespace pl::cost
