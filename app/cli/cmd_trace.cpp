// Real traffic: import-trace (Azure and Mooncake traces -> workload) and generate (seeded synthetic
// workloads). Flag parsing lives in trace_args.cpp, the work in core/trace/.
#include "app/cli/commands.h"
#include "app/cli/machine_rates.h"
#include "app/cli/trace_args.h"

#include "core/atomic_file.h"
#include "core/cost/model_preset.h"
#include "core/run_control.h"
#include "core/summary.h"
#include "core/trace/fixed_point.h"
#include "core/trace/generator.h"
#include "core/trace/trace_importer.h"
#include "core/trace/workload_text.h"
#include "core/workload_io.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace pl::cli {
namespace {

int fail(const char* command, const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli %s: %s\n", command, message.c_str());
    return kExitBadInput;
}

std::string where(const InputError& e) { return e.message(); } // "FILE: PATH: reason", or from PATH on

// Requests that arrive at or after max_ticks would never enter the run (validation refuses them): the count, the
// last arrival and the flags that fix it (`fewer`: how to take fewer or earlier requests).
std::optional<std::string> lateArrivals(const Workload& w, const std::string& fewer) {
    std::int64_t late = 0;
    for (const auto& r : w.requests) {
        late += r.arrival_tick >= w.config.max_ticks ? 1 : 0;
    }
    if (late == 0) {
        return std::nullopt;
    }
    return std::to_string(late) + " of " + std::to_string(w.requests.size()) +
           " requests arrive at or after --max-ticks " + std::to_string(w.config.max_ticks) + " (last arrival tick " +
           std::to_string(w.requests.back().arrival_tick) + ") and would never run; raise --max-ticks above " +
           std::to_string(w.requests.back().arrival_tick) + " or " + fewer;
}

// Validates, renders and writes atomically (or to stdout for "-"). Nothing is written on any error.
int writeWorkload(const char* command, const Workload& w, const std::string& out, const std::string& fewer) {
    if (auto err = lateArrivals(w, fewer)) {
        return fail(command, *err);
    }
    if (auto err = validateWorkload(w)) {
        return fail(command, "the resulting workload is invalid: " + where(*err));
    }
    const std::string text = trace::workloadText(w);
    if (out == "-") {
        if (auto err = writeStdout(text)) {
            return fail(command, *err);
        }
        return kExitOk;
    }
    if (auto err = writeFileAtomically(out, text)) {
        std::fprintf(stderr, "preemptlab-cli %s: %s\n", command, err->c_str());
        return kExitBadInput;
    }
    return kExitOk;
}

const char* kImportUsage =
    "usage: preemptlab-cli import-trace --format azure|mooncake FILE --out WORKLOAD [options] [--<config or "
    "policy key> V ...]\n"
    "  --tick-ms MS           how long one tick lasts (default 20)\n"
    "  --start S              slice start, seconds after the trace's first arrival (default 0)\n"
    "  --duration S           slice length in seconds (default: to the end)\n"
    "  --limit N              at most N requests (the earliest in the slice)\n"
    "  --rate-scale R         arrivals R times as fast (R > 1 compresses, R < 1 stretches; default 1)\n"
    "  --max-output-tokens N  every request declares budget N; longer outputs are cut to N\n"
    "  --skip-oversized       skip requests that can never fit capacity_blocks (counted on stderr)\n"
    "  --spread off|auto|MS   mooncake: spread coarse timestamps within their window (auto: up to the next\n"
    "                         distinct one; default off)\n"
    "  --seed N               mooncake: seed for --spread (default 1)\n"
    "  --prefix-blocks on|off mooncake: map hash_ids to prefix_blocks (default on; see docs/traces.md)\n"
    "  --name NAME --id-prefix P   workload name (default: file name) and request id prefix (az / mc)\n"
    "  --model M --gpu G      the machine from the cost model's rates at --tick-ms (what `rates --model M --gpu G\n"
    "                         --tick-ms T` prints): block size, KV bytes per token, prefill and transfer rates,\n"
    "                         capacity, 4 GiB of host memory (vLLM's --swap-space default); config flags win\n"
    "  every config and policy key as a flag, e.g. --capacity-blocks 2048 --block-size-tokens 16\n";

// import-trace --help: what a config key not given is, read from Config's defaults.
std::string importDefaultsHelp() {
    const Config d;
    return "config defaults (without --model/--gpu: the seed example's small machine, not a GPU; stderr names the\n"
           "keys a run leaves at them): block_size_tokens " + std::to_string(d.block_size_tokens) +
           ", capacity_blocks " + std::to_string(d.capacity_blocks) + ", kv_bytes_per_token " +
           std::to_string(d.kv_bytes_per_token) + ",\n  prefill_tokens_per_tick " +
           std::to_string(d.prefill_tokens_per_tick) + ", transfer_bytes_per_tick " +
           std::to_string(d.transfer_bytes_per_tick) + ", host_capacity_bytes " +
           std::to_string(d.host_capacity_bytes) + ",\n  wait_threshold_ticks " + std::to_string(d.wait_threshold_ticks) +
           ", preemption_threshold " + std::to_string(d.preemption_threshold) + ";\n  max_ticks: last arrival tick + " +
           std::to_string(d.max_ticks) + " unless --max-ticks is given\n";
}

int runImportTrace(int argc, char** argv) {
    const char* cmd = "import-trace";
    ArgSpec spec;
    spec.valued = importOptionNames();
    spec.switches = {"skip-oversized", "help"};
    spec.allow_any_valued = true;
    Args args;
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return fail(cmd, *err);
    }
    if (args.has("help")) {
        std::printf("%s%s", kImportUsage, importDefaultsHelp().c_str());
        return kExitOk;
    }
    if (auto err = positionalProblem(args, {"trace FILE"})) {
        return fail(cmd, *err + "\n" + std::string(kImportUsage));
    }
    const auto formatName = args.value("format");
    const auto format = formatName ? trace::parseTraceFormat(*formatName) : std::nullopt;
    if (!formatName) {
        return fail(cmd, "--format azure|mooncake is required");
    }
    if (!format) {
        return fail(cmd, "--format: '" + *formatName + "' is not azure or mooncake");
    }
    // Mooncake's options: its timestamps come in ~3 s steps (--spread, with --seed) and its rows carry hash_ids
    // (--prefix-blocks). Azure's times are already fine-grained and it has no hash_ids: there they would do
    // nothing (--prefix-blocks) or shuffle good times (--spread), so they are refused rather than taken.
    if (*format == trace::TraceFormat::Azure) {
        for (const char* mooncakeOnly : {"spread", "seed", "prefix-blocks"}) {
            if (args.has(mooncakeOnly)) {
                return fail(cmd, std::string("--") + mooncakeOnly +
                                     " is for --format mooncake (coarse timestamps and hash_ids); an Azure trace has "
                                     "fine-grained times and no hash_ids");
            }
        }
    }
    const auto out = args.value("out");
    if (!out) {
        return fail(cmd, "--out WORKLOAD is required ('-' for stdout)");
    }
    if (auto err = checkOutputs({*out}, args.positional)) {
        return fail(cmd, *err);
    }
    trace::ImportOptions options;
    if (auto err = importOptionsFromArgs(args, options)) {
        return fail(cmd, *err);
    }
    Workload base;
    std::vector<std::string> fromRates; // the config keys --model/--gpu set
    if (auto err = applyMachineRates(args, static_cast<double>(options.tick_us), base.config, fromRates)) {
        return fail(cmd, *err);
    }
    if (auto err = applyWorkloadFlags(args, importOptionNames(), base)) {
        return fail(cmd, *err);
    }
    options.auto_max_ticks = !args.has("max-ticks");
    auto rows = trace::loadTraceFile(args.positional[0], *format);
    if (auto* e = std::get_if<InputError>(&rows)) {
        return fail(cmd, e->message());
    }
    auto imported = trace::importTrace(std::get<trace::TraceRows>(rows), options, base.config, base.policy);
    if (auto* e = std::get_if<InputError>(&imported)) {
        return fail(cmd, where(*e));
    }
    auto& [workload, report] = std::get<trace::ImportResult>(imported);
    if (workload.requests.empty() && report.skipped_oversized > 0) {
        return fail(cmd, printable(args.positional[0]) + ": all " + std::to_string(report.skipped_oversized) +
                             " requests in the slice were skipped as oversized (--skip-oversized): each needs more "
                             "than capacity_blocks " + std::to_string(base.config.capacity_blocks) +
                             "; raise --capacity-blocks, or cut outputs with --max-output-tokens N");
    }
    if (workload.requests.empty()) {
        return fail(cmd, printable(args.positional[0]) + ": the slice holds no requests (" +
                             std::to_string(report.rows_in_window) + " rows in the time window)");
    }
    workload.notes += " Command: " + commandLine("preemptlab-cli", argc, argv);
    if (int rc = writeWorkload(cmd, workload, *out, "take fewer with --limit N or --duration S"); rc != kExitOk) {
        return rc;
    }
    // The config defaults are the seed example's tiny machine, not a GPU: say which keys the user left there.
    fromRates.push_back("max_ticks"); // set from the last arrival, or given
    if (const auto left = configKeysLeftAtDefaults(args, workload.config, Config{}, fromRates); !left.empty()) {
        std::string keys;
        for (const auto& [key, value] : left) {
            keys += (keys.empty() ? "" : ", ") + key + " " + std::to_string(value);
        }
        const bool rated = args.has("model") || args.has("gpu");
        std::fprintf(stderr, "import-trace: note: config left at the defaults (the seed example's small machine): %s; %s\n",
                     keys.c_str(),
                     rated ? "--model/--gpu do not set them: give them as flags (import-trace --help)"
                           : "set them as flags, or --model M --gpu G for a GPU's rates (import-trace --help)");
    }
    std::fprintf(stderr,
                 "imported %lld of %lld requests (%lld in the time window, %lld skipped as oversized, %lld outputs "
                 "cut), last arrival tick %lld, %lld prefix block ids -> %s\n",
                 static_cast<long long>(report.imported), static_cast<long long>(report.rows_in_file),
                 static_cast<long long>(report.rows_in_window), static_cast<long long>(report.skipped_oversized),
                 static_cast<long long>(report.truncated_outputs), static_cast<long long>(report.last_arrival_tick),
                 static_cast<long long>(report.prefix_block_ids), printable(*out).c_str());
    return kExitOk;
}

