// validate, run, verify, compare: the contract's commands (docs/contracts.md, "Command line").
#include "calibration_flags.h"
#include "commands.h"
#include "workload_flags.h"

#include "atomic_file.h"
#include "device_api.h"
#include "engine.h"
#include "fallbacks.h"
#include "live_backend.h"
#include "verify.h"
#include "receipt.h"
#include "summary.h"
#include "workload_io.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <variant>

namespace pl::cli {
namespace {

ArgSpec workloadSpec(std::set<std::string> extra, std::set<std::string> switches = {}) {
    ArgSpec spec;
    spec.valued = workloadFlagNames();
    const auto calibration = calibrationFlagNames();
    spec.valued.insert(calibration.begin(), calibration.end());
    spec.valued.insert(extra.begin(), extra.end());
    spec.switches = std::move(switches);
    return spec;
}

// Each usage line, printed after the one line that says what was wrong with the command line.
constexpr const char* kCalibrationUsage = "[--calibration FILE --tick-ms MS [--swap-method M] [--calibration-context L]]";
const std::string kValidateUsage = std::string("validate WORKLOAD [--<key> V ...] ") + kCalibrationUsage;
const std::string kRunUsage = std::string("run WORKLOAD [--<key> V ...] [--out RECEIPT] [--live] ") + kCalibrationUsage;
const std::string kVerifyUsage = "verify RECEIPT";
const std::string kCompareUsage =
    std::string("compare WORKLOAD [--<key> V ...] [--out FILE.json] [--receipts DIR] ") + kCalibrationUsage;

// Parses a command's arguments and checks its positionals; on a mistake prints what is wrong, then the usage.
bool parseCommand(int argc, char** argv, const ArgSpec& spec, const std::vector<std::string>& positionals,
                  const std::string& usage, Args& args) {
    auto err = parseArgs(argc, argv, 1, spec, args);
    if (!err) {
        err = positionalProblem(args, positionals);
    }
    if (err) {
        badInput(*err + "\nusage: preemptlab-cli " + usage);
        return false;
    }
    return true;
}

int cmdValidate(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, workloadSpec({}), {"WORKLOAD"}, kValidateUsage, args)) {
        return kExitBadInput;
    }
    auto w = loadWithOverrides(args.positional[0], args);
    std::optional<gpu::Calibration> calibration;
    if (!w || !applyCalibrationFlags(args, args.positional[0], *w, calibration)) {
        return kExitBadInput;
    }
    std::printf("%s: valid %s workload '%s': %zu requests, %lld blocks of %lld tokens, policy %s/%s/%s\n",
                args.positional[0].c_str(), std::string(kWorkloadFormat).c_str(), w->name.c_str(), w->requests.size(),
                static_cast<long long>(w->config.capacity_blocks), static_cast<long long>(w->config.block_size_tokens),
                std::string(toString(w->policy.recovery)).c_str(), std::string(toString(w->policy.victim_rule)).c_str(),
                std::string(toString(w->policy.resume_guard)).c_str());
    return kExitOk;
}

void printSummary(const Workload& w, const RunResult& run, bool passed) {
    const auto& t = run.totals;
    std::fprintf(stderr,
                 "%s [%s, %s]: %lld ticks, %lld completed, %lld censored, %lld evictions, %lld replay tokens, "
                 "%lld B swapped out, %lld B swapped in, conservation %s\n",
                 w.name.c_str(), std::string(toString(w.policy.recovery)).c_str(),
                 std::string(toString(w.policy.victim_rule)).c_str(), static_cast<long long>(t.ticks),
                 static_cast<long long>(t.completed), static_cast<long long>(t.censored),
                 static_cast<long long>(t.evictions), static_cast<long long>(t.replay_tokens),
                 static_cast<long long>(t.swap_out_bytes), static_cast<long long>(t.swap_in_bytes),
                 passed ? "passed" : "FAILED");
}

bool conservationPassed(const std::string& receipt) {
    const auto doc = nlohmann::json::parse(receipt);
    return doc.at("checks").at("conservation").at("passed").get<bool>();
}

