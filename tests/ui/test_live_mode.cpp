// Run > Live Mode: the switch exists; without a CUDA device (always on the build machines) it is disabled and
// says why, in gpu/'s words (the window gets gpu/'s live backend factory, as app/lab hands it in). A scripted
// factory drives a live run through the document. The victim ledger's "measured µs" and "modelled µs" columns
// show "-" outside live runs, and the figures of a live run (here from a scripted backend, as in tests/core/test_live_run)
// per eviction, summed over the eviction's device calls.
#include "ui/breakevenview.h"
#include "ui/calibrationactions.h"
#include "ui/bytestext.h"
#include "ui/labdocument.h"
#include "ui/labrun.h"
#include "ui/ledgermodel.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "tests/ui/uitestutil.h"

#include "core/cost/calibrated_rates.h"
#include "gpu/device_api.h"
#include "gpu/no_device.h"
#include "core/engine.h"
#include "core/live_backend.h"
#include "core/session.h"

#include <qcustomplot.h>

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QApplication>
#include <QSettings>
#include <QStatusBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <array>
#include <cmath>
#include <map>

using namespace plui;

namespace {

const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
const QString kWave = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json");
const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kCalibration = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/synthetic.calibration.json");

// Measures nothing: returns figures derived from the request so each eviction's cell is predictable.
class ScriptedBackend : public pl::LiveBackend {
  public:
    std::int32_t failRequest = -1;
    mutable int calls = 0; // measured calls, to see how often the device was driven
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
        m.bytes_moved = perToken == 2.0 ? 0 : t * 100;
        m.tokens_computed = perToken == 2.0 ? t : 0;
        ++calls;
        if (r == failRequest) {
            m.ok = false;
            m.error = "cudaErrorLaunchFailure";
        }
        return m;
    }
};

int column(const LedgerModel& m, const char* header) {
    for (int c = 0; c < m.columnCount(); ++c) {
        // Headers wrap onto two lines; a test names them on one.
        if (m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().replace(QLatin1Char('\n'), QLatin1Char(' ')) ==
            QString::fromUtf8(header))
            return c;
    }
    return -1;
}

} // namespace

// The Run menu holding `action`, opened (its aboutToShow is what a user's click sends).
void openRunMenu(QAction* action) {
    for (QObject* o : action->associatedObjects()) {
        if (auto* menu = qobject_cast<QMenu*>(o)) emit menu->aboutToShow();
    }
}

