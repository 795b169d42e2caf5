#include "app/cli/calibration_flags.h"

#include "app/cli/cost_args.h"
#include "app/cli/workload_flags.h"

#include "core/cost/calibrated_rates.h"
#include "core/workload_io.h"

#include <cmath>
#include <cstdio>
#include <variant>

namespace pl::cli {

std::set<std::string> calibrationFlagNames() {
    return {"calibration", "tick-ms", "swap-method", "calibration-context"};
}

std::variant<SwapMethod, std::string> swapMethodFlag(const Args& args) {
    const auto given = args.value("swap-method");
    if (!given) return SwapMethod::Gather;
    if (const auto m = parseSwapMethod(*given)) return *m;
    return "--swap-method: must be per-block, batched or gather, got '" + *given + "'";
}

namespace {

// Where a derivation error points: the flag that set the value, or the workload field it came from.
std::string locate(const std::string& field, const std::string& file) {
    if (field == "tick") return "--tick-ms";
    if (field == "context") return "--calibration-context";
    if (field == "block_size_tokens" || field == "kv_bytes_per_token") return file + ": /config/" + field;
    return "--calibration";
}

} // namespace

bool applyCalibrationFlags(const Args& args, const std::string& file, Workload& w,
                           std::optional<cost::Calibration>& used) {
    const auto path = args.value("calibration");
    if (!path) {
        for (const char* flag : {"tick-ms", "swap-method", "calibration-context"}) {
            if (args.has(flag)) {
                badInput(std::string("--") + flag + ": only with --calibration FILE");
                return false;
            }
        }
        return true;
    }
    // The derived rates replace two declared ones; setting them by hand as well would be ambiguous.
    for (const char* flag : {"transfer-bytes-per-tick", "prefill-tokens-per-tick"}) {
        if (args.has(flag)) {
            badInput(std::string("--") + flag + ": --calibration derives it; give one or the other");
            return false;
        }
    }
    std::int64_t context = cost::meanRequestContext(w);
    const auto tick = args.value("tick-ms");
    if (!tick) {
        badInput("--calibration needs --tick-ms MS: the length of one tick in milliseconds");
        return false;
    }
    const auto ms = parseReal(*tick);
    if (!ms || *ms <= 0.0) {
        badInput("--tick-ms: expected milliseconds above 0, got '" + *tick + "'");
        return false;
    }
    const auto method = swapMethodFlag(args);
    if (const auto* e = std::get_if<std::string>(&method)) {
        badInput(*e);
        return false;
    }
    if (auto l = args.value("calibration-context")) {
        const auto n = parseInteger(*l);
        if (!n || *n < 1) {
            badInput("--calibration-context: expected a whole number of tokens from 1, got '" + *l + "'");
            return false;
        }
        context = *n;
    }
    auto loaded = cost::loadCalibrationFile(*path);
    if (const auto* e = std::get_if<std::string>(&loaded)) {
        badInput(*e);
        return false;
    }
    const auto& c = std::get<cost::Calibration>(loaded);
    const auto derived = cost::calibrateMachine(c, w.config, *ms * 1e3, context, std::get<SwapMethod>(method));
    if (const auto* e = std::get_if<cost::RatesError>(&derived)) {
        badInput(locate(e->field, file) + ": " + e->reason + " (calibration " + *path + ")");
        return false;
    }
    const auto& r = std::get<cost::CalibratedMachine>(derived);
    const Config before = w.config;
    w.config = r.config;
    // calibrateMachine makes --tick-ms the workload's tick length (config.tick_us) when it is whole microseconds.
    if (w.config.tick_us != before.tick_us && before.tick_us != 0) {
        std::fprintf(stderr, "%s: note: config.tick_us %lld replaced by --tick-ms %s (the calibrated rates' tick)\n",
                     file.c_str(), static_cast<long long>(before.tick_us), tick->c_str());
    } else if (w.config.tick_us == before.tick_us && static_cast<double>(w.config.tick_us) != std::round(*ms * 1e3)) {
        std::fprintf(stderr, "%s: note: --tick-ms %s is not a whole number of microseconds; config.tick_us is left %s\n",
                     file.c_str(), tick->c_str(), before.tick_us != 0 ? "as it was" : "unset");
    }
    if (auto err = validateWorkload(w)) {
        InputError e = *err;
        e.file = file + " (after --calibration " + *path + ")";
        badInput(e.message());
        return false;
    }
    std::fprintf(stderr, "%s: %s", path->c_str(), cost::describeRates(c, r.request, r.rates).c_str());
    used = c;
    return true;
}

} // namespace pl::cli
