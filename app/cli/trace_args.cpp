#include "app/cli/trace_args.h"

#include "core/errors.h"
#include "core/trace/fixed_point.h"
#include "core/utf8.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

namespace pl::cli {
namespace {

std::string keyOf(std::string flag) {
    std::replace(flag.begin(), flag.end(), '-', '_');
    return flag;
}

bool isWorkloadKey(const std::string& key) {
    const auto& c = configKeys();
    const auto& p = policyKeys();
    return std::find(c.begin(), c.end(), key) != c.end() || std::find(p.begin(), p.end(), key) != p.end();
}

std::string bad(const std::string& flag, const std::string& value, const std::string& want) {
    return "--" + flag + " '" + printable(value, 60) + "': expected " + want;
}

// Whether `text` is a number (decimal or with an exponent) above `max`: what the exact parsers refused as such is
// out of range, not badly formatted ("1e300", "9223372036854775807").
bool isNumberAbove(const std::string& text, double max) {
    double d = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    const bool whole = end == text.data() + text.size() && !text.empty() && text.front() != '-';
    const bool negativeExponent = text.find("e-") != std::string::npos || text.find("E-") != std::string::npos;
    return whole && (ec == std::errc::result_out_of_range ? !negativeExponent : ec == std::errc() && d > max);
}

// A refused value: out of range with the limit (`maxText`) when it is a number above `max`, else `want`.
std::string badOrOutOfRange(const std::string& flag, const std::string& value, const std::string& want,
                            double max, const std::string& maxText) {
    if (isNumberAbove(value, max)) {
        return "--" + flag + " '" + printable(value, 60) + "': out of range: at most " + maxText;
    }
    return bad(flag, value, want);
}

constexpr double kMaxSafe = static_cast<double>(kMaxSafeInteger);

std::optional<std::string> integerFlag(const Args& args, const std::string& flag, std::int64_t& out,
                                       std::int64_t min = 0) {
    if (auto v = args.value(flag)) {
        auto n = trace::parseNonNegative(*v);
        if (!n || *n < min) {
            return badOrOutOfRange(flag, *v, "a whole number from " + std::to_string(min) + " to 2^53-1", kMaxSafe,
                                   "2^53-1");
        }
        out = *n;
    }
    return std::nullopt;
}

std::optional<std::string> doubleFlag(const Args& args, const std::string& flag, double& out) {
    if (auto v = args.value(flag)) {
        double d = 0.0;
        const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), d);
        if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(d)) {
            return badOrOutOfRange(flag, *v, "a number", std::numeric_limits<double>::max(), "1.8e308");
        }
        out = d;
    }
    return std::nullopt;
}

// The largest value parseScaledDecimal(text, digits) takes: (2^53-1) / 10^digits, and as text.
double maxScaled(int digits) { return kMaxSafe / std::pow(10.0, digits); }
std::string maxScaledText(int digits) {
    std::string s = std::to_string(kMaxSafeInteger);
    s.insert(s.size() - static_cast<std::size_t>(digits), ".");
    return s;
}

// Decimal seconds or milliseconds to microseconds, exactly.
std::optional<std::string> microsFlag(const Args& args, const std::string& flag, int digits,
                                      std::optional<std::int64_t>& out) {
    if (auto v = args.value(flag)) {
        auto us = trace::parseScaledDecimal(*v, digits);
        if (!us) {
            return badOrOutOfRange(flag, *v, "a non-negative decimal number", maxScaled(digits), maxScaledText(digits));
        }
        out = *us;
    }
    return std::nullopt;
}

