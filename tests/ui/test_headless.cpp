// Headless rendering (ui/headless.cpp) through the real program: every single view is written at exactly
// --size. The pool, the window's centre rather than a dock, used to be drawn inside a window 5/3 of --size
// and came out at whatever the docks left it (1048x709 for --size 1200x800). The whole window fits a 1024-px
// screen (it was drawn at least 1,235 px wide, then 1,064, from the docks' first layout); it cannot be
// narrower than its docks' least widths (about 580 px): a smaller --size is drawn larger, and the program
// says so.
#include "labcommandline.h"
#include "uitestutil.h"

#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");

} // namespace

class TestHeadless : public QObject {
    Q_OBJECT
  private slots:
    void everyViewIsWrittenAtSize_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("exact");
        for (const QString& view : plui::labViewNames()) {
            if (view == QLatin1String("window")) continue;
            QTest::newRow(qPrintable(view + QStringLiteral(" 1000x700"))) << view << QSize(1000, 700) << true;
        }
        // The whole window at the README's size, a projector's, and narrower than its docks allow.
        QTest::newRow("window 1600x1000") << QStringLiteral("window") << QSize(1600, 1000) << true;
        QTest::newRow("window 1024x768") << QStringLiteral("window") << QSize(1024, 768) << true;
        QTest::newRow("window 800x700") << QStringLiteral("window") << QSize(800, 700) << true;
        QTest::newRow("window 500x700") << QStringLiteral("window") << QSize(500, 700) << false;
        // The size the pool was reported at, and one taller than wide.
        QTest::newRow("pool 1200x800") << QStringLiteral("pool") << QSize(1200, 800) << true;
        QTest::newRow("pool 700x900") << QStringLiteral("pool") << QSize(700, 900) << true;
    }

    void everyViewIsWrittenAtSize() {
        QFETCH(QString, view);
        QFETCH(QSize, size);
        QFETCH(bool, exact);
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        if (!QFileInfo::exists(exe)) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        const QString out = dir.filePath(view + QStringLiteral(".png"));
        const QString sizeArg = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--tick"), QStringLiteral("9"),
                              QStringLiteral("--view"), view, QStringLiteral("--size"), sizeArg,
                              QStringLiteral("--screenshot"), out},
                        &err),
                 0);
        const QImage img(out);
        QVERIFY2(!img.isNull(), qPrintable(err));
        const QString note = QStringLiteral("cannot be drawn at --size %1 (its layout needs more room); it was drawn at %2x%3")
                                 .arg(sizeArg).arg(img.width()).arg(img.height());
        if (exact) {
            QCOMPARE(img.size(), size);
            QVERIFY2(!err.contains(QStringLiteral("note:")), qPrintable(err));
        } else {
            QCOMPARE(img.height(), size.height());
            QVERIFY2(img.width() > size.width(), qPrintable(QString::number(img.width())));
            QVERIFY2(err.contains(note), qPrintable(err));
        }
        QVERIFY2(uitest::distinctColours(img) > 8, qPrintable(view)); // drawn, not a blank frame
    }

    // A tick past the run's end is drawn at the last tick, and stderr says so (it was clamped silently).
    void aTickPastTheEndIsDrawnAtTheLastAndSaidSo() {
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"))) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--tick"), QStringLiteral("99999"),
                              QStringLiteral("--view"), QStringLiteral("pool"), QStringLiteral("--size"),
                              QStringLiteral("600x400"), QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("p.png"))},
                        &err),
                 0);
        QVERIFY2(err.contains(QStringLiteral("note: --tick 99999 is past the run's last tick; drawn at tick 62")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("(pool view, tick 62, 600x400)")), qPrintable(err));
    }

  private:
    // Runs the lab headless with a settings folder of its own; its exit code, stderr in `err`.
    static int runLab(const QTemporaryDir& dir, const QStringList& args, QString* err) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"), args);
        if (!p.waitForFinished(60'000)) return -1;
        *err = QString::fromUtf8(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }
};

QTEST_MAIN(TestHeadless)
#include "test_headless.moc"
