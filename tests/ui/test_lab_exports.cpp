// The lab's outputs as a user makes them (offscreen): every export format checked against core's bytes, the
// export dialogs' folder across restarts and the block tooltips, screenshots that are not blank at several sizes,
// and the headless screenshot path. Split from test_lab_gui.cpp (the lab driven by hand), which was past 800 lines.
#include "ui/breakevenview.h"
#include "ui/bytestext.h"
#include "ui/blockgridwidget.h"
#include "ui/compareview.h"
#include "ui/exportactions.h"
#include "ui/exporter.h"
#include "ui/fileactions.h"
#include "ui/generatordialog.h"
#include "ui/helpactions.h"
#include "ui/labdocument.h"
#include "ui/ledgermodel.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "ui/plotswidget.h"
#include "ui/policypanel.h"
#include "ui/poolview.h"
#include "ui/timelinewidget.h"
#include "ui/transportbar.h"
#include "tests/ui/uitestutil.h"
#include "ui/requesttablemodel.h"
#include "ui/workloadpanel.h"
#include "ui/timelinemodel.h"
#include "ui/labcommandline.h"

#include "core/compare_report.h"
#include "ui/comparerun.h"
#include "core/receipt.h"
#include "core/review/outcomes.h"
#include "core/review/report.h"
#include "core/session.h"

#include <nlohmann/json.hpp>
#include "core/summary.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QSignalSpy>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QTest>
#include <QUndoStack>

#include <qcustomplot.h>

#include <cmath>

using namespace plui;

namespace {
const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
const QString kWave = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json");

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void settle() {
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
}
} // namespace

