// The CLI's files under failure (docs/reliability.md): a full disk, a vanished folder and a folder in the way
// each give exit 2 and a message naming the file and the reason, leave the previous file intact and leave no
// temporary behind; an empty input file is said to be empty. The full disk is simulated with RLIMIT_FSIZE
// (bash `ulimit -f`, SIGXFSZ ignored), so write(2) fails with EFBIG just as a quota or a full device would.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <set>
#include <string>

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
    void outputThatIsAnInputIsRefused();
    void compareWritesAllOrNothing();
    void failedStdoutIsAnError();
    void optionsOnceAndWithTwoDashes();
    void everyCommandHasHelp();
    void emptyInputsSaySo();
    void aRunThatOutgrowsMemoryEndsWithFigures();
    void namesThatAreNotUtf8();
    void aFailedAllocationEndsWithFigures();
    void controlBytesInFileNamesAreEscaped();
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

void TestCliFiles::outputThatIsAnInputIsRefused() {
    // Writing the output over an input would destroy it: exit 2 before any work, the input untouched, by any
    // path to the same file.
    QTemporaryDir dir;
    const QString w = dir.filePath(QStringLiteral("w.json"));
    QVERIFY(QFile::copy(kSample, w));
    const QByteArray before = readAll(w);
    const QString viaDot = dir.path() + QStringLiteral("/./w.json");
    const QString commands[] = {
        QStringLiteral("%1 run %2 --out %3"),
        QStringLiteral("%1 compare %2 --out %3"),
        QStringLiteral("%1 sweep %2 --vary capacity_blocks=16:24:8 --out %3"),
    };
    for (const QString& command : commands) {
        const Outcome o = runShell(command.arg(quoted(kCli), quoted(w), quoted(viaDot)));
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains(viaDot + QStringLiteral(": is the input file ") + w), qPrintable(o.err));
        QCOMPARE(readAll(w), before);
    }
}

void TestCliFiles::compareWritesAllOrNothing() {
    // An unwritable --out is found before the four runs, and the receipts are not written either.
    QTemporaryDir dir;
    const QString receipts = dir.filePath(QStringLiteral("rc"));
    const QString out = dir.filePath(QStringLiteral("gone/c.json"));
    Outcome o = runShell(QStringLiteral("exec %1 compare %2 --receipts %3 --out %4")
                             .arg(quoted(kCli), quoted(kSample), quoted(receipts), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(out + QStringLiteral(": No such file or directory")), qPrintable(o.err));
    QVERIFY(!QFileInfo::exists(receipts)); // the folder it made for them is gone again
    // --out into its own receipts folder, on top of one of them: refused, nothing written.
    o = runShell(QStringLiteral("exec %1 compare %2 --receipts %3 --out %3/swap.receipt.json")
                     .arg(quoted(kCli), quoted(kSample), quoted(receipts)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("another output of this command")), qPrintable(o.err));
    QVERIFY(!QFileInfo::exists(receipts));
    // Fixed, the same command writes all five files, and the JSON carries the figures as numbers too.
    const QString good = dir.filePath(QStringLiteral("c.json"));
    o = runShell(QStringLiteral("exec %1 compare %2 --receipts %3 --out %4")
                     .arg(quoted(kCli), quoted(kSample), quoted(receipts), quoted(good)));
    QCOMPARE(o.code, 0);
    QCOMPARE(QDir(receipts).entryList(QDir::Files | QDir::Hidden).size(), 4);
    const QByteArray json = readAll(good);
    QVERIFY(json.contains("\"totals\": {") && json.contains("\"percentiles\": {") && json.contains("\"p99\":"));
}

void TestCliFiles::failedStdoutIsAnError() {
    // A receipt to stdout on a full disk is lost: that is exit 2, not 0.
    const Outcome o = runShell(QStringLiteral("exec %1 run %2 > /dev/full").arg(quoted(kCli), quoted(kSample)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("cannot write to standard output")), qPrintable(o.err));
    const Outcome ok = runShell(QStringLiteral("exec %1 run %2 > /dev/null").arg(quoted(kCli), quoted(kSample)));
    QCOMPARE(ok.code, 0);
    // "--out -" is stdout for run too (as for generate and import-trace), never a file named "-".
    QTemporaryDir dir;
    const Outcome dash = runShell(QStringLiteral("cd %1 && %2 run %3 --out - | head -c 1 | grep -q '{'")
                                      .arg(quoted(dir.path()), quoted(kCli), quoted(kSample)));
    QCOMPARE(dash.code, 0);
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("-"))));
}

