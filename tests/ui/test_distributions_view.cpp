// The Distributions view: the boxes it draws are core's report (core/review/report.h) for the chosen metric and
// grouping, censored requests counted in every group and never dropped, ms with config.tick_us and ticks
// without, the choice kept between sessions, and a new run redrawing it. The hand-made run's figures are worked
// out in the comments.
#include "ui/distributionsview.h"
#include "ui/distributiontable.h"
#include "ui/labdocument.h"
#include "ui/labslos.h"
#include "ui/mainwindow.h"
#include "tests/ui/uitestutil.h"

#include "core/review/outcomes.h"
#include "core/review/report.h"
#include "core/session.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScopeGuard>
#include <QtTest>

using namespace plui;
using pl::review::RequestOutcome;
using pl::review::RunOutcomes;

namespace {

RequestOutcome request(std::string id, std::int64_t prompt, std::int64_t arrival, std::int64_t first,
                       std::int64_t completion, std::int64_t generated, std::int64_t queue, std::int64_t preemptions,
                       std::int64_t oneTickGaps, std::vector<std::int64_t> longerGaps) {
    RequestOutcome r;
    r.id = std::move(id);
    r.tenant = std::string(1, 't');
    r.prompt_tokens = prompt;
    r.output_tokens = 10;
    r.arrival_tick = arrival;
    r.first_token_tick = first;
    r.completion_tick = completion;
    r.completed = completion >= 0;
    r.generated_tokens = generated;
    r.queue_ticks = queue;
    r.preemptions = preemptions;
    r.itl.one_tick = oneTickGaps;
    r.itl.longer = std::move(longerGaps);
    return r;
}

// Four requests in two prompt buckets (default edges: <128, 128-511):
//  a: prompt 10,  arrives 0, first token 2, completes 6 with 5 tokens, queue 1, gaps 1,1,1,1.
//  b: prompt 100, arrives 0, first token 4, completes 15 with 4 tokens, queue 3, 1 preemption, gaps 1,1,9.
//  c: prompt 300, arrives 5, first token 10, censored with 2 tokens, queue 50, 2 preemptions, gap 1.
//  d: prompt 200, arrives 1, first token 3, completes 11 with 3 tokens, queue 2, gaps 1,7.
RunOutcomes handRun(std::int64_t tickUs) {
    RunOutcomes run;
    run.ticks = 100;
    run.tick_us = tickUs;
    run.requests = {request("a", 10, 0, 2, 6, 5, 1, 0, 4, {}), request("b", 100, 0, 4, 15, 4, 3, 1, 2, {9}),
                    request("c", 300, 5, 10, -1, 2, 50, 2, 1, {}), request("d", 200, 1, 3, 11, 3, 2, 0, 1, {7})};
    return run;
}

QCPStatisticalBox* boxesOf(DistributionsView& v) {
    return qobject_cast<QCPStatisticalBox*>(v.plot()->plottable(0));
}

// The label under group `key` (1-based position on the key axis).
QString labelAt(DistributionsView& v, double key) {
    auto ticker = v.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    return ticker ? ticker->ticks().value(key) : QString();
}

} // namespace

