// The CLI's output files under failure (docs/reliability.md): a full disk, a vanished folder and a folder in
// the way each give exit 2 and a message naming the file and the reason, leave the previous file intact and
// leave no temporary behind. The full disk is simulated with RLIMIT_FSIZE (bash `ulimit -f`, SIGXFSZ ignored),
// so write(2) fails with EFBIG exactly as a quota or a full device would fail it.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kCli = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli");
const QString kSample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json");

struct Outcome {
    int code = -1;
    QString err;
};

Outcome runShell(const QString& script) {
    QProcess p;
    p.start(QStringLiteral("bash"), {QStringLiteral("-c"), script});
    if (!p.waitForFinished(120'000)) qFatal("the CLI did not finish");
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromLocal8Bit(p.readAllStandardError())};
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString quoted(const QString& s) { return QLatin1Char('\'') + s + QLatin1Char('\''); }

} // namespace

class TestCliFiles : public QObject {
    Q_OBJECT
  private slots:
    void fullDiskKeepsPreviousReceipt();
    void vanishedFolderIsAnError();
    void folderInTheWay();
};

void TestCliFiles::fullDiskKeepsPreviousReceipt() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    {
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("previous receipt\n");
    }
    // 8 blocks of 512 bytes: the receipt (tens of KiB) cannot fit.
    const Outcome o = runShell(QStringLiteral("trap '' XFSZ; ulimit -f 8; exec %1 run %2 --out %3")
                                   .arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(out + QStringLiteral(": File too large")), qPrintable(o.err));
    QCOMPARE(readAll(out), QByteArray("previous receipt\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("r.json")});
    // The same command without the limit writes the receipt.
    const Outcome ok = runShell(QStringLiteral("exec %1 run %2 --out %3").arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(ok.code, 0);
    QVERIFY(readAll(out).startsWith("{"));
}

void TestCliFiles::vanishedFolderIsAnError() {
    QTemporaryDir dir;
    const QString gone = dir.filePath(QStringLiteral("gone"));
    QVERIFY(QDir().mkdir(gone));
    QVERIFY(QDir().rmdir(gone));
    const QString out = gone + QStringLiteral("/r.json");
    const Outcome o = runShell(QStringLiteral("exec %1 run %2 --out %3").arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(out + QStringLiteral(": No such file or directory")), qPrintable(o.err));
    QVERIFY(!QFileInfo::exists(gone));
}

void TestCliFiles::folderInTheWay() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    QVERIFY(QDir().mkdir(out));
    QVERIFY(QDir().mkdir(out + QStringLiteral("/inside")));
    const Outcome o = runShell(QStringLiteral("exec %1 run %2 --out %3").arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(out + QStringLiteral(": ")), qPrintable(o.err));
    QVERIFY(QFileInfo(out + QStringLiteral("/inside")).isDir());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("r.json")});
}

QTEST_GUILESS_MAIN(TestCliFiles)
#include "test_cli_files.moc"
