// preemptlab-cli sweep WORKLOAD --vary KEY=LO:HI:STEP [--vary ...] [--modes M,...] [--metric X] [--threads N]
//                     --out FILE.csv|FILE.json
// Runs every mode at every grid point (core/cost/sweep.h); progress on stderr; the file is written atomically.
#include "commands.h"
#include "args.h"
#include "sweep_cli.h"

#include "atomic_file.h"
#include "cost/sweep.h"
#include "workload_io.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace pl::cli {

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli sweep: %s\n", message.c_str());
    return kExitBadInput;
}

std::string describe(const InputError& e) { return e.message(); }

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

int runSweep(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = {"vary", "modes", "metric", "out", "threads"};
    spec.repeatable = {"vary"};
    spec.switches = {"help", "quiet"};
    Args args;
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return fail(*err);
    }
    if (args.has("help")) {
        std::printf("usage: preemptlab-cli sweep WORKLOAD --vary KEY=LO:HI:STEP|KEY=V1,V2 [--vary ...]\n"
                    "       [--modes recompute,swap,adaptive,hybrid] [--metric M] [--threads N] [--quiet]\n"
                    "       --out FILE.csv|FILE.json\n  metrics (lower wins): %s\n",
                    pl::cost::sweepMetricNames().c_str());
        return kExitOk;
    }
    if (auto err = positionalProblem(args, {"WORKLOAD"})) {
        return fail(*err);
    }
    const auto out = args.value("out");
    if (!out) {
        return fail("--out: needed (FILE.csv or FILE.json)");
    }
    const bool json = endsWith(*out, ".json");
    if (!json && !endsWith(*out, ".csv")) {
        return fail("--out: '" + printable(*out) + "' must end in .csv or .json");
    }
    if (auto err = checkOutputs({*out}, args.positional)) {
        return fail(*err);
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
    if (auto metric = args.value("metric")) {
        auto m = pl::cost::parseSweepMetric(*metric);
        if (!m) {
            return fail("--metric: '" + *metric + "' is not one of " + pl::cost::sweepMetricNames());
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
    auto result = pl::cost::runSweep(workload, sweep, progress);
    if (auto* err = std::get_if<InputError>(&result)) {
        InputError e = *err;
        if (e.file.empty() && e.path.rfind("--", 0) != 0) {
            e.file = args.positional.front();
        }
        return fail(describe(e));
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
