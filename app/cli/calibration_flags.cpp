#include "calibration_flags.h"

#include "cost_args.h"
#include "workload_flags.h"

#include "calibrated_rates.h"
#include "workload_io.h"

#include <cstdio>
#include <variant>

namespace pl::cli {

std::set<std::string> calibrationFlagNames() {
    return {"calibration", "tick-ms", "swap-method", "calibration-context"};
}

namespace {

// Where a derivation error points: the flag that set the value, or the workload field it came from.
std::string locate(const std::string& field, const std::string& file) {
    if (field == "tick") return "--tick-ms";
    if (field == "context") return "--calibration-context";
    if (field == "method") return "--swap-method";
    if (field == "block_size_tokens" || field == "kv_bytes_per_token") return file + ": /config/" + field;
    return "--calibration";
}

} // namespace

bool applyCalibrationFlags(const Args& args, const std::string& file, Workload& w,
                           std::optional<gpu::Calibration>& used) {
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
    gpu::RatesRequest q;
    q.block_size_tokens = w.config.block_size_tokens;
    q.kv_bytes_per_token = w.config.kv_bytes_per_token;
    q.context_tokens = gpu::meanRequestContext(w);
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
    q.tick_us = *ms * 1e3;
    if (auto m = args.value("swap-method")) {
        q.method = *m;
    }
    if (auto l = args.value("calibration-context")) {
        const auto n = parseInteger(*l);
        if (!n || *n < 1) {
            badInput("--calibration-context: expected a whole number of tokens from 1, got '" + *l + "'");
            return false;
        }
        q.context_tokens = *n;
    }
    auto loaded = gpu::loadCalibrationFile(*path);
    if (const auto* e = std::get_if<std::string>(&loaded)) {
        badInput(*e);
        return false;
    }
    const auto& c = std::get<gpu::Calibration>(loaded);
    const auto derived = gpu::deriveRates(c, q);
    if (const auto* e = std::get_if<gpu::RatesError>(&derived)) {
        badInput(locate(e->field, file) + ": " + e->reason + " (calibration " + *path + ")");
        return false;
    }
    const auto& r = std::get<gpu::CalibratedRates>(derived);
    w.config.transfer_bytes_per_tick = r.transfer_bytes_per_tick;
    w.config.prefill_tokens_per_tick = r.prefill_tokens_per_tick;
    if (auto err = validateWorkload(w)) {
        InputError e = *err;
        e.file = file + " (after --calibration " + *path + ")";
        badInput(e.message());
        return false;
    }
    std::fprintf(stderr, "%s: %s", path->c_str(), gpu::describeRates(c, q, r).c_str());
    used = c;
    return true;
}

} // namespace pl::cli
