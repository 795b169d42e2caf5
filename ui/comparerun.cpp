#include "comparerun.h"

#include "receipt.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>

namespace plui {

namespace {

CompareEntry runOne(const pl::Workload& base, pl::Recovery recovery, const pl::RunControl& control = {}) {
    pl::Workload w = base;
    w.policy.recovery = recovery;
    const pl::RunResult run = pl::runWorkload(w, nullptr, control);
    CompareEntry e;
    e.recovery = recovery;
    e.totals = run.totals;
    e.summary = pl::summarize(w, run);
    e.event_hash = pl::receiptHashes(w, run).event_hash;
    e.dist = Distributions::from(w, run.records);
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

const pl::Recovery kRecoveries[] = {pl::Recovery::Recompute, pl::Recovery::Swap, pl::Recovery::Adaptive,
                                    pl::Recovery::Hybrid};

} // namespace

QFuture<CompareResult> startCompare(const pl::Workload& workload) {
    return QtConcurrent::run([w = workload, budget = pl::eventBudget()](QPromise<CompareResult>& promise) {
        promise.setProgressRange(0, 4);
        // Cancel stops the engine inside a run too, not only between the four runs; a run that outgrows the
        // machine's memory stops with its figures.
        std::atomic<bool> stop{false};
        pl::RunControl control;
        control.cancel = &stop;
        control.max_events = budget;
        control.progress = [&promise, &stop](pl::Tick) {
            if (promise.isCanceled()) stop = true;
        };
        CompareResult result;
        int done = 0;
        try {
            for (pl::Recovery r : kRecoveries) {
                if (promise.isCanceled()) return;
                result.entries.push_back(runOne(w, r, control));
                promise.setProgressValue(++done);
            }
        } catch (const pl::RunCancelled&) {
            return;
        } catch (const pl::RunTooLarge& e) {
            result = CompareResult{};
            result.error = QString::fromUtf8(e.what());
        }
        promise.addResult(std::move(result));
    });
}

CompareResult runCompareNow(const pl::Workload& workload) {
    CompareResult result;
    pl::RunControl control;
    control.max_events = pl::eventBudget();
    try {
        for (pl::Recovery r : kRecoveries) result.entries.push_back(runOne(workload, r, control));
    } catch (const pl::RunTooLarge& e) {
        result = CompareResult{};
        result.error = QString::fromUtf8(e.what());
    }
    return result;
}

} // namespace plui
