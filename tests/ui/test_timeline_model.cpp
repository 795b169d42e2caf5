// TimelineModel: lanes derived from the ledger agree with the per-request records of every sample. The
// widget over it: request ids on the value axis, this tick's victims tinted, the lanes redrawn when they move.
#include "ui/labdocument.h"
#include "ui/statecolors.h"
#include "ui/timelinemodel.h"
#include "ui/timelinewidget.h"
#include "tests/ui/uitestutil.h"

#include "core/engine.h"
#include "core/session.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>

#include <set>

class TestTimelineModel : public QObject {
    Q_OBJECT
  private slots:
    void lanesAgreeWithRecords_data() {
        QTest::addColumn<QString>("file");
        for (const QString& f : uitest::sampleFiles()) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void lanesAgreeWithRecords() {
        QFETCH(QString, file);
        const pl::Workload w = uitest::loadSample(file);
        const pl::RunResult run = pl::runWorkload(w);
        const plui::TimelineModel m = plui::TimelineModel::build(w, run);
        QCOMPARE(m.lanes.size(), w.requests.size());
        int waitFlags = 0, preemptFlags = 0;
        for (const auto& r : run.records) {
            const auto& lane = m.lanes[static_cast<std::size_t>(r.request)];
            const auto& spec = w.requests[static_cast<std::size_t>(r.request)];
            QVERIFY(!lane.empty());
            QCOMPARE(lane.front().begin, spec.arrival_tick);
            // It waits, or is admitted (and may even reach its first token) in its arrival tick.
            QVERIFY(lane.front().state == plui::LaneState::Waiting || lane.front().state == plui::LaneState::Prefill ||
                    lane.front().state == plui::LaneState::Decode);
            for (std::size_t i = 0; i + 1 < lane.size(); ++i) {
                QVERIFY2(lane[i].end == lane[i + 1].begin, "lanes are contiguous");
                QVERIFY2(lane[i].begin < lane[i].end, "no empty segments");
            }
            if (r.completed) {
                QVERIFY(lane.back().state == plui::LaneState::Done);
                QCOMPARE(lane.back().begin, r.completion_tick);
            } else {
                QVERIFY(lane.back().state == plui::LaneState::Censored);
            }
            QVERIFY(lane.back().end <= m.keyEnd); // the axis reaches the censored tick at max_ticks too
            if (r.first_token_tick >= 0) {
                const auto* seg = m.segmentAt(r.request, r.first_token_tick);
                QVERIFY(seg != nullptr);
                QVERIFY2(seg->state != plui::LaneState::Waiting && seg->state != plui::LaneState::Prefill,
                         "after the first token the request is decoding (or preempted in that very tick)");
            }
            // A request preempted k times shows k queue or copy episodes after an evict.
            int preemptedSegments = 0;
            for (const auto& s : lane) {
                if (s.state == plui::LaneState::Preempted || s.state == plui::LaneState::Copying) {
                    ++preemptedSegments;
                }
            }
            if (r.preemptions > 0) QVERIFY(preemptedSegments > 0);
            waitFlags += r.excessive_wait;
            preemptFlags += r.repeated_preemption;
            QCOMPARE(m.segmentAt(r.request, spec.arrival_tick - 1), nullptr);
        }
        int waitMarks = 0, preemptMarks = 0;
        for (const auto& mk : m.markers) {
            (mk.kind == plui::MarkerKind::ExcessiveWait ? waitMarks : preemptMarks)++;
            QVERIFY(mk.tick >= 0 && mk.tick <= m.endTick);
        }
        QCOMPARE(waitMarks, waitFlags);
        QCOMPARE(preemptMarks, preemptFlags);
    }

    // 200 requests: too many to name every lane, so the axis ticks carry request ids (as the pool and the
    // ledger name them). At an eviction tick the victims' lanes are tinted; moving the cursor redraws the lanes
    // exactly when they moved (the view followed) or the tinted victims changed, else only the cursor layer.
    void widgetNamesLanesAndTintsVictims() {
        plui::LabDocument doc;
        doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
        QString error;
        const pl::Workload w = uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/azure-conv-slice.workload.json"));
        QVERIFY2(doc.setWorkload(w, QStringLiteral("azure"), &error), qPrintable(error));
        plui::TimelineWidget tl(&doc);
        tl.resize(900, 500);
        tl.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tl));
        tl.plot()->replot();
        std::set<QString> ids;
        for (const auto& r : w.requests) ids.insert(QString::fromStdString(r.id));
        const QVector<QString> labels = tl.plot()->yAxis->tickVectorLabels();
        QVERIFY(labels.size() >= 2);
        for (const QString& l : labels) QVERIFY2(ids.count(l) == 1, qPrintable(l));