class TestDistributionsView : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_distributions_view")); }

    void boxesAreCoresFiguresByPromptBucket() {
        LabDocument doc;
        DistributionsView view(&doc);
        view.setMetric(DistMetric::Queue);
        view.setGrouping(DistGrouping::PromptBucket);
        view.showOutcomes(handRun(0));
        const DistributionTable& t = view.table();
        QCOMPARE(t.unit, QStringLiteral("ticks"));
        QCOMPARE(t.requests, std::int64_t{4});
        QCOMPARE(t.censored, std::int64_t{1});
        QCOMPARE(t.rows.size(), std::size_t{2});
        // <128: a, b; queue [1, 3]: nearest rank p50 1 (rank 1), p90 and p99 3 (rank 2).
        QCOMPARE(t.rows[0].key, QStringLiteral("<128"));
        QCOMPARE(t.rows[0].requests, std::int64_t{2});
        QCOMPARE(t.rows[0].censored, std::int64_t{0});
        // 128-511: c (censored, still counted, its queue time 50 included) and d (2): [2, 50].
        QCOMPARE(t.rows[1].key, QStringLiteral("128-511"));
        QCOMPARE(t.rows[1].requests, std::int64_t{2});
        QCOMPARE(t.rows[1].censored, std::int64_t{1});
        QCOMPARE(t.rows[1].values, std::int64_t{2});
        // The drawn boxes: p50 box bottom and median, p90 box top, p99 whisker; no dot when max = p99.
        QCPStatisticalBox* boxes = boxesOf(view);
        QVERIFY(boxes);
        QCOMPARE(boxes->data()->size(), 2);
        const auto first = *boxes->data()->at(0);
        QCOMPARE(first.key, 1.0);
        QCOMPARE(first.lowerQuartile, 1.0);
        QCOMPARE(first.median, 1.0);
        QCOMPARE(first.upperQuartile, 3.0);
        QCOMPARE(first.maximum, 3.0);
        QVERIFY(first.outliers.isEmpty());
        const auto second = *boxes->data()->at(1);
        QCOMPARE(second.median, 2.0);
        QCOMPARE(second.upperQuartile, 50.0);
        QCOMPARE(second.maximum, 50.0);
        // Counts under each box: the censored request is labelled, not dropped.
        QCOMPARE(labelAt(view, 1), QStringLiteral("<128\nn=2"));
        QCOMPARE(labelAt(view, 2), QStringLiteral("128-511\nn=2 \u00b7 1 censored"));
        QVERIFY(view.caption()->text().contains(QStringLiteral("4 requests, 1 censored")));
        QVERIFY(view.caption()->text().startsWith(QStringLiteral("Whole run: ")));
        QVERIFY(view.caption()->toolTip().contains(QStringLiteral("not the cursor")));
        QVERIFY(view.caption()->text().contains(QStringLiteral("In ticks (no tick_us).")));
        QCOMPARE(view.plot()->yAxis->label(), QStringLiteral("Queue delay (ticks)"));
        // Room over the tallest box (50) for its figures, at any height.
        for (int height : {200, 700}) {
            view.plot()->resize(500, height);
            QVERIFY(view.plot()->yAxis->range().upper > 50.0);
            QCOMPARE(view.plot()->yAxis->range().lower, 0.0);
        }
        QCOMPARE(view.plot()->itemCount(), 2); // the figures over each box: "p50 2 · p90 50", "p99 50 · max 50"
        QCOMPARE(qobject_cast<QCPItemText*>(view.plot()->item(1))->text(),
                 QStringLiteral("p50 2 \u00b7 p90 50\np99 50 \u00b7 max 50"));
    }

    void completedOnlyMetricsStillCountCensored() {
        LabDocument doc;
        DistributionsView view(&doc);
        view.showOutcomes(handRun(0));
        view.setGrouping(DistGrouping::PromptBucket);
        view.setMetric(DistMetric::Tpot);
        const DistributionTable& t = view.table();
        QCOMPARE(t.unit, QStringLiteral("ticks/token"));
        // TPOT x100: a (6-2)*100/4 = 100, b (15-4)*100/3 = 366, d (11-3)*100/2 = 400; c censored has none.
        // <128 [100, 366]: p50 1.00, p90 3.66 ticks/token; 128-511 [400]: every figure 4.00.
        QCOMPARE(t.rows[0].p50, 1.0);
        QCOMPARE(t.rows[0].p90, 3.66);
        QCOMPARE(t.rows[1].values, std::int64_t{1});
        QCOMPARE(t.rows[1].requests, std::int64_t{2}); // c is counted though it has no TPOT
        QCOMPARE(t.rows[1].censored, std::int64_t{1});
        QCOMPARE(boxesOf(view)->data()->at(1)->median, 4.0);
        // By preemption count: 0 (a, d), 1 (b), 2 (c, censored): c's group has no TPOT, so no box, but its label
        // still counts it.
        view.setGrouping(DistGrouping::Preemptions);
        QCOMPARE(view.table().rows.size(), std::size_t{3});
        QCOMPARE(view.table().rows[2].key, QStringLiteral("2"));
        QCOMPARE(view.table().rows[2].requests, std::int64_t{1});
        QCOMPARE(view.table().rows[2].values, std::int64_t{0});
        QCOMPARE(boxesOf(view)->data()->size(), 2);
        QCOMPARE(labelAt(view, 3), QStringLiteral("2\nn=1 \u00b7 1 censored\nno TPOT"));
        // ITL by prompt bucket: <128 gaps 1,1,1,1,1,1,9 (7): p50 1, p90 9 (rank 7), max 9; 128-511: 1, 1, 7.
        view.setGrouping(DistGrouping::PromptBucket);
        view.setMetric(DistMetric::Itl);
        QCOMPARE(view.table().rows[0].values, std::int64_t{7});
        QCOMPARE(view.table().rows[0].p50, 1.0);
        QCOMPARE(view.table().rows[0].p90, 9.0);
        QCOMPARE(view.table().rows[1].p99, 7.0);
    }

    void millisecondsWithTickUs() {
        LabDocument doc;
        DistributionsView view(&doc);
        view.setGrouping(DistGrouping::PromptBucket);
        view.setMetric(DistMetric::Queue);
        view.showOutcomes(handRun(2000)); // 2 ms a tick
        const DistributionTable& t = view.table();
        QCOMPARE(t.unit, QStringLiteral("ms"));
        // 128-511's queue [2, 50] ticks: p50 4 ms, p90 100 ms.
        QCOMPARE(t.rows[1].p50, 4.0);
        QCOMPARE(t.rows[1].p90, 100.0);
        QCOMPARE(t.rows[1].ticks.p90, std::int64_t{50}); // ticks kept for the tooltip
        QCOMPARE(boxesOf(view)->data()->at(1)->upperQuartile, 100.0);
        QCOMPARE(view.plot()->yAxis->label(), QStringLiteral("Queue delay (ms)"));
        QVERIFY(view.caption()->text().contains(QStringLiteral("In ms, 1 tick = 2 ms.")));
        // TPOT in ms: 366 x100 ticks at 2 ms = 7.32 ms.
        view.setMetric(DistMetric::Tpot);
        QCOMPARE(view.table().rows[0].p90, 7.32);
    }

    // Goodput under the lab's SLOs, the run's and each group's, against core's; the censored request is a miss.
    void goodputUnderTheLabsSlos() {
        QSettings().clear();
        auto clear = qScopeGuard([] { QSettings().clear(); });
        LabDocument doc;
        LabSlos slos;
        DistributionsView view(&doc, &slos);
        view.setGrouping(DistGrouping::PromptBucket);
        view.showOutcomes(handRun(0));
        QVERIFY(view.goodputLabel()->text().contains(QStringLiteral("set a TTFT or TPOT SLO")));
        QVERIFY(!view.table().rows[0].goodput.has_value());
        // TTFT <= 3 and TPOT <= 3 ticks: a good (TTFT 2, TPOT 1); b over TTFT (4); c censored: a miss; d TTFT 2
        // but TPOT (11 - 3) / 2 = 4 > 3. 1 of 4 = 25%; <128: a of a, b = 50%; 128-511: none of c, d = 0%.
        view.sloField(true)->setText(QStringLiteral("3"));
        emit view.sloField(true)->editingFinished();
        view.sloField(false)->setText(QStringLiteral("3"));
        emit view.sloField(false)->editingFinished();
        pl::review::Slos expected;
        expected.ttft = pl::review::Slo{3, pl::review::SloUnit::Ticks};
        expected.tpot = pl::review::Slo{3, pl::review::SloUnit::Ticks};
        const pl::review::Goodput core = pl::review::goodput(handRun(0), expected);
        QCOMPARE(core.good, std::int64_t{1});
        QCOMPARE(core.censored, std::int64_t{1});
        QCOMPARE(view.goodputLabel()->text(),
                 QStringLiteral("Goodput (TTFT <= 3 ticks, TPOT <= 3 ticks): ") + goodputText(core));
        QVERIFY(view.goodputLabel()->text().contains(QStringLiteral("25.00% (1 of 4; 1 censored, counted as a miss)")));
        QCOMPARE(view.table().rows[0].goodput->good, std::int64_t{1});
        QCOMPARE(view.table().rows[1].goodput->good, std::int64_t{0});
        QCOMPARE(view.table().rows[1].goodput->requests, std::int64_t{2}); // c counted, as a miss
        QVERIFY(view.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>()->ticks().value(2).endsWith(
            QStringLiteral("good 0.0%")));
        // Kept in QSettings: another LabSlos reads them back; in ticks only (the ms pair is still unset).
        LabSlos again;
        QCOMPARE(again.text(false, SloKind::Ttft), QStringLiteral("3"));
        QVERIFY(!again.forTick(2000).any());
        // A value that does not parse is refused, named, and changes nothing.
        view.sloField(true)->setText(QStringLiteral("soon"));
        emit view.sloField(true)->editingFinished();
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("sloError"))->text().startsWith(QStringLiteral("TTFT SLO (ticks): ")));
        QCOMPARE(slos.text(false, SloKind::Ttft), QStringLiteral("3"));
        // With tick_us the fields are in ms: 6 ms at 2 ms a tick is the same 3 ticks.
        view.showOutcomes(handRun(2000));
        QCOMPARE(view.sloField(true)->text(), QString()); // the ms pair
        view.sloField(true)->setText(QStringLiteral("6"));
        emit view.sloField(true)->editingFinished();
        view.sloField(false)->setText(QStringLiteral("6"));
        emit view.sloField(false)->editingFinished();
        expected.ttft = pl::review::Slo{6000, pl::review::SloUnit::Micros};
        expected.tpot = pl::review::Slo{6000, pl::review::SloUnit::Micros};
        QCOMPARE(view.goodputLabel()->text(), QStringLiteral("Goodput (TTFT <= 6 ms, TPOT <= 6 ms): ") +
                                                  goodputText(pl::review::goodput(handRun(2000), expected)));
        QVERIFY(view.goodputLabel()->text().contains(QStringLiteral("25.00% (1 of 4;")));
    }

    void choicePersists() {
        QSettings().clear();
        auto clear = qScopeGuard([] { QSettings().clear(); });
        LabDocument doc;
        {
            DistributionsView view(&doc);
            QVERIFY(view.metric() == DistMetric::Queue); // the first time: queue delay by prompt bucket
            QVERIFY(view.grouping() == DistGrouping::PromptBucket);
            view.metricChooser()->setCurrentIndex(view.metricChooser()->findData(QStringLiteral("itl")));
            view.groupingChooser()->setCurrentIndex(view.groupingChooser()->findData(QStringLiteral("tenant")));
        }
        DistributionsView again(&doc);
        QVERIFY(again.metric() == DistMetric::Itl);
        QVERIFY(again.grouping() == DistGrouping::Tenant);
    }

    // In the window: the view draws core's report of the run on screen, for every metric and grouping, and a
    // new run (an edit) redraws it; tick_us turns it to ms.
    void followsTheLabsRun() {
        auto clear = qScopeGuard([] { QSettings().clear(); });
        auto w = uitest::openWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/multi-tenant.workload.json"));
        auto* view = qobject_cast<DistributionsView*>(w->view(QStringLiteral("distributions")));
        QVERIFY(view);
        QApplication::processEvents();
        auto check = [&]() {
            const pl::Session* s = w->document()->session();
            const auto report = pl::review::buildReport(pl::review::outcomesFromRun(s->workload(), s->result()), {});
            for (DistMetric m : kDistMetrics) {
                for (DistGrouping g : kDistGroupings) {
                    view->setMetric(m);
                    view->setGrouping(g);
                    const DistributionTable expected = distributionTable(report, m, g);
                    const DistributionTable& shown = view->table();
                    if (shown.rows.size() != expected.rows.size()) return false;
                    for (std::size_t i = 0; i < shown.rows.size(); ++i) {
                        const auto& a = shown.rows[i];
                        const auto& b = expected.rows[i];
                        if (a.key != b.key || a.requests != b.requests || a.censored != b.censored ||
                            a.ticks.p50 != b.ticks.p50 || a.ticks.p90 != b.ticks.p90 || a.ticks.p99 != b.ticks.p99 ||
                            a.ticks.max != b.ticks.max)
                            return false;
                    }
                }
            }
            return true;
        };
        QVERIFY(check());
        QCOMPARE(view->table().unit, QStringLiteral("ticks"));
        // Of the whole run, and it says so: its ticks, not the cursor's.
        QVERIFY2(view->caption()->text().startsWith(
                     QStringLiteral("Whole run, ticks 0 to %1 (not the cursor): ").arg(w->document()->lastTick())),
                 qPrintable(view->caption()->text()));
        const std::int64_t before = view->table().requests;
        QString error;
        QVERIFY2(w->document()->setSetting(QStringLiteral("capacity_blocks"),
                                           QString::number(w->document()->workload().config.capacity_blocks / 2), &error),
                 qPrintable(error));
        QApplication::processEvents();
        QVERIFY(check());
        QCOMPARE(view->table().requests, before);
        QVERIFY(w->document()->setSetting(QStringLiteral("tick_us"), QStringLiteral("20000"), &error));
        QApplication::processEvents();
        view->setMetric(DistMetric::Queue);
        QCOMPARE(view->table().unit, QStringLiteral("ms"));
        QCOMPARE(view->table().rows.front().p90, static_cast<double>(view->table().rows.front().ticks.p90) * 20.0);
        QVERIFY(check());
    }
};

QTEST_MAIN(TestDistributionsView)
#include "test_distributions_view.moc"
