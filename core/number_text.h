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

// A byte count as a person types it, the same in the CLI's flags and the lab's fields: "1048576", "64G",
// "1.5 GiB", "512 KB". A unit is K, M, G or T with an optional i and B, or B alone, in any case, all powers of
// 1024 (KB is KiB: KV caches are sized in binary units); spaces around the number and the unit are allowed.
// A decimal point is allowed when the bytes come out whole ("0.5K" is 512, "1.3K" is refused). No sign or
// separators; nullopt past 2^53 - 1 (JSON's exact integers).
std::optional<std::int64_t> parseByteSize(std::string_view text);
inline constexpr const char* kByteSizeForms =
    "a whole number of bytes, or one with K, M, G or T (KiB, MiB, GiB, TiB; all powers of 1024), as in 64G, "
    "1.5GiB or 512K";
inline constexpr const char* kByteUnitsHint = "Takes binary units: 64G, 1.5GiB, 512K.";

} // namespace pl
