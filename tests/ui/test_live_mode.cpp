// Run > Live Mode: the switch exists; without a CUDA device (always on the build machines) it is disabled and
// says why, in gpu/'s words. The victim ledger's "measured us" and "modelled us" columns show "-" outside
// live runs, and the figures of a live run (here from a scripted backend, as in tests/core/test_live_run)
// per eviction, summed over the eviction's device calls.
#include "labdocument.h"
#include "ledgermodel.h"
#include "ledgerview.h"
#include "mainwindow.h"
#include "uitestutil.h"

#include "device_api.h"
#include "engine.h"
#include "live_backend.h"
#include "session.h"

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <map>

using namespace plui;

namespace {

const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
const QString kWave = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json");

// Measures nothing: returns figures derived from the request so each eviction's cell is predictable.
class ScriptedBackend : public pl::LiveBackend {
  public:
    std::int32_t failRequest = -1;
    std::string deviceName() const override { return "Scripted GPU"; }
    void onContextGrown(std::int32_t, std::int64_t) override {}
    pl::LiveMeasurement swapOut(std::int32_t r, std::int64_t t) override { return measure(r, t, 1.0); }
    pl::LiveMeasurement swapIn(std::int32_t r, std::int64_t t) override { return measure(r, t, 3.0); }
    pl::LiveMeasurement dropAndReplay(std::int32_t r, std::int64_t t) override { return measure(r, t, 2.0); }
    void onFinished(std::int32_t) override {}

  private:
    pl::LiveMeasurement measure(std::int32_t r, std::int64_t t, double perToken) const {
        pl::LiveMeasurement m;
        m.measured_us = static_cast<double>(t) * perToken + 0.5;
        m.modelled_us = static_cast<double>(t) * perToken;
        if (r == failRequest) {
            m.ok = false;
            m.error = "cudaErrorLaunchFailure";
        }
        return m;
    }
};

int column(const LedgerModel& m, const char* header) {
    for (int c = 0; c < m.columnCount(); ++c) {
        if (m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == QLatin1String(header)) return c;
    }
    return -1;
}

} // namespace

class TestLiveMode : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("PreemptLabTest"));
        QApplication::setApplicationName(QStringLiteral("test_live_mode"));
        QSettings().clear();
    }

    void switchSaysWhyItIsOff() {
        MainWindow w;
        auto* action = w.findChild<QAction*>(QStringLiteral("liveModeAction"));
        QVERIFY(action != nullptr);
        QVERIFY(action->isCheckable());
        std::string why;
        if (pl::gpu::probeDevice(&why)) {
            QVERIFY(action->isEnabled()); // a machine with a device: the switch works
            return;
        }
        QVERIFY(!why.empty());
        QVERIFY(!action->isEnabled());
        QVERIFY2(action->toolTip().contains(QString::fromStdString(why)), qPrintable(action->toolTip()));
        QVERIFY2(action->statusTip().contains(QString::fromStdString(why)), qPrintable(action->statusTip()));
        if (!pl::gpu::builtWithCuda()) QVERIFY(action->toolTip().contains(QStringLiteral("built without CUDA")));
    }

    void ledgerShowsDashOutsideLiveRuns() {
        MainWindow w;
        w.document()->setRunMode(LabDocument::RunMode::Synchronous);
        QVERIFY(w.openPath(kSwapWins));
        const LedgerModel* m = w.ledger()->model();
        const int measured = column(*m, "measured us");
        const int modelled = column(*m, "modelled us");
        QVERIFY(measured >= 0 && modelled >= 0);
        QVERIFY(m->rowCount() > 0);
        for (int row = 0; row < m->rowCount(); ++row) {
            QCOMPARE(m->data(m->index(row, measured), Qt::DisplayRole).toString(), QStringLiteral("-"));
            QCOMPARE(m->data(m->index(row, modelled), Qt::DisplayRole).toString(), QStringLiteral("-"));
        }
    }

    void liveModeWithoutDeviceKeepsTheSimulation() {
        std::string why;
        if (pl::gpu::probeDevice(&why)) QSKIP("a CUDA device is present: this checks the refusal without one");
        LabDocument doc;
        doc.setRunMode(LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY(doc.setWorkload(uitest::loadSample(kSwapWins), QStringLiteral("swap-wins"), &error));
        QSignalSpy failed(&doc, &LabDocument::runFailed);
        doc.seek(5);
        doc.setLiveMode(true);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QString::fromStdString(why)),
                 qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(doc.session() != nullptr); // the simulated run is still shown, at the same tick
        QCOMPARE(doc.currentTick(), std::int64_t{5});
        QVERIFY(doc.liveRun() == nullptr);
    }

    void ledgerShowsMeasuredBesideModelled() {
        for (const QString& file : {kSwapWins, kWave}) {
            const pl::Workload w = uitest::loadSample(file);
            ScriptedBackend backend;
            const pl::RunResult live = pl::runWorkload(w, &backend);
            QVERIFY(!live.live.empty());
            const pl::Session session(w);
            LedgerModel m;
            m.setSession(&session, &live);
            const int measured = column(m, "measured us");
            const int modelled = column(m, "modelled us");
            // Expected per evict seq: the sum over its calls (swap_out and/or replay, never the resume's swap_in).
            std::map<std::int64_t, std::pair<double, double>> bySeq;
            for (const auto& a : live.live) {
                if (a.kind == "swap_in") continue;
                bySeq[a.seq].first += a.measured_us;
                bySeq[a.seq].second += a.modelled_us;
            }
            int withFigures = 0;
            for (int row = 0; row < m.rowCount(); ++row) {
                const auto& e = session.result().ledger.events[static_cast<std::size_t>(m.eventIndex(row))];
                const QString got = m.data(m.index(row, measured), Qt::DisplayRole).toString();
                const auto it = bySeq.find(e.seq);
                if (it == bySeq.end()) {
                    QCOMPARE(got, QStringLiteral("-"));
                    continue;
                }
                ++withFigures;
                QCOMPARE(got, QString::number(it->second.first, 'f', 1));
                QCOMPARE(m.data(m.index(row, modelled), Qt::DisplayRole).toString(),
                         QString::number(it->second.second, 'f', 1));
                QVERIFY(!m.data(m.index(row, measured), Qt::ToolTipRole).toString().isEmpty());
            }
            QVERIFY2(withFigures > 0, qPrintable(file));
        }
    }

    void failedCallIsShownAsFailed() {
        const pl::Workload w = uitest::loadSample(kSwapWins);
        const pl::Session session(w);
        const auto& events = session.result().ledger.events;
        std::int32_t victim = -1;
        for (const auto& e : events) {
            if (e.kind == pl::EventKind::Evict) {
                victim = e.request;
                break;
            }
        }
        QVERIFY(victim >= 0);
        ScriptedBackend backend;
        backend.failRequest = victim;
        const pl::RunResult live = pl::runWorkload(w, &backend);
        LedgerModel m;
        m.setSession(&session, &live);
        const int measured = column(m, "measured us");
        QCOMPARE(m.data(m.index(0, measured), Qt::DisplayRole).toString(), QStringLiteral("failed"));
        QVERIFY(m.data(m.index(0, measured), Qt::ToolTipRole).toString().contains(QStringLiteral("cudaErrorLaunchFailure")));
    }
};

QTEST_MAIN(TestLiveMode)
#include "test_live_mode.moc"