// "0:1,1:3" or "a:1,b:2" (value:weight, comma-separated).
template <typename T, typename Convert>
std::optional<std::string> mixFlag(const Args& args, const std::string& flag, Convert convert,
                                   std::vector<std::pair<T, std::int64_t>>& out) {
    auto v = args.value(flag);
    if (!v) {
        return std::nullopt;
    }
    out.clear();
    std::size_t at = 0;
    while (at <= v->size()) {
        const std::size_t end = std::min(v->find(',', at), v->size());
        const std::string item = v->substr(at, end - at);
        const auto colon = item.rfind(':');
        auto weight = colon == std::string::npos ? std::nullopt : trace::parseNonNegative(item.substr(colon + 1));
        std::optional<T> value = colon == std::string::npos ? std::nullopt : convert(item.substr(0, colon));
        if (!weight || !value) {
            const std::string want = "VALUE:WEIGHT pairs separated by commas, e.g. 0:1,1:3";
            // "0:99999999999999999999": a number too large is out of range, not badly formatted.
            const std::pair<const char*, std::string> parts[] = {
                {"weight", colon == std::string::npos ? std::string() : item.substr(colon + 1)},
                {"value", colon == std::string::npos || !std::is_integral_v<T> ? std::string() : item.substr(0, colon)}};
            for (const auto& [what, text] : parts) {
                if (isNumberAbove(text, kMaxSafe)) {
                    return "--" + flag + " '" + printable(*v, 60) + "': " + what + " " + printable(text, 40) +
                           " is out of range: at most 2^53-1";
                }
            }
            return bad(flag, *v, want);
        }
        out.emplace_back(*value, *weight);
        at = end + 1;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> applyWorkloadFlags(const Args& args, const std::set<std::string>& own, Workload& w) {
    for (const auto& [flag, value] : args.options) {
        if (own.count(flag)) {
            continue;
        }
        const std::string key = keyOf(flag);
        if (!isWorkloadKey(key)) {
            return "unknown option --" + flag;
        }
        if (auto err = applyOverride(w, key, value)) {
            return (err->path.empty() ? "--" + flag : err->path) + ": " + err->reason;
        }
    }
    return std::nullopt;
}

std::optional<std::string> tickMsFlag(const Args& args, std::int64_t& tickUs) {
    std::optional<std::int64_t> tick;
    if (auto err = microsFlag(args, "tick-ms", 3, tick)) {
        return err;
    }
    if (tick) {
        if (*tick < 1) {
            return bad("tick-ms", *args.value("tick-ms"), "at least 0.001");
        }
        tickUs = *tick;
    }
    return std::nullopt;
}

const std::set<std::string>& importOptionNames() {
    static const std::set<std::string> names = {"format", "out", "tick-ms", "start", "duration", "limit",
                                                "rate-scale", "max-output-tokens", "spread", "seed",
                                                "prefix-blocks", "name", "id-prefix", "model", "gpu"};
    return names;
}

std::optional<std::string> importOptionsFromArgs(const Args& args, trace::ImportOptions& o) {
    std::optional<std::int64_t> start;
    if (auto err = tickMsFlag(args, o.tick_us)) {
        return err;
    }
    if (auto err = microsFlag(args, "start", 6, start)) {
        return err;
    }
    o.start_us = start.value_or(0);
    if (auto err = microsFlag(args, "duration", 6, o.duration_us)) {
        return err;
    }
    std::int64_t n = 0;
    if (args.has("limit")) {
        if (auto err = integerFlag(args, "limit", n, 1)) {
            return err;
        }
        o.limit = n;
    }
    if (args.has("max-output-tokens")) {
        if (auto err = integerFlag(args, "max-output-tokens", n, 1)) {
            return err;
        }
        o.max_output_tokens = n;
    }
    if (auto v = args.value("rate-scale")) {
        auto r = trace::parseRational(*v);
        if (!r) {
            return badOrOutOfRange("rate-scale", *v, "a positive decimal with at most 6 fraction digits", kMaxSafe,
                                   "9007199254740991 (2^53-1)");
        }
        o.rate_scale = *r;
    }
    if (auto v = args.value("spread")) {
        if (*v == "off") {
            o.spread = trace::ImportOptions::Spread::Off;
        } else if (*v == "auto") {
            o.spread = trace::ImportOptions::Spread::Auto;
        } else {
            auto us = trace::parseScaledDecimal(*v, 3);
            if (!us) {
                return badOrOutOfRange("spread", *v, "off, auto or a window in milliseconds", maxScaled(3),
                                       maxScaledText(3) + " ms");
            }
            o.spread = *us > 0 ? trace::ImportOptions::Spread::Fixed : trace::ImportOptions::Spread::Off;
            o.spread_window_us = *us;
        }
    }
    std::int64_t seed = static_cast<std::int64_t>(o.seed);
    if (auto err = integerFlag(args, "seed", seed)) {
        return err;
    }
    o.seed = static_cast<std::uint64_t>(seed);
    if (auto v = args.value("prefix-blocks")) {
        if (*v != "on" && *v != "off") {
            return bad("prefix-blocks", *v, "on or off");
        }
        o.prefix_blocks = *v == "on";
    }
    o.skip_oversized = args.has("skip-oversized");
    o.name = args.value("name").value_or("");
    o.id_prefix = args.value("id-prefix").value_or("");
    return std::nullopt;
}

const std::set<std::string>& generatorOptionNames() {
    static const std::set<std::string> names = {
        "out", "seed", "count", "name", "arrivals", "rate", "burst-cv", "lengths", "lengths-from", "lengths-format",
        "prompt-median", "prompt-sigma", "output-median", "output-sigma", "prompt-min", "prompt-max", "output-min",
        "output-max", "priority-mix", "tenant-mix", "prefix-groups", "prefix-tokens", "prefix-share", "model", "gpu",
        "tick-ms"};
    return names;
}

std::optional<std::string> generatorParamsFromArgs(const Args& args, trace::GeneratorParams& p) {
    using G = trace::GeneratorParams;
    std::int64_t seed = static_cast<std::int64_t>(p.seed);
    for (auto err : {integerFlag(args, "seed", seed), integerFlag(args, "count", p.count, 1),
                     integerFlag(args, "prompt-min", p.prompt_min, 1), integerFlag(args, "prompt-max", p.prompt_max, 1),
                     integerFlag(args, "output-min", p.output_min, 1), integerFlag(args, "output-max", p.output_max, 1),
                     integerFlag(args, "prefix-groups", p.prefix_groups),
                     integerFlag(args, "prefix-tokens", p.prefix_tokens),
                     integerFlag(args, "prefix-share", p.prefix_share_percent),
                     doubleFlag(args, "rate", p.rate_per_tick), doubleFlag(args, "burst-cv", p.burst_cv),
                     doubleFlag(args, "prompt-median", p.prompt_median),
                     doubleFlag(args, "prompt-sigma", p.prompt_sigma),
                     doubleFlag(args, "output-median", p.output_median),
                     doubleFlag(args, "output-sigma", p.output_sigma)}) {
        if (err) {
            return err;
        }
    }
    p.seed = static_cast<std::uint64_t>(seed);
    p.name = args.value("name").value_or(p.name);
    if (auto v = args.value("arrivals")) {
        if (*v != "poisson" && *v != "gamma") {
            return bad("arrivals", *v, "poisson or gamma");
        }
        p.arrivals = *v == "poisson" ? G::Arrivals::Poisson : G::Arrivals::Gamma;
    }
    if (auto v = args.value("lengths")) {
        if (*v != "lognormal" && *v != "trace") {
            return bad("lengths", *v, "lognormal or trace (with --lengths-from FILE)");
        }
        p.lengths = *v == "lognormal" ? G::Lengths::Lognormal : G::Lengths::Empirical;
    }
    auto toPriority = [](const std::string& s) { return trace::parseNonNegative(s); };
    auto toTenant = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
    if (auto err = mixFlag<std::int64_t>(args, "priority-mix", toPriority, p.priority_mix)) {
        return err;
    }
    if (auto err = mixFlag<std::string>(args, "tenant-mix", toTenant, p.tenant_mix)) {
        return err;
    }
    return std::nullopt;
}

std::string commandLine(const char* program, int argc, char** argv) {
    std::string s = program;
    for (int i = 0; i < argc; ++i) {
        const std::string a = utf8Lossy(argv[i]); // notes are JSON text
        const bool quote = a.find_first_of(" \"'\\$") != std::string::npos || a.empty();
        s += " " + (quote ? "'" + a + "'" : a);
    }
    return s;
}

} // namespace pl::cli
