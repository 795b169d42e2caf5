// bench: the engine's speed in nanoseconds per request-tick (totals.request_ticks) on a generated workload,
// plus the receipt's time and size and the memory a run holds per request. A benchmark, not a test: it prints
// what it measured on this machine (docs/performance.md records the figures and the command).
#include "app/cli/commands.h"
#include "app/cli/workload_flags.h"

#include "core/atomic_file.h"
#include "core/engine.h"
#include "core/receipt.h"
#include "core/run_control.h"
#include "core/session.h"
#include "core/summary.h"
#include "core/trace/generator.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <variant>

namespace pl::cli {
namespace {

// Resident set size in bytes (Linux /proc/self/statm), 0 when unavailable.
std::int64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::int64_t pages = 0;
    std::int64_t resident = 0;
    if (!(statm >> pages >> resident)) {
        return 0;
    }
    return resident * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int cmdBench(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = workloadFlagNames();
    spec.valued.insert({"requests", "seed", "repeat", "rate", "write-workload", "workload"});
    spec.switches = {"json", "seek"};
    Args args;
    std::optional<std::string> problem = parseArgs(argc, argv, 1, spec, args);
    if (!problem) {
        problem = positionalProblem(args, {});
    }
    if (problem) {
        return badInput(*problem + "\nusage: preemptlab-cli bench [--requests N] [--seed S] [--rate R] [--repeat K] "
                        "[--workload FILE] [--write-workload FILE] [--<key> V ...] [--seek] [--json]");
    }
    // --requests, --seed and --rate shape the generated workload; with --workload FILE there is none to shape.
    if (args.has("workload")) {
        for (const char* generatorFlag : {"requests", "seed", "rate"}) {
            if (args.has(generatorFlag)) {
                return badInput(std::string("bench: --") + generatorFlag +
                                " shapes the generated workload and is not taken with --workload FILE (the file's "
                                "requests are run as they are)");
            }
        }
    }
    auto intFlag = [&](const char* name, std::int64_t def, std::int64_t lo) -> std::optional<std::int64_t> {
        const auto v = args.value(name);
        if (!v) {
            return def;
        }
        try {
            std::size_t used = 0;
            const long long x = std::stoll(*v, &used);
            if (used == v->size() && x >= lo) {
                return x;
            }
        } catch (...) {
        }
        badInput("--" + std::string(name) + ": expected an integer >= " + std::to_string(lo) + ", got '" + *v + "'");
        return std::nullopt;
    };
    const auto requests = intFlag("requests", 10000, 1);
    const auto seed = intFlag("seed", 1, 0);
    const auto repeat = intFlag("repeat", 5, 1);
    if (!requests || !seed || !repeat) {
        return kExitBadInput;
    }
    double rate = 0.2;
    if (auto r = args.value("rate")) {
        try {
            rate = std::stod(*r);
        } catch (...) {
            rate = -1;
        }
        if (!(rate > 0)) {
            return badInput("--rate: expected a positive number of arrivals per tick, got '" + *r + "'");
        }
    }

    Workload w;
    if (auto file = args.value("workload")) {
        auto loaded = loadWithOverrides(*file, args);
        if (!loaded) {
            return kExitBadInput;
        }
        w = std::move(*loaded);
    } else {
        trace::GeneratorParams p;
        p.seed = static_cast<std::uint64_t>(*seed);
        p.count = *requests;
        p.rate_per_tick = rate;
        p.name = "bench";
        auto generated = trace::generateWorkload(p);
        if (auto* err = std::get_if<InputError>(&generated)) {
            return badInput(err->message());
        }
        w = std::get<Workload>(std::move(generated));
        const auto flags = workloadFlagNames();
        for (const auto& [name, value] : args.options) {
            if (flags.count(name)) {
                if (auto err = applyOverride(w, name, value)) { // it takes the flag spelling too
                    return badInput(err->message());
                }
            }
        }
        if (auto err = validateWorkload(w)) {
            return badInput(err->message());
        }
    }
    if (auto out = args.value("write-workload")) {
        if (auto err = writeFileAtomically(*out, fullWorkloadJson(w).dump(1) + "\n")) {
            return badInput("cannot write workload: " + *err);
        }
    }

    // Engine: best of `repeat` runs (the others are noise from this shared machine), ledger included.
    const std::int64_t rssBefore = residentBytes();
    double best = 1e300;
    RunResult run;
    std::int64_t rssPeakDelta = 0;
    for (std::int64_t i = 0; i < *repeat; ++i) {
        RunResult r;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            r = runWorkload(w, nullptr, memoryBounded()); // bounded like run: a thrashing --workload ends with figures
        } catch (const RunTooLarge& e) {
            return badInput(w.name + ": " + e.what());
        }
        best = std::min(best, secondsSince(t0));
        rssPeakDelta = std::max(rssPeakDelta, residentBytes() - rssBefore);
        if (i + 1 == *repeat) {
            run = std::move(r);
        }
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::string receipt = receiptText(w, run);
    const double receiptSeconds = secondsSince(t1);

    // Seeking (the lab's scrubbing): one Session (full run with snapshots), then jumps to pseudo-random ticks.
    double sessionSeconds = 0;
    double extendSeconds = 0;
    double seekMeanUs = 0;
    double seekMaxUs = 0;
    std::size_t snapshots = 0;
    std::size_t snapshotsTaken = 0;
    std::size_t snapshotBytes = 0;
    if (args.has("seek")) {
        const auto t2 = std::chrono::steady_clock::now();
        Session session(w);
        sessionSeconds = secondsSince(t2);
        // The snapshots with the pool map are taken as seeks first reach each part of the run: the first seek
        // to the end takes them all, timed apart, so the jumps below seek as the lab does once it has been there.
        const auto t4 = std::chrono::steady_clock::now();
        session.seek(session.lastTick());
        extendSeconds = secondsSince(t4);
        snapshots = session.snapshotCount();
        snapshotsTaken = session.snapshotsTaken();
        snapshotBytes = session.snapshotBytes();
        std::uint64_t x = 12345;
        const int jumps = 200;
        for (int i = 0; i < jumps; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const Tick target = static_cast<Tick>((x >> 33) % static_cast<std::uint64_t>(session.lastTick() + 1));
            const auto t3 = std::chrono::steady_clock::now();
            session.seek(target);
            const double us = secondsSince(t3) * 1e6;
            seekMeanUs += us / jumps;
            seekMaxUs = std::max(seekMaxUs, us);
        }
    }

    const double requestTicks = static_cast<double>(std::max<std::int64_t>(1, run.totals.request_ticks));
    const double nsPerRequestTick = best * 1e9 / requestTicks;
    const double bytesPerRequest = static_cast<double>(rssPeakDelta) / static_cast<double>(w.requests.size());
    if (args.has("json")) {
        nlohmann::ordered_json j;
        j["workload"] = w.name;
        j["requests"] = w.requests.size();
        j["ticks"] = run.totals.ticks;
        j["request_ticks"] = run.totals.request_ticks;
        j["events"] = run.ledger.events.size();
        j["evictions"] = run.totals.evictions;
        j["engine_seconds_best"] = best;
        j["ns_per_request_tick"] = nsPerRequestTick;
        j["receipt_seconds"] = receiptSeconds;
        j["receipt_bytes"] = receipt.size();
        j["rss_growth_bytes_per_request"] = bytesPerRequest;
        j["repeat"] = *repeat;
        if (args.has("seek")) {
            j["session_seconds"] = sessionSeconds;
            j["first_seek_to_end_seconds"] = extendSeconds;
            j["snapshots"] = snapshots;
            j["snapshots_taken"] = snapshotsTaken;
            j["snapshot_bytes"] = snapshotBytes;
            j["seek_mean_us"] = seekMeanUs;
            j["seek_max_us"] = seekMaxUs;
        }
        std::printf("%s\n", j.dump(2).c_str());
        return kExitOk;
    }
    std::printf("workload        %s: %zu requests, %lld ticks, %lld request-ticks, %zu events, %lld evictions\n",
                w.name.c_str(), w.requests.size(), static_cast<long long>(run.totals.ticks),
                static_cast<long long>(run.totals.request_ticks), run.ledger.events.size(),
                static_cast<long long>(run.totals.evictions));
    std::printf("engine          %.3f ms (best of %lld) = %.2f ns per request-tick\n", best * 1e3,
                static_cast<long long>(*repeat), nsPerRequestTick);
    std::printf("receipt         %.3f ms, %zu bytes (%.0f bytes per request)\n", receiptSeconds * 1e3, receipt.size(),
                static_cast<double>(receipt.size()) / static_cast<double>(w.requests.size()));
    std::printf("memory          %.0f bytes of resident memory per request (run state + ledger)\n", bytesPerRequest);
    if (args.has("seek")) {
        std::printf("session         %.3f s to run with series; the first seek to the end %.3f s more, taking %zu "
                    "snapshots with the pool map (%s; %zu taken)\n",
                    sessionSeconds, extendSeconds, snapshots, formatBytes(static_cast<std::int64_t>(snapshotBytes)).c_str(),
                    snapshotsTaken);
        std::printf("seek            %.0f us mean, %.0f us max over 200 random jumps\n", seekMeanUs, seekMaxUs);
    }
    return kExitOk;
}

} // namespace

void registerBenchCommands(std::vector<Command>& table) {
    table.push_back({"bench", "bench [--requests N] [--seed S] [--rate R] [--repeat K] [--workload FILE] [--write-workload FILE] "
                              "[--<key> V ...] [--seek] [--json]",
                     "engine speed in ns per request-tick on a generated workload", cmdBench});
}

} // namespace pl::cli
