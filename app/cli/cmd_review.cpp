// gate, report: reviewing a rollout from receipts (docs/review.md). The criteria and figures are core's
// (core/review/); here only flags are parsed and results printed.
#include "app/cli/commands.h"
#include "app/cli/review_flags.h"
#include "app/cli/workload_flags.h"

#include "core/review/gate.h"
#include "core/review/report.h"
#include "core/trace/fixed_point.h"

#include <cstdio>

namespace pl::cli {
namespace {

const std::string kGateUsage =
    "gate BASELINE.receipt.json CANDIDATE.receipt.json [--slo-ttft-ms X | --slo-ttft-ticks N] "
    "[--slo-tpot-ms X | --slo-tpot-ticks N] [--min-goodput PCT] [--max-queue-delay-regression PCT] "
    "[--percentile 50|90|99] [--max-preemptions N] [--json]";
const std::string kReportUsage =
    "report RECEIPT [--csv | --json] [--prompt-buckets a,b,c] [--output-buckets a,b,c] [--slo-ttft-ms X ...]";

int cmdGate(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = sloFlagNames();
    spec.valued.insert({"min-goodput", "max-queue-delay-regression", "percentile", "max-preemptions"});
    spec.switches = {"json"};
    Args args;
    if (!parseCommand(argc, argv, spec, {"BASELINE", "CANDIDATE"}, kGateUsage, args)) {
        return kExitBadInput;
    }
    review::GateCriteria criteria;
    if (auto err = slosFromArgs(args, criteria.slos)) {
        return badInput(std::string("gate: ") + *err);
    }
    for (const char* flag : {"min-goodput", "max-queue-delay-regression"}) {
        if (auto v = args.value(flag)) {
            const auto bp = review::parsePercentBp(*v);
            if (!bp) {
                return badInput(std::string("gate: --") + flag + ": expected a percentage (e.g. 95 or 12.5, at most "
                                "2 decimals), got '" + *v + "'");
            }
            (std::string(flag) == "min-goodput" ? criteria.min_goodput_bp : criteria.max_queue_regression_bp) = *bp;
        }
    }
    if (criteria.min_goodput_bp && *criteria.min_goodput_bp > 10000) {
        return badInput(std::string("gate: --min-goodput: a share of requests is at most 100%, got ") + *args.value("min-goodput"));
    }
    if (criteria.slos.any() && !criteria.min_goodput_bp) {
        return badInput("gate: the SLOs decide what goodput counts; give --min-goodput PCT as well");
    }
    if (auto v = args.value("percentile")) {
        if (*v != "50" && *v != "90" && *v != "99") {
            return badInput(std::string("gate: --percentile: expected 50, 90 or 99, got '") + *v + "'");
        }
        if (!criteria.max_queue_regression_bp) {
            return badInput("gate: --percentile picks the queue delay that --max-queue-delay-regression compares; "
                            "give that too");
        }
        criteria.percentile = std::stoi(*v);
    }
    if (auto v = args.value("max-preemptions")) {
        const auto n = trace::parseNonNegative(*v);
        if (!n) {
            return badInput(std::string("gate: --max-preemptions: expected a whole number from 0, got '") + *v + "'");
        }
        criteria.max_preemptions = *n;
    }
    auto result = review::runGateFiles(args.positional[0], args.positional[1], criteria);
    if (auto* e = std::get_if<InputError>(&result)) {
        return badInput(e->message());
    }
    const auto& gate = std::get<review::GateResult>(result);
    const std::string text = args.has("json") ? review::gateJsonText(gate) : review::gateTableText(gate);
    if (auto err = writeStdout(text)) {
        return badInput(*err);
    }
    return gate.passed() ? kExitOk : kExitCheckFailed;
}

int cmdReport(int argc, char** argv) {
    ArgSpec spec;
    spec.valued = sloFlagNames();
    spec.valued.insert({"prompt-buckets", "output-buckets"});
    spec.switches = {"json", "csv"};
    Args args;
    if (!parseCommand(argc, argv, spec, {"RECEIPT"}, kReportUsage, args)) {
        return kExitBadInput;
    }
    if (args.has("json") && args.has("csv")) {
        return badInput("report: --csv and --json both pick the output; give one");
    }
    review::ReportOptions options;
    if (auto err = slosFromArgs(args, options.slos)) {
        return badInput(std::string("report: ") + *err);
    }
    for (const char* flag : {"prompt-buckets", "output-buckets"}) {
        if (auto v = args.value(flag)) {
            auto edges = review::parseBucketEdges(*v);
            if (auto* why = std::get_if<std::string>(&edges)) {
                return badInput(std::string("report: --") + flag + std::string(": ") + *why);
            }
            (std::string(flag) == "prompt-buckets" ? options.prompt_edges : options.output_edges) =
                std::get<std::vector<std::int64_t>>(edges);
        }
    }
    auto parsed = review::outcomesFromReceiptFile(args.positional[0]);
    if (auto* e = std::get_if<InputError>(&parsed)) {
        return badInput(e->message());
    }
    const auto& run = std::get<review::RunOutcomes>(parsed);
    if (auto problem = review::sloProblem(options.slos, run.tick_us)) {
        return badInput(printable(args.positional[0]) + std::string(": /workload/config/tick_us: ") + *problem);
    }
    const review::Report report = review::buildReport(run, options);
    const std::string text = args.has("json")  ? review::reportJsonText(report)
                             : args.has("csv") ? review::reportCsvText(report)
                                               : review::reportTableText(report);
    if (auto err = writeStdout(text)) {
        return badInput(*err);
    }
    return kExitOk;
}

} // namespace

void registerReviewCommands(std::vector<Command>& table) {
    table.push_back({"gate", kGateUsage,
                     "hold a candidate receipt to a baseline of the same input: conservation, goodput within SLOs, "
                     "queue-delay regression, preemptions per request; 0 all pass, 1 one fails, 2 not receipts of "
                     "one input",
                     cmdGate});
    table.push_back({"report", kReportUsage,
                     "queue delay, TTFT, TPOT, ITL and completion p50/p90/p99 by prompt bucket, output bucket, "
                     "priority, tenant and preemption count (censored requests counted)",
                     cmdReport});
}

} // namespace pl::cli
