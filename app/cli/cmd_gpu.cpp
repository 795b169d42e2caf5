// Live-mode commands: gpu-info, gpu-selftest, calibrate (gpu/device_api.h). Each exits 3 with the CUDA error
// text where no device is usable, including in a build without CUDA ("built without CUDA"). live-plan needs
// no device: it says what `run --live` would allocate. `run --live` is
// part of `run` (cmd_core.cpp), which asks pl::gpu::makeLiveBackend for the backend.
#include "app/cli/args.h"
#include "app/cli/commands.h"

#include "core/atomic_file.h"
#include "gpu/calibration_run.h"
#include "gpu/device_api.h"
#include "gpu/device_memory.h"
#include "core/errors.h"
#include "gpu/kv_layout.h"
#include "gpu/live_backend_core.h"
#include "gpu/no_device.h"
#include "core/summary.h"
#include "gpu/transformer_shape.h"
#include "app/cli/workload_flags.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace pl::cli {

namespace {

int usageError(const char* command, const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli %s: %s\n", command, message.c_str());
    return kExitBadInput;
}

int noDevice(const char* command, const std::string& why) {
    std::fprintf(stderr, "preemptlab-cli %s: %s\n", command, gpu::noDeviceText(why).c_str());
    return kExitNoDevice;
}

// "8,16,32" -> {8, 16, 32}; every entry from 1 to `max`.
std::optional<std::vector<std::int64_t>> parseList(const std::string& text, std::int64_t max) {
    std::vector<std::int64_t> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty() || item.size() > 12 || item.find_first_not_of("0123456789") != std::string::npos) {
            return std::nullopt;
        }
        const std::int64_t v = std::stoll(item);
        if (v < 1 || v > max) {
            return std::nullopt;
        }
        out.push_back(v);
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

int runGpuInfo(int argc, char** argv) {
    Args args;
    if (auto err = parseArgs(argc, argv, 1, ArgSpec{{}, {"json"}, false, {}}, args)) {
        return usageError("gpu-info", *err);
    }
    if (!args.positional.empty()) {
        return usageError("gpu-info", "unexpected argument '" + args.positional.front() + "'");
    }
    std::string why;
    const auto info = pl::gpu::probeDevice(&why);
    if (!info) {
        return noDevice("gpu-info", why);
    }
    if (args.has("json")) {
        const nlohmann::json j = {{"name", info->name},
                                  {"compute_capability", std::to_string(info->cc_major) + "." +
                                                             std::to_string(info->cc_minor)},
                                  {"sm_count", info->sm_count},
                                  {"total_bytes", info->total_bytes},
                                  {"free_bytes", info->free_bytes},
                                  {"driver_version", info->driver_version},
                                  {"runtime_version", info->runtime_version},
                                  {"cublas_version", info->cublas_version},
                                  {"batch_memcpy", info->batch_memcpy},
                                  {"can_map_host_memory", info->can_map_host_memory},
                                  {"pci_bus_id", info->pci_bus_id}};
        std::printf("%s\n", j.dump(2).c_str());
        return kExitOk;
    }
    std::printf("device 0: %s\n  compute capability %d.%d, %d SMs, %lld MiB (%lld MiB free), PCI %s\n"
                "  driver %d, runtime %d, cuBLAS %d\n  cudaMemcpyBatchAsync: %s; mapped pinned memory: %s\n",
                info->name.c_str(), info->cc_major, info->cc_minor, info->sm_count,
                static_cast<long long>(info->total_bytes >> 20), static_cast<long long>(info->free_bytes >> 20),
                info->pci_bus_id.c_str(), info->driver_version, info->runtime_version, info->cublas_version,
                info->batch_memcpy ? "yes" : "no", info->can_map_host_memory ? "yes" : "no");
    return kExitOk;
}

int runGpuSelftest(int argc, char** argv) {
    Args args;
    if (auto err = parseArgs(argc, argv, 1, ArgSpec{{"cycles"}, {}, false, {}}, args)) {
        return usageError("gpu-selftest", *err);
    }
    if (!args.positional.empty()) {
        return usageError("gpu-selftest", "unexpected argument '" + args.positional.front() + "'");
    }
    pl::gpu::SelftestOptions options;
    if (auto v = args.value("cycles")) {
        auto list = parseList(*v, 1000000);
        if (!list || list->size() != 1) {
            return usageError("gpu-selftest", "--cycles: expected a whole number from 1 to 1000000, got '" + *v + "'");
        }
        options.cycles = list->front();
    }
    std::string why;
    const int rc = pl::gpu::runSelftest(options, std::cout, &why);
    if (rc == kExitNoDevice) {
        return noDevice("gpu-selftest", why);
    }
    return rc == 0 ? kExitOk : kExitCheckFailed;
}

// calibration.json as calibrate writes it (after each phase and at the end); the error text or nullopt.
std::optional<std::string> writeCalibration(const std::string& path, const pl::cost::Calibration& c) {
    return pl::writeFileAtomically(path, pl::cost::toJson(c).dump(2) + "\n");
}

// Writes what calibrate measured: everything (0); some measurements failed (the file holds the rest, exit 1,
// each failure named); nothing measured (no file, exit 3: the failures say why the device is not usable).
int finishCalibration(const pl::cost::Calibration& c, const std::vector<std::string>& failures,
                      const std::string& path) {
    const pl::gpu::CalibrationEnd end = pl::gpu::calibrationEnd(c, failures);
    for (const std::string& f : failures) {
        std::fprintf(stderr, "preemptlab-cli calibrate: failed: %s\n", f.c_str());
    }
    if (end == pl::gpu::CalibrationEnd::Nothing) {
        std::fprintf(stderr, "preemptlab-cli calibrate: nothing was measured; %s not written\n", path.c_str());
        return kExitNoDevice;
    }
    if (auto e = writeCalibration(path, c)) {
        std::fprintf(stderr, "preemptlab-cli calibrate: %s\n", e->c_str());
        return kExitBadInput;
    }
    if (end == pl::gpu::CalibrationEnd::Partial) {
        std::fprintf(stderr, "calibrate: wrote %s without the %zu failed measurement(s) above\n", path.c_str(),
                     failures.size());
        return kExitCheckFailed;
    }
    std::fprintf(stderr, "calibrate: wrote %s\n", path.c_str());
    return kExitOk;
}

int runCalibrate(int argc, char** argv) {
    Args args;
    const ArgSpec spec{{"out", "model", "block-sizes", "copy-blocks", "prefill-tokens", "repetitions"}, {"quick"}, false, {}};
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return usageError("calibrate", *err);
    }
    if (!args.positional.empty()) {
        return usageError("calibrate", "unexpected argument '" + args.positional.front() + "'");
    }
    const auto out = args.value("out");
    if (!out || out->empty()) {
        return usageError("calibrate", "--out FILE is required");
    }
    if (auto err = checkOutputs({*out}, {})) { // before minutes of measuring
        std::fprintf(stderr, "preemptlab-cli calibrate: %s\n", err->c_str());
        return kExitBadInput;
    }
    pl::gpu::CalibrateOptions o;
    if (args.has("quick")) {
        o.block_sizes = {16};
        o.copy_blocks = {1, 16, 64};
        o.prefill_tokens = {512, 1024, 2048};
        o.repetitions = 3;
    }
    if (auto v = args.value("model")) {
        if (!pl::gpu::findTransformerPreset(*v)) {
            return usageError("calibrate", "--model: '" + *v + "' is not one of " + pl::gpu::transformerPresetNames());
        }
        o.model = *v;
    }
    const struct {
        const char* name;
        std::vector<std::int64_t>* target;
        std::int64_t max;
    } lists[] = {{"block-sizes", &o.block_sizes, 256},
                 {"copy-blocks", &o.copy_blocks, 4096},
                 {"prefill-tokens", &o.prefill_tokens, 65536}};
    for (const auto& l : lists) {
        if (auto v = args.value(l.name)) {
            auto parsed = parseList(*v, l.max);
            if (!parsed) {
                return usageError("calibrate", std::string("--") + l.name + ": expected comma-separated whole numbers " +
                                                   "from 1 to " + std::to_string(l.max) + ", got '" + *v + "'");
            }
            *l.target = *parsed;
        }
    }
    if (auto v = args.value("repetitions")) {
        auto parsed = parseList(*v, 100);
        if (!parsed || parsed->size() != 1) {
            return usageError("calibrate", "--repetitions: expected a whole number from 1 to 100, got '" + *v + "'");
        }
        o.repetitions = static_cast<int>(parsed->front());
    }
    std::string why;
    if (!pl::gpu::probeDevice(&why)) {
        return noDevice("calibrate", why);
    }
    pl::cost::Calibration c;
    std::vector<std::string> failures;
    // Written after each phase too, so a run cut off (a device-check timeout) leaves what it measured.
    const auto checkpoint = [&](const pl::cost::Calibration& sofar) {
        if (auto e = writeCalibration(*out, sofar)) {
            std::fprintf(stderr, "preemptlab-cli calibrate: %s\n", e->c_str());
        }
    };
    if (auto e = pl::gpu::runCalibration(o, c, std::cerr, &failures, checkpoint)) {
        std::fprintf(stderr, "preemptlab-cli calibrate: %s\n", e->c_str());
        return kExitNoDevice;
    }
    return finishCalibration(c, failures, *out);
}

