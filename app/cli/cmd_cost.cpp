// The cost model's commands: breakeven (swap vs recompute per token), rates (tick rates from physical
// numbers) and sweep (cmd_sweep.cpp). Parsing of the model/GPU flags lives in cost_args.cpp.
#include "app/cli/commands.h"
#include "app/cli/cost_args.h"
#include "app/cli/measured_cost.h"
#include "app/cli/sweep_cli.h"

#include "core/number_text.h"
#include "core/cost/cost_report.h"
#include "core/cost/tick_rates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pl::cli {

namespace {

int usageError(const char* command, const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli %s: %s\n", command, message.c_str());
    return kExitBadInput;
}

ArgSpec costSpec(std::initializer_list<const char*> extraValued) {
    ArgSpec spec;
    spec.valued = costOptionNames();
    for (const char* v : extraValued) {
        spec.valued.insert(v);
    }
    spec.switches = {"json", "help"};
    return spec;
}

const char* kCostFlagsHelp =
    "  --model NAME        preset: llama-3.1-8b (default), llama-3.1-70b, llama-2-7b, mistral-7b, qwen2.5-7b\n"
    "  --layers --heads --kv-heads --head-dim --params   a model by its numbers (all five without --model)\n"
    "  --kv-bytes bf16|fp16|fp8|fp32|N   KV dtype or bytes per element, 1 to 8 (default bf16)\n"
    "  --weight-bytes bf16|fp16|fp8|fp32|N   bytes per weight a decode step reads (default bf16)\n"
    "  --gpu NAME          preset: h100-sxm (default), h200, a100-80gb, l40s\n"
    "  --tflops --hbm-tbps --link-gbps   a GPU by its numbers (dense BF16 TFLOP/s, TB/s, GB/s per direction)\n"
    "  --hbm-gb GB         device memory (for rates' capacity_blocks)\n"
    "  --link-gbps GB/s    achieved host link per direction (default: the preset's paper figure)\n"
    "  --mfu F             prefill model FLOP utilisation, (0,1] (default 0.5)\n"
    "  --tp N              tensor-parallel degree (default 1)\n"
    "  --block-size N      tokens per KV block (default 16)\n"
    "  --kv-layout separate|together|batched   K/V per layer in separate tensors (default), together, or\n"
    "                      one batched copy per request\n"
    "  --copy-overhead-us US   fixed cost per copy call (default 0)\n"
    "  --context L         tokens to swap or recompute (default 4096)\n"
    "  --batch B --decode-context C   decode step for the spare-compute figure (default 64 x 2048)\n"
    "  --calibration FILE  a calibration.json (calibrate): its measured curves, priced the same way, beside\n"
    "                      the model's figures   --swap-method per-block|batched|gather (default gather)\n";

int runBreakeven(int argc, char** argv) {
    Args args;
    if (auto err = parseArgs(argc, argv, 1, costSpec({"calibration", "swap-method"}), args)) {
        return usageError("breakeven", *err);
    }
    if (args.has("help")) {
        std::printf("usage: preemptlab-cli breakeven [flags] [--json]\n%s", kCostFlagsHelp);
        return kExitOk;
    }
    if (!args.positional.empty()) {
        return usageError("breakeven", "unexpected argument '" + args.positional.front() + "'");
    }
    pl::cost::CostInputs in;
    if (auto err = costInputsFromArgs(args, in)) {
        return usageError("breakeven", *err);
    }
    const auto out = pl::cost::computeCost(in);
    // Per-token costs do not depend on the tick; a nominal second only validates the fits.
    std::optional<MeasuredCost> measured;
    if (auto err = measuredCostFromArgs(args, in, out, 1e6, measured)) {
        return usageError("breakeven", *err);
    }
    if (args.has("json")) {
        auto j = pl::cost::costReportJson(in, out);
        if (measured) j["measured"] = measuredCostJson(*measured);
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        std::printf("%s", pl::cost::costReportText(in, out).c_str());
        if (measured) std::printf("%s", measuredCostText(*measured, out).c_str());
    }
    return kExitOk;
}

int runRates(int argc, char** argv) {
    Args args;
    if (auto err = parseArgs(argc, argv, 1, costSpec({"tick-us", "tick-ms", "mem-util", "calibration", "swap-method"}),
                             args)) {
        return usageError("rates", *err);
    }
    if (args.has("help")) {
        std::printf("usage: preemptlab-cli rates [flags] [--tick-us US | --tick-ms MS] [--mem-util F] [--calibration FILE]\n%s"
                    "  --tick-us US        one tick (default: the memory-bound decode step at --batch x "
                    "--decode-context)\n"
                    "  --tick-ms MS        the same in milliseconds, as import-trace, generate and run take it\n"
                    "  --mem-util F        share of device memory for weights + KV (default 0.9)\n",
                    kCostFlagsHelp);
        return kExitOk;
    }
    if (!args.positional.empty()) {
        return usageError("rates", "unexpected argument '" + args.positional.front() + "'");
    }
    pl::cost::TickRatesInputs in;
    if (auto err = costInputsFromArgs(args, in.cost)) {
        return usageError("rates", *err);
    }
    if (args.has("tick-us") && args.has("tick-ms")) {
        return usageError("rates", "--tick-us and --tick-ms both give the tick; give one");
    }
    for (const char* name : {"tick-us", "tick-ms", "mem-util"}) {
        if (auto v = args.value(name)) {
            auto n = parseReal(*v);
            if (!n) {
                return usageError("rates", std::string("--") + name + ": '" + *v + "' is not a number");
            }
            const std::string flag = name;
            (flag == "mem-util" ? in.memory_utilization : in.tick_us) = flag == "tick-ms" ? *n * 1000.0 : *n;
        }
    }
    const std::string tickFlag = args.has("tick-ms") ? "--tick-ms" : "--tick-us";
    in.tick_given_in_ms = args.has("tick-ms");
    if ((args.has("tick-us") || args.has("tick-ms")) && in.tick_us <= 0.0) {
        return usageError("rates", tickFlag + ": must be above 0");
    }
    const auto result = pl::cost::computeTickRates(in);
    if (const auto* err = std::get_if<pl::cost::CostInputError>(&result)) {
        return usageError("rates", "--" + err->field + ": " + err->reason);
    }
    const auto& r = std::get<pl::cost::TickRates>(result);
    std::optional<MeasuredCost> measured;
    if (auto err = measuredCostFromArgs(args, in.cost, pl::cost::computeCost(in.cost), r.tick_us, measured)) {
        return usageError("rates", *err);
    }
    auto config = pl::cost::tickRatesConfigJson(r);
    if (measured) {
        // The two rates that price swap and recompute come from the device's measured curves instead.
        config["config"]["transfer_bytes_per_tick"] = measured->rates.transfer_bytes_per_tick;
        config["config"]["prefill_tokens_per_tick"] = measured->rates.prefill_tokens_per_tick;
        std::fprintf(stderr, "%s: %s", measured->path.c_str(),
                     cost::describeRates(measured->calibration, measured->request, measured->rates).c_str());
    }
    // The tick these rates are per, as the workload key (whole microseconds, at least 1).
    config["config"]["tick_us"] = std::max<std::int64_t>(1, std::llround(r.tick_us));
    std::printf("%s\n", config.dump(2).c_str());
    std::fprintf(stderr,
                 "rates: one tick = %s us (%s); %s-token replays priced at %s us/token; link %s GB/s effective; "
                 "KV per token is one GPU's shard (tp %lld)\n",
                 pl::formatFixed(r.tick_us, 1).c_str(),
                 in.tick_us > 0.0 ? tickFlag.c_str() : "the memory-bound decode step",
                 pl::formatThousands(in.cost.context).c_str(),
                 pl::formatFixed(pl::cost::computeCost(in.cost).recompute_us_per_token, 2).c_str(),
                 pl::formatFixed(pl::cost::computeCost(in.cost).effective_link_gbps, 2).c_str(),
                 static_cast<long long>(in.cost.tp));
    return kExitOk;
}

} // namespace

void registerCostCommands(std::vector<Command>& table) {
    table.push_back({"breakeven", "breakeven [--model M] [--gpu G] [--link-gbps B] ... [--json]",
                     "swap vs recompute per token, break-even bandwidth and context, spare compute", runBreakeven});
    table.push_back({"rates", "rates [--model M] [--gpu G] ... [--tick-us US | --tick-ms MS]",
                     "workload tick rates (a config fragment) from a model, a GPU and a tick length", runRates});
    table.push_back({"sweep", "sweep WORKLOAD --vary KEY=LO:HI:STEP ... [--modes M,..] [--metric X] [--shard I/N] --out FILE",
                     "every mode at every grid point; winner per point and where it flips", runSweep});
    table.push_back({"sweep-merge", "sweep-merge SHARD.json... --out FILE.csv|FILE.json",
                     "joins the shard files of sweep --shard I/N into the unsharded sweep's output", runSweepMerge});
}

} // namespace pl::cli
