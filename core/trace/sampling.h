#pragma once
// Portable samplers over Rng (random.h). std:: distributions are implementation-defined, so these are
// written out. They use only + - * / and sqrt (IEEE-exact) and log, exp, cos (deterministic for a given
// glibc; the same on every x86-64 machine with the same libm), and no fused multiply-add is generated
// for x86-64 without -march flags, so a seed gives the same samples everywhere the project is built.

#include "core/trace/random.h"

namespace pl::trace {

double sampleExponential(Rng& rng, double mean);           // inverse CDF: -mean * log(U)
double sampleStandardNormal(Rng& rng);                     // Box-Muller, cosine branch only
double sampleLognormal(Rng& rng, double median, double sigma); // median * exp(sigma * Z)
// Gamma(shape, scale) by Marsaglia and Tsang (2000); shape < 1 uses Gamma(shape + 1) * U^(1/shape),
// computed as exp(log(U) / shape).
double sampleGamma(Rng& rng, double shape, double scale);

} // namespace pl::trace