// What `run --live` would allocate for a workload, without a device (pl::gpu::sizeLiveRun).
int runLivePlan(int argc, char** argv) {
    Args args;
    ArgSpec spec;
    spec.valued = workloadFlagNames();
    spec.valued.insert("model");
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return usageError("live-plan", *err);
    }
    if (auto err = positionalProblem(args, {"WORKLOAD"})) {
        return usageError("live-plan", *err);
    }
    auto w = loadWithOverrides(args.positional[0], args);
    if (!w) {
        return kExitBadInput;
    }
    pl::gpu::LiveOptions options;
    if (auto m = args.value("model")) {
        options.model = *m;
    }
    std::string error;
    const auto plan = pl::gpu::sizeLiveRun(*w, options, &error);
    if (!plan) {
        return usageError("live-plan", printable(args.positional[0]) + ": " + error);
    }
    const pl::gpu::KvLayout arena(plan->arena);
    const std::int64_t poolBytes = plan->host_slots * arena.blockBytes();
    std::printf("live plan for %s (run --live would allocate this; no device needed to plan)\n",
                args.positional[0].c_str());
    std::printf("  model      %s: %lld layers, %lld KV heads x %lld, %s KV\n", plan->model.name.c_str(),
                static_cast<long long>(plan->model.layers), static_cast<long long>(plan->model.kv_heads),
                static_cast<long long>(plan->model.head_dim), pl::gpu::toString(plan->arena.dtype));
    std::printf("  why        %s\n", plan->note.c_str());
    std::printf("  arena      %lld blocks of %lld tokens, %lld B per block: %s of device memory\n",
                static_cast<long long>(plan->arena.num_blocks), static_cast<long long>(plan->arena.block_size),
                static_cast<long long>(arena.blockBytes()), pl::formatBytes(arena.totalBytes()).c_str());
    std::printf("  host pool  %lld slot%s: %s of pinned host memory\n", static_cast<long long>(plan->host_slots),
                plan->host_slots == 1 ? "" : "s", pl::formatBytes(poolBytes).c_str());
    // The slots are host_capacity_bytes over the workload's (modelled) block, each holding a real block: where
    // the two block sizes differ, or the capacity holds no whole block, the pool's size is not the capacity.
    const pl::Config& cfg = w->config;
    const std::int64_t modelledBlock = cfg.kv_bytes_per_token * cfg.block_size_tokens;
    const std::int64_t wholeBlocks = cfg.host_capacity_bytes / std::max<std::int64_t>(1, modelledBlock);
    if (wholeBlocks == 0) {
        std::printf("             host_capacity_bytes %s holds no whole block of %s (%lld tokens x %lld B): the run\n"
                    "             swaps nothing out (victims fall back to recompute); one slot is allocated all the same\n",
                    pl::formatBytes(cfg.host_capacity_bytes).c_str(), pl::formatBytes(modelledBlock).c_str(),
                    static_cast<long long>(cfg.block_size_tokens), static_cast<long long>(cfg.kv_bytes_per_token));
    } else if (modelledBlock != arena.blockBytes()) {
        std::printf("             = host_capacity_bytes %s / %s per workload block (%lld tokens x %lld B); each slot\n"
                    "             holds one block of the model's real KV, %s\n",
                    pl::formatBytes(cfg.host_capacity_bytes).c_str(), pl::formatBytes(modelledBlock).c_str(),
                    static_cast<long long>(cfg.block_size_tokens), static_cast<long long>(cfg.kv_bytes_per_token),
                    pl::formatBytes(arena.blockBytes()).c_str());
    }
    std::printf("  weights    %s of synthetic bf16 layer weights (recompute runs the model on them)\n",
                pl::formatBytes(2 * pl::gpu::weightParams(plan->model)).c_str());
    pl::gpu::DeviceSetup setup;
    setup.arena = plan->arena;
    setup.with_model = true;
    setup.model = plan->model;
    std::printf("  device     needs %s free: arena and weights, and %s to spare for prefill scratch\n",
                pl::formatBytes(pl::gpu::deviceMemoryNeed(setup).total() + pl::gpu::kScratchReserveBytes).c_str(),
                pl::formatBytes(pl::gpu::kScratchReserveBytes).c_str());
    return kExitOk;
}

} // namespace

void registerGpuCommands(std::vector<Command>& table) {
    table.push_back({"gpu-info", "gpu-info [--json]", "Describe the CUDA device live mode would use (exit 3: none)",
                     runGpuInfo});
    table.push_back({"gpu-selftest", "gpu-selftest [--cycles N]",
                     "Check live mode on the device: swaps, recompute, kernels, leaks (exit 0/1, 3: no device)",
                     runGpuSelftest});
    table.push_back({"calibrate",
                     "calibrate --out FILE [--quick] [--model M] [--block-sizes 8,16,32] [--copy-blocks ...] "
                     "[--prefill-tokens ...] [--repetitions N]",
                     "Measure swap bandwidth and prefill time on the device, fit them, write calibration.json",
                     runCalibrate});
    table.push_back({"live-plan", "live-plan WORKLOAD [--<key> V ...] [--model M]",
                     "Say what run --live would allocate (model, arena, pinned pool, weights); no device needed",
                     runLivePlan});
}

} // namespace pl::cli