const char* kGenerateUsage =
    "usage: preemptlab-cli generate --out WORKLOAD [options] [--<config or policy key> V ...]\n"
    "  --seed N --count N --name NAME           (defaults 1, 200, generated)\n"
    "  --arrivals poisson|gamma --rate R        arrivals per tick (default poisson, 0.2)\n"
    "  --burst-cv CV                            gamma gaps' coefficient of variation (0.001 to 100; default 3)\n"
    "  --lengths lognormal|trace                lognormal (default) or resampled from a trace\n"
    "  --prompt-median X --prompt-sigma X --output-median X --output-sigma X   (512, 0.9, 128, 0.9)\n"
    "  --prompt-min N --prompt-max N --output-min N --output-max N             clamps (1, 4096, 1, 1024)\n"
    "  --lengths-from FILE --lengths-format azure|mooncake   the trace for --lengths trace\n"
    "  --priority-mix 0:3,1:1 --tenant-mix a:1,b:2           VALUE:WEIGHT lists\n"
    "  --prefix-groups G --prefix-tokens T --prefix-share PCT   shared-prefix groups\n"
    "  --model M --gpu G [--tick-ms T]         the machine from the cost model's rates at T ms a tick\n"
    "                                           (default 20; as `rates` prints them, 4 GiB of host\n"
    "                                           memory: vLLM's --swap-space default); config flags win\n"
    "  every config and policy key as a flag; the generator's machine is 1024 blocks of 16 tokens, 512 prefill\n"
    "  tokens a tick, 131072 KV bytes per token, 256 MiB of link a tick, 8 GiB of host memory, max_ticks 200000\n";