// One line about the device work of a live run; false when a device call failed (the receipt says which).
bool reportLive(const RunResult& run) {
    double measured = 0.0;
    std::int64_t bytes = 0;
    std::int64_t tokens = 0;
    std::size_t failed = 0;
    const LiveAnnotation* firstFailure = nullptr;
    for (const auto& a : run.live) {
        measured += a.measured_us;
        bytes += a.bytes_moved;
        tokens += a.tokens_computed;
        if (!a.ok) {
            failed += 1;
            firstFailure = firstFailure ? firstFailure : &a;
        }
    }
    std::fprintf(stderr, "live on %s: %zu device operations, %.1f us measured, %lld B copied, %lld tokens recomputed\n",
                 run.live_device.c_str(), run.live.size(), measured, static_cast<long long>(bytes),
                 static_cast<long long>(tokens));
    if (firstFailure != nullptr) {
        std::fprintf(stderr, "live: %zu device operations FAILED; first at event %lld (%s): %s\n", failed,
                     static_cast<long long>(firstFailure->seq), firstFailure->kind.c_str(),
                     firstFailure->error.c_str());
    }
    if (!run.live_error.empty()) {
        std::fprintf(stderr, "live: device error: %s\n", run.live_error.c_str());
    }
    return failed == 0 && run.live_error.empty();
}

// A run bounded by this machine's memory (RunControl::max_events): one that would outgrow it ends with its
// figures and exit 2 instead of being killed by the kernel (docs/contracts.md, caps).
std::optional<RunResult> boundedRun(const Workload& w, LiveBackend* backend = nullptr) {
    try {
        return runWorkload(w, backend, memoryBounded());
    } catch (const RunTooLarge& e) {
        badInput(w.name + ": " + e.what());
        return std::nullopt;
    }
}

// The files a workload command reads: the workload and, with --calibration, the calibration.
std::vector<std::string> inputFilesOf(const Args& args) {
    std::vector<std::string> inputs = args.positional;
    if (auto c = args.value("calibration")) {
        inputs.push_back(*c);
    }
    return inputs;
}

int cmdRun(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, workloadSpec({"out"}, {"live"}), {"WORKLOAD"}, kRunUsage, args)) {
        return kExitBadInput;
    }
    auto w = loadWithOverrides(args.positional[0], args);
    std::optional<gpu::Calibration> calibration;
    if (!w || !applyCalibrationFlags(args, args.positional[0], *w, calibration)) {
        return kExitBadInput;
    }
    if (auto out = args.value("out")) {
        if (auto err = checkOutputs({*out}, inputFilesOf(args))) {
            return badInput(*err);
        }
    }
    // --live: the same simulation, with every eviction and resume also carried out on the device; the
    // measurements go to the receipt's unhashed "live" member (docs/live-mode.md). With --calibration the
    // backend also fills each measurement's modelled_us from the fits, for the method it swaps with.
    std::unique_ptr<LiveBackend> backend;
    if (args.has("live")) {
        gpu::LiveOptions options;
        options.calibration = calibration;
        if (auto m = args.value("swap-method")) {
            options.method = *m == "per-block" ? gpu::SwapMethod::PerBlock
                             : *m == "batched" ? gpu::SwapMethod::Batched
                                               : gpu::SwapMethod::Gather; // the name was checked above
        }
        std::string why;
        backend = gpu::makeLiveBackend(*w, options, &why);
        if (!backend) {
            std::fprintf(stderr, "preemptlab-cli: run --live: no usable CUDA device: %s\n", why.c_str());
            return kExitNoDevice;
        }
    }
    const auto bounded = boundedRun(*w, backend.get());
    if (!bounded) {
        return kExitBadInput;
    }
    const RunResult& run = *bounded;
    const std::string text = receiptText(*w, run);
    if (auto out = args.value("out"); out && *out != "-") { // "-": stdout, as generate and import-trace
        if (auto err = writeFileAtomically(*out, text)) {
            return badInput("cannot write receipt: " + *err);
        }
    } else if (auto err = writeStdout(text)) {
        return badInput(*err);
    }
    const bool passed = conservationPassed(text);
    printSummary(*w, run, passed);
    if (run.live_run) {
        return reportLive(run) && passed ? kExitOk : kExitCheckFailed;
    }
    return passed ? kExitOk : kExitCheckFailed;
}

