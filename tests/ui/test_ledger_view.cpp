// The victim ledger's "why" panel: stepping onto an eviction follows it, a selected row ranks every candidate
// with the victim first, and the panel says first what caused the eviction (pl::evictionCause): who needed how
// many blocks with how many free, a requester that evicted itself, preempt-ahead, an engine's own rule.
#include "ui/blockgridwidget.h"
#include "ui/labdocument.h"
#include "ui/ledgermodel.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "ui/poolview.h"
#include "ui/timelinewidget.h"
#include "ui/transportbar.h"
#include "tests/ui/uitestutil.h"

#include "core/session.h"

#include <QLabel>
#include <QSlider>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <algorithm>

using namespace plui;

namespace {
const QString kWave = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json");
const QString kStarvation = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json");

// The ledger row of the first evict at `tick` whose victim is `victim` (any victim when empty); -1 when none.
int rowOf(const MainWindow& w, pl::Tick tick, const QString& victim = {}) {
    const pl::Session* s = w.document()->session();
    for (int r = 0; r < w.ledger()->model()->rowCount(); ++r) {
        const pl::Event& e = s->result().ledger.events[static_cast<std::size_t>(w.ledger()->model()->eventIndex(r))];
        const QString id = QString::fromStdString(s->workload().requests[static_cast<std::size_t>(e.request)].id);
        if (e.tick == tick && (victim.isEmpty() || id == victim)) return r;
    }
    return -1;
}
} // namespace