void TestCliFiles::optionsOnceAndWithTwoDashes() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    Outcome o = runShell(QStringLiteral("exec %1 run %2 --recovery swap --recovery recompute --out %3")
                             .arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("option --recovery is given twice")), qPrintable(o.err));
    o = runShell(QStringLiteral("exec %1 run %2 -o %3").arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("unknown option -o (options start with --")), qPrintable(o.err));
    o = runShell(QStringLiteral("exec %1 sweep %2 --vary capacity_blocks=16:24:8 --vary capacity_blocks=32 --out %3.csv")
                     .arg(quoted(kCli), quoted(kSample), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("capacity_blocks is varied twice")), qPrintable(o.err));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
}

void TestCliFiles::everyCommandHasHelp() {
    const char* commands[] = {"validate", "run",       "verify", "compare", "bench",        "live-plan", "gpu-info",
                              "gpu-selftest", "calibrate", "breakeven", "rates", "sweep", "import-trace", "generate"};
    for (const char* c : commands) {
        for (const char* flag : {"--help", "-h"}) {
            QProcess p;
            p.start(kCli, {QString::fromLatin1(c), QString::fromLatin1(flag)});
            QVERIFY(p.waitForFinished(30'000));
            QCOMPARE(p.exitCode(), 0);
            const QByteArray out = p.readAllStandardOutput();
            QVERIFY2(out.startsWith("usage: preemptlab-cli " + QByteArray(c)), out.constData());
            // A command that takes --<key> overrides lists them, with units and meanings; the others do not.
            const std::set<std::string> keyed = {"validate", "run", "compare", "bench", "live-plan"};
            const bool takesKeys = keyed.count(c) > 0;
            QCOMPARE(out.contains("\n  --capacity-blocks (blocks)\n      Blocks in the device pool"), takesKeys);
            QCOMPARE(out.contains("\n  --victim-rule\n"), takesKeys);
        }
    }
}

// An empty input (here a space and a newline) is named as such, with the format that was expected, by each
// command that reads it, instead of the JSON parser's "line 1, column 1: ... unexpected end of input".
void TestCliFiles::emptyInputsSaySo() {
    QTemporaryDir dir;
    const QString empty = dir.filePath(QStringLiteral("empty.json"));
    {
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(" \n"), qint64{2});
    }
    const QString out = dir.filePath(QStringLiteral("r.json"));
    const QString isEmpty =
        QStringLiteral(": the file is empty (a preemptlab.%1.v1 JSON document was expected)");
    const struct {
        QString command; // %1 the CLI, %2 the empty file, %3 a good workload, %4 an output
        QString expected;
    } cases[] = {
        {QStringLiteral("%1 validate %2"), empty + isEmpty.arg(QStringLiteral("workload"))},
        {QStringLiteral("%1 run %2 --out %4"), empty + isEmpty.arg(QStringLiteral("workload"))},
        {QStringLiteral("%1 validate - < %2"),
         QStringLiteral("-: standard input is empty (a preemptlab.workload.v1 JSON document was expected)")},
        {QStringLiteral("%1 verify %2"),
         empty + QStringLiteral(": the file is empty (a preemptlab.receipt.v2 JSON document was expected)")},
        {QStringLiteral("%1 run %3 --calibration %2 --tick-ms 10 --out %4"),
         empty + isEmpty.arg(QStringLiteral("calibration"))},
    };
    for (const auto& c : cases) {
        const Outcome o = runShell(QStringLiteral("exec ") +
                                   c.command.arg(quoted(kCli), quoted(empty), quoted(kSample), quoted(out)));
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains(c.expected) && !o.err.contains(QStringLiteral("end of input")),
                 qPrintable(o.err));
        QVERIFY(!QFile::exists(out));
    }
}

