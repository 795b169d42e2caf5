// preemptlab-cli sweep WORKLOAD --vary KEY=LO:HI:STEP [--vary ...] [--modes M,...] [--metric X] [--threads N]
//                     [--slo-ttft-ms X | --slo-ttft-ticks N] [--slo-tpot-ms X | --slo-tpot-ticks N]
//                     [--shard I/N] --out FILE.csv|FILE.json
// Runs every mode at every grid point (core/cost/sweep.h); progress on stderr; the file is written atomically.
// With SLOs (review_flags.h) every result carries its goodput and --metric slo-misses may be chosen.
// With --shard only shard I of N runs and --out is its shard file (core/cost/sweep_shards.h; sweep-merge).
#include "app/cli/commands.h"
#include "app/cli/args.h"
#include "app/cli/review_flags.h"
#include "app/cli/sweep_cli.h"

#include "core/atomic_file.h"
#include "core/cost/sweep.h"
#include "core/cost/sweep_output.h"
#include "core/cost/sweep_shards.h"
#include "core/workload_io.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <cstdio>

namespace pl::cli {

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli sweep: %s\n", message.c_str());
    return kExitBadInput;
}

std::string describe(const InputError& e) { return e.message(); }

// A sweep's error about the workload (a JSON path, not a flag) names the workload's file.
InputError inWorkload(InputError e, const std::string& workloadFile) {
    if (e.file.empty() && e.path.rfind("--", 0) != 0) {
        e.file = workloadFile;
    }
    return e;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Shard I of N: its points only, progress named by the shard, the shard file written atomically.
int runShard(const Workload& workload, const pl::cost::SweepSpec& sweep, pl::cost::ShardRef shard,
             const std::string& out, bool quiet, const std::string& workloadFile) {
    const std::string name = std::string("shard ") + std::to_string(shard.index) + std::string("/") + std::to_string(shard.count);
    auto progress = [quiet, &name](std::size_t done, std::size_t total) {
        if (!quiet && (done == total || done * 20 / total != (done - 1) * 20 / total)) {
            std::fprintf(stderr, "sweep: %s: %zu/%zu points\n", name.c_str(), done, total);
        }
    };
    auto result = pl::cost::runSweepShard(workload, sweep, shard, progress);
    if (auto* err = std::get_if<InputError>(&result)) {
        return fail(describe(inWorkload(*err, workloadFile)));
    }
    const auto& s = std::get<pl::cost::SweepShard>(result);
    if (auto err = writeFileAtomically(out, pl::cost::sweepShardText(s))) {
        return fail(*err);
    }
    std::fprintf(stderr, "sweep: %s of sweep %s: %zu of %s points (estimated cost %lld) -> %s\n", name.c_str(),
                 s.id.c_str(), s.points.size(), s.sweep.at("points").dump().c_str(), static_cast<long long>(s.cost),
                 printable(out).c_str());
    return kExitOk;
}

} // namespace