int cmdVerify(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, ArgSpec{}, {"RECEIPT"}, kVerifyUsage, args)) {
        return kExitBadInput;
    }
    const std::string& file = args.positional[0];
    // A receipt is about 250 B per event: what this machine's runs can write (eventBudget), at least 2 GiB.
    const std::int64_t cap = std::max(Caps{}.max_file_bytes, eventBudget() * 512);
    auto text = readTextFile(file, cap, "receipt");
    if (auto* err = std::get_if<InputError>(&text)) {
        return badInput(err->message());
    }
    auto result = verifyReceiptText(std::get<std::string>(text), file);
    if (auto* err = std::get_if<InputError>(&result)) {
        return badInput(err->message());
    }
    const auto& v = std::get<VerifyOutcome>(result);
    if (!v.identical) {
        std::printf("%s: DIFFERS from the replay: first difference at %s\n", file.c_str(),
                    v.first_difference.c_str());
        return kExitCheckFailed;
    }
    if (!v.conservation_passed) {
        std::printf("%s: replay identical but conservation FAILED: %s\n", file.c_str(), v.first_violation.c_str());
        return kExitCheckFailed;
    }
    std::printf("%s: identical to the replay (%zu events), conservation passed\n", file.c_str(), v.events);
    return kExitOk;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// compare --out FILE.csv: one row per mode with the compare.v1 document's numbers (hashes, totals, each
// percentile group's p50, p90, p99, max and count, then the fallbacks by reason), for spreadsheets.
std::string compareCsv(const nlohmann::ordered_json& doc) {
    std::string header = "mode,policy_hash,event_hash";
    std::string body;
    bool first = true;
    for (const auto& [mode, col] : doc.at("modes").items()) {
        std::string line = mode + "," + col.at("policy_hash").get<std::string>() + "," +
                           col.at("event_hash").get<std::string>();
        const auto add = [&](const std::string& name, const nlohmann::ordered_json& value) {
            if (first) {
                header.append(",").append(name);
            }
            line.append(",").append(value.dump());
        };
        for (const auto& [key, value] : col.at("totals").items()) {
            add(key, value);
        }
        for (const auto& [group, figures] : col.at("percentiles").items()) {
            for (const auto& [key, value] : figures.items()) {
                add(group + "_" + key, value);
            }
        }
        for (const auto& [key, value] : col.at("fallbacks").items()) {
            add("fallbacks_" + key, value);
        }
        body += line + "\n";
        first = false;
    }
    return header + "\n" + body;
}