        QSignalSpy full(tl.plot(), &QCustomPlot::afterReplot);
        // Replots queued by the layout (tick counts fitted to the size) run now, not in the loop below: wait
        // until a while passes without one.
        for (qsizetype seen = -1; seen != full.count();) {
            seen = full.count();
            QTest::qWait(150);
        }
        const auto& pressure = doc.session()->pressureTicks();
        QVERIFY(!pressure.empty());
        int fullReplots = 0, cursorOnly = 0;
        for (std::int64_t t = pressure.front() - 3; t <= pressure.front() + 3; ++t) {
            const QCPRange before = tl.plot()->yAxis->range();
            const std::vector<int> victimsBefore = tl.victimLanes();
            full.clear();
            doc.seek(t);
            const auto& victims = doc.victimsAtCursor();
            QCOMPARE(tl.victimLanes(), std::vector<int>(victims.begin(), victims.end()));
            if (t == pressure.front()) QVERIFY(!victims.empty());
            const bool moved = tl.plot()->yAxis->range() != before || tl.victimLanes() != victimsBefore;
            if (moved) {
                QTRY_VERIFY(full.count() > 0);
                ++fullReplots;
                if (t == pressure.front()) {
                    // The victim's lane is named on the axis, with a pointer, whatever the tick step.
                    const QVector<QString> named = tl.plot()->yAxis->tickVectorLabels();
                    const QString pointed = QStringLiteral("\u25b6 ") +
                                            QString::fromStdString(w.requests[static_cast<std::size_t>(victims.front())].id);
                    QVERIFY2(named.contains(pointed), qPrintable(pointed));
                    // The victim's state at the eviction is drawn over the cursor, not hidden under its halo:
                    // at the cursor's x, in the middle of the victim's lane, the pixel is that state's colour.
                    tl.plot()->replot();
                    const QImage img = tl.plot()->toPixmap().toImage();
                    const int x = static_cast<int>(std::lround(tl.plot()->xAxis->coordToPixel(static_cast<double>(t) + 0.5)));
                    const int y = static_cast<int>(std::lround(tl.plot()->yAxis->coordToPixel(victims.front())));
                    const plui::LaneSegment* seg = tl.model().segmentAt(victims.front(), t);
                    QVERIFY(seg != nullptr);
                    QCOMPARE(QColor(img.pixel(x, y)).rgb(), plui::stateColor(seg->state).rgb());
                }
            } else {
                QTest::qWait(20);
                QCOMPARE(full.count(), 0);
                ++cursorOnly;
            }
        }
        QVERIFY(fullReplots > 0 && cursorOnly > 0);
    }

    // 31 lanes: all named where the names fit one above the other, every second (or fifth) lane where they
    // do not; never two names on top of each other (at 1024x700 they were).
    void laneNamesNeverOverlap() {
        plui::LabDocument doc;
        QVERIFY(uitest::openSample(doc, QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json")));
        const int n = static_cast<int>(doc.workload().requests.size());
        QCOMPARE(n, 31);
        plui::TimelineWidget tl(&doc);
        tl.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tl));
        for (int height = 120; height <= 900; height += 10) { // the step was once rounded down between these
            tl.resize(700, height);
            tl.plot()->replot();
            QCPAxis* y = tl.plot()->yAxis;
            const QVector<double> ticks = y->tickVector();
            QVERIFY(ticks.size() >= 2);
            const double line = QFontMetrics(y->tickLabelFont()).height();
            for (qsizetype i = 1; i < ticks.size(); ++i) {
                const double gap = std::abs(y->coordToPixel(ticks[i]) - y->coordToPixel(ticks[i - 1]));
                QVERIFY2(gap >= line, qPrintable(QStringLiteral("%1 px tall: %2 px between names").arg(height).arg(gap)));
            }
            if (height == 900) QCOMPARE(ticks.size(), n); // room for every name
            if (height == 300) QVERIFY(ticks.size() < n);
        }
    }

    // Every replay shows: at the tick its replay_done lands the lane is replaying, also when the resume was in
    // that same tick (recompute-wins: every replay is one tick, and none was drawn), unless the request was
    // evicted or finished in that tick too; what follows starts a tick later.
    void everyReplayIsDrawn() {
        int sameTick = 0;
        for (const QString& file : uitest::sampleFiles()) {
            for (const pl::Recovery mode : {pl::Recovery::Recompute, pl::Recovery::Hybrid}) {
                pl::Workload w = uitest::loadSample(file);
                w.policy.recovery = mode;
                const pl::RunResult run = pl::runWorkload(w);
                const plui::TimelineModel m = plui::TimelineModel::build(w, run);
                const auto& ev = run.ledger.events;
                for (std::size_t i = 0; i < ev.size(); ++i) {
                    if (ev[i].kind != pl::EventKind::ReplayDone) continue;
                    const bool endsThere = std::any_of(ev.begin() + static_cast<std::ptrdiff_t>(i) + 1, ev.end(), [&](const pl::Event& o) {
                        return o.tick == ev[i].tick && o.request == ev[i].request;
                    });
                    if (endsThere) continue;
                    const auto* seg = m.segmentAt(ev[i].request, ev[i].tick);
                    QVERIFY(seg != nullptr);
                    QCOMPARE(static_cast<int>(seg->state), static_cast<int>(plui::LaneState::Replaying));
                    const bool resumedThere = std::any_of(ev.begin(), ev.begin() + static_cast<std::ptrdiff_t>(i), [&](const pl::Event& o) {
                        return o.tick == ev[i].tick && o.request == ev[i].request && o.kind == pl::EventKind::Resume;
                    });
                    if (resumedThere) {
                        ++sameTick;
                        QCOMPARE(seg->begin, ev[i].tick);
                        QCOMPARE(seg->end, ev[i].tick + 1);
                    }
                }
            }
        }
        QVERIFY(sameTick > 0);
    }

    // The Walker on a hand-made ledger, for the cases the samples do not reach: a replay that finishes in the
    // tick the request is evicted again (the eviction tells that tick's state; nothing is left deferred), and a
    // resume whose dropped context the prefix cache gave back whole (replay_tokens 0: no replay follows, so the
    // lane decodes, not "replaying" until the next event).
    void walkerOnAHandMadeLedger() {
        pl::Workload w;
        pl::RequestSpec r;
        r.id = "r";
        r.prompt_tokens = 16;
        r.output_tokens = 64;
        w.requests.push_back(r);
        pl::RunResult run;
        auto add = [&](std::int64_t tick, pl::EventKind kind, std::int64_t replay = 0) {
            pl::Event e;
            e.tick = tick;
            e.kind = kind;
            e.request = 0;
            e.replay_tokens = replay;
            run.ledger.events.push_back(e);
        };
        add(0, pl::EventKind::Arrive);
        add(0, pl::EventKind::Admit);
        add(1, pl::EventKind::FirstToken);
        add(5, pl::EventKind::Evict, 20);
        add(8, pl::EventKind::Resume, 20);
        add(8, pl::EventKind::ReplayDone, 20);
        add(8, pl::EventKind::Evict, 20);
        add(12, pl::EventKind::Resume, 0); // the cache held it all
        add(20, pl::EventKind::Complete);
        run.totals.ticks = 21;
        const plui::TimelineModel m = plui::TimelineModel::build(w, run);
        const auto& lane = m.lanes.front();
        for (std::size_t i = 0; i + 1 < lane.size(); ++i) {
            QCOMPARE(lane[i].end, lane[i + 1].begin);
            QVERIFY(lane[i].begin < lane[i].end);
        }
        auto stateAt = [&](std::int64_t t) { return static_cast<int>(m.segmentAt(0, t)->state); };
        QCOMPARE(stateAt(5), static_cast<int>(plui::LaneState::Preempted));
        QCOMPARE(stateAt(8), static_cast<int>(plui::LaneState::Preempted)); // evicted again in that tick
        QCOMPARE(stateAt(9), static_cast<int>(plui::LaneState::Preempted));
        QCOMPARE(stateAt(12), static_cast<int>(plui::LaneState::Decode)); // no replay: the cache gave it back
        QCOMPARE(stateAt(19), static_cast<int>(plui::LaneState::Decode));
        QCOMPARE(stateAt(20), static_cast<int>(plui::LaneState::Done));
    }

    void excessiveWaitMarkerSitsWhereTheThresholdIsCrossed() {
        // The starvation sample flags some requests; each triangle sits inside a queued segment.
        const QString file = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json");
        if (!QFileInfo::exists(file)) QSKIP("starvation sample not present");
        const pl::Workload w = uitest::loadSample(file);
        const pl::RunResult run = pl::runWorkload(w);
        const plui::TimelineModel m = plui::TimelineModel::build(w, run);
        int checked = 0;
        for (const auto& mk : m.markers) {
            if (mk.kind != plui::MarkerKind::ExcessiveWait) continue;
            const auto* seg = m.segmentAt(mk.request, mk.tick);
            QVERIFY(seg != nullptr);
            QVERIFY(seg->state == plui::LaneState::Waiting || seg->state == plui::LaneState::Preempted ||
                    seg->state == plui::LaneState::SwappedOut);
            ++checked;
        }
        QVERIFY2(checked > 0, "the starvation sample flags at least one excessive wait");
    }

    // The triangle sits at the tick where core's queue_ticks passes the threshold, whatever the mode: a run cut
    // at that tick (max_ticks = T, which censors and counts the wait so far) has exactly the threshold, one tick
    // later one more. Under swap and hybrid the swap-out's copy is queue time too (the victim is back in the
    // queue at its eviction): the triangle once sat ticks late there, or off the end of the run.
    void excessiveWaitMarkerAgreesWithCoreInEveryMode_data() {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<int>("recovery");
        const QStringList samples{QStringLiteral("livelock-next-block"), QStringLiteral("starvation"), QStringLiteral("swap-wins")};
        for (const QString& f : samples)
            for (const pl::Recovery r : {pl::Recovery::Recompute, pl::Recovery::Swap, pl::Recovery::Hybrid})
                QTest::newRow(qPrintable(f + QStringLiteral("/") + QString::fromStdString(std::string(pl::toString(r)))))
                    << f << static_cast<int>(r);
    }
    void excessiveWaitMarkerAgreesWithCoreInEveryMode() {
        QFETCH(QString, sample);
        QFETCH(int, recovery);
        pl::Workload w = uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/%1.workload.json").arg(sample));
        w.policy.recovery = static_cast<pl::Recovery>(recovery);
        const pl::RunResult run = pl::runWorkload(w);
        const plui::TimelineModel m = plui::TimelineModel::build(w, run);
        const std::int64_t threshold = w.config.wait_threshold_ticks;
        int checked = 0;
        for (const auto& mk : m.markers) {
            if (mk.kind != plui::MarkerKind::ExcessiveWait) continue;
            const std::string id = w.requests[static_cast<std::size_t>(mk.request)].id;
            for (const std::int64_t cut : {mk.tick, mk.tick + 1}) {
                pl::Workload shorter = w;
                shorter.config.max_ticks = cut;
                // Requests not yet arrived at the cut change nothing before it.
                std::erase_if(shorter.requests, [&](const pl::RequestSpec& q) { return q.arrival_tick >= cut; });
                const pl::RunResult part = pl::runWorkload(shorter);
                const auto at = std::find_if(shorter.requests.begin(), shorter.requests.end(),
                                             [&](const pl::RequestSpec& q) { return q.id == id; });
                QVERIFY(at != shorter.requests.end());
                const auto& rec = part.records[static_cast<std::size_t>(at - shorter.requests.begin())];
                QCOMPARE(rec.queue_ticks, threshold + (cut - mk.tick));
            }
            ++checked;
        }
        int flagged = 0;
        for (const auto& rec : run.records) flagged += rec.excessive_wait ? 1 : 0;
        QCOMPARE(checked, flagged);
    }
};

QTEST_MAIN(TestTimelineModel)
#include "test_timeline_model.moc"
