#pragma once
// Numbers as text, the same on every machine: these never read the C locale (the lab runs under Qt, which
// sets it from the environment, and a German desktop would otherwise put "0,35" into a workload's notes or
// "5,24 us/token" beside the CLI's "5.24"). Core formats every floating-point number it writes into text with
// these, never with printf's %f/%g or std::to_string(double).

#include <cstdint>
#include <string>

namespace pl {

std::string formatFixed(double v, int decimals); // "34.7" (printf's %.*f in the C locale)
std::string formatGeneral(double v);             // "0.35", "1e+06" (printf's %g in the C locale)
std::string formatThousands(std::int64_t v);     // "62,359"

} // namespace pl
