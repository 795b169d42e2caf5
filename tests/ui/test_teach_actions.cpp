// Issue 27, as a teacher found the lab: Save (Ctrl+S) back to the workload's own file and what happens when it
// cannot be; a receipt opened read-only (verified, edits off until Edit a Copy; bad receipts named, never a
// crash); the capacity slider offering only values the rules accept, and a refusal that never moves the rows;
// the livelock hint (banner and status bar, from core's pl::findLivelock); the flagged-only timeline and its
// export.
#include "ui/exportactions.h"
#include "ui/fileactions.h"
#include "ui/labbanner.h"
#include "ui/labcommandline.h"
#include "ui/labdocument.h"
#include "ui/livelockhint.h"
#include "ui/mainwindow.h"
#include "ui/policypanel.h"
#include "ui/receiptactions.h"
#include "ui/requesttablemodel.h"
#include "core/workload_overrides.h"
#include "ui/timelinemodel.h"
#include "ui/timelinewidget.h"
#include "tests/ui/uitestutil.h"

#include "core/livelock.h"
#include "core/number_text.h"
#include "core/receipt.h"
#include "core/session.h"
#include "core/workload_io.h"
#include "core/workload_rules.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSlider>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <csignal>
#include <sys/resource.h>

using plui::LabBanner;
using plui::LabDocument;
using plui::MainWindow;

namespace {

const QString kSamples = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/");
const QString kLivelock = kSamples + QStringLiteral("livelock-next-block.workload.json");
const QString kStarvation = kSamples + QStringLiteral("starvation.workload.json");

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The receipt of `workload` as the CLI writes it.
// The sample as a receipt holds it (without its notes).
pl::Workload withoutNotes(const QString& path) {
    pl::Workload w = uitest::loadSample(path);
    w.notes.clear();
    return w;
}

QByteArray receiptOf(const QString& workload) {
    const pl::Workload w = uitest::loadSample(workload);
    return QByteArray::fromStdString(pl::receiptText(w, pl::runWorkload(w)));
}

} // namespace

class TestTeachActions : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_teach_actions")); }
    void saveWritesBackToItsOwnFile();
    void aSampleOrANewWorkloadGoesToSaveAs();
    void aFailedSaveKeepsTheOldFile();
    void aReceiptOpensReadOnlyAndVerifies();
    void aChangedReceiptSaysItsFirstDifference();
    void oldReceiptsOpenToo();
    void badReceiptsAreNamedAndChangeNothing();
    void receiptOnTheCommandLine();
    void theCapacitySliderOffersOnlyAcceptedValues();
    void everySliderStaysInsideTheRules();
    void aRefusalNeverMovesTheRows();
    void aLivelockIsPointedOut();
    void flaggedOnlyTimelineAndItsExport();
};

void TestTeachActions::saveWritesBackToItsOwnFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mine.workload.json"));
    QVERIFY(QFile::copy(kLivelock, path));
    auto w = uitest::openWindow(path);
    LabDocument* doc = w->document();
    plui::FileActions* files = w->fileActions();
    QCOMPARE(files->saveAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_S));
    QCOMPARE(files->saveTarget(), path);
    QString error;
    QVERIFY2(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("48"), &error), qPrintable(error));
    QVERIFY(w->windowTitle().contains(QStringLiteral("(edited)")));
    QVERIFY(!doc->nothingUnsaved());
    files->saveAction()->trigger();
    // The file is core's text of the edited workload, and reads back as it.
    QCOMPARE(readAll(path), QByteArray::fromStdString(pl::fullWorkloadJson(doc->workload()).dump(2) + "\n"));
    auto back = pl::loadWorkloadFile(path.toStdString());
    QVERIFY(std::holds_alternative<pl::Workload>(back));
    QCOMPARE(std::get<pl::Workload>(back).config.capacity_blocks, 48);
    QVERIFY(doc->undoStack()->isClean());
    QVERIFY(doc->nothingUnsaved());
    QVERIFY(!w->windowTitle().contains(QStringLiteral("(edited)")));
    QVERIFY(w->windowTitle().contains(QStringLiteral("mine.workload.json")));
    // Undo after saving: edited again, against the saved file.
    doc->undoStack()->undo();
    QVERIFY(w->windowTitle().contains(QStringLiteral("(edited)")));
    doc->undoStack()->setClean(); // no question when the window closes
}

