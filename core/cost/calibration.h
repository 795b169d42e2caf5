#pragma once
// Calibration: what `preemptlab-cli calibrate` measured on a device, the fits made from it, and the
// calibration.json text (format "preemptlab.calibration.v1"). gpu/ measures it (gpu/calibration_run.h); everything
// after the measuring is plain arithmetic and file reading, so it belongs to the cost model here in core, where
// the CLI, the lab and gpu/'s live backend all read it, and it is tested on the CPU with synthetic measurements
// whose answer is known (tests/core/cost/test_calibration.cpp).
//
// Fits:  swap, per method x direction x block size:  us = fixed_us + bytes / (bandwidth_gbps x 1e3)
//        prefill (from position 0):                  us = c0 + c1 x tokens + c2 x tokens^2

#include "core/cost/swap_method.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pl::cost {

inline constexpr const char* kCalibrationFormat = "preemptlab.calibration.v1";

struct LinearFit {
    double intercept = 0.0;
    double slope = 0.0;
    double r2 = 0.0;
    std::int64_t n = 0;
};
// Ordinary least squares y = intercept + slope x. nullopt with fewer than 2 points or all x equal.
std::optional<LinearFit> fitLinear(const std::vector<double>& x, const std::vector<double>& y);
// Least squares with the intercept held at or above 0 (a copy's fixed cost cannot be negative): the ordinary
// fit when its intercept is >= 0, else the best line through the origin.
std::optional<LinearFit> fitLinearNonNegative(const std::vector<double>& x, const std::vector<double>& y);

struct QuadraticFit {
    double c0 = 0.0, c1 = 0.0, c2 = 0.0;
    double r2 = 0.0;
    std::int64_t n = 0;
};
// Least squares y = c0 + c1 x + c2 x^2. nullopt with fewer than 3 distinct x.
std::optional<QuadraticFit> fitQuadratic(const std::vector<double>& x, const std::vector<double>& y);

struct SwapSample {
    std::string method;    // per-block, batched, gather, reference (one contiguous cudaMemcpyAsync)
    std::string direction; // d2h, h2d
    std::int64_t block_size = 0; // tokens per block (0 for the reference copy)
    std::int64_t blocks = 0;
    std::int64_t bytes = 0;
    std::int64_t copies = 0; // API copies issued (per-block: blocks x layers x 2; gather: 0, one kernel)
    double us = 0.0;         // median of the repetitions
};

struct PrefillSample {
    std::int64_t tokens = 0;
    double us = 0.0;
    double flops = 0.0;
};

struct SwapFit {
    std::string method, direction;
    std::int64_t block_size = 0;
    double fixed_us = 0.0;
    double bandwidth_gbps = 0.0;
    double r2 = 0.0;
};

struct Calibration {
    // device
    std::string device_name;
    std::string compute_capability;
    int driver_version = 0;
    int runtime_version = 0;
    std::string model;               // transformer preset used for prefill and KV shape
    std::int64_t kv_bytes_per_token = 0;
    std::string kv_dtype;
    // raw measurements
    std::vector<SwapSample> swaps;
    std::vector<PrefillSample> prefills;
    double gemm_tflops = 0.0;        // measured: one large BF16 cuBLAS GEMM
    double peak_bf16_tflops = 0.0;   // the vendor's dense BF16 figure for this device, 0 when unknown
    // fits
    std::vector<SwapFit> swap_fits;
    std::optional<QuadraticFit> prefill_fit;
};

// Fits every (method, direction, block_size) group with at least 2 sizes, and the prefill curve.
void fitCalibration(Calibration& c);
// Largest-transfer bandwidth of a group divided by the reference copy's in the same direction (0 if absent).
double efficiencyVsReference(const Calibration& c, SwapMethod method, const std::string& direction,
                             std::int64_t blockSize);

// The live-mode targets (docs/live-mode.md "Targets") judged from what was measured, one line each, every line
// starting "target ":
//   target swap d2h at 16-token blocks: gather 91.2%, batched 88.0%, per-block 6.1% of the reference copy
//     (gather or batched needs >= 85%): met
//   target prefill 4096 tokens: 43.0% of 989.4 TFLOP/s dense BF16 (needs >= 40%): met
// A target with nothing to judge it by says "not measured" (no reference copy, no 16-token blocks, no prefill of
// 4,096 tokens or more) or, for prefill on a device without a datasheet peak, "not judged".
std::vector<std::string> targetReport(const Calibration& c);

nlohmann::json toJson(const Calibration& c);
// Reads a calibration.json strictly (unknown members, wrong types, unknown methods or directions, non-positive
// sizes and times are refused); on error returns the JSON pointer and the reason
// ("/measurements/swap/2/us: must be a finite number above 0, got -1"). The fits are recomputed.
std::optional<std::string> fromJson(const nlohmann::json& j, Calibration& out);
// Reads and checks FILE; on error "FILE: /json/pointer: reason" (or "FILE: not valid JSON at byte N: ...").
std::variant<Calibration, std::string> loadCalibrationFile(const std::string& path);

// The dense BF16 tensor-core figure from the vendor's datasheet for known devices (by name), else 0.
double datasheetBf16Tflops(const std::string& deviceName);

} // namespace pl::cost