class TestLedgerView : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<MainWindow> makeWindow(const QString& file = kWave) { return uitest::openWindow(file); }

  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_ledger_view")); }

    // Stepping onto an eviction's tick highlights its row and fills the why-this-victim table, without selecting
    // the victim in the lab; a tick without one leaves the ledger as it was.
    void ledgerFollowsTheCursorToEvictions() {
        auto w = makeWindow();
        LedgerView* ledger = w->ledger();
        QVERIFY(ledger->model()->rowCount() > 3);
        const pl::Session* s = w->document()->session();
        const auto ev = ledger->model()->eventIndex(2);
        const pl::Event& e = s->result().ledger.events[static_cast<std::size_t>(ev)];
        w->transport()->scrubber()->setValue(static_cast<int>(e.tick + 1));
        QCOMPARE(w->document()->currentTick(), e.tick);
        const int shown = ledger->model()->firstRowAtOrAfter(e.tick);
        QCOMPARE(ledger->table()->selectionModel()->selectedRows().value(0).row(), shown);
        QVERIFY(ledger->candidates()->rowCount() > 0);
        QCOMPARE(w->document()->selectedRequest(), -1);
        QCOMPARE(w->document()->currentTick(), e.tick);
    }

    void selectingALedgerRowExplainsTheVictim() {
        auto w = makeWindow();
        LedgerView* ledger = w->ledger();
        QVERIFY(ledger->model()->rowCount() > 3);
        const int row = 3;
        ledger->selectRow(row);
        const pl::Session* s = w->document()->session();
        const auto ev = ledger->model()->eventIndex(row);
        const pl::Event& e = s->result().ledger.events[static_cast<std::size_t>(ev)];
        QCOMPARE(w->document()->currentTick(), e.tick);
        QCOMPARE(w->document()->selectedRequest(), e.request);
        QTableWidget* cands = ledger->candidates();
        QCOMPARE(cands->rowCount(), static_cast<int>(e.candidates_total)); // the lab keeps every candidate of a small run
        // Rank 1 is the victim the engine chose.
        QCOMPARE(cands->item(0, 1)->text(), QString::fromStdString(s->workload().requests[static_cast<std::size_t>(e.request)].id));
        QVERIFY(cands->item(0, 1)->font().bold());
        // The pool shows the victim's blocks, and the figures name it.
        auto* figures = w->poolView()->findChild<QLabel*>(QStringLiteral("poolFigures"));
        QVERIFY(figures->text().contains(QStringLiteral("victim")));
        // Every evict row of every sample ranks the recorded victim first.
        for (const QString& f : uitest::sampleFiles()) {
            QVERIFY(w->openPath(f));
            for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
                w->ledger()->selectRow(r);
                const pl::Session* ss = w->document()->session();
                const pl::Event& ee = ss->result().ledger.events[static_cast<std::size_t>(w->ledger()->model()->eventIndex(r))];
                QCOMPARE(w->ledger()->candidates()->item(0, 1)->text(),
                         QString::fromStdString(ss->workload().requests[static_cast<std::size_t>(ee.request)].id));
            }
        }
    }

    // The starvation sample at tick 54: bg-report needs a block, none is free, and it is itself the candidate
    // the rule takes. The panel says so, instead of leaving the reader to think another request took its block.
    void theCauseComesFirstAndNamesASelfEviction() {
        auto w = makeWindow(kStarvation);
        const int row = rowOf(*w, 54, QStringLiteral("bg-report"));
        QVERIFY(row >= 0);
        w->ledger()->selectRow(row);
        const QString why = w->ledger()->whyText();
        QVERIFY2(why.startsWith(QStringLiteral("<b>Cause:</b> <b>bg-report</b> needed 1 block more to run this tick; "
                                               "0 were free (allocation failed).")),
                 qPrintable(why));
        QVERIFY2(why.contains(QStringLiteral("<b>it evicted itself</b>")), qPrintable(why));
        // Another victim of someone else's need is not called a self-eviction.
        auto wave = makeWindow(kWave);
        const pl::Session* s = wave->document()->session();
        int others = 0;
        for (int r = 0; r < wave->ledger()->model()->rowCount(); ++r) {
            const auto ev = static_cast<std::size_t>(wave->ledger()->model()->eventIndex(r));
            const pl::EvictionCause cause = pl::evictionCause(s->result().ledger, ev);
            QVERIFY(cause.pressure >= 0 && cause.nth >= 1 && cause.nth <= cause.evictions);
            const pl::Event& p = s->result().ledger.events[static_cast<std::size_t>(cause.pressure)];
            QVERIFY(p.kind == pl::EventKind::Pressure);
            if (p.request == s->result().ledger.events[ev].request) continue;
            wave->ledger()->selectRow(r);
            const QString text = wave->ledger()->whyText();
            QVERIFY2(!text.contains(QStringLiteral("evicted itself")) && text.startsWith(QStringLiteral("<b>Cause:</b>")),
                     qPrintable(text));
            if (cause.evictions > 1) {
                QVERIFY2(text.contains(QStringLiteral("This is eviction %1 of %2 for it.").arg(cause.nth).arg(cause.evictions)),
                         qPrintable(text));
            }
            ++others;
        }
        QVERIFY(others > 0);
    }

    // Preempt-ahead evictions say so (and the engine profiles' own triggers their rule): each sample's rows under
    // preempt_ahead, and the sglang profile's retractions.
    void preemptAheadAndEngineRulesAreNamed() {
        auto w = makeWindow(kWave);
        QString error;
        QVERIFY(w->document()->setSetting(QStringLiteral("preempt_ahead"), QStringLiteral("true"), &error));
        const pl::Session* s = w->document()->session();
        int ahead = 0;
        for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
            const auto ev = static_cast<std::size_t>(w->ledger()->model()->eventIndex(r));
            const pl::EvictionCause cause = pl::evictionCause(s->result().ledger, ev);
            if (s->result().ledger.events[static_cast<std::size_t>(cause.pressure)].trigger != pl::PressureTrigger::PreemptAhead) continue;
            w->ledger()->selectRow(r);
            QVERIFY2(w->ledger()->whyText().startsWith(QStringLiteral("<b>Cause: preempt-ahead.</b>")),
                     qPrintable(w->ledger()->whyText()));
            ++ahead;
        }
        QVERIFY2(ahead > 0, "the wave under preempt_ahead evicts ahead at least once");
        QVERIFY(w->document()->setSetting(QStringLiteral("preempt_ahead"), QStringLiteral("false"), &error));
        QVERIFY(w->document()->setSetting(QStringLiteral("engine_profile"), QStringLiteral("sglang"), &error));
        int retracted = 0;
        for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
            w->ledger()->selectRow(r);
            retracted += w->ledger()->whyText().startsWith(QStringLiteral("<b>Cause:</b> SGLang's retract_decode")) ? 1 : 0;
        }
        QCOMPARE(retracted, w->ledger()->model()->rowCount());
    }

    // The requester (core's evictionCause requester: whose need caused the eviction) is framed in the pool and
    // the timeline at every evict's tick of every teaching sample, and only the requesters of that tick's
    // evicts are; preempt-ahead and SGLang's retract-decode frame none. The starvation sample's bg-report,
    // which evicted itself at tick 54, is said to have in the pool's caption.
    void theRequesterIsFramedInThePoolAndTimeline() {
        const auto check = [](MainWindow& w, int* framed, int* none) {
            const pl::Session* s = w.document()->session();
            const auto& events = s->result().ledger.events;
            for (int r = 0; r < w.ledger()->model()->rowCount(); ++r) {
                const auto ev = static_cast<std::size_t>(w.ledger()->model()->eventIndex(r));
                w.ledger()->selectRow(r);
                QCOMPARE(w.document()->currentTick(), events[ev].tick);
                std::vector<std::int32_t> expected; // the requesters of this tick's evicts, each once
                for (std::size_t k = 0; k < events.size(); ++k) {
                    if (events[k].tick != events[ev].tick || events[k].kind != pl::EventKind::Evict) continue;
                    const std::int32_t q = pl::evictionCause(s->result().ledger, k).requester;
                    if (q >= 0 && std::find(expected.begin(), expected.end(), q) == expected.end()) expected.push_back(q);
                }
                const std::int32_t requester = pl::evictionCause(s->result().ledger, ev).requester;
                const auto& grid = w.poolView()->grid()->requesters();
                QVERIFY(grid == expected);
                const auto& lanes = w.timeline()->requesterLanes();
                QVERIFY(std::vector<std::int32_t>(lanes.begin(), lanes.end()) == expected);
                if (requester >= 0) {
                    QVERIFY(w.poolView()->grid()->isRequester(requester));
                    ++*framed;
                } else {
                    ++*none;
                }
            }
        };
        int framed = 0, none = 0;
        for (const char* sample : {"starvation", "burst-recompute-wave", "swap-wins", "multi-tenant", "livelock-next-block"}) {
            auto w = makeWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/%1.workload.json").arg(QLatin1String(sample)));
            check(*w, &framed, &none);
        }
        QVERIFY(framed > 0);
        QCOMPARE(none, 0); // allocation failures all: each has its requester
        // Preempt-ahead and retract-decode: no requester, none framed.
        auto w = makeWindow(kWave);
        QString error;
        QVERIFY(w->document()->setSetting(QStringLiteral("preempt_ahead"), QStringLiteral("true"), &error));
        const pl::Session* s = w->document()->session();
        int ahead = 0;
        for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
            const auto ev = static_cast<std::size_t>(w->ledger()->model()->eventIndex(r));
            const pl::EvictionCause cause = pl::evictionCause(s->result().ledger, ev);
            if (s->result().ledger.events[static_cast<std::size_t>(cause.pressure)].trigger != pl::PressureTrigger::PreemptAhead) continue;
            QCOMPARE(cause.requester, -1);
            ++ahead;
        }
        QVERIFY(ahead > 0);
        framed = none = 0;
        check(*w, &framed, &none);
        QVERIFY(none >= ahead);
        // SGLang's retract_decode (core's scenario: b retracted at tick 284; the wave under sglang never retracts).
        auto retract = makeWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/tests/core/data/sglang/d1-retract-order.workload.json"));
        framed = none = 0;
        check(*retract, &framed, &none);
        QCOMPARE(framed, 0);
        QCOMPARE(none, 1);

        // bg-report evicted itself at tick 54: framed as requester and said so in the caption.
        auto starving = makeWindow(kStarvation);
        starving->ledger()->selectRow(rowOf(*starving, 54, QStringLiteral("bg-report")));
        const int bg = static_cast<int>(std::find_if(starving->document()->workload().requests.begin(),
                                                     starving->document()->workload().requests.end(),
                                                     [](const pl::RequestSpec& q) { return q.id == "bg-report"; }) -
                                        starving->document()->workload().requests.begin());
        QVERIFY(starving->poolView()->grid()->isRequester(bg));
        const QString caption = starving->poolView()->findChild<QLabel*>(QStringLiteral("poolFigures"))->text();
        QVERIFY2(caption.contains(QStringLiteral("bg-report, which evicted itself")), qPrintable(caption));
        QVERIFY(starving->poolView()->legendText().contains(QStringLiteral("requester")));
    }

    // After the cause and the rule, the panel says what became of the victim: when and how it came back, and
    // under vLLM's prefix caching how many of its tokens the cache spared (core's evictionOutcome, checked here
    // against the resume events themselves).
    void theOutcomeSaysHowTheVictimCameBack() {
        auto w = makeWindow(kWave);
        QString error;
        QVERIFY2(w->document()->setSetting(QStringLiteral("engine_profile"), QStringLiteral("vllm-v1"), &error), qPrintable(error));
        QVERIFY2(w->document()->setSetting(QStringLiteral("enable_prefix_caching"), QStringLiteral("true"), &error), qPrintable(error));
        const pl::Session* s = w->document()->session();
        const auto& events = s->result().ledger.events;
        int cameBack = 0;
        int spared = 0;
        for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
            const auto ev = static_cast<std::size_t>(w->ledger()->model()->eventIndex(r));
            const pl::EvictionOutcome out = pl::evictionOutcome(s->result().ledger, ev);
            // The resume it names is the victim's first after the evict.
            std::int64_t resume = -1;
            for (std::size_t k = ev + 1; k < events.size() && resume < 0; ++k) {
                if (events[k].request == events[ev].request && events[k].kind == pl::EventKind::Resume) resume = static_cast<std::int64_t>(k);
            }
            QCOMPARE(out.resume, resume);
            if (resume < 0) continue;
            const pl::Event& back = events[static_cast<std::size_t>(resume)];
            w->ledger()->selectRow(r);
            const QString why = w->ledger()->whyText();
            QVERIFY2(why.contains(QStringLiteral("<b>Afterwards:</b> it came back at tick %1 (recompute)").arg(back.tick)), qPrintable(why));
            ++cameBack;
            if (back.cached_tokens > 0) {
                QVERIFY2(why.contains(QStringLiteral("taking %1 tokens from the prefix cache").arg(back.cached_tokens)), qPrintable(why));
                ++spared;
            } else {
                QVERIFY2(!why.contains(QStringLiteral("prefix cache")), qPrintable(why));
            }
        }
        QVERIFY(cameBack > 0);
        QVERIFY(spared > 0);
    }

    // Swap under an engine profile is the lab's what-if, and the panel says so after the mode; under recompute
    // it does not.
    void swapUnderAProfileIsCalledAWhatIf() {
        auto w = makeWindow(kWave);
        QString error;
        QVERIFY2(w->document()->setSetting(QStringLiteral("engine_profile"), QStringLiteral("vllm-v1"), &error), qPrintable(error));
        for (const QString& mode : {QStringLiteral("swap"), QStringLiteral("recompute")}) {
            QVERIFY2(w->document()->setSetting(QStringLiteral("recovery"), mode, &error), qPrintable(error));
            const pl::Session* s = w->document()->session();
            QVERIFY(w->ledger()->model()->rowCount() > 0);
            int swapped = 0;
            for (int r = 0; r < w->ledger()->model()->rowCount(); ++r) {
                const auto ev = static_cast<std::size_t>(w->ledger()->model()->eventIndex(r));
                const bool isSwap = s->result().ledger.events[ev].mode != pl::Recovery::Recompute;
                w->ledger()->selectRow(r);
                const QString why = w->ledger()->whyText();
                QCOMPARE(why.contains(QStringLiteral("(a what-if: vllm-v1 recovers by recompute")), isSwap);
                swapped += isSwap ? 1 : 0;
            }
            QCOMPARE(swapped > 0, mode == QStringLiteral("swap"));
        }
    }
};

QTEST_MAIN(TestLedgerView)
#include "test_ledger_view.moc"