void TestTeachActions::aSampleOrANewWorkloadGoesToSaveAs() {
    // A bundled sample is compiled in: Save asks where (Save As), it never writes over the resource.
    auto w = uitest::openWindow(QString());
    QVERIFY(w->openPath(QStringLiteral(":/samples/livelock-next-block.workload.json")));
    QVERIFY(w->fileActions()->saveTarget().isEmpty());
    // A generated (never saved) workload too.
    QString error;
    QVERIFY(w->document()->setWorkload(uitest::loadSample(kLivelock), QStringLiteral("generated (unsaved)"), &error));
    QVERIFY(w->fileActions()->saveTarget().isEmpty());
    QVERIFY(!w->document()->nothingUnsaved());
    QTemporaryDir dir;
    w->document()->markSaved(dir.filePath(QStringLiteral("generated.workload.json"))); // no question at close
}

void TestTeachActions::aFailedSaveKeepsTheOldFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.workload.json"));
    QVERIFY(QFile::copy(kLivelock, path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    const QByteArray before = readAll(path);
    auto w = uitest::openWindow(path);
    QString error;
    QVERIFY(w->document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("48"), &error));
    // A file size limit makes the write fail part-way even for root (as test_atomic_file does).
    bool saved = true;
    {
        rlimit old{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &old) == 0);
        auto* handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = old;
        small.rlim_cur = 64;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        saved = w->fileActions()->save();
        ::setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, handler);
    }
    QVERIFY(!saved);
    QCOMPARE(readAll(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("keep.workload.json")});
    QVERIFY2(w->lastError().startsWith(path + QStringLiteral(": ")), qPrintable(w->lastError()));
    QVERIFY2(w->lastError().contains(QStringLiteral("File too large")), qPrintable(w->lastError()));
    QVERIFY(w->windowTitle().contains(QStringLiteral("(edited)"))); // still unsaved: nothing claims otherwise
    QVERIFY(!w->document()->nothingUnsaved());
    w->document()->undoStack()->setClean(); // no question when the window closes
}

void TestTeachActions::aReceiptOpensReadOnlyAndVerifies() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("livelock.receipt.json"));
    const QByteArray receipt = receiptOf(kLivelock);
    QVERIFY(writeAll(path, receipt));
    auto w = uitest::openWindow(QString());
    plui::ReceiptActions* receipts = w->receiptActions();
    QVERIFY(plui::ReceiptActions::isReceiptPath(path));
    QString error;
    QVERIFY2(receipts->openReceipt(path, &error), qPrintable(error));
    LabDocument* doc = w->document();
    QVERIFY(doc->readOnly());
    QVERIFY(doc->session());
    QVERIFY(doc->workload() == withoutNotes(kLivelock));
    const QString verdict = QStringLiteral("Receipt livelock.receipt.json (read-only): verifies");
    QVERIFY2(receipts->verdict().startsWith(verdict), qPrintable(receipts->verdict()));
    QCOMPARE(w->banner()->text(LabBanner::Row::Receipt), receipts->verdict());
    // The lab's own receipt of what it shows is the file's bytes.
    QCOMPARE(QByteArray::fromStdString(pl::receiptText(doc->session()->workload(), doc->session()->result())), receipt);
    // Edits are off: the document refuses them, the panels offer none, Save would not write over the receipt.
    QVERIFY(!doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("48"), &error));
    QVERIFY2(error.contains(QStringLiteral("Edit a Copy")), qPrintable(error));
    pl::RequestSpec longer = doc->workload().requests[0];
    longer.output_tokens += 1;
    longer.max_output_tokens = std::max(longer.max_output_tokens, longer.output_tokens);
    QVERIFY(!doc->setRequest(0, longer, &error));
    QVERIFY(doc->workload() == withoutNotes(kLivelock));
    QVERIFY(!w->policy()->editor(QStringLiteral("capacity_blocks"))->isEnabled());
    plui::RequestTableModel table(doc);
    QVERIFY(!(table.flags(table.index(0, 1)) & Qt::ItemIsEditable));
    QVERIFY(w->fileActions()->saveTarget().isEmpty());
    QCOMPARE(readAll(path), receipt);
    QVERIFY(doc->nothingUnsaved());
    // Edit a Copy: an ordinary unsaved workload, edits on, the banner row gone.
    QVERIFY(receipts->editCopyAction()->isEnabled());
    receipts->editCopyAction()->trigger();
    QVERIFY(!doc->readOnly());
    QVERIFY(w->banner()->text(LabBanner::Row::Receipt).isEmpty());
    QVERIFY(w->policy()->editor(QStringLiteral("capacity_blocks"))->isEnabled());
    QVERIFY(table.flags(table.index(0, 1)) & Qt::ItemIsEditable);
    QVERIFY2(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("48"), &error), qPrintable(error));
    QVERIFY(!doc->nothingUnsaved());
    QVERIFY(w->windowTitle().contains(QStringLiteral("copy of livelock.receipt.json (unsaved)")));
    QCOMPARE(readAll(path), receipt);
    doc->markSaved(dir.filePath(QStringLiteral("copy.workload.json"))); // no question at close
}

