#pragma once
// SwapMethod: how a swap copies a request's blocks between the device arena and the host pool, in one enum for
// the calibration (core/cost), the CLI's --swap-method and live mode's copies (gpu/). The names are those of
// calibration.json's swap samples and fits ("per-block", "batched", "gather"; docs/calibration.md).
//   per-block: one copy per block per layer per K/V (vLLM V0's swap_blocks);
//   batched:   a coalesced plan submitted in one cudaMemcpyBatchAsync;
//   gather:    one kernel walks the block table (live mode's default).

#include <optional>
#include <string>
#include <string_view>

namespace pl {

enum class SwapMethod : int { PerBlock = 0, Batched = 1, Gather = 2 };

inline constexpr SwapMethod kSwapMethods[] = {SwapMethod::PerBlock, SwapMethod::Batched, SwapMethod::Gather};

constexpr std::string_view toString(SwapMethod m) {
    switch (m) {
    case SwapMethod::PerBlock: return "per-block";
    case SwapMethod::Batched: return "batched";
    case SwapMethod::Gather: return "gather";
    }
    return "gather";
}

inline std::optional<SwapMethod> parseSwapMethod(std::string_view s) {
    for (SwapMethod m : kSwapMethods) {
        if (s == toString(m)) return m;
    }
    return std::nullopt;
}

} // namespace pl