int cmdCompare(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, workloadSpec({"out", "receipts"}), {"WORKLOAD"}, kCompareUsage, args)) {
        return kExitBadInput;
    }
    if (args.has("recovery")) {
        return badInput("compare runs every recovery mode (recompute, swap, adaptive, hybrid); --recovery is not "
                        "taken (run --recovery M runs one)");
    }
    // The --out file's format follows its name: FILE.csv one row per mode, FILE.json (or a name without an
    // extension) preemptlab.compare.v1; another extension is refused rather than given JSON it does not expect.
    const auto out = args.value("out");
    const bool csv = out && endsWith(*out, ".csv");
    if (out && !csv && !endsWith(*out, ".json") && std::filesystem::path(*out).has_extension()) {
        return badInput("compare --out: '" + *out + "' must end in .json or .csv");
    }
    auto base = loadWithOverrides(args.positional[0], args);
    std::optional<gpu::Calibration> calibration;
    if (!base || !applyCalibrationFlags(args, args.positional[0], *base, calibration)) {
        return kExitBadInput;
    }
    const Recovery modes[] = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid};
    // Every output is checked before the four runs and written together after them: a bad path anywhere
    // leaves nothing written (exit 2 means that; a receipts folder this command created is removed again).
    std::vector<std::string> outputs;
    if (out && *out == "-") {
        return badInput("compare --out: its table goes to stdout already; name a FILE.json or FILE.csv");
    }
    bool createdFolder = false;
    if (auto dir = args.value("receipts")) {
        std::error_code ec;
        createdFolder = std::filesystem::create_directories(*dir, ec);
        if (ec) {
            return badInput("cannot create receipts folder " + *dir + ": " + ec.message());
        }
        for (auto m : modes) {
            outputs.push_back((std::filesystem::path(*dir) / (std::string(toString(m)) + ".receipt.json"))
                                  .lexically_normal()
                                  .string());
        }
    }
    if (out) {
        outputs.push_back(*out);
    }
    const auto abandon = [&] {
        if (createdFolder) {
            std::error_code ignored;
            std::filesystem::remove(*args.value("receipts"), ignored); // empty: only this command made it
        }
        return kExitBadInput;
    };
    if (auto err = checkOutputs(outputs, inputFilesOf(args))) {
        badInput(*err);
        return abandon();
    }
    struct Column {
        Recovery mode;
        Workload w;
        RunResult run;
        RunSummary sum;
        std::string receipt;
        ReceiptHashes hashes;
        bool passed = false;
    };
    std::vector<Column> cols;
    for (auto m : modes) {
        Column c;
        c.mode = m;
        c.w = *base;
        c.w.policy.recovery = m;
        auto run = boundedRun(c.w);
        if (!run) {
            return abandon();
        }
        c.run = std::move(*run);
        c.sum = summarize(c.w, c.run);
        c.receipt = receiptText(c.w, c.run);
        c.hashes = receiptHashes(c.w, c.run);
        c.passed = conservationPassed(c.receipt);
        cols.push_back(std::move(c));
    }
    // Each percentile row is taken over its own population: queue delay over every request, TTFT over those
    // that produced a token, completion over those that completed. A mode that censors more leaves its slowest
    // requests out of TTFT and completion, so each group shows its count (n) and is marked where the modes'
    // counts differ: their percentiles then describe different requests.
    using Get = std::function<std::string(const Column&)>;
    struct Row {
        std::string label;
        Get get;
        const Percentiles RunSummary::*population = nullptr; // the percentile group the row belongs to
        bool isCount = false;                                // the group's n row
    };
    const auto count = [](const Percentiles RunSummary::*p) {
        return [p](const Column& c) { return std::to_string((c.sum.*p).count); };
    };
    const std::vector<Row> rows = {
        {"ticks", [](const Column& c) { return std::to_string(c.sum.totals.ticks); }},
        {"pressure events", [](const Column& c) { return std::to_string(c.sum.totals.pressure_events); }},
        {"evictions", [](const Column& c) { return std::to_string(c.sum.totals.evictions); }},
        // Evictions that did not run as the policy asked (the evict events' fallback): a swap mode whose swaps
        // all found host memory full ran recompute's run, and says so here and in the note under the table.
        {"fallback: host full", [](const Column& c) { return std::to_string(c.sum.fallbacks.host_full); }},
        {"fallback: prefix shrunk", [](const Column& c) { return std::to_string(c.sum.fallbacks.hybrid_shrunk); }},
        {"fallback: no full block", [](const Column& c) { return std::to_string(c.sum.fallbacks.nothing_to_swap); }},
        {"freed blocks", [](const Column& c) { return std::to_string(c.sum.totals.freed_blocks); }},
        {"replay tokens", [](const Column& c) { return std::to_string(c.sum.totals.replay_tokens); }},
        {"swap out", [](const Column& c) { return pl::formatBytes(c.sum.totals.swap_out_bytes); }},
        {"swap in", [](const Column& c) { return pl::formatBytes(c.sum.totals.swap_in_bytes); }},
        {"peak host", [](const Column& c) { return pl::formatBytes(c.sum.totals.peak_host_bytes); }},
        {"completed", [](const Column& c) { return std::to_string(c.sum.totals.completed); }},
        {"censored", [](const Column& c) { return std::to_string(c.sum.totals.censored); }},
        {"queue delay n (all)", count(&RunSummary::queue_ticks), &RunSummary::queue_ticks, true},
        {"queue delay p50", [](const Column& c) { return std::to_string(c.sum.queue_ticks.p50); }, &RunSummary::queue_ticks},
        {"queue delay p99", [](const Column& c) { return std::to_string(c.sum.queue_ticks.p99); }, &RunSummary::queue_ticks},
        {"TTFT n (got a token)", count(&RunSummary::ttft_ticks), &RunSummary::ttft_ticks, true},
        {"TTFT p50 (ticks)", [](const Column& c) { return std::to_string(c.sum.ttft_ticks.p50); }, &RunSummary::ttft_ticks},
        {"TTFT p99 (ticks)", [](const Column& c) { return std::to_string(c.sum.ttft_ticks.p99); }, &RunSummary::ttft_ticks},
        {"completion n", count(&RunSummary::completion_ticks), &RunSummary::completion_ticks, true},
        {"completion p99", [](const Column& c) { return std::to_string(c.sum.completion_ticks.p99); },
         &RunSummary::completion_ticks},
        {"flag: excessive wait", [](const Column& c) { return std::to_string(c.sum.flagged_excessive_wait); }},
        {"flag: repeated preempt", [](const Column& c) { return std::to_string(c.sum.flagged_repeated_preemption); }},
        {"conservation", [](const Column& c) { return std::string(c.passed ? "passed" : "FAILED"); }},
    };
    const auto differs = [&](const Percentiles RunSummary::*p) {
        return p != nullptr && std::any_of(cols.begin(), cols.end(), [&](const Column& c) {
                   return (c.sum.*p).count != (cols.front().sum.*p).count;
               });
    };
    std::printf("compare: %s (%zu requests, victim rule %s, resume guard %s)\ninput_hash %s\n\n", base->name.c_str(),
                base->requests.size(), std::string(toString(base->policy.victim_rule)).c_str(),
                std::string(toString(base->policy.resume_guard)).c_str(), cols[0].hashes.input_hash.c_str());
    std::printf("%-24s", "");
    for (const auto& c : cols) {
        std::printf("%14s", std::string(toString(c.mode)).c_str());
    }
    std::printf("\n");
    bool anyDiffers = false;
    for (const auto& row : rows) {
        const bool mark = differs(row.population);
        anyDiffers = anyDiffers || mark;
        std::printf("%-24s", (row.label + (mark ? " *" : "")).c_str());
        for (const auto& c : cols) {
            // A percentile over no request is no figure (it read 0, the best-looking value): a dash, as in the lab.
            const bool none = row.population && !row.isCount && (c.sum.*row.population).count == 0;
            std::printf("%14s", none ? "-" : row.get(c).c_str());
        }
        std::printf("\n");
    }
    if (anyDiffers) {
        std::printf("* taken over different requests in different modes (see n): a mode that censors more\n"
                    "  leaves its slowest requests out, so a lower figure there is not by itself better\n");
    }
    for (const auto& c : cols) {
        if (const auto note = hostFullNote(c.w, c.mode, c.sum.fallbacks); !note.empty()) {
            std::printf("note: %s\n", note.c_str());
        }
    }
    for (const auto& c : cols) {
        if (!c.sum.flagged_ids.empty()) {
            std::string ids;
            for (std::size_t i = 0; i < c.sum.flagged_ids.size() && i < 12; ++i) {
                ids += (i ? ", " : "") + c.sum.flagged_ids[i];
            }
            if (c.sum.flagged_ids.size() > 12) {
                ids += ", ... (" + std::to_string(c.sum.flagged_ids.size()) + " in all)";
            }
            std::printf("flagged under %s: %s\n", std::string(toString(c.mode)).c_str(), ids.c_str());
        }
    }
    std::vector<std::pair<std::string, std::string>> files;
    if (args.value("receipts")) {
        for (std::size_t i = 0; i < cols.size(); ++i) {
            files.emplace_back(outputs[i], cols[i].receipt);
        }
    }
    if (out) {
        nlohmann::ordered_json doc;
        doc["format"] = "preemptlab.compare.v1";
        doc["workload"] = base->name;
        doc["input_hash"] = cols[0].hashes.input_hash;
        auto pct = [](const Percentiles& p) {
            return nlohmann::ordered_json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max},
                                          {"count", p.count}};
        };
        // The percentile groups whose populations (count) differ between modes, as the table marks them.
        const std::pair<const char*, const Percentiles RunSummary::*> groups[] = {
            {"queue_ticks", &RunSummary::queue_ticks},
            {"ttft_ticks", &RunSummary::ttft_ticks},
            {"tpot_ticks_x100", &RunSummary::tpot_ticks_x100},
            {"completion_ticks", &RunSummary::completion_ticks}};
        doc["populations_differ"] = nlohmann::ordered_json::array();
        for (const auto& [name, group] : groups) {
            if (differs(group)) {
                doc["populations_differ"].push_back(name);
            }
        }
        for (const auto& c : cols) {
            nlohmann::ordered_json col;
            for (const auto& row : rows) {
                col[row.label] = row.get(c); // the table as printed (display strings)
            }
            col["policy_hash"] = c.hashes.policy_hash;
            col["event_hash"] = c.hashes.event_hash;
            col["flagged"] = c.sum.flagged_ids;
            // The same figures as numbers, for scripts: the receipt's totals and nearest-rank percentiles.
            col["totals"] = nlohmann::ordered_json::parse(receiptTotalsJson(c.run.totals, sharesPrefixes(c.w)));
            col["percentiles"] = nlohmann::ordered_json::object();
            for (const auto& [name, group] : groups) {
                col["percentiles"][name] = pct(c.sum.*group);
            }
            // Evictions that did not run as the policy asked, by reason (numbers), and the note printed under the
            // table when every swap the mode tried found host memory full ("" otherwise).
            const auto& f = c.sum.fallbacks;
            col["fallbacks"] = nlohmann::ordered_json{{"host_full", f.host_full},
                                                      {"hybrid_shrunk", f.hybrid_shrunk},
                                                      {"nothing_to_swap", f.nothing_to_swap},
                                                      {"total", f.total()}};
            col["fallback_note"] = hostFullNote(c.w, c.mode, f);
            doc["modes"][std::string(toString(c.mode))] = col;
        }
        files.emplace_back(*out, csv ? compareCsv(doc) : doc.dump(2) + "\n");
    }
    if (auto err = writeFilesAtomically(files)) {
        return badInput("cannot write: " + *err);
    }
    for (std::size_t i = 0; args.value("receipts") && i < cols.size(); ++i) {
        std::fprintf(stderr, "wrote %s\n", outputs[i].c_str());
    }
    bool allPassed = true;
    for (const auto& c : cols) {
        allPassed = allPassed && c.passed;
    }
    return allPassed ? kExitOk : kExitCheckFailed;
}

} // namespace

void registerCoreCommands(std::vector<Command>& table) {
    // --calibration: transfer and prefill rates derived from a calibration.json's fits (--swap-method
    // per-block|batched|gather picks the copy fit, --calibration-context L the context it is read at).
    table.push_back({"validate", kValidateUsage,
                     "check a workload file; exit 2 names the problem; --calibration derives the transfer and "
                     "prefill rates from a calibration.json (--swap-method per-block|batched|gather, "
                     "--calibration-context L tokens) and checks the result",
                     cmdValidate});
    table.push_back({"run", kRunUsage,
                     "run one policy and write its receipt (stdout without --out); --live also runs evictions and "
                     "resumes on the CUDA device (exit 3 without one); --calibration derives the transfer and "
                     "prefill rates from a calibration.json (--swap-method per-block|batched|gather, "
                     "--calibration-context L tokens)",
                     cmdRun});
    table.push_back({"verify", kVerifyUsage, "replay a receipt; 0 identical, 1 names the first difference",
                     cmdVerify});
    table.push_back({"compare", kCompareUsage,
                     "recompute, swap, adaptive and hybrid side by side (every mode: --recovery is refused)",
                     cmdCompare});
}

} // namespace pl::cli
