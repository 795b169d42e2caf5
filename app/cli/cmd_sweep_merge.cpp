// preemptlab-cli sweep-merge SHARD.json... --out FILE.csv|FILE.json [--quiet]
// Reads the shard files that `sweep --shard I/N` wrote, checks that they are the N shards of one sweep, each once
// (core/cost/sweep_shards.h), and writes what the unsharded sweep writes, byte for byte, atomically. Which shards
// are present is reported on stderr; a missing, doubled or foreign shard is exit 2 with the reason.
#include "app/cli/commands.h"
#include "app/cli/args.h"
#include "app/cli/sweep_cli.h"

#include "core/atomic_file.h"
#include "core/cost/sweep_output.h"
#include "core/cost/sweep_shards.h"

#include <cstdio>
#include <string>
#include <vector>

namespace pl::cli {

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli sweep-merge: %s\n", message.c_str());
    return kExitBadInput;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "1-3, 5, 7-9" of the shard numbers that are present.
std::string ranges(const std::vector<bool>& present) {
    std::string out;
    for (std::size_t i = 0; i < present.size();) {
        if (!present[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < present.size() && present[j + 1]) {
            ++j;
        }
        if (!out.empty()) {
            out.append(", ");
        }
        out.append(std::to_string(i + 1));
        if (j > i) {
            out.append("-").append(std::to_string(j + 1));
        }
        i = j + 1;
    }
    return out.empty() ? "none" : out;
}

} // namespace

int runSweepMerge(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = {"out"};
    spec.switches = {"help", "quiet"};
    Args args;
    if (auto err = parseArgs(argc, argv, 1, spec, args)) {
        return fail(*err);
    }
    if (args.has("help")) {
        std::printf("usage: preemptlab-cli sweep-merge SHARD.json... --out FILE.csv|FILE.json [--quiet]\n"
                    "  joins the shard files of `sweep ... --shard I/N --out SHARD.json` (every I from 1 to N, in any\n"
                    "  order) into the file the unsharded sweep writes, byte for byte; a missing, doubled or foreign\n"
                    "  shard is refused (exit 2) with the reason; which shards are present is reported on stderr\n");
        return kExitOk;
    }
    if (args.positional.empty()) {
        return fail("missing SHARD (the shard files of `sweep --shard I/N`)");
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
    std::vector<pl::cost::SweepShard> shards;
    shards.reserve(args.positional.size());
    for (const auto& file : args.positional) {
        auto shard = pl::cost::loadSweepShardFile(file);
        if (auto* err = std::get_if<InputError>(&shard)) {
            return fail(err->message());
        }
        shards.push_back(std::get<pl::cost::SweepShard>(std::move(shard)));
    }
    const bool quiet = args.has("quiet");
    const auto& first = shards.front();
    std::vector<bool> present(first.shard.count, false);
    for (const auto& s : shards) {
        if (s.id == first.id && s.shard.count == first.shard.count) {
            present[s.shard.index - 1] = true;
        }
    }
    if (!quiet) {
        std::fprintf(stderr, "sweep-merge: sweep %s (workload %s, %s points): shards %s of %zu present\n",
                     first.id.c_str(), printable(first.sweep.value("workload", std::string())).c_str(),
                     first.sweep.at("points").dump().c_str(), ranges(present).c_str(), first.shard.count);
    }
    auto merged = pl::cost::mergeSweepShards(shards, args.positional);
    if (auto* err = std::get_if<InputError>(&merged)) {
        return fail(err->message());
    }
    shards.clear();
    const auto& r = std::get<pl::cost::SweepResult>(merged);
    const std::string text = json ? pl::cost::sweepJson(r).dump(2) + "\n" : pl::cost::sweepCsv(r);
    if (auto err = writeFileAtomically(*out, text)) {
        return fail(*err);
    }
    std::size_t flips = 0;
    for (const auto& p : r.points) {
        flips += p.flip ? 1 : 0;
    }
    std::fprintf(stderr, "sweep-merge: %zu shards, %zu points x %zu modes by %s, %zu flips -> %s\n",
                 args.positional.size(), r.points.size(), r.spec.modes.size(),
                 std::string(pl::cost::toString(r.spec.metric)).c_str(), flips, printable(*out).c_str());
    return kExitOk;
}

} // namespace pl::cli
