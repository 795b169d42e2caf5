#pragma once
// Numbers as text, the same on every machine: these never read the C locale (the lab runs under Qt, which
// sets it from the environment, and a German desktop would otherwise put "0,35" into a workload's notes or
// "5,24 us/token" beside the CLI's "5.24"). Core formats every floating-point number it writes into text with
// these, never with printf's %f/%g or std::to_string(double).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pl {

std::string formatFixed(double v, int decimals); // "34.7" (printf's %.*f in the C locale)
std::string formatGeneral(double v);             // "0.35", "1e+06" (printf's %g in the C locale)
std::string formatThousands(std::int64_t v);     // "62,359"

// A byte count as a person types it: "1048576", "64G", "1.5GiB", "512MB". The suffix, in any case, is B; K, M,
// G or T with or without iB (powers of 1024); or KB, MB, GB, TB (powers of 1000). A decimal point is allowed
// when the bytes come out whole ("0.5K" is 512, "1.3K" is refused). No sign, spaces or separators; nullopt
// past 2^53 - 1 (JSON's exact integers).
std::optional<std::int64_t> parseByteSize(std::string_view text);
inline constexpr const char* kByteSizeForms =
    "a whole number, or one with K, M, G or T (powers of 1024; KiB to TiB too) or KB, MB, GB or TB (powers of "
    "1000), as in 64G, 1.5GiB or 512MB";
inline constexpr const char* kByteUnitsHint = "Takes units: 64G or 1.5GiB (powers of 1024), 512MB (powers of 1000).";

} // namespace pl