void TestTeachActions::aChangedReceiptSaysItsFirstDifference() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("edited.receipt.json"));
    nlohmann::json doc = nlohmann::json::parse(receiptOf(kLivelock).toStdString());
    doc["totals"]["evictions"] = doc["totals"]["evictions"].get<std::int64_t>() + 1;
    QVERIFY(writeAll(path, QByteArray::fromStdString(doc.dump(2))));
    auto w = uitest::openWindow(QString());
    QString error;
    QVERIFY2(w->receiptActions()->openReceipt(path, &error), qPrintable(error));
    const QString verdict = w->receiptActions()->verdict();
    QVERIFY2(verdict.startsWith(QStringLiteral("Receipt edited.receipt.json (read-only): does not verify: first "
                                               "difference at /totals/evictions")),
             qPrintable(verdict));
    QVERIFY(w->document()->readOnly());
}

void TestTeachActions::oldReceiptsOpenToo() {
    auto w = uitest::openWindow(QString());
    for (const char* name : {"v1-burst-recompute-wave.receipt.json", "v1-multi-tenant-tenant-fair.receipt.json"}) {
        const QString path = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/tests/core/data/") + QLatin1String(name);
        QString error;
        QVERIFY2(w->receiptActions()->openReceipt(path, &error), qPrintable(error));
        QVERIFY2(w->receiptActions()->verdict().endsWith(
                     QStringLiteral("(read-only): verifies (its replay is the same receipt, byte for byte)")),
                 qPrintable(w->receiptActions()->verdict()));
    }
}

