#include "core/trace/sampling.h"

#include <cmath>

namespace pl::trace {

double sampleExponential(Rng& rng, double mean) { return -mean * std::log(rng.open01()); }

double sampleStandardNormal(Rng& rng) {
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    const double u1 = rng.open01();
    const double u2 = rng.open01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

double sampleLognormal(Rng& rng, double median, double sigma) {
    return median * std::exp(sigma * sampleStandardNormal(rng));
}

double sampleGamma(Rng& rng, double shape, double scale) {
    if (shape < 1.0) {
        const double g = sampleGamma(rng, shape + 1.0, 1.0);
        return scale * g * std::exp(std::log(rng.open01()) / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x = 0.0;
        double v = 0.0;
        do {
            x = sampleStandardNormal(rng);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = rng.open01();
        if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) {
            return scale * d * v;
        }
    }
}

} // namespace pl::trace
