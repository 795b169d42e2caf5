// validate, run, verify, compare: the contract's commands (docs/contracts.md, "Command line").
#include "app/cli/calibration_flags.h"
#include "app/cli/commands.h"
#include "app/cli/review_flags.h"
#include "app/cli/workload_flags.h"

#include "core/atomic_file.h"
#include "core/compare_report.h"
#include "core/engine_profiles.h"
#include "gpu/device_api.h"
#include "core/engine.h"
#include "core/fallbacks.h"
#include "core/ledger_csv.h"
#include "core/live_backend.h"
#include "gpu/no_device.h"
#include "core/verify.h"
#include "core/receipt.h"
#include "core/review/outcomes.h"
#include "core/summary.h"
#include "core/timeline.h"
#include "core/workload_io.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
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

std::set<std::string> withSloFlags(std::set<std::string> names) {
    const auto slos = sloFlagNames();
    names.insert(slos.begin(), slos.end());
    return names;
}

// The SLOs of run and compare, checked against the workload before anything runs: an SLO in ms needs the
// workload's tick_us. False (printed) on a mistake.
bool slosFor(const Args& args, const Workload& w, const std::string& file, review::Slos& slos) {
    if (auto err = slosFromArgs(args, slos)) {
        badInput(*err);
        return false;
    }
    if (auto problem = review::sloProblem(slos, w.config.tick_us)) {
        badInput(printable(file) + ": /config/tick_us: " + *problem);
        return false;
    }
    return true;
}

// Each usage line, printed after the one line that says what was wrong with the command line.
constexpr const char* kCalibrationUsage = "[--calibration FILE --tick-ms MS [--swap-method M] [--calibration-context L]]";
const std::string kValidateUsage = std::string("validate WORKLOAD [--<key> V ...] [--json] ") + kCalibrationUsage;
constexpr const char* kSloUsage = "[--slo-ttft-ms X | --slo-ttft-ticks N] [--slo-tpot-ms X | --slo-tpot-ticks N]";
const std::string kRunUsage =
    std::string("run WORKLOAD [--<key> V ...] [--out RECEIPT] [--trace-out FILE.json] [--ledger-csv FILE.csv] [--live] ") + kSloUsage + " " + kCalibrationUsage;
const std::string kVerifyUsage = "verify RECEIPT [--json]";
const std::string kCompareUsage =
    std::string("compare WORKLOAD [--engines] [--<key> V ...] [--out FILE.json|FILE.csv|-] [--receipts DIR] [--quiet] ") + kSloUsage + " " +
    kCalibrationUsage;

