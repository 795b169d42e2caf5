// Headless rendering (ui/headless.cpp) through the real program: every single view is written at exactly
// --size. The pool, the window's centre rather than a dock, used to be drawn inside a window 5/3 of --size
// and came out at whatever the docks left it (1048x709 for --size 1200x800).
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
        for (const QString& view : plui::labViewNames()) {
            if (view == QLatin1String("window")) continue;
            QTest::newRow(qPrintable(view + QStringLiteral(" 1000x700"))) << view << QSize(1000, 700);
        }
        // The whole window at the README's size (it cannot be drawn narrower than its docks' minimum widths).
        QTest::newRow("window 1600x1000") << QStringLiteral("window") << QSize(1600, 1000);
        // The size the pool was reported at, and one taller than wide.
        QTest::newRow("pool 1200x800") << QStringLiteral("pool") << QSize(1200, 800);
        QTest::newRow("pool 700x900") << QStringLiteral("pool") << QSize(700, 900);
    }

    void everyViewIsWrittenAtSize() {
        QFETCH(QString, view);
        QFETCH(QSize, size);
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        if (!QFileInfo::exists(exe)) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        const QString out = dir.filePath(view + QStringLiteral(".png"));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        const QString sizeArg = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        p.start(exe, {QStringLiteral("--workload"), kSeed, QStringLiteral("--tick"), QStringLiteral("9"),
                      QStringLiteral("--view"), view, QStringLiteral("--size"), sizeArg,
                      QStringLiteral("--screenshot"), out});
        QVERIFY(p.waitForFinished(60'000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
        const QImage img(out);
        QVERIFY2(!img.isNull(), qPrintable(err));
        QCOMPARE(img.size(), size);
        QVERIFY2(uitest::distinctColours(img) > 8, qPrintable(view)); // drawn, not a blank frame
    }
};

QTEST_MAIN(TestHeadless)
#include "test_headless.moc"
