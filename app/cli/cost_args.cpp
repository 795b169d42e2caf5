#include "app/cli/cost_args.h"

#include <charconv>
#include <cmath>

namespace pl::cli {

using pl::cost::CostInputs;

const std::set<std::string>& costOptionNames() {
    static const std::set<std::string> names = {
        "model", "gpu",   "layers", "heads", "kv-heads", "head-dim", "params", "kv-bytes", "weight-bytes",
        "tflops", "hbm-tbps", "hbm-gb", "mfu", "link-gbps", "tp", "block-size", "copy-overhead-us", "kv-layout",
        "context", "batch", "decode-context"};
    return names;
}

std::optional<double> parseReal(const std::string& text) {
    double v = 0.0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(v)) {
        return std::nullopt;
    }
    return v;
}

std::optional<double> parseCount(const std::string& text) {
    if (text.empty()) {
        return std::nullopt;
    }
    double scale = 1.0;
    switch (text.back()) {
    case 'k': case 'K': scale = 1e3; break;
    case 'M': scale = 1e6; break;
    case 'B': case 'G': scale = 1e9; break;
    case 'T': scale = 1e12; break;
    default: break;
    }
    auto v = parseReal(scale == 1.0 ? text : text.substr(0, text.size() - 1));
    if (!v) {
        return std::nullopt;
    }
    return *v * scale;
}

std::optional<std::int64_t> parseInteger(const std::string& text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc{} || ptr != end) {
        return std::nullopt;
    }
    return v;
}

namespace {

std::string bad(const std::string& flag, const std::string& value, const std::string& what) {
    return "--" + flag + ": '" + value + "' is not " + what;
}

// Applies one option to `in`; returns an error naming the flag.
std::optional<std::string> applyOne(const std::string& k, const std::string& v, CostInputs& in) {
    auto integer = [&](std::int64_t& field) -> std::optional<std::string> {
        auto n = parseInteger(v);
        if (!n) {
            return bad(k, v, "a whole number");
        }
        field = *n;
        return std::nullopt;
    };
    auto real = [&](double& field) -> std::optional<std::string> {
        auto n = parseReal(v);
        if (!n) {
            return bad(k, v, "a number");
        }
        field = *n;
        return std::nullopt;
    };
    if (k == "layers") return integer(in.model.layers);
    if (k == "heads") return integer(in.model.heads);
    if (k == "kv-heads") return integer(in.model.kv_heads);
    if (k == "head-dim") return integer(in.model.head_dim);
    if (k == "params") {
        auto n = parseCount(v);
        if (!n) {
            return bad(k, v, "a parameter count (8.03e9 or 8.03B)");
        }
        in.model.params = *n;
        return std::nullopt;
    }
    if (k == "kv-bytes" || k == "weight-bytes") {
        auto n = pl::cost::parseDtypeBytes(v);
        if (!n) {
            return bad(k, v, "bf16, fp16, fp8, fp32 or a byte count from 1 to 8");
        }
        (k == "kv-bytes" ? in.model.kv_dtype_bytes : in.model.weight_dtype_bytes) = *n;
        return std::nullopt;
    }
    if (k == "tflops") return real(in.hardware.bf16_tflops);
    if (k == "hbm-tbps") return real(in.hardware.hbm_tbps);
    if (k == "hbm-gb") return real(in.hardware.memory_gb);
    if (k == "mfu") return real(in.mfu);
    if (k == "link-gbps") {
        auto err = real(in.link_gbps);
        if (!err && in.link_gbps <= 0.0) {
            return "--link-gbps: must be above 0";
        }
        return err;
    }
    if (k == "tp") return integer(in.tp);
    if (k == "block-size") return integer(in.block_size);
    if (k == "copy-overhead-us") return real(in.copy_overhead_us);
    if (k == "kv-layout") {
        auto l = pl::cost::parseCopyLayout(v);
        if (!l) {
            return bad(k, v, "separate, together or batched");
        }
        in.layout = *l;
        return std::nullopt;
    }
    if (k == "context") return integer(in.context);
    if (k == "batch") return integer(in.batch);
    if (k == "decode-context") return integer(in.decode_context);
    return std::nullopt; // not a cost option (the command handles it)
}

} // namespace

std::optional<std::string> costInputsFromArgs(const Args& args, CostInputs& in) {
    // Model: a preset, or every architecture number.
    if (auto name = args.value("model")) {
        auto m = pl::cost::findModelPreset(*name);
        if (!m) {
            return "--model: unknown preset '" + *name + "' (known: " + pl::cost::modelPresetNames() + ")";
        }
        in.model = *m;
    } else {
        const bool custom = args.has("layers") || args.has("heads") || args.has("kv-heads") ||
                            args.has("head-dim") || args.has("params");
        if (custom) {
            for (const char* need : {"layers", "heads", "kv-heads", "head-dim", "params"}) {
                if (!args.has(need)) {
                    return std::string("--") + need + ": needed for a model given by its numbers (or name a preset with --model and change single fields)";
                }
            }
            in.model = pl::cost::ModelSpec{"custom", "custom model", 0, 0, 0, 0, 0.0, 2, 2};
        } else {
            in.model = *pl::cost::findModelPreset(pl::cost::kDefaultModelPreset);
        }
    }
    // GPU: a preset, or its numbers.
    if (auto name = args.value("gpu")) {
        auto h = pl::cost::findHardwarePreset(*name);
        if (!h) {
            return "--gpu: unknown preset '" + *name + "' (known: " + pl::cost::hardwarePresetNames() + ")";
        }
        in.hardware = *h;
    } else if (args.has("tflops") || args.has("hbm-tbps")) {
        for (const char* need : {"tflops", "hbm-tbps", "link-gbps"}) {
            if (!args.has(need)) {
                return std::string("--") + need + ": needed for a GPU given by its numbers (or use --gpu)";
            }
        }
        in.hardware = pl::cost::HardwareSpec{"custom", "custom GPU", 0.0, 0.0, 0.0, "host link", 0.0};
    } else {
        in.hardware = *pl::cost::findHardwarePreset(pl::cost::kDefaultHardwarePreset);
    }
    for (const auto& [k, v] : args.options) {
        if (auto err = applyOne(k, v, in)) {
            return err;
        }
    }
    if (auto err = pl::cost::validateCostInputs(in)) {
        return "--" + err->field + ": " + err->reason;
    }
    return std::nullopt;
}

} // namespace pl::cli