int runSweep(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = sloFlagNames();
    spec.valued.insert({"vary", "modes", "metric", "out", "threads", "shard", "shard-plan"});
    spec.repeatable = {"vary"};
    spec.switches = {"help", "quiet"};
    Args args;
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return fail(*err);
    }
    if (args.has("help")) {
        std::printf("usage: preemptlab-cli sweep WORKLOAD --vary KEY=LO:HI:STEP|KEY=V1,V2 [--vary ...]\n"
                    "       [--modes recompute,swap,adaptive,hybrid] [--metric M] [--threads N] [--quiet]\n"
                    "       [--slo-ttft-ms X | --slo-ttft-ticks N] [--slo-tpot-ms X | --slo-tpot-ticks N]\n"
                    "       [--shard I/N] --out FILE.csv|FILE.json\n  metrics (lower wins): %s\n"
                    "  SLOs (ms need the workload's config.tick_us): every result also carries its goodput, the\n"
                    "      share of requests completed within every SLO given (censored ones miss), and the\n"
                    "      metric slo-misses (100 - goodput %%) may be chosen\n"
                    "  --shard I/N: run only shard I (from 1) of N, the grid split by estimated cost, and write\n"
                    "      its shard file (--out SHARD.json); preemptlab-cli sweep-merge joins the N files into\n"
                    "      the output the unsharded sweep writes (scripts/slurm/ runs them as a Slurm job array)\n"
                    "  --shard-plan N: print (JSON, stdout) the points and estimated cost of each of N shards and\n"
                    "      run nothing (no --out); scripts/slurm/submit-sweep.sh sizes its requests from it\n",
                    pl::cost::sweepMetricNames().c_str());
        return kExitOk;
    }
    if (auto err = positionalProblem(args, {"WORKLOAD"})) {
        return fail(*err);
    }
    const auto out = args.value("out");
    const auto planShards = args.value("shard-plan");
    if (planShards && (out || args.has("shard"))) {
        return fail("--shard-plan: runs nothing, so it takes neither --out nor --shard");
    }
    if (!out && !planShards) {
        return fail("--out: needed (FILE.csv or FILE.json)");
    }
    const bool json = out && endsWith(*out, ".json");
    if (out && !json && !endsWith(*out, ".csv")) {
        return fail("--out: '" + printable(*out) + "' must end in .csv or .json");
    }
    std::size_t planCount = 0;
    if (planShards) {
        auto [ptr, ec] = std::from_chars(planShards->data(), planShards->data() + planShards->size(), planCount);
        if (ec != std::errc{} || ptr != planShards->data() + planShards->size() || planCount < 1 ||
            planCount > 100'000) {
            return fail("--shard-plan: '" + printable(*planShards) + "' is not a whole number from 1 to 100000");
        }
    }
    std::optional<pl::cost::ShardRef> shard;
    if (auto s = args.value("shard")) {
        auto ref = pl::cost::parseShardRef(*s);
        if (auto* err = std::get_if<InputError>(&ref)) {
            return fail(describe(*err));
        }
        if (!json) {
            return fail("--out: a shard is written as JSON (SHARD.json); sweep-merge writes the CSV");
        }
        shard = std::get<pl::cost::ShardRef>(ref);
    }
    if (out) {
        if (auto err = checkOutputs({*out}, args.positional)) {
            return fail(*err);
        }
    }
    pl::cost::SweepSpec sweep;
    const auto varies = args.values("vary");
    if (varies.empty()) {
        return fail("--vary: at least one KEY=LO:HI:STEP is needed");
    }
    for (const auto& v : varies) {
        auto axis = pl::cost::parseSweepAxis(v);
        if (auto* err = std::get_if<InputError>(&axis)) {
            return fail(describe(*err));
        }
        auto& a = std::get<pl::cost::SweepAxis>(axis);
        for (const auto& earlier : sweep.axes) {
            if (earlier.key == a.key) {
                return fail("--vary: " + a.key + " is varied twice (one --vary per key; list every value in one)");
            }
        }
        sweep.axes.push_back(std::move(a));
    }
    if (auto modes = args.value("modes")) {
        std::size_t start = 0;
        while (true) {
            const auto comma = modes->find(',', start);
            const std::string name = modes->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            auto mode = parseRecovery(name);
            if (!mode) {
                return fail("--modes: '" + name + "' is not recompute, swap, adaptive or hybrid");
            }
            if (std::find(sweep.modes.begin(), sweep.modes.end(), *mode) != sweep.modes.end()) {
                return fail("--modes: '" + name + "' is listed twice");
            }
            sweep.modes.push_back(*mode);
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    if (auto err = slosFromArgs(args, sweep.slos)) {
        return fail(*err);
    }
    if (auto metric = args.value("metric")) {
        auto m = pl::cost::parseSweepMetric(*metric);
        if (!m) {
            return fail("--metric: '" + *metric + "' is not one of " + pl::cost::sweepMetricNames());
        }
        if (*m == pl::cost::SweepMetric::SloMisses && !sweep.slos.any()) {
            return fail("--metric: slo-misses is the share of requests that miss the SLOs: give --slo-ttft-ms|"
                        "--slo-ttft-ticks and/or --slo-tpot-ms|--slo-tpot-ticks");
        }
        sweep.metric = *m;
    }
    if (auto threads = args.value("threads")) {
        unsigned n = 0;
        auto [ptr, ec] = std::from_chars(threads->data(), threads->data() + threads->size(), n);
        if (ec != std::errc{} || ptr != threads->data() + threads->size() || n < 1 || n > 1024) {
            return fail("--threads: '" + *threads + "' is not a whole number from 1 to 1024");
        }
        sweep.threads = n;
    }

    auto loaded = loadWorkloadFile(args.positional.front());
    if (auto* err = std::get_if<InputError>(&loaded)) {
        return fail(err->message());
    }
    const auto& workload = std::get<Workload>(loaded);
    const bool quiet = args.has("quiet");
    auto progress = [quiet](std::size_t done, std::size_t total) {
        if (!quiet && (done == total || done * 20 / total != (done - 1) * 20 / total)) {
            std::fprintf(stderr, "sweep: %zu/%zu points\n", done, total);
        }
    };
    if (planCount) {
        auto plan = pl::cost::sweepShardPlan(workload, sweep, planCount);
        if (auto* err = std::get_if<InputError>(&plan)) {
            return fail(describe(*err));
        }
        if (auto err = writeStdout(std::get<nlohmann::json>(plan).dump(2) + "\n")) {
            return fail(*err);
        }
        return kExitOk;
    }
    if (shard) {
        return runShard(workload, sweep, *shard, *out, quiet, args.positional.front());
    }
    auto result = pl::cost::runSweep(workload, sweep, progress);
    if (auto* err = std::get_if<InputError>(&result)) {
        return fail(describe(inWorkload(*err, args.positional.front())));
    }
    const auto& r = std::get<pl::cost::SweepResult>(result);
    const std::string text = json ? pl::cost::sweepJson(r).dump(2) + "\n" : pl::cost::sweepCsv(r);
    if (auto err = writeFileAtomically(*out, text)) {
        return fail(*err);
    }
    std::size_t flips = 0;
    for (const auto& p : r.points) {
        flips += p.flip ? 1 : 0;
    }
    std::fprintf(stderr, "sweep: %zu points x %zu modes by %s, %zu flips -> %s\n", r.points.size(),
                 r.spec.modes.size(), std::string(pl::cost::toString(r.spec.metric)).c_str(), flips, printable(*out).c_str());
    return kExitOk;
}

} // namespace pl::cli