class TestLiveMode : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        uitest::isolateSettings(QStringLiteral("test_live_mode"));
    }

    void switchSaysWhyItIsOff() {
        // Starting the lab maps no CUDA library: the device is looked for when the Run menu first opens.
        const auto cudaMapped = [] {
            QFile maps(QStringLiteral("/proc/self/maps"));
            return maps.open(QIODevice::ReadOnly) && maps.readAll().contains("libpreemptlab-cuda");
        };
        QVERIFY(!cudaMapped());
        MainWindow w(pl::gpu::liveBackendFactory());
        auto* action = w.findChild<QAction*>(QStringLiteral("liveModeAction"));
        QVERIFY(action != nullptr);
        QVERIFY(action->isCheckable());
        QVERIFY(action->isEnabled());
        QVERIFY(!cudaMapped());
        openRunMenu(action);
        if (pl::gpu::builtWithCuda()) QVERIFY(cudaMapped());
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
        // In gpu/'s one sentence (no_device.h), in the tooltip and the status bar: on a machine without a GPU or
        // driver, "no NVIDIA GPU found (cudaGetDeviceCount: <the CUDA error>)".
        const QString sentence = QString::fromStdString(pl::gpu::noDeviceText(why));
        QVERIFY2(action->toolTip().contains(sentence), qPrintable(action->toolTip()));
        QVERIFY2(w.statusBar()->currentMessage().contains(sentence), qPrintable(w.statusBar()->currentMessage()));
        if (pl::gpu::builtWithCuda() && why.rfind("cudaGetDeviceCount: ", 0) == 0) {
            QVERIFY2(action->toolTip().contains(QStringLiteral("no NVIDIA GPU found (cudaGetDeviceCount: cuda")),
                     qPrintable(action->toolTip()));
        }
    }

    void ledgerShowsDashOutsideLiveRuns() {
        MainWindow w;
        w.document()->setRunMode(LabDocument::RunMode::Synchronous);
        QVERIFY(w.openPath(kSwapWins));
        const LedgerModel* m = w.ledger()->model();
        const int measured = column(*m, "measured µs");
        const int modelled = column(*m, "modelled µs");
        QVERIFY(measured >= 0 && modelled >= 0);
        QVERIFY(m->rowCount() > 0);
        for (int row = 0; row < m->rowCount(); ++row) {
            QCOMPARE(m->data(m->index(row, measured), Qt::DisplayRole).toString(), QStringLiteral("-"));
            QCOMPARE(m->data(m->index(row, modelled), Qt::DisplayRole).toString(), QStringLiteral("-"));
        }
        // The view hides what says nothing here: the device columns outside a live run, the shared blocks
        // without prefix sharing; the decision (both estimates) comes right after the mode.
        QVERIFY(w.ledger()->table()->isColumnHidden(measured) && w.ledger()->table()->isColumnHidden(modelled));
        QVERIFY(w.ledger()->table()->isColumnHidden(LedgerModel::SharedKept));
        QCOMPARE(column(*m, "est. recompute"), column(*m, "mode") + 1);
        QVERIFY(w.openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/mooncake-conv-slice.workload.json")));
        QVERIFY(!w.ledger()->table()->isColumnHidden(LedgerModel::SharedKept));
        std::int64_t shared = 0, grouped = 0;
        for (int row = 0; row < m->rowCount(); ++row) {
            shared += m->cellText(row, LedgerModel::SharedKept).toLongLong();
            // On screen counts are grouped by thousands (8,605 replay tokens); the CSV's cells stay plain.
            const QString raw = m->cellText(row, LedgerModel::Replay);
            QCOMPARE(m->data(m->index(row, LedgerModel::Replay), Qt::DisplayRole).toString(), groupedNumber(raw.toLongLong()));
            QVERIFY(!raw.contains(QLatin1Char(',')));
            grouped += raw.toLongLong() >= 1000 ? 1 : 0;
        }
        QVERIFY(shared > 0); // the slice's victims let go of blocks others still hold
        QVERIFY(grouped > 0);
    }

    // The lower estimate is bold and the dearer grey, whichever way the victim came back: a recompute policy
    // recomputes at the dearer estimate, and that estimate is not struck out as if it had not happened. The
    // tooltip says which way it came back.
    void ledgerMarksTheLowerEstimateNotTheModeUsed() {
        LabDocument doc;
        doc.setRunMode(LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY(doc.setWorkload(uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/generated-bursty-shared-prefix.workload.json")),
                                QStringLiteral("bursty"), &error));
        LedgerModel m;
        m.setSession(doc.session(), nullptr);
        int dearerRecompute = 0;
        for (int row = 0; row < m.rowCount(); ++row) {
            QCOMPARE(m.data(m.index(row, LedgerModel::Mode), Qt::DisplayRole).toString(), QStringLiteral("recompute"));
            const std::int64_t rec = m.cellText(row, LedgerModel::EstRecompute).toLongLong();
            const std::int64_t swp = m.cellText(row, LedgerModel::EstSwap).toLongLong();
            if (rec <= swp) continue;
            ++dearerRecompute;
            const QFont recFont = m.data(m.index(row, LedgerModel::EstRecompute), Qt::FontRole).value<QFont>();
            const QFont swapFont = m.data(m.index(row, LedgerModel::EstSwap), Qt::FontRole).value<QFont>();
            QVERIFY(!recFont.strikeOut() && !recFont.bold());
            QVERIFY(swapFont.bold() && !swapFont.strikeOut());
            QCOMPARE(m.data(m.index(row, LedgerModel::EstRecompute), Qt::ForegroundRole).value<QBrush>().color(), QColor(Qt::gray));
            const QString tip = m.data(m.index(row, LedgerModel::EstRecompute), Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(QStringLiteral("dearer")) && tip.contains(QStringLiteral("the way it came back (mode recompute)")),
                     qPrintable(tip));
            QVERIFY2(m.data(m.index(row, LedgerModel::EstSwap), Qt::ToolTipRole).toString().contains(QStringLiteral("not the way")),
                     qPrintable(tip));
        }
        QVERIFY(dearerRecompute > 0); // the sample evicts where swapping would have been cheaper
        QVERIFY(!m.headerData(LedgerModel::EstSwap, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }

    void liveModeWithoutDeviceKeepsTheSimulation() {
        std::string why;
        if (pl::gpu::probeDevice(&why)) QSKIP("a CUDA device is present: this checks the refusal without one");
        LabDocument doc(pl::gpu::liveBackendFactory());
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
            const int measured = column(m, "measured µs");
            const int modelled = column(m, "modelled µs");
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
        const int measured = column(m, "measured µs");
        QCOMPARE(m.data(m.index(0, measured), Qt::DisplayRole).toString(), QStringLiteral("failed"));
        QVERIFY(m.data(m.index(0, measured), Qt::ToolTipRole).toString().contains(QStringLiteral("cudaErrorLaunchFailure")));
    }

    void liveRunIsTheSessionsOneRun() {
        // The lab used to run the workload twice in live mode (a Session for the views, then runWorkload with
        // the backend). Now the Session's own run drives the backend: one run, and its result is the live one.
        const pl::Workload w = uitest::loadSample(kWave);
        ScriptedBackend backend;
        const LabRun run = computeLabRun(w, &backend);
        QVERIFY(run.session && run.live);
        QCOMPARE(run.live.get(), &run.session->result());
        QVERIFY(run.live->live_run);
        QCOMPARE(run.live->live_device, std::string("Scripted GPU"));
        QCOMPARE(backend.calls, static_cast<int>(run.live->live.size()));
        // The same measurements as the CLI's run with the same backend, call for call.
        ScriptedBackend again;
        const pl::RunResult cli = pl::runWorkload(w, &again);
        QCOMPARE(run.live->live.size(), cli.live.size());
        for (std::size_t i = 0; i < cli.live.size(); ++i) {
            QCOMPARE(run.live->live[i].seq, cli.live[i].seq);
            QCOMPARE(run.live->live[i].kind, cli.live[i].kind);
            QCOMPARE(run.live->live[i].measured_us, cli.live[i].measured_us);
        }
        QCOMPARE(run.session->result().ledger.events.size(), cli.ledger.events.size());
        QVERIFY(run.liveError.isEmpty());
    }

    // The lab reaches a device only through the factory it is handed: a scripted one runs live through the
    // document (the calibration reaching the backend), and a window handed none says so on the switch.
    void liveModeRunsOnTheFactoryItIsHanded() {
        int made = 0;
        bool calibrated = false;
        pl::LiveBackendFactory scripted;
        scripted.probe = [](std::string*) { return std::optional<std::string>("Scripted GPU"); };
        scripted.make = [&](const pl::Workload&, const pl::cost::Calibration* c, std::string*) {
            ++made;
            calibrated = c != nullptr;
            return std::unique_ptr<pl::LiveBackend>(new ScriptedBackend);
        };
        {
            MainWindow w(scripted);
            auto* action = w.findChild<QAction*>(QStringLiteral("liveModeAction"));
            QVERIFY(action != nullptr);
            openRunMenu(action);
            QVERIFY(action->isEnabled());
            QVERIFY2(action->toolTip().contains(QStringLiteral("Scripted GPU")), qPrintable(action->toolTip()));
        }
        LabDocument doc(scripted);
        doc.setRunMode(LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY(doc.setWorkload(uitest::loadSample(kWave), QStringLiteral("wave"), &error));
        QCOMPARE(made, 0);
        doc.setLiveMode(true);
        QCOMPARE(made, 1);
        QVERIFY(!calibrated);
        QVERIFY(doc.liveRun() != nullptr);
        QCOMPARE(doc.liveRun()->live_device, std::string("Scripted GPU"));
        QVERIFY(!doc.liveRun()->live.empty());
        auto loaded = pl::cost::loadCalibrationFile(kCalibration.toStdString());
        QVERIFY(std::holds_alternative<pl::cost::Calibration>(loaded));
        doc.setCalibration(std::get<pl::cost::Calibration>(std::move(loaded)), kCalibration); // re-runs live
        QCOMPARE(made, 2);
        QVERIFY(calibrated);

        MainWindow none;
        auto* off = none.findChild<QAction*>(QStringLiteral("liveModeAction"));
        QVERIFY(off != nullptr);
        off->setChecked(true); // switched before the menu ever opened: it asks then, and stays off
        QVERIFY(!off->isChecked() && !off->isEnabled());
        QVERIFY2(off->toolTip().contains(QStringLiteral("drives no device")), qPrintable(off->toolTip()));
        QSignalSpy failed(none.document(), &LabDocument::runFailed);
        none.document()->setRunMode(LabDocument::RunMode::Synchronous);
        QVERIFY(none.openPath(kSwapWins));
        none.document()->setLiveMode(true);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("live mode: this program drives no device")),
                 qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(none.document()->liveRun() == nullptr);
    }

    void ledgerCsvAddsMeasuredColumnsInLiveRuns() {
        const pl::Workload w = uitest::loadSample(kWave);
        const pl::Session session(w);
        LedgerModel plain;
        plain.setSession(&session);
        const QStringList simulated = QString::fromStdString(plain.csv()).split(QLatin1Char('\n'));
        QCOMPARE(simulated.front(), QStringLiteral("tick,victim,mode,fallback,freed_blocks,replay_tokens,swap_out_bytes,"
                                                   "swap_in_bytes,est_recompute_ticks,est_swap_ticks,queue_position"));
        ScriptedBackend backend;
        const pl::RunResult live = pl::runWorkload(w, &backend);
        LedgerModel m;
        m.setSession(&session, &live);
        const QStringList lines = QString::fromStdString(m.csv()).split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), simulated.size());
        QCOMPARE(lines.front(), simulated.front() + QStringLiteral(",measured_us,bytes_moved,tokens_computed,"
                                                                   "modelled_us,device_error"));
        std::map<std::int64_t, std::array<double, 4>> bySeq; // measured, bytes, tokens, modelled
        for (const auto& a : live.live) {
            if (a.kind == "swap_in") continue;
            auto& v = bySeq[a.seq];
            v[0] += a.measured_us;
            v[1] += static_cast<double>(a.bytes_moved);
            v[2] += static_cast<double>(a.tokens_computed);
            v[3] += a.modelled_us;
        }
        int checked = 0;
        for (int row = 0; row < m.rowCount(); ++row) {
            const QString& line = lines[row + 1];
            QVERIFY(line.startsWith(simulated[row + 1] + QLatin1Char(','))); // the simulated columns unchanged
            const QStringList extra = line.mid(simulated[row + 1].size() + 1).split(QLatin1Char(','));
            QCOMPARE(extra.size(), 5);
            const auto& e = session.result().ledger.events[static_cast<std::size_t>(m.eventIndex(row))];
            const auto it = bySeq.find(e.seq);
            if (it == bySeq.end()) {
                QCOMPARE(extra.join(QLatin1Char(',')), QStringLiteral(",,,,"));
                continue;
            }
            ++checked;
            QCOMPARE(extra[0], QString::number(it->second[0], 'f', 3));
            QCOMPARE(extra[1], QString::number(static_cast<qint64>(it->second[1])));
            QCOMPARE(extra[2], QString::number(static_cast<qint64>(it->second[2])));
            QCOMPARE(extra[3], QString::number(it->second[3], 'f', 3));
            QCOMPARE(extra[4], QString());
        }
        QVERIFY(checked > 0);
    }

    void loadCalibrationAppliesUndoablyAndIsRemembered() {
        QSettings().clear();
        // By the CLI's arithmetic (docs/live-mode.md), seed-example at 10 ms ticks with its mean context of 65
        // tokens on the synthetic calibration's gather fits at 8-token blocks: 51,397,683 B and 227 tokens.
        {
            MainWindow w;
            w.document()->setRunMode(LabDocument::RunMode::Synchronous);
            auto* calibration = w.calibrationActions();
            QVERIFY(calibration != nullptr);
            QVERIFY(w.findChild<QAction*>(QStringLiteral("loadCalibrationAction")) != nullptr);
            QVERIFY(w.openPath(kSeed));
            const pl::Config before = w.document()->workload().config;
            QVERIFY(!calibration->applyAction()->isEnabled());
            QString error;
            QVERIFY2(calibration->loadCalibration(kCalibration, &error), qPrintable(error));
            QVERIFY(calibration->applyAction()->isEnabled());
            QVERIFY(w.document()->calibration() != nullptr);
            QVERIFY2(calibration->applyToWorkload(10.0, &error), qPrintable(error));
            QCOMPARE(w.document()->workload().config.transfer_bytes_per_tick, std::int64_t{51397683});
            QCOMPARE(w.document()->workload().config.prefill_tokens_per_tick, std::int64_t{227});
            QVERIFY(calibration->lastReport().contains(QStringLiteral("transfer_bytes_per_tick = 51397683")));
            QVERIFY(w.document()->session()->workload().config == w.document()->workload().config); // re-ran
            w.document()->undoStack()->undo();
            QVERIFY(w.document()->workload().config == before);
            w.document()->undoStack()->redo();
            QCOMPARE(w.document()->workload().config.prefill_tokens_per_tick, std::int64_t{227});
            // A bad file is refused with file, pointer and reason; the loaded calibration stays.
            QTemporaryDir dir;
            const QString bad = dir.filePath(QStringLiteral("bad.json"));
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"format": "preemptlab.calibration.v1", "device": 3})");
            f.close();
            QVERIFY(!calibration->loadCalibration(bad, &error));
            QCOMPARE(error, bad + QStringLiteral(": /device: must be an object"));
            QCOMPARE(w.document()->calibrationPath(), kCalibration);
            // The explorer draws the measured curves.
            QVERIFY(w.breakeven()->swapPlot()->graphCount() > 0);
            QVERIFY(w.breakeven()->measuredText().contains(QStringLiteral("SYNTHETIC - not a measurement")));
            QVERIFY(w.breakeven()->plot()->graph(2)->dataCount() > 0);
            QVERIFY(w.breakeven()->plot()->graph(3)->dataCount() > 0);
        }
        MainWindow restarted; // the file comes back at the next start
        QVERIFY(restarted.document()->calibration() != nullptr);
        QCOMPARE(restarted.document()->calibrationPath(), kCalibration);
        QCOMPARE(restarted.calibrationActions()->rememberedTickMs(), 10.0);
    }

    // The explorer says which recovery is cheaper on the open workload's own machine (it showed the same
    // picture whatever was open): swap-wins moves 512 tokens a tick out and back (262,144 B over 2 x 256 B)
    // against 16 re-prefilled, recompute-wins 2 against 1,024; an edit of the rates changes the line.
    void explorerSaysWhichIsCheaperOnTheOpenWorkloadsMachine() {
        MainWindow w;
        w.document()->setRunMode(LabDocument::RunMode::Synchronous);
        QCOMPARE(w.breakeven()->workloadText(), QString());
        QVERIFY(w.openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json")));
        QVERIFY2(w.breakeven()->workloadText().contains(QStringLiteral("recompute re-prefills 16 tokens a tick; swap moves 512 tokens a tick")),
                 qPrintable(w.breakeven()->workloadText()));
        QVERIFY(w.breakeven()->workloadText().contains(QStringLiteral("swap is 32\u00d7 cheaper per token")));
        QVERIFY(w.openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/recompute-wins.workload.json")));
        QVERIFY2(w.breakeven()->workloadText().contains(QStringLiteral("recompute is 512\u00d7 cheaper per token")),
                 qPrintable(w.breakeven()->workloadText()));
        QString error;
        QVERIFY2(w.document()->setSetting(QStringLiteral("prefill_tokens_per_tick"), QStringLiteral("1"), &error), qPrintable(error));
        QVERIFY2(w.breakeven()->workloadText().contains(QStringLiteral("swap is 2\u00d7 cheaper per token")),
                 qPrintable(w.breakeven()->workloadText()));
        pl::Config even;
        even.prefill_tokens_per_tick = 8;
        even.kv_bytes_per_token = 1024;
        even.transfer_bytes_per_tick = 16384;
        QVERIFY(BreakevenView::workloadVerdict(even).contains(QStringLiteral("they cost the same per token")));
        // Small and lopsided rates read as figures, never "0.00 tokens" or an overflowed integer.
        pl::Config slow = even;
        slow.transfer_bytes_per_tick = 1;
        slow.prefill_tokens_per_tick = std::int64_t{1} << 53;
        const QString text = BreakevenView::workloadVerdict(slow);
        QVERIFY2(text.contains(QStringLiteral("swap moves 0.000488 tokens a tick")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("recompute is 1.84e+19\u00d7 cheaper")), qPrintable(text));
        even.prefill_tokens_per_tick = 25; // against 26 tokens a tick swapped
        even.transfer_bytes_per_tick = 26 * 2 * 1024;
        QVERIFY2(BreakevenView::workloadVerdict(even).contains(QStringLiteral("swap is 1.04\u00d7 cheaper")),
                 qPrintable(BreakevenView::workloadVerdict(even)));
    }

    void explorerMarksTheMeasuredBreakeven() {
        // Gather out 4 us + bytes / 50 GB/s, in 6.5 us + bytes / 25 GB/s, 20,000 B per token, prefill
        // 130 + 0.5 T + 1e-4 T^2 us: the per-token curves meet at 175.09 and 6,824.9 tokens (by hand in
        // tests/core/cost/test_calibration.cpp).
        pl::cost::Calibration c;
        c.device_name = "SYNTHETIC (test)";
        c.model = "test";
        c.kv_bytes_per_token = 20000;
        for (std::int64_t blocks : {1, 4, 16, 64}) {
            const std::int64_t bytes = blocks * 16 * 20000;
            c.swaps.push_back({"gather", "d2h", 16, blocks, bytes, 0, 4.0 + static_cast<double>(bytes) / 50000.0});
            c.swaps.push_back({"gather", "h2d", 16, blocks, bytes, 0, 6.5 + static_cast<double>(bytes) / 25000.0});
        }
        for (std::int64_t t : {128, 512, 2048, 8192}) {
            const double T = static_cast<double>(t);
            c.prefills.push_back({t, 130.0 + 0.5 * T + 1e-4 * T * T, 0.0});
        }
        pl::cost::fitCalibration(c);
        BreakevenView view;
        QCOMPARE(view.measuredBreakeven(), -1.0);
        QVERIFY(!view.measuredText().contains(QStringLiteral("SYNTHETIC")));
        view.setCalibration(&c);
        QVERIFY(std::fabs(view.measuredBreakeven() - 175.0939863) < 1e-3);
        QVERIFY2(view.measuredText().contains(QStringLiteral("175")) && view.measuredText().contains(QLocale().toString(6825)),
                 qPrintable(view.measuredText()));
        QCOMPARE(view.prefillPlot()->graph(1)->dataCount(), 4); // the four measured lengths
        view.setCalibration(nullptr);
        QCOMPARE(view.measuredBreakeven(), -1.0);
        QCOMPARE(view.plot()->graph(2)->dataCount(), 0);
    }
};

QTEST_MAIN(TestLiveMode)
#include "test_live_mode.moc"