void TestTeachActions::badReceiptsAreNamedAndChangeNothing() {
    QTemporaryDir dir;
    auto w = uitest::openWindow(kStarvation);
    const pl::Workload shown = w->document()->workload();
    nlohmann::json broken = nlohmann::json::parse(receiptOf(kLivelock).toStdString());
    broken["workload"]["config"]["capacity_blocks"] = 1;
    nlohmann::json noPolicy = nlohmann::json::parse(receiptOf(kLivelock).toStdString());
    noPolicy.erase("policy");
    const struct {
        const char* name;
        QByteArray bytes;
        QString field; // the JSON path the error names ("" when it names a line)
    } cases[] = {
        {"empty.receipt.json", QByteArray(), QString()},
        {"garbage.receipt.json", QByteArray("{\"format\": \"preemptlab.receipt.v2\", \"totals\": [1, 2"), QString()},
        {"workload.receipt.json", readAll(kLivelock), QStringLiteral("/format")},
        {"nopolicy.receipt.json", QByteArray::fromStdString(noPolicy.dump()), QStringLiteral("/policy")},
        {"broken.receipt.json", QByteArray::fromStdString(broken.dump()), QStringLiteral("/workload/")},
        {"deep.receipt.json", QByteArray(100000, '['), QString()},
    };
    for (const auto& c : cases) {
        const QString path = dir.filePath(QLatin1String(c.name));
        QVERIFY(writeAll(path, c.bytes));
        QString error;
        QVERIFY2(!w->receiptActions()->openReceipt(path, &error), c.name);
        QVERIFY2(error.startsWith(path + QStringLiteral(": ")), qPrintable(error));
        if (!c.field.isEmpty()) QVERIFY2(error.contains(QStringLiteral(": ") + c.field), qPrintable(error));
        QCOMPARE(w->lastError(), error); // the error dialog says it
        QVERIFY(!w->document()->readOnly());
        QVERIFY(w->document()->workload() == shown);
    }
    QString error;
    QVERIFY(!w->receiptActions()->openReceipt(dir.filePath(QStringLiteral("gone.receipt.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("gone.receipt.json")), qPrintable(error));
}

void TestTeachActions::receiptOnTheCommandLine() {
    plui::LabOptions options;
    QString error;
    QVERIFY(plui::parseLabCommandLine({QStringLiteral("preemptlab"), QStringLiteral("--receipt"), QStringLiteral("r.receipt.json"),
                                       QStringLiteral("--screenshot"), QStringLiteral("/tmp/x.png")},
                                      &options, &error));
    QCOMPARE(options.receipt, QStringLiteral("r.receipt.json"));
    QVERIFY(options.workload.isEmpty());
    QVERIFY(options.inputFiles() == std::vector<std::string>{"r.receipt.json"});
    plui::LabOptions both;
    QVERIFY(!plui::parseLabCommandLine({QStringLiteral("preemptlab"), QStringLiteral("--receipt"), QStringLiteral("r.receipt.json"),
                                        QStringLiteral("w.workload.json")},
                                       &both, &error));
    QVERIFY(error.contains(QStringLiteral("not both")));
    plui::LabOptions flags;
    QVERIFY(!plui::parseLabCommandLine({QStringLiteral("preemptlab"), QStringLiteral("--receipt"), QStringLiteral("r.receipt.json"),
                                        QStringLiteral("--capacity-blocks"), QStringLiteral("64")},
                                       &flags, &error));
    QVERIFY(error.contains(QStringLiteral("read-only")));
}

void TestTeachActions::theCapacitySliderOffersOnlyAcceptedValues() {
    // The livelock sample: 40 blocks, each request needs 33. The slider spanned 10..160 and offered 10..32,
    // which were then refused; now it starts at 33.
    auto w = uitest::openWindow(kLivelock);
    plui::PolicyPanel* panel = w->policy();
    auto* slider = qobject_cast<QSlider*>(panel->slider(QStringLiteral("capacity_blocks")));
    auto* spin = qobject_cast<QDoubleSpinBox*>(panel->editor(QStringLiteral("capacity_blocks")));
    QVERIFY(slider && spin);
    const plui::SliderSpan span = panel->span(QStringLiteral("capacity_blocks"));
    QCOMPARE(span.lo, 33.0);
    QCOMPARE(span.hi, 160.0);
    QCOMPARE(spin->minimum(), 33.0);
    QVERIFY(slider->toolTip().contains(QStringLiteral("The least this workload accepts: 33")));
    for (const int pos : {0, 1, 2, 10, 50, 99, 100}) {
        slider->setValue(pos);
        QVERIFY2(panel->refusal().isEmpty(), qPrintable(QStringLiteral("position %1: %2").arg(pos).arg(panel->refusal())));
        const std::int64_t capacity = w->document()->workload().config.capacity_blocks;
        QVERIFY2(capacity >= 33 && capacity <= 160, qPrintable(QString::number(capacity)));
    }
    slider->setValue(0);
    QCOMPARE(w->document()->workload().config.capacity_blocks, 33);
    // Another key's edit moves the least: a larger watermark raises it.
    QString error;
    QVERIFY(w->document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("60"), &error));
    QVERIFY(w->document()->setSetting(QStringLiteral("watermark_blocks"), QStringLiteral("45"), &error));
    QCOMPARE(panel->span(QStringLiteral("capacity_blocks")).lo, 46.0);
    QCOMPARE(spin->minimum(), 46.0);
    w->document()->undoStack()->setClean();
}

void TestTeachActions::everySliderStaysInsideTheRules() {
    // Every slider's two ends, on every sample, are values core accepts with the rest of the workload.
    auto w = uitest::openWindow(QString());
    for (const QString& path : uitest::sampleFiles()) {
        QVERIFY(w->openPath(path));
        const pl::Workload& wl = w->document()->workload();
        int sliders = 0;
        for (std::string_view k : pl::configKeys()) {
            const QString key = QString::fromUtf8(k.data(), static_cast<qsizetype>(k.size()));
            if (!w->policy()->slider(key)) continue;
            ++sliders;
            const plui::SliderSpan span = w->policy()->span(key);
            for (const double v : {span.lo, span.hi}) {
                pl::Workload after = wl;
                QVERIFY(!pl::applyOverride(after, k, std::to_string(static_cast<std::int64_t>(v))));
                const auto e = pl::validateWorkload(after);
                QVERIFY2(!e, qPrintable(path + QStringLiteral(" ") + key + QStringLiteral(": ") +
                                        QString::fromStdString(e ? e->message() : std::string())));
            }
        }
        QVERIFY(sliders > 5);
    }
}

void TestTeachActions::aRefusalNeverMovesTheRows() {
    auto w = uitest::openWindow(kLivelock);
    plui::PolicyPanel* panel = w->policy();
    w->view(QStringLiteral("policy"));
    QApplication::processEvents();
    QWidget* row = panel->findChild<QLabel*>(QStringLiteral("label_recovery"));
    QVERIFY(row);
    const QPoint before = row->mapTo(panel, QPoint(0, 0));
    auto* profile = qobject_cast<QComboBox*>(panel->editor(QStringLiteral("engine_profile")));
    auto* ahead = qobject_cast<QCheckBox*>(panel->editor(QStringLiteral("preempt_ahead")));
    QVERIFY(profile && ahead);
    profile->setCurrentText(QStringLiteral("vllm-v1"));
    ahead->setChecked(true); // refused: the engine profiles do not preempt ahead
    QApplication::processEvents();
    const QString refusal = panel->refusal();
    QVERIFY2(refusal.startsWith(QStringLiteral("Not applied: ")) && refusal.contains(QStringLiteral("preempt_ahead")),
             qPrintable(refusal));
    auto* line = panel->findChild<QLabel*>(QStringLiteral("policyError"));
    QVERIFY(line && line->isVisible());
    QCOMPARE(line->toolTip(), refusal);
    QVERIFY(line->height() <= line->fontMetrics().height() + 4);
    QCOMPARE(row->mapTo(panel, QPoint(0, 0)), before);
    // In a narrow panel the line is elided, never wrapped.
    if (line->fontMetrics().horizontalAdvance(refusal) > line->contentsRect().width()) {
        QVERIFY(line->text().endsWith(QChar(0x2026)));
    }
    QVERIFY(!ahead->isChecked()); // the control went back to the value in force
    ahead->setChecked(false);
    profile->setCurrentText(QStringLiteral("tick-model-1")); // applies: the line empties, the rows stay
    QApplication::processEvents();
    QVERIFY(panel->refusal().isEmpty());
    QCOMPARE(row->mapTo(panel, QPoint(0, 0)), before);
    w->document()->undoStack()->setClean();
}

void TestTeachActions::aLivelockIsPointedOut() {
    auto w = uitest::openWindow(kLivelock);
    plui::LivelockHint* hint = w->livelockHint();
    const pl::Session* s = w->document()->session();
    const auto found = pl::findLivelock(s->workload(), s->result());
    QVERIFY(found.has_value());
    QCOMPARE(hint->fromTick(), found->lastAdvance + 1);
    QCOMPARE(hint->sentence(), QString::fromStdString(pl::livelockSentence(s->workload(), *found)));
    QCOMPARE(w->banner()->text(LabBanner::Row::Livelock), hint->sentence());
    QVERIFY(w->banner()->isVisibleTo(w.get()));
    QVERIFY(hint->statusLabel()->isVisibleTo(w.get()));
    QCOMPARE(hint->statusLabel()->text(), QStringLiteral("Livelock from tick %1").arg(QString::fromStdString(pl::formatThousands(hint->fromTick()))));
    // Its button goes to that tick.
    auto* goTo = w->findChild<QAction*>(QStringLiteral("goToLivelock"));
    QVERIFY(goTo);
    goTo->trigger();
    QCOMPARE(w->document()->currentTick(), hint->fromTick());
    // The fix the notes give: no livelock, no hint.
    QString error;
    QVERIFY(w->document()->setSetting(QStringLiteral("resume_guard"), QStringLiteral("full-reservation"), &error));
    QVERIFY(hint->sentence().isEmpty());
    QVERIFY(w->banner()->text(LabBanner::Row::Livelock).isEmpty());
    QVERIFY(!hint->statusLabel()->isVisibleTo(w.get()));
    QVERIFY(!w->banner()->isVisibleTo(w.get()));
    w->document()->undoStack()->undo(); // and back
    QVERIFY(!hint->sentence().isEmpty());
    w->document()->undoStack()->setClean();
}

void TestTeachActions::flaggedOnlyTimelineAndItsExport() {
    QSettings().remove(QStringLiteral("timeline/flaggedOnly"));
    QTemporaryDir dir;
    std::vector<std::int32_t> flagged;
    {
        auto w = uitest::openWindow(kStarvation);
        plui::TimelineWidget* timeline = w->timeline();
        QAction* toggle = timeline->flaggedOnlyAction();
        QCOMPARE(toggle->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
        QVERIFY(!toggle->isChecked());
        const std::size_t all = w->document()->workload().requests.size();
        QCOMPARE(timeline->model().lanes.size(), all);
        QVERIFY(timeline->shownRequests().empty());
        for (const pl::RequestRecord& r : w->document()->session()->result().records)
            if (r.excessive_wait || r.repeated_preemption) flagged.push_back(r.request);
        QVERIFY(!flagged.empty() && flagged.size() < all);
        toggle->trigger();
        QVERIFY(timeline->flaggedOnly());
        QVERIFY(timeline->model().requests == flagged);
        QCOMPARE(timeline->model().lanes.size(), flagged.size());
        QVERIFY(timeline->shownRequests() == flagged);
        // For docs/lab.md's pictures: PREEMPTLAB_SHOT_DIR=DIR saves the window, filtered, at two sizes.
        if (const QString shots = qEnvironmentVariable("PREEMPTLAB_SHOT_DIR"); !shots.isEmpty()) {
            for (const QSize size : {QSize(1024, 768), QSize(1600, 1000)}) {
                w->resize(size);
                for (int i = 0; i < 3; ++i) QApplication::processEvents();
                w->grab().save(QStringLiteral("%1/flagged-%2.png").arg(shots).arg(size.width()));
            }
        }
        // Lanes map back to requests: selecting a flagged request selects its lane, an unflagged one none.
        w->document()->selectRequest(flagged.back());
        QCOMPARE(timeline->model().laneOf(flagged.back()), static_cast<int>(flagged.size()) - 1);
        for (const plui::LaneMarker& m : timeline->model().markers)
            QVERIFY(std::find(flagged.begin(), flagged.end(), m.request) != flagged.end());
        // Export > Timeline follows it: only the flagged requests' tracks.
        const QString path = dir.filePath(QStringLiteral("flagged.trace.json"));
        QVERIFY(w->exportActions()->writeTimeline(path));
        w->exportActions()->waitForIdle();
        const auto trace = nlohmann::json::parse(readAll(path).toStdString());
        std::vector<std::int32_t> tracks;
        for (const auto& e : trace["traceEvents"])
            if (e["ph"] == "M" && e["name"] == "thread_name") tracks.push_back(e["tid"].get<std::int32_t>() - 1);
        QVERIFY(tracks == flagged);
        QCOMPARE(trace["metadata"]["tracks_of_requests"].get<std::size_t>(), flagged.size());
    }
    // Persisted: the next window opens filtered.
    QVERIFY(QSettings().value(QStringLiteral("timeline/flaggedOnly")).toBool());
    auto again = uitest::openWindow(kStarvation);
    QVERIFY(again->timeline()->flaggedOnly());
    QVERIFY(again->timeline()->model().requests == flagged);
    again->timeline()->flaggedOnlyAction()->trigger();
    QCOMPARE(again->timeline()->model().lanes.size(), again->document()->workload().requests.size());
    QVERIFY(!QSettings().value(QStringLiteral("timeline/flaggedOnly")).toBool());
}

QTEST_MAIN(TestTeachActions)
#include "test_teach_actions.moc"