int cmdValidate(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, workloadSpec({}, {"json"}), {"WORKLOAD"}, kValidateUsage, args)) {
        return kExitBadInput;
    }
    auto w = loadWithOverrides(args.positional[0], args);
    std::optional<cost::Calibration> calibration;
    if (!w || !applyCalibrationFlags(args, args.positional[0], *w, calibration)) {
        return kExitBadInput; // (the error is on stderr, as without --json)
    }
    if (args.has("json")) { // docs/contracts.md, "Conventions of preemptlab-cli": the same facts as the text
        nlohmann::json j;
        j["file"] = args.positional[0];
        j["valid"] = true;
        j["format"] = std::string(kWorkloadFormat);
        j["name"] = w->name;
        j["requests"] = w->requests.size();
        j["capacity_blocks"] = w->config.capacity_blocks;
        j["block_size_tokens"] = w->config.block_size_tokens;
        j["policy"] = {{"recovery", std::string(toString(w->policy.recovery))},
                       {"victim_rule", std::string(toString(w->policy.victim_rule))},
                       {"resume_guard", std::string(toString(w->policy.resume_guard))},
                       {"engine_profile", std::string(toString(w->policy.engine_profile))}};
        j["unused_settings"] = unusedSettings(*w);
        return writeStdout(j.dump(2) + "\n") ? kExitBadInput : kExitOk;
    }
    std::printf("%s: valid %s workload '%s': %zu requests, %lld blocks of %lld tokens, policy %s/%s/%s\n",
                printable(args.positional[0]).c_str(), std::string(kWorkloadFormat).c_str(), printable(w->name).c_str(), w->requests.size(),
                static_cast<long long>(w->config.capacity_blocks), static_cast<long long>(w->config.block_size_tokens),
                std::string(toString(w->policy.recovery)).c_str(), std::string(toString(w->policy.victim_rule)).c_str(),
                std::string(toString(w->policy.resume_guard)).c_str());
    // Under an engine profile some keys do nothing (docs/engines.md); say which, so a what-if is not mistaken.
    if (const auto unused = unusedSettings(*w); !unused.empty()) {
        std::string list;
        for (const auto& key : unused) list += (list.empty() ? "" : ", ") + key;
        std::printf("engine_profile %s does not use: %s\n", std::string(toString(w->policy.engine_profile)).c_str(),
                    list.c_str());
    }
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
std::optional<RunResult> boundedRun(const Workload& w, LiveBackend* backend = nullptr,
                                    std::vector<TickStats>* series = nullptr) {
    try {
        EngineOptions options;
        options.record_series = series != nullptr; // the timeline's counters
        return runWorkload(w, backend, memoryBounded(), options, series);
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
    if (!parseCommand(argc, argv, workloadSpec(withSloFlags({"out", "trace-out", "ledger-csv"}), {"live"}), {"WORKLOAD"}, kRunUsage, args)) {
        return kExitBadInput;
    }
    auto w = loadWithOverrides(args.positional[0], args);
    std::optional<cost::Calibration> calibration;
    if (!w || !applyCalibrationFlags(args, args.positional[0], *w, calibration)) {
        return kExitBadInput;
    }
    review::Slos slos;
    if (!slosFor(args, *w, args.positional[0], slos)) {
        return kExitBadInput;
    }
    std::vector<std::string> outputs;
    if (auto out = args.value("out")) {
        outputs.push_back(*out);
    }
    const auto traceOut = args.value("trace-out");
    if (traceOut) {
        if (*traceOut == "-") {
            return badInput("run --trace-out: '-' is not a file; the receipt goes to stdout, name a FILE.json");
        }
        outputs.push_back(*traceOut);
    }
    const auto ledgerOut = args.value("ledger-csv");
    if (ledgerOut) {
        if (*ledgerOut == "-") {
            return badInput("run --ledger-csv: '-' is not a file; the receipt goes to stdout, name a FILE.csv");
        }
        outputs.push_back(*ledgerOut);
    }
    if (!outputs.empty()) {
        if (auto err = checkOutputs(outputs, inputFilesOf(args))) {
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
            options.method = parseSwapMethod(*m).value_or(SwapMethod::Gather); // the name was checked above
        }
        std::string why;
        backend = gpu::makeLiveBackend(*w, options, &why);
        if (!backend) {
            std::fprintf(stderr, "preemptlab-cli: run --live: %s\n", gpu::noDeviceText(why).c_str());
            return kExitNoDevice;
        }
    }
    std::vector<TickStats> series;
    const auto bounded = boundedRun(*w, backend.get(), traceOut ? &series : nullptr);
    if (!bounded) {
        return kExitBadInput;
    }
    const RunResult& run = *bounded;
    if (traceOut) { // streamed to the file, atomically (docs/contracts.md, "Timeline file")
        if (auto err = writeTimeline(*traceOut, *w, run, series, tickLengthOf(*w))) {
            return badInput("cannot write timeline: " + *err);
        }
    }
    if (ledgerOut) { // the lab's Export > Ledger as CSV bytes (core's ledgerCsv), written atomically
        if (auto err = writeFileAtomically(*ledgerOut, ledgerCsv(*w, run.ledger.events, run.live))) {
            return badInput("cannot write the ledger CSV: " + *err);
        }
    }
    ReceiptFacts facts;
    if (auto out = args.value("out"); out && *out != "-") { // "-": stdout, as generate and import-trace
        // Streamed to the file: the receipt text is never held whole.
        if (auto err = writeReceipt(*out, *w, run, &facts)) {
            return badInput("cannot write receipt: " + *err);
        }
    } else if (auto err = writeStdout(receiptText(*w, run, nullptr, &facts))) {
        return badInput(*err);
    }
    const bool passed = facts.conservation_passed;
    printSummary(*w, run, passed);
    std::fputs(latencyLines(review::outcomesFromRun(*w, run), slos, "").c_str(), stderr);
    if (run.live_run) {
        return reportLive(run) && passed ? kExitOk : kExitCheckFailed;
    }
    return passed ? kExitOk : kExitCheckFailed;
}

int cmdVerify(int argc, char** argv) {
    Args args;
    ArgSpec spec;
    spec.switches = {"json"};
    if (!parseCommand(argc, argv, spec, {"RECEIPT"}, kVerifyUsage, args)) {
        return kExitBadInput;
    }
    const std::string& file = args.positional[0];
    const std::string shown = printable(file); // control bytes in the name escaped, as in every message
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
    if (args.has("json")) { // the verdict as data: identical, conservation, the first difference or violation
        nlohmann::json j;
        j["file"] = file;
        j["identical"] = v.identical;
        j["conservation_passed"] = v.conservation_passed;
        j["events"] = v.events;
        if (!v.identical) j["first_difference"] = v.first_difference;
        if (v.identical && !v.conservation_passed) j["first_violation"] = v.first_violation;
        if (writeStdout(j.dump(2) + "\n")) return kExitBadInput;
        return v.identical && v.conservation_passed ? kExitOk : kExitCheckFailed;
    }
    if (!v.identical) {
        std::printf("%s: DIFFERS from the replay: first difference at %s\n", shown.c_str(),
                    v.first_difference.c_str());
        return kExitCheckFailed;
    }
    if (!v.conservation_passed) {
        std::printf("%s: replay identical but conservation FAILED: %s\n", shown.c_str(), v.first_violation.c_str());
        return kExitCheckFailed;
    }
    std::printf("%s: identical to the replay (%zu events), conservation passed\n", shown.c_str(), v.events);
    return kExitOk;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int cmdCompare(int argc, char** argv) {
    Args args;
    if (!parseCommand(argc, argv, workloadSpec(withSloFlags({"out", "receipts"}), {"engines", "quiet"}), {"WORKLOAD"}, kCompareUsage, args)) {
        return kExitBadInput;
    }
    // --engines: the workload under every engine profile (docs/engines.md) instead of every recovery mode.
    const bool engines = args.switches.count("engines") != 0;
    if (engines && (args.has("engine-profile") || args.has("engine_profile"))) {
        return badInput("compare --engines runs every engine profile; --engine-profile is not taken (run "
                        "--engine-profile P runs one)");
    }
    if (!engines && args.has("recovery")) {
        return badInput("compare runs every recovery mode (recompute, swap, adaptive, hybrid); --recovery is not "
                        "taken (run --recovery M runs one)");
    }
    // The --out file's format follows its name: FILE.csv one row per mode, FILE.json (or a name without an
    // extension) preemptlab.compare.v1; another extension is refused rather than given JSON it does not expect.
    const auto out = args.value("out");
    const bool csv = out && endsWith(*out, ".csv");
    if (out && !csv && !endsWith(*out, ".json") && std::filesystem::path(*out).has_extension()) {
        return badInput("compare --out: '" + printable(*out) + "' must end in .json or .csv");
    }
    auto base = loadWithOverrides(args.positional[0], args);
    std::optional<cost::Calibration> calibration;
    if (!base || !applyCalibrationFlags(args, args.positional[0], *base, calibration)) {
        return kExitBadInput;
    }
    review::Slos slos;
    if (!slosFor(args, *base, args.positional[0], slos)) {
        return kExitBadInput;
    }
    // Every output is checked before the four runs and written together after them: a bad path anywhere
    // leaves nothing written (exit 2 means that; a receipts folder this command created is removed again).
    std::vector<std::string> outputs;
    // --out -: the compare file (JSON) on stdout, alone; the table goes to stderr instead.
    const bool fileToStdout = out && *out == "-";
    std::FILE* const tableStream = fileToStdout ? stderr : stdout;
    bool createdFolder = false;
    if (auto dir = args.value("receipts")) {
        std::error_code ec;
        createdFolder = std::filesystem::create_directories(*dir, ec);
        if (ec) {
            return badInput("cannot create receipts folder " + *dir + ": " + ec.message());
        }
        std::vector<std::string> names;
        for (auto m : comparedModes()) names.emplace_back(toString(m));
        if (engines) {
            names.clear();
            for (auto p : comparedProfiles()) names.emplace_back(toString(p));
        }
        for (const auto& name : names) {
            outputs.push_back((std::filesystem::path(*dir) / (name + ".receipt.json")).lexically_normal().string());
        }
    }
    if (out && !fileToStdout) {
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
    const bool keepReceipts = args.value("receipts").has_value();
    // Progress on stderr, a line per column as it is done (a whole trace's four runs take seconds), unless --quiet.
    const auto started = std::chrono::steady_clock::now();
    const ColumnDone progress = [&](const CompareColumn& c, std::size_t done, std::size_t total) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::fprintf(stderr, "compare: %s done (%zu of %zu, %.1f s): %lld ticks, %lld evictions\n", c.label.c_str(), done,
                     total, s, static_cast<long long>(c.summary.totals.ticks),
                     static_cast<long long>(c.summary.totals.evictions));
    };
    const ColumnDone onColumn = args.has("quiet") ? ColumnDone{} : progress;
    std::vector<CompareColumn> cols;
    try {
        cols = engines ? compareEngineRuns(*base, memoryBounded(), keepReceipts, nullptr, onColumn)
                       : compareRuns(*base, memoryBounded(), keepReceipts, nullptr, onColumn);
    } catch (const RunTooLarge& e) {
        badInput(base->name + ": " + e.what());
        return abandon();
    }
    std::fputs(compareTableText(*base, cols).c_str(), tableStream);
    std::string latency = "\nlatency (inter-token latency beside TTFT and TPOT; docs/receipt.md, \"Latency figures\"):\n";
    for (const auto& c : cols) {
        latency += latencyLines(c.outcomes, slos, "  " + c.label);
    }
    std::fputs(latency.c_str(), tableStream);
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; keepReceipts && i < cols.size(); ++i) {
        files.emplace_back(outputs[i], std::move(cols[i].receipt));
    }
    if (fileToStdout) {
        if (auto err = writeStdout(compareFileText(*base, cols, false, slos))) {
            return badInput(*err);
        }
    } else if (out) {
        files.emplace_back(*out, compareFileText(*base, cols, csv, slos));
    }
    if (auto err = writeFilesAtomically(files)) {
        return badInput("cannot write: " + *err);
    }
    for (std::size_t i = 0; args.value("receipts") && i < cols.size(); ++i) {
        std::fprintf(stderr, "wrote %s\n", printable(outputs[i]).c_str());
    }
    bool allPassed = true;
    for (const auto& c : cols) {
        allPassed = allPassed && c.conservation_passed;
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
                     "run one policy and write its receipt (stdout without --out); --trace-out also writes the run as "
                     "Chrome trace JSON for Perfetto; --ledger-csv the victim ledger as CSV (the lab's Export > Ledger as CSV); "
                     "--live also runs evictions and "
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
