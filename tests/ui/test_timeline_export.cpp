// Export > Timeline (Perfetto): the menu entry exists with its own shortcut and writes the shown run's trace,
// the bytes core's timelineText makes for that run; a bad path reports the error and leaves no file.
#include "ui/exportactions.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "tests/ui/uitestutil.h"

#include "core/session.h"
#include "core/timeline.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QFile>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace plui;

class TestTimelineExport : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_timeline_export")); }

    void menuActionWritesTheShownRunsTrace() {
        auto w = uitest::openWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"));
        auto* action = w->findChild<QAction*>(QStringLiteral("exportTimelineAction"));
        QVERIFY(action != nullptr);
        QVERIFY(action->isEnabled());
        QVERIFY(action->text().contains(QStringLiteral("Perfetto")));
        QCOMPARE(action->shortcut().toString(QKeySequence::PortableText), QStringLiteral("Ctrl+Shift+E"));
        for (const QAction* other : w->findChildren<QAction*>()) {
            if (other != action) QVERIFY(!other->shortcuts().contains(action->shortcut()));
        }

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.trace.json"));
        ExportActions* exports = w->exportActions();
        QVERIFY(exports->writeTimeline(path));
        exports->waitForIdle();
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Wrote %1").arg(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string bytes = f.readAll().toStdString();
        const auto session = w->document()->sharedSession();
        QVERIFY(bytes == pl::timelineText(session->workload(), session->result(), session->series(),
                                          pl::tickLengthOf(session->workload())));
        const auto trace = nlohmann::json::parse(bytes);
        QVERIFY(trace["traceEvents"].size() > 10);
        QCOMPARE(trace["metadata"]["workload"].get<std::string>(), session->workload().name);

        // A folder that does not exist: the error names the file, and nothing is written.
        const QString bad = dir.filePath(QStringLiteral("missing/run.trace.json"));
        bool ok = true;
        connect(exports, &ExportActions::finished, w.get(), [&ok](bool r) { ok = r; });
        QVERIFY(exports->writeTimeline(bad));
        exports->waitForIdle();
        QVERIFY(!ok);
        QVERIFY2(w->lastError().contains(QStringLiteral("missing/run.trace.json")), qPrintable(w->lastError()));
        QVERIFY(!QFile::exists(bad));
    }
};

QTEST_MAIN(TestTimelineExport)
#include "test_timeline_export.moc"
