#include "ui/comparerun.h"

#include "core/compare_report.h"
#include "core/fallbacks.h"
#include "core/receipt.h"
#include "core/review/goodput.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <optional>

namespace plui {

namespace {

// One column: `w` as it is (the mode or engine variant already set), named `label`.
CompareEntry runOne(const pl::Workload& w, const QString& label, const pl::RunControl& control = {}) {
    const pl::RunResult run = pl::runWorkload(w, nullptr, control);
    CompareEntry e;
    e.recovery = w.policy.recovery;
    e.label = label;
    e.totals = run.totals;
    e.summary = pl::summarize(w, run);
    e.fallbackNote = QString::fromStdString(pl::hostFullNote(w, w.policy.recovery, e.summary.fallbacks));
    e.event_hash = pl::receiptHashes(w, run).event_hash;
    e.dist = Distributions::from(w, run.records);
    e.outcomes = pl::review::outcomesFromRun(w, run);
    e.itl_ticks = pl::review::latencyFigures(e.outcomes).itl_ticks;
    std::int64_t slowest = -1, longest = -1;
    for (const pl::RequestRecord& r : run.records) {
        const auto& spec = w.requests[static_cast<std::size_t>(r.request)];
        if (r.completed && r.completion_tick - spec.arrival_tick > slowest) {
            slowest = r.completion_tick - spec.arrival_tick;
            e.slowestCompletion = QString::fromStdString(spec.id);
        }
        if (r.queue_ticks > longest) {
            longest = r.queue_ticks;
            e.longestQueue = QString::fromStdString(spec.id);
        }
    }
    for (const pl::RequestRecord& r : run.records) {
        if (!r.excessive_wait && !r.repeated_preemption) continue;
        QStringList why;
        if (r.excessive_wait) why << QStringLiteral("excessive wait");
        if (r.repeated_preemption) why << QStringLiteral("repeated preemption");
        e.flagged.push_back(QStringLiteral("%1: %2").arg(QString::fromStdString(w.requests[static_cast<std::size_t>(r.request)].id),
                                                         why.join(QStringLiteral(", "))));
    }
    return e;
}

// The four runs under `control` (made by pl::memoryBounded: a run that outgrows it ends the comparison with
// its figures in `error`). `next(done)` is asked before each run and once after the last, with the
// number of runs done; false before a run stops the comparison without a result.
// The workloads a comparison of `kind` runs, with their column names.
std::vector<std::pair<pl::Workload, QString>> variants(const pl::Workload& w, CompareKind kind) {
    std::vector<std::pair<pl::Workload, QString>> out;
    if (kind == CompareKind::Engines) {
        for (pl::EngineProfile profile : pl::comparedProfiles()) {
            out.emplace_back(pl::engineVariant(w, profile), QString::fromUtf8(pl::toString(profile).data()));
        }
        return out;
    }
    for (pl::Recovery r : pl::comparedModes()) {
        pl::Workload mode = w;
        mode.policy.recovery = r;
        out.emplace_back(std::move(mode), QString::fromUtf8(pl::toString(r).data()));
    }
    return out;
}

std::optional<CompareResult> runAll(const pl::Workload& w, CompareKind kind, const pl::RunControl& control,
                                    const std::function<bool(int done)>& next) {
    CompareResult result;
    result.kind = kind;
    result.tickUs = w.config.tick_us;
    try {
        for (const auto& [variant, label] : variants(w, kind)) {
            if (!next(static_cast<int>(result.entries.size()))) return std::nullopt;
            result.entries.push_back(runOne(variant, label, control));
        }
        next(static_cast<int>(result.entries.size()));
    } catch (const pl::RunTooLarge& e) {
        result = CompareResult{};
        result.kind = kind;
        result.error = QString::fromUtf8(e.what());
    }
    return result;
}

} // namespace

int compareRunCount(CompareKind kind) {
    return static_cast<int>(kind == CompareKind::Engines ? pl::comparedProfiles().size() : pl::comparedModes().size());
}

QFuture<CompareResult> startCompare(const pl::Workload& workload, CompareKind kind) {
    return QtConcurrent::run([w = workload, kind](QPromise<CompareResult>& promise) {
        promise.setProgressRange(0, compareRunCount(kind));
        // Cancel stops the engine inside a run too, not only between the four runs.
        std::atomic<bool> stop{false};
        pl::RunControl control = pl::memoryBounded(&stop);
        control.progress = [&promise, &stop](pl::Tick) {
            if (promise.isCanceled()) stop = true;
        };
        std::optional<CompareResult> result;
        try {
            result = runAll(w, kind, control, [&promise](int done) {
                promise.setProgressValue(done);
                return !promise.isCanceled();
            });
        } catch (const pl::RunCancelled&) {
            return;
        }
        if (result) promise.addResult(std::move(*result));
    });
}

CompareResult runCompareNow(const pl::Workload& workload, CompareKind kind) {
    return *runAll(workload, kind, pl::memoryBounded(), [](int) { return true; });
}

} // namespace plui