class TestLabExports : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<MainWindow> makeWindow(const QString& file = kWave) { return uitest::openWindow(file); }

  private slots:
    void initTestCase() {
        uitest::isolateSettings(QStringLiteral("test_lab_exports"));
    }

    // Issue 27: a block's tooltip says its owner's phase, context and blocks at the cursor (the engine's own
    // figures), and the export dialogs start in the folder of the last export, across restarts (QSettings).
    void blockTooltipsAndExportFolders() {
        auto w = makeWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json"));
        LabDocument* doc = w->document();
        doc->seek(54);
        const pl::Engine& cursor = doc->session()->cursor();
        const BlockGridWidget* grid = w->poolView()->grid();
        int described = 0;
        for (int b = 0; b < grid->blockCount(); ++b) {
            const std::int32_t owner = b < static_cast<int>(cursor.blockOwners().size()) ? cursor.blockOwners()[static_cast<std::size_t>(b)] : -1;
            const QString tip = grid->cellToolTip(b);
            if (owner < 0) {
                QVERIFY2(!tip.contains(QStringLiteral("context")), qPrintable(tip));
                continue;
            }
            const pl::RequestState& r = cursor.requests()[static_cast<std::size_t>(owner)];
            const auto& spec = doc->workload().requests[static_cast<std::size_t>(owner)];
            const QString want = QStringLiteral("\n%1; context %2 tokens (prompt %3 + %4 generated); %5 blocks on the device")
                                     .arg(QString::fromUtf8(pl::toString(r.phase).data(), static_cast<qsizetype>(pl::toString(r.phase).size())),
                                          groupedNumber(spec.prompt_tokens + r.generated_tokens), groupedNumber(spec.prompt_tokens),
                                          groupedNumber(r.generated_tokens), groupedNumber(r.blocks));
            QVERIFY2(tip.contains(want), qPrintable(tip + QStringLiteral(" | wanted ") + want));
            ++described;
        }
        QVERIFY(described > 0);

        // Export dialogs: each starts in the folder the last export went to.
        QSettings().remove(QStringLiteral("export/folder"));
        QCOMPARE(ExportActions::lastFolder(), QString());
        QTemporaryDir dir;
        const QString folder = QDir(dir.path()).absolutePath();
        QString startedIn;
        // Answers the next file dialog with `file`, noting the folder it opened in.
        const auto answer = [&startedIn](const QString& file) {
            auto* poll = new QTimer;
            QObject::connect(poll, &QTimer::timeout, poll, [poll, file, &startedIn]() {
                auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
                if (!dialog) return;
                startedIn = dialog->directory().absolutePath();
                dialog->selectFile(file);
                QMetaObject::invokeMethod(dialog, "accept"); // a slot, protected as a method
                poll->deleteLater();
            });
            poll->start(20);
        };
        const auto action = [&w](const QString& text) {
            for (QAction* a : w->findChildren<QAction*>()) {
                if (a->text() == text) return a;
            }
            return static_cast<QAction*>(nullptr);
        };
        answer(QDir(folder).filePath(QStringLiteral("ledger.csv")));
        action(QStringLiteral("&Ledger as CSV..."))->trigger();
        QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("ledger.csv"))));
        QCOMPARE(ExportActions::lastFolder(), folder);
        QCOMPARE(ExportActions::startPath(QStringLiteral("pool.png")), QDir(folder).filePath(QStringLiteral("pool.png")));
        // A restart: another window's Export > Receipt opens there.
        auto again = makeWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json"));
        startedIn.clear();
        answer(QDir(folder).filePath(QStringLiteral("receipt.json")));
        for (QAction* a : again->findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("&Receipt...")) a->trigger();
        }
        again->exportActions()->waitForIdle();
        QCOMPARE(startedIn, folder);
        QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("receipt.json"))));
        QSettings().remove(QStringLiteral("export/folder"));
    }

    void exportsEveryFormat() {
        auto w = makeWindow(kSwapWins);
        w->document()->seek(100);
        settle();
        QTemporaryDir dir;
        const QString receipt = dir.filePath(QStringLiteral("r.json"));
        QVERIFY(!exportReceipt(*w->document(), receipt));
        const pl::Workload wl = uitest::loadSample(kSwapWins);
        QCOMPARE(readAll(receipt).toStdString(), pl::receiptText(wl, pl::runWorkload(wl)));
        const QString csv = dir.filePath(QStringLiteral("l.csv"));
        QVERIFY(!exportLedgerCsv(*w->ledger()->model(), csv));
        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), w->ledger()->model()->rowCount() + 1);
        QVERIFY(lines[0].startsWith("tick,victim,mode"));
        QCOMPARE(lines[1].count(','), lines[0].count(','));
        for (const QString& view : labViewNames()) {
            QWidget* target = w->view(view);
            QVERIFY2(target, qPrintable(view));
            settle();
            const QString png = dir.filePath(view + QStringLiteral(".png"));
            QVERIFY(!exportWidgetImage(target, png));
            const QImage img(png);
            QVERIFY2(!img.isNull() && img.width() > 50 && img.height() > 50, qPrintable(view));
            QVERIFY2(uitest::distinctColours(img) > 8, qPrintable(view + QStringLiteral(" renders blank")));
            const QString svg = dir.filePath(view + QStringLiteral(".svg"));
            QVERIFY(!exportWidgetImage(target, svg));
            const QByteArray svgBytes = readAll(svg);
            QVERIFY(svgBytes.contains("<svg") && svgBytes.contains("</svg>") && svgBytes.size() > 1000);
            const QString pdf = dir.filePath(view + QStringLiteral(".pdf"));
            QVERIFY(!exportWidgetImage(target, pdf));
            const QByteArray pdfBytes = readAll(pdf);
            QVERIFY(pdfBytes.startsWith("%PDF-") && pdfBytes.contains("%%EOF") && pdfBytes.size() > 1000);
        }
        // A single plot is written as vectors (lines, not one embedded image).
        const QString plotSvg = dir.filePath(QStringLiteral("occupancy.svg"));
        QVERIFY(!exportWidgetImage(reinterpret_cast<QWidget*>(w->plots()->findChild<QWidget*>(QStringLiteral("occupancyPlot"))), plotSvg));
        QVERIFY(readAll(plotSvg).contains("<polyline") || readAll(plotSvg).contains("<path"));
        // Unknown formats are refused without writing anything.
        QVERIFY(exportWidgetImage(w.get(), dir.filePath(QStringLiteral("x.bmp"))).has_value());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.bmp"))));
        // The review bundle.
        const QString bundle = dir.filePath(QStringLiteral("bundle"));
        QVERIFY(!exportReviewBundle(*w->document(), *w->ledger()->model(), w->exportActions()->bundleViews(), bundle));
        for (const char* f : {"receipt.json", "ledger.csv", "trace.json", "distributions.csv", "summary.md", "window.png",
                              "pool.png", "timeline.png", "ledger.png", "plots.png", "distributions.png"}) {
            QVERIFY2(QFileInfo(QDir(bundle).filePath(QString::fromLatin1(f))).size() > 100, f);
        }
        QVERIFY(uitest::distinctColours(QImage(QDir(bundle).filePath(QStringLiteral("distributions.png")))) > 8);
        QVERIFY(readAll(QDir(bundle).filePath(QStringLiteral("summary.md"))).contains("![distributions.png](distributions.png)"));
        // distributions.csv is what `preemptlab-cli report receipt.json --csv` makes of the bundle's receipt.
        {
            const auto fromReceipt = pl::review::outcomesFromReceipt(
                nlohmann::json::parse(readAll(QDir(bundle).filePath(QStringLiteral("receipt.json"))).toStdString()), "receipt.json");
            QVERIFY(std::holds_alternative<pl::review::RunOutcomes>(fromReceipt));
            const std::string expected = pl::review::reportCsvText(
                pl::review::buildReport(std::get<pl::review::RunOutcomes>(fromReceipt), pl::review::ReportOptions{}));
            QCOMPARE(readAll(QDir(bundle).filePath(QStringLiteral("distributions.csv"))).toStdString(), expected);
        }
        const QByteArray md = readAll(QDir(bundle).filePath(QStringLiteral("summary.md")));
        QVERIFY(md.contains(QByteArray::fromStdString(pl::receiptHashes(wl, pl::runWorkload(wl)).input_hash)));
        QVERIFY(md.contains("![pool.png](pool.png)"));
        QCOMPARE(readAll(QDir(bundle).filePath(QStringLiteral("receipt.json"))), readAll(receipt));
    }

    void screenshotsAreNotBlankAtSeveralSizes() {
        auto w = makeWindow(kWave);
        w->document()->seek(60);
        for (QSize size : {QSize(1024, 700), QSize(1600, 1000), QSize(1920, 1200)}) {
            w->resize(size);
            settle();
            const QImage img = w->grab().toImage();
            QCOMPARE(img.size(), size);
            QVERIFY(uitest::distinctColours(img) >= 32);
            // The pool shows owned blocks: some pixels of the central view are neither background nor free.
            const QImage pool = w->poolView()->grid()->grab().toImage();
            QVERIFY(uitest::distinctColours(pool) >= 4);
            // The timeline draws decode lanes in their state colour.
            const QImage tl = w->timeline()->grab().toImage();
            bool decode = false;
            for (int y = 0; y < tl.height() && !decode; y += 2)
                for (int x = 0; x < tl.width() && !decode; x += 2) decode = tl.pixel(x, y) == QColor(0x1d, 0x4e, 0xd8).rgb();
            QVERIFY2(decode, "decode lanes are drawn");
        }
    }

    void headlessScreenshotPath() {
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        if (!QFileInfo::exists(exe)) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        auto run = [&](const QStringList& args, QString* err) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
            env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
            p.setProcessEnvironment(env);
            p.start(exe, args);
            p.waitForFinished(60000);
            *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode();
        };
        QString err;
        const QString out = dir.filePath(QStringLiteral("timeline.png"));
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--recovery"), QStringLiteral("swap"),
                      QStringLiteral("--capacity-blocks"), QStringLiteral("128"), QStringLiteral("--tick"),
                      QStringLiteral("50"), QStringLiteral("--view"), QStringLiteral("timeline"),
                      QStringLiteral("--screenshot"), out},
                     &err),
                 0);
        const QImage img(out);
        QVERIFY2(!img.isNull() && uitest::distinctColours(img) > 8, qPrintable(err));
        QVERIFY(err.contains(QStringLiteral("tick 50")));
        // Rendering the ledger (whose table takes focus) must not move the cursor to the first eviction.
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--tick"), QStringLiteral("300"),
                      QStringLiteral("--view"), QStringLiteral("ledger"), QStringLiteral("--screenshot"),
                      dir.filePath(QStringLiteral("ledger.pdf"))},
                     &err),
                 0);
        QVERIFY2(err.contains(QStringLiteral("tick 300")), qPrintable(err));
        QVERIFY(readAll(dir.filePath(QStringLiteral("ledger.pdf"))).startsWith("%PDF-"));
        QCOMPARE(run({QStringLiteral("--workload"), dir.filePath(QStringLiteral("missing.json")),
                      QStringLiteral("--screenshot"), out},
                     &err),
                 2);
        QVERIFY(err.contains(QStringLiteral("missing.json")));
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--recovery"), QStringLiteral("teleport"),
                      QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 2);
        QVERIFY(err.contains(QStringLiteral("recovery")));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.png"))));
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--view"), QStringLiteral("nope"),
                      QStringLiteral("--screenshot"), out},
                     &err),
                 2);
        // A flag the workload cannot take names the file, as the CLI does; a size past 8192 is refused.
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--capacity-blocks"), QStringLiteral("2"),
                      QStringLiteral("--screenshot"), out},
                     &err),
                 2);
        QVERIFY2(err.contains(kWave + QStringLiteral(" (after command-line overrides): /requests/0: can never fit")),
                 qPrintable(err));
        QCOMPARE(run({QStringLiteral("--workload"), kWave, QStringLiteral("--size"), QStringLiteral("99999x99999"),
                      QStringLiteral("--screenshot"), out},
                     &err),
                 2);
        QVERIFY2(err.contains(QStringLiteral("--size: 99999x99999 is larger than 8192x8192")), qPrintable(err));
    }
};

QTEST_MAIN(TestLabExports)
#include "test_lab_exports.moc"