int runGenerate(int argc, char** argv) {
    const char* cmd = "generate";
    ArgSpec spec;
    spec.valued = generatorOptionNames();
    spec.switches = {"help"};
    spec.allow_any_valued = true;
    Args args;
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return fail(cmd, *err);
    }
    if (args.has("help")) {
        std::printf("%s", kGenerateUsage);
        return kExitOk;
    }
    if (auto err = positionalProblem(args, {})) {
        return fail(cmd, *err);
    }
    const auto out = args.value("out");
    if (!out) {
        return fail(cmd, "--out WORKLOAD is required ('-' for stdout)");
    }
    std::vector<std::string> inputs;
    if (auto from = args.value("lengths-from")) {
        inputs.push_back(*from);
    }
    if (auto err = checkOutputs({*out}, inputs)) {
        return fail(cmd, *err);
    }
    trace::GeneratorParams params;
    if (auto err = generatorParamsFromArgs(args, params)) {
        return fail(cmd, *err);
    }
    Workload base;
    base.config = params.config;
    std::vector<std::string> fromRates;
    std::int64_t tickUs = 20'000;
    if (auto err = tickMsFlag(args, tickUs)) {
        return fail(cmd, *err);
    }
    if (args.has("tick-ms")) {
        if (!args.has("model") && !args.has("gpu")) {
            return fail(cmd, "--tick-ms sets the tick that --model/--gpu rates are computed at; give --model M "
                             "and/or --gpu G (or set the rates as flags)");
        }
        base.config.tick_us = tickUs; // the tick is known: the workload says so (config.tick_us)
    }
    if (auto err = applyMachineRates(args, static_cast<double>(tickUs), base.config, fromRates)) {
        return fail(cmd, *err);
    }
    if (auto err = applyWorkloadFlags(args, generatorOptionNames(), base)) {
        return fail(cmd, *err);
    }
    params.config = base.config;
    params.policy = base.policy;
    if (auto from = args.value("lengths-from")) {
        const auto format = trace::parseTraceFormat(args.value("lengths-format").value_or("azure"));
        if (!format) {
            return fail(cmd, "--lengths-format: expected azure or mooncake");
        }
        auto rows = trace::loadTraceFile(*from, *format);
        if (auto* e = std::get_if<InputError>(&rows)) {
            return fail(cmd, e->message());
        }
        for (const auto& r : std::get<trace::TraceRows>(rows).rows) {
            params.empirical.push_back({r.prompt_tokens, r.output_tokens});
        }
        if (!args.has("lengths")) {
            params.lengths = trace::GeneratorParams::Lengths::Empirical;
        }
    }
    // Refused up front where it cannot fit, rather than killed by the kernel on the way (10,000,000 requests).
    if (auto e = trace::checkGeneratedFits(params.count, availableMemoryBytes())) {
        return fail(cmd, where(*e));
    }
    auto generated = trace::generateWorkload(params);
    if (auto* e = std::get_if<InputError>(&generated)) {
        return fail(cmd, where(*e));
    }
    auto& workload = std::get<Workload>(generated);
    workload.notes += " Command: " + commandLine("preemptlab-cli", argc, argv);
    if (int rc = writeWorkload(cmd, workload, *out, "generate fewer (--count) or faster arrivals (--rate)");
        rc != kExitOk) {
        return rc;
    }
    // Lengths beyond the clamps are cut silently by the generator; a trace's long prompts are easily a majority
    // at the default --prompt-max (34 of 50 from the Mooncake conversation trace), so the count is said.
    std::int64_t promptsAtMax = 0;
    std::int64_t outputsAtMax = 0;
    for (const auto& r : workload.requests) {
        promptsAtMax += r.prompt_tokens == params.prompt_max ? 1 : 0;
        outputsAtMax += r.output_tokens == params.output_max ? 1 : 0;
    }
    for (const auto& [count, what, flag, max] :
         {std::tuple{promptsAtMax, "prompts", "--prompt-max", params.prompt_max},
          std::tuple{outputsAtMax, "outputs", "--output-max", params.output_max}}) {
        if (count > 0) {
            std::fprintf(stderr, "generate: warning: %lld of %zu %s are at %s %lld (longer ones were cut to it; "
                                 "raise %s to keep them)\n",
                         static_cast<long long>(count), workload.requests.size(), what, flag,
                         static_cast<long long>(max), flag);
        }
    }
    std::fprintf(stderr, "generated %zu requests, last arrival tick %lld -> %s\n", workload.requests.size(),
                 static_cast<long long>(workload.requests.back().arrival_tick), printable(*out).c_str());
    return kExitOk;
}

} // namespace

void registerTraceCommands(std::vector<Command>& table) {
    table.push_back({"import-trace", "import-trace --format azure|mooncake FILE --out WORKLOAD [...]",
                     "Import a slice of a public serving trace as a workload", &runImportTrace});
    table.push_back({"generate", "generate --out WORKLOAD [--seed N] [--arrivals poisson|gamma] [...]",
                     "Generate a seeded synthetic workload", &runGenerate});
}

} // namespace pl::cli