void TestCliFiles::aRunThatOutgrowsMemoryEndsWithFigures() {
    // A thrashing policy run for a million ticks would keep every event (gigabytes); with the machine's
    // budget (here set small through PREEMPTLAB_MAX_EVENTS) it ends with exit 2 and the figures, writing
    // nothing, instead of being killed by the kernel.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    const QString livelock = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json");
    const Outcome o = runShell(QStringLiteral("PREEMPTLAB_MAX_EVENTS=5000 exec %1 run %2 --max-ticks 1000000 --out %3")
                                   .arg(quoted(kCli), quoted(livelock), quoted(out)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("the run stopped at tick ")) &&
                 o.err.contains(QStringLiteral("over the 5000 this run may hold")),
             qPrintable(o.err));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
    const Outcome bad = runShell(QStringLiteral("PREEMPTLAB_MAX_EVENTS=5k exec %1 run %2 --out %3")
                                     .arg(quoted(kCli), quoted(livelock), quoted(out)));
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("PREEMPTLAB_MAX_EVENTS: \"5k\" is not a positive integer")),
             qPrintable(bad.err));
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliFiles::namesThatAreNotUtf8() {
    // A file name or flag in Latin-1 (the byte 0xe9, not UTF-8) reaches a workload's name and notes, which are
    // JSON text. It aborted the CLI (nlohmann's type_error 316); now a name the user typed is refused and one
    // taken from a file name or the command line keeps its other characters, the byte shown as U+FFFD.
    QTemporaryDir dir;
    const QString cd = QStringLiteral("cd %1 && ").arg(quoted(dir.path()));
    // The file gets the name asked for (its bytes, which Qt cannot name: the shell reads and removes it).
    Outcome o = runShell(cd + QStringLiteral("%1 generate --count 5 --out \"$(printf 'gen\\351.json')\" && "
                                             "cat \"$(printf 'gen\\351.json')\" >&2 && rm \"$(printf 'gen\\351.json')\"")
                                  .arg(quoted(kCli)));
    QCOMPARE(o.code, 0);
    QVERIFY2(o.err.contains(QString::fromUtf8("--out gen\xef\xbf\xbd.json")), qPrintable(o.err.left(900)));

    o = runShell(cd + QStringLiteral("exec %1 generate --count 5 --name \"$(printf 'x\\351')\" --out g.json").arg(quoted(kCli)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("--name: is not valid UTF-8")), qPrintable(o.err));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("g.json"))));

    o = runShell(cd + QStringLiteral("printf 'TIMESTAMP,ContextTokens,GeneratedTokens\\n2023-11-16 18:15:46.6805900,374,44\\n' > "
                                     "\"$(printf 'lat\\351n.csv')\" && exec %1 import-trace --format azure \"$(printf 'lat\\351n.csv')\" "
                                     "--block-size-tokens 16 --capacity-blocks 64 --out w.json").arg(quoted(kCli)));
    QVERIFY2(o.code == 0, qPrintable(o.err));
    QVERIFY2(readAll(dir.filePath(QStringLiteral("w.json"))).contains("\"name\": \"lat\xef\xbf\xbdn\""),
             readAll(dir.filePath(QStringLiteral("w.json"))).left(300).constData());
    o = runShell(cd + QStringLiteral("%1 import-trace --format azure lat*.csv --block-size-tokens 16 --capacity-blocks 64 "
                                     "--id-prefix 'a b' --out w2.json; code=$?; rm lat*.csv; exit $code").arg(quoted(kCli)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("--id-prefix: may only hold")), qPrintable(o.err));
}

void TestCliFiles::aFailedAllocationEndsWithFigures() {
    // Issue 21: under `ulimit -v` an allocation that failed (std::bad_alloc) aborted the CLI (SIGABRT, a core
    // dump); it is caught at the top and refused with exit 2 and the figures.
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer maps terabytes of shadow memory, which ulimit -v forbids: the CLI cannot start there");
#endif
    const Outcome o = runShell(QStringLiteral("ulimit -v 1500000 && exec %1 validate /dev/zero").arg(quoted(kCli)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("preemptlab-cli validate: out of memory: an allocation failed with ")) &&
                 o.err.contains(QStringLiteral("under an address-space limit of 1.43 GiB (ulimit -v)")),
             qPrintable(o.err));
}

void TestCliFiles::controlBytesInFileNamesAreEscaped() {
    // Issue 21: a file name holding a newline or an escape sequence reached the terminal raw (ids were already
    // escaped). Every path the CLI prints is shown as request ids are: control bytes as \xNN.
    QTemporaryDir dir;
    const QString cd = QStringLiteral("cd %1 && ").arg(quoted(dir.path()));
    Outcome o = runShell(cd + QStringLiteral("exec %1 validate \"$(printf 'no\\nsuch\\033[31m.json')\"").arg(quoted(kCli)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("no\\x0asuch\\x1b[31m.json: cannot open")), qPrintable(o.err));
    QVERIFY(!o.err.contains(QLatin1Char('\x1b')));
    QCOMPARE(o.err.count(QLatin1Char('\n')), 1);
    o = runShell(cd + QStringLiteral("printf 'TIMESTAMP,ContextTokens,GeneratedTokens\\n2023-11-16 18:15:46.6805900,374,44\\n' > t.csv && "
                                     "exec %1 import-trace --format azure t.csv --capacity-blocks 64 --out \"$(printf 'o\\033]0;x\\007.json')\"")
                         .arg(quoted(kCli)));
    QCOMPARE(o.code, 0);
    QVERIFY2(o.err.contains(QStringLiteral("-> o\\x1b]0;x\\x07.json")), qPrintable(o.err));
    QVERIFY(!o.err.contains(QLatin1Char('\x1b')) && !o.err.contains(QLatin1Char('\x07')));
    o = runShell(cd + QStringLiteral("exec %1 run \"$(printf 'w\\033c')\" --out \"$(printf 'w\\033c')\"").arg(quoted(kCli)));
    QCOMPARE(o.code, 2);
    QVERIFY2(o.err.contains(QStringLiteral("w\\x1bc")) && !o.err.contains(QLatin1Char('\x1b')), qPrintable(o.err));
}

QTEST_GUILESS_MAIN(TestCliFiles)
#include "test_cli_files.moc"
