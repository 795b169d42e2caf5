// Writes the N shard files of a sweep for the sweep-merge benchmark (docs/performance.md): the whole grid is run
// once in this process (recompute only, all cores) and split as N `sweep --shard I/N` runs would write it
// (splitSweep; test_sweep_shards checks that the two write the same bytes). Not a test; built beside them.
//
//   bench_sweep_merge WORKLOAD N OUTDIR KEY=LO:HI:STEP [KEY=...]   -> OUTDIR/shard-I-of-N.json
#include "core/cost/sweep_shards.h"

#include "core/atomic_file.h"
#include "core/workload_io.h"

#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>

int main(int argc, char** argv) {
    using namespace pl;
    using namespace pl::cost;
    if (argc < 5) {
        std::fprintf(stderr, "usage: bench_sweep_merge WORKLOAD N OUTDIR KEY=LO:HI:STEP [KEY=...]\n");
        return 2;
    }
    auto loaded = loadWorkloadFile(argv[1]);
    if (auto* err = std::get_if<InputError>(&loaded)) {
        std::fprintf(stderr, "%s\n", err->message().c_str());
        return 2;
    }
    const auto& w = std::get<Workload>(loaded);
    const std::size_t n = std::stoul(argv[2]);
    const std::string dir = argv[3];
    SweepSpec spec;
    spec.modes = {Recovery::Recompute};
    for (int a = 4; a < argc; ++a) {
        auto axis = parseSweepAxis(argv[a]);
        if (auto* err = std::get_if<InputError>(&axis)) {
            std::fprintf(stderr, "%s\n", err->message().c_str());
            return 2;
        }
        spec.axes.push_back(std::get<SweepAxis>(axis));
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto planned = planSweep(w, spec);
    if (auto* err = std::get_if<InputError>(&planned)) {
        std::fprintf(stderr, "%s\n", err->message().c_str());
        return 2;
    }
    auto& plan = std::get<SweepPlan>(planned);
    std::vector<std::size_t> all(plan.points.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    if (auto err = runSweepPoints(w, plan, all, {})) {
        std::fprintf(stderr, "%s\n", err->message().c_str());
        return 2;
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::size_t bytes = 0;
    for (const auto& s : splitSweep(w, plan, n)) {
        const std::string text = sweepShardText(s);
        bytes += text.size();
        const std::string path = dir + "/shard-" + std::to_string(s.shard.index) + "-of-" + std::to_string(n) + ".json";
        if (auto err = writeFileAtomically(path, text)) {
            std::fprintf(stderr, "%s\n", err->c_str());
            return 2;
        }
    }
    const auto t2 = std::chrono::steady_clock::now();
    std::fprintf(stderr, "bench_sweep_merge: %zu points run in %.1f s; %zu shard files, %zu bytes, written in %.1f s\n",
                 plan.points.size(), std::chrono::duration<double>(t1 - t0).count(), n, bytes,
                 std::chrono::duration<double>(t2 - t1).count());
    return 0;
}
