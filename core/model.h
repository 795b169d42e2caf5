#pragma once
// The model's vocabulary, shared by every file format and the engine: the tick, the integer range every file
// keeps to (0..2^53-1), the formats' names and the engine's name and version. What a run simulates (the
// machine, the policy, the requests) is in workload.h.

#include "generated/preemptlab_version.h" // generated from project(VERSION)

#include <cstdint>
#include <string_view>

namespace pl {

using Tick = std::int64_t;
inline constexpr std::int64_t kMaxSafeInteger = (std::int64_t{1} << 53) - 1;
inline constexpr std::string_view kWorkloadFormat = "preemptlab.workload.v1";
inline constexpr std::string_view kReceiptFormat = "preemptlab.receipt.v2";
// Receipts written before compact candidates (2026-12-03): every evict listed every candidate. `verify` still
// checks them, re-writing the run in that form (docs/receipt.md, "Formats").
inline constexpr std::string_view kReceiptFormatV1 = "preemptlab.receipt.v1";
inline constexpr std::string_view kEngineName = "preemptlab";
inline constexpr std::string_view kEngineVersion = PREEMPTLAB_VERSION;
inline constexpr std::string_view kTickModel = "tick-model-1";

// Integer ceil division for non-negative a and positive b.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

} // namespace pl
