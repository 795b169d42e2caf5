// What preemptlab-cli says about its command line: a mistake gets one line naming it before the usage (never a
// bare "usage:"), an option a command would ignore is refused with the reason, help is reachable as
// `help COMMAND`; and what compare writes: populations (n) beside its percentiles, CSV for FILE.csv.
#include "tests/cli_runner.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

namespace {

const QString kSample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kLivelock = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json");

pltest::CliRun cli(const QStringList& args) { return pltest::runCli(args); }

// The first line of stderr, without the program's prefix.
QString firstLine(const pltest::CliRun& r) {
    return QString::fromUtf8(r.err).section(QLatin1Char('\n'), 0, 0);
}

} // namespace

class TestCliUsage : public QObject {
    Q_OBJECT
  private slots:
    void mistakesAreNamedBeforeTheUsage_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("first"); // stderr's first line
        const QString w = kSample;
        QTest::newRow("value is a flag") << QStringList{"run", w, "--capacity-blocks", "--out", "x1.json"}
                                         << "preemptlab-cli: option --capacity-blocks needs a value, got --out";
        QTest::newRow("extra positional") << QStringList{"run", w, w}
                                          << "preemptlab-cli: unexpected argument '" + w + "'";
        QTest::newRow("no command") << QStringList{} << "preemptlab-cli: missing COMMAND";
        QTest::newRow("run bare") << QStringList{"run"} << "preemptlab-cli: missing WORKLOAD";
        QTest::newRow("verify bare") << QStringList{"verify"} << "preemptlab-cli: missing RECEIPT";
        QTest::newRow("validate bare") << QStringList{"validate"} << "preemptlab-cli: missing WORKLOAD";
        QTest::newRow("compare bare") << QStringList{"compare"} << "preemptlab-cli: missing WORKLOAD";
        QTest::newRow("verify two") << QStringList{"verify", "a", "b"} << "preemptlab-cli: unexpected argument 'b'";
        QTest::newRow("bench positional") << QStringList{"bench", "x"} << "preemptlab-cli: unexpected argument 'x'";
        QTest::newRow("sweep bare") << QStringList{"sweep"} << "preemptlab-cli sweep: missing WORKLOAD";
        QTest::newRow("live-plan bare") << QStringList{"live-plan"} << "preemptlab-cli live-plan: missing WORKLOAD";
        QTest::newRow("import-trace bare") << QStringList{"import-trace", "--format", "azure"}
                                           << "preemptlab-cli import-trace: missing trace FILE";
        QTest::newRow("generate positional") << QStringList{"generate", "x", "--out", "-"}
                                             << "preemptlab-cli generate: unexpected argument 'x'";
        QTest::newRow("breakeven value") << QStringList{"breakeven", "--link-gbps", "--json"}
                                         << "preemptlab-cli breakeven: option --link-gbps needs a value, got --json";
        QTest::newRow("switch twice") << QStringList{"bench", "--json", "--json"}
                                      << "preemptlab-cli: option --json is given twice (each option once)";
    }

    void mistakesAreNamedBeforeTheUsage() {
        QFETCH(QStringList, args);
        QFETCH(QString, first);
        const auto r = cli(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(firstLine(r), first);
        QVERIFY(!QFile::exists(QStringLiteral("x1.json")));
    }

    void ignoredOptionsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString azure = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/tests/core/data/none.csv"); // never read
        QTest::newRow("compare --recovery") << QStringList{"compare", kSample, "--recovery", "swap"}
                                            << "compare runs every recovery mode";
        QTest::newRow("compare --out .txt") << QStringList{"compare", kSample, "--out", "cmp.txt"}
                                            << "compare --out: 'cmp.txt' must end in .json or .csv";
        QTest::newRow("bench --requests") << QStringList{"bench", "--workload", kSample, "--requests", "100"}
                                          << "--requests shapes the generated workload and is not taken with "
                                             "--workload FILE";
        QTest::newRow("azure --spread") << QStringList{"import-trace", "--format", "azure", azure, "--spread", "auto",
                                                       "--out", "-"}
                                        << "--spread is for --format mooncake";
        QTest::newRow("azure --prefix-blocks") << QStringList{"import-trace", "--format", "azure", azure,
                                                              "--prefix-blocks", "on", "--out", "-"}
                                               << "--prefix-blocks is for --format mooncake";
    }

    void ignoredOptionsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const auto r = cli(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(reason), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(QStringLiteral("cmp.txt")));
    }

    // -V is --version; validate and verify answer in JSON with --json (the same facts as their text), and verify's
    // exit code does not change with it; run --ledger-csv writes the ledger (one row per eviction) and refuses '-'.
    void versionJsonAndLedgerCsv() {
        const auto v = cli({"-V"});
        QCOMPARE(v.code, 0);
        QCOMPARE(v.out, cli({"--version"}).out);
        QVERIFY(v.out.startsWith("preemptlab-cli "));

        const auto valid = cli({"validate", kSample, "--json", "--engine-profile", "vllm-v1"});
        QCOMPARE(valid.code, 0);
        const QJsonObject vj = QJsonDocument::fromJson(valid.out).object();
        QCOMPARE(vj.value("valid").toBool(), true);
        QCOMPARE(vj.value("requests").toInt(), 3); // r01, r02, r07
        QCOMPARE(vj.value("policy").toObject().value("engine_profile").toString(), QStringLiteral("vllm-v1"));
        QVERIFY(vj.value("unused_settings").toArray().contains(QStringLiteral("resume_guard")));

        QTemporaryDir dir;
        const QString receipt = dir.filePath("r.json");
        const QString ledger = dir.filePath("ledger.csv");
        const auto run = cli({"run", kSample, "--recovery", "swap", "--out", receipt, "--ledger-csv", ledger});
        QCOMPARE(run.code, 0);
        QFile csv(ledger);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QByteArray rows = csv.readAll();
        QVERIFY(rows.startsWith("tick,victim,mode,fallback,"));
        QVERIFY2(run.err.contains(QByteArray(", ") + QByteArray::number(rows.count('\n') - 1) + " evictions,"), run.err.constData());
        const auto dash = cli({"run", kSample, "--ledger-csv", "-"});
        QCOMPARE(dash.code, 2);
        QVERIFY2(firstLine(dash).contains("--ledger-csv: '-' is not a file"), dash.err.constData());

        const auto same = cli({"verify", receipt, "--json"});
        QCOMPARE(same.code, 0);
        const QJsonObject sj = QJsonDocument::fromJson(same.out).object();
        QVERIFY(sj.value("identical").toBool() && sj.value("conservation_passed").toBool());
        QVERIFY(sj.value("events").toInt() > 10);
        // An edited receipt: identical false, the first difference named, exit 1 as without --json.
        QFile f(receipt);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        f.close();
        const qsizetype at = text.indexOf("\"kind\":\"evict\"");
        QVERIFY(at > 0);
        const qsizetype freed = text.indexOf("\"freed_blocks\":", at);
        text.insert(freed + static_cast<qsizetype>(std::strlen("\"freed_blocks\":")), "9");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        const auto edited = cli({"verify", receipt, "--json"});
        QCOMPARE(edited.code, 1);
        const QJsonObject ej = QJsonDocument::fromJson(edited.out).object();
        QCOMPARE(ej.value("identical").toBool(), false);
        QVERIFY2(ej.value("first_difference").toString().contains(QStringLiteral("freed_blocks")), edited.out.constData());
    }

    // compare: a progress line per mode on stderr (none with --quiet), and --out - puts the compare file alone on
    // stdout (the table on stderr), the bytes --out FILE.json writes.
    void compareProgressQuietAndOutDash() {
        QTemporaryDir dir;
        const QString file = dir.filePath("cmp.json");
        const auto toFile = cli({"compare", kSample, "--out", file});
        QCOMPARE(toFile.code, 0);
        QCOMPARE(QString::fromUtf8(toFile.err).count(QRegularExpression("^compare: \\S+ done \\([1-4] of 4, ",
                                                                        QRegularExpression::MultilineOption)),
                 4);
        const auto dash = cli({"compare", kSample, "--out", "-"});
        QCOMPARE(dash.code, 0);
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(dash.out, f.readAll());
        QVERIFY(dash.err.contains("compare: seed-example ("));  // the table, on stderr
        QVERIFY(!QFileInfo::exists(dir.filePath("-")));
        const auto quiet = cli({"compare", kSample, "--quiet"});
        QCOMPARE(quiet.code, 0);
        QVERIFY2(!quiet.err.contains("done ("), quiet.err.constData());
        QVERIFY(quiet.out.contains("compare: seed-example ("));
    }

    // completion and man are made from the command table: every command is in them; bash completes a command,
    // an option (from `help COMMAND`, through the program on PATH) and an engine profile; the page renders
    // without a groff warning; a wrong shell is refused with the reason.
    void completionAndManAreMadeFromTheCommandTable() {
        const auto help = cli({"--help"});
        QStringList commands;
        for (const QString& line : QString::fromUtf8(help.out).split(QLatin1Char('\n'))) {
            if (line.startsWith(QStringLiteral("  ")) && !line.startsWith(QStringLiteral("   ")))
                commands << line.trimmed().section(QLatin1Char(' '), 0, 0);
        }
        QVERIFY(commands.size() > 15);
        QTemporaryDir dir;
        const QString bash = dir.filePath("pl.bash");
        QCOMPARE(cli({"completion", "bash", "--out", bash}).code, 0);
        const auto zsh = cli({"completion", "zsh"});
        const auto man = cli({"man"});
        QCOMPARE(zsh.code, 0);
        QCOMPARE(man.code, 0);
        QVERIFY(zsh.out.startsWith("#compdef preemptlab-cli\n"));
        QVERIFY(man.out.contains(".TH PREEMPTLAB-CLI 1"));
        for (const QString& c : commands) {
            QVERIFY2(zsh.out.contains(" " + c.toUtf8() + " "), qPrintable(c));
            QVERIFY2(man.out.contains(".B " + QString(c).replace(QLatin1Char('-'), QStringLiteral("\\-")).toUtf8()), qPrintable(c));
        }
        QVERIFY(man.out.contains(".B \\-\\-capacity\\-blocks \\fIblocks\\fR")); // a workload key with its unit
        const auto complete = [&](const QString& words, int cword) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("PATH", QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin:") + env.value("PATH"));
            p.setProcessEnvironment(env);
            p.start("bash", {"-c", QStringLiteral("source '%1'; COMP_WORDS=(%2); COMP_CWORD=%3; _preemptlab_cli; "
                                                  "echo \"${COMPREPLY[*]}\"").arg(bash, words).arg(cword)});
            p.waitForFinished(30000);
            return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        };
        QCOMPARE(complete("preemptlab-cli sweep-m", 1), QStringLiteral("sweep-merge"));
        QCOMPARE(complete("preemptlab-cli run x --ledg", 3), QStringLiteral("--ledger-csv"));
        QCOMPARE(complete("preemptlab-cli compare x --engine-profile trtllm-g", 4),
                 QStringLiteral("trtllm-guaranteed-no-evict"));
        if (!QStandardPaths::findExecutable("groff").isEmpty()) {
            QProcess g;
            g.start("groff", {"-man", "-Tutf8", "-z", "-ww"});
            g.write(man.out);
            g.closeWriteChannel();
            QVERIFY(g.waitForFinished(30000));
            QCOMPARE(g.readAllStandardError(), QByteArray());
        }
        const auto fish = cli({"completion", "fish"});
        QCOMPARE(fish.code, 2);
        QVERIFY2(firstLine(fish).contains("completion: name the shell, bash or zsh, got 'fish'"), fish.err.constData());
    }

    void generateSaysHowManyLengthsItClamped() {
        QTemporaryDir dir;
        const auto r = cli({"generate", "--count", "50", "--prompt-median", "8000", "--prompt-max", "4096",
                            "--capacity-blocks", "4096", "--out", dir.filePath("g.json")});
        QCOMPARE(r.code, 0);
        const auto m = QRegularExpression("warning: ([0-9]+) of 50 prompts are at --prompt-max 4096 \\(longer ones "
                                          "were cut to it; raise --prompt-max to keep them\\)")
                           .match(QString::fromUtf8(r.err));
        QVERIFY2(m.hasMatch() && m.captured(1).toInt() > 25, r.err.constData());
    }

    void helpIsReachable() {
        const auto viaHelp = cli({"help", "run"});
        const auto viaFlag = cli({"run", "--help"});
        QCOMPARE(viaHelp.code, 0);
        QCOMPARE(viaHelp.out, viaFlag.out);
        // Help asked twice is still help (switches given twice are refused elsewhere).
        for (const char* command : {"sweep", "import-trace", "run"}) {
            const auto twice = cli({command, "--help", "-h"});
            QCOMPARE(twice.code, 0);
            QVERIFY(twice.out.startsWith("usage: preemptlab-cli " + QByteArray(command)));
        }
        for (const char* command : {"run", "validate", "compare"}) {
            const auto r = cli({command, "--help"});
            for (const char* flag : {"--calibration FILE", "--tick-ms MS", "--swap-method", "--calibration-context"}) {
                QVERIFY2(r.out.contains(flag), (QByteArray(command) + " lacks " + flag).constData());
            }
        }
    }

    // Queue delay is over every request, TTFT over those that got a token, completion over those that completed:
    // hybrid completes neither request of the livelock sample, so its completion p99 is over nobody.
    void compareShowsPopulations() {
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("cmp.json"));
        const auto r = cli({"compare", kLivelock, "--out", json});
        QCOMPARE(r.code, 0);
        const QString table = QString::fromUtf8(r.out);
        QVERIFY2(table.contains(QRegularExpression("\\ncompletion n \\*\\s+2\\s+2\\s+2\\s+0\\n")), qPrintable(table));
        // hybrid completed nothing: its completion p99 is a dash, not a 0 that reads as the best.
        QVERIFY2(table.contains(QRegularExpression("\\ncompletion p99 \\*\\s+\\d+\\s+\\d+\\s+\\d+\\s+-\\n")), qPrintable(table));
        QVERIFY2(table.contains(QRegularExpression("\\nTTFT n \\(got a token\\)\\s+2\\s+2\\s+2\\s+2\\n")),
                 qPrintable(table));
        QVERIFY2(table.contains(QRegularExpression("\\nqueue delay n \\(all\\)\\s+2\\s+2\\s+2\\s+2\\n")),
                 qPrintable(table));
        QVERIFY(table.contains("* taken over different requests in different modes"));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray doc = f.readAll();
        QVERIFY2(doc.contains("\"populations_differ\": [\n    \"tpot_ticks_x100\",\n    \"completion_ticks\"\n  ]"),
                 doc.constData());
        // Equal populations: no mark, no note.
        const auto same = cli({"compare", kSample});
        QVERIFY(!same.out.contains(" *") && !same.out.contains("taken over different requests"));
    }

    void compareWritesCsvAndNormalisedPaths() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("cmp.csv"));
        const auto r = cli({"compare", kSample, "--out", csv, "--receipts", dir.filePath(QStringLiteral("out/"))});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(dir.filePath(QStringLiteral("out/recompute.receipt.json")).toUtf8()) &&
                     !r.err.contains("//"),
                 r.err.constData());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.size(), 6); // header, four modes, the final newline
        QVERIFY2(lines[0].startsWith("mode,policy_hash,event_hash,") && lines[0].contains(",ttft_ticks_p99,"),
                 lines[0].constData());
        QVERIFY(lines[1].startsWith("recompute,sha256:") && lines[4].startsWith("hybrid,sha256:"));
        QCOMPARE(lines[1].count(','), lines[0].count(','));
    }

    // 1000 B of host memory holds no 4 KiB block of the seed example: every swap falls back to recompute. The
    // table counts it per mode, a note after it names the mode and the fix, and --out JSON and CSV carry both.
    void compareCountsFallbacks() {
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("cmp.json"));
        const QString csv = dir.filePath(QStringLiteral("cmp.csv"));
        const auto r = cli({"compare", kSample, "--host-capacity-bytes", "1000", "--out", json});
        QCOMPARE(r.code, 0);
        const QString table = QString::fromUtf8(r.out);
        const auto m = QRegularExpression("\nevictions\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\n").match(table);
        QVERIFY2(m.hasMatch(), qPrintable(table));
        const QString swapEvictions = m.captured(2);
        QVERIFY(swapEvictions.toInt() > 0);
        QVERIFY2(table.contains(QRegularExpression("\nfallback: host full\\s+0\\s+" + swapEvictions + "\\s+\\d+\\s+\\d+\n")),
                 qPrintable(table));
        QVERIFY2(table.contains(QRegularExpression("\nfallback: prefix shrunk\\s+0\\s+0\\s+0\\s+0\n")), qPrintable(table));
        QVERIFY2(table.contains(QRegularExpression("\nfallback: no full block\\s+0\\s+0\\s+0\\s+\\d+\n")), qPrintable(table));
        const QString note = "\nnote: swap: all " + swapEvictions +
                             " evictions fell back to recompute because host memory was full \\(host_capacity_bytes 1000 "
                             "\\(1000 B\\), KV 512 B per token, the largest swap needed \\d+ B \\([^)]*\\)\\), so its figures "
                             "are recompute's: raise host_capacity_bytes \\(--host-capacity-bytes\\) so victims fit on the host\n";
        QVERIFY2(table.contains(QRegularExpression(note)), qPrintable(table));
        QVERIFY2(!table.contains("note: recompute"), qPrintable(table));

        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject modes = QJsonDocument::fromJson(f.readAll()).object().value("modes").toObject();
        const QJsonObject swap = modes.value("swap").toObject();
        const QJsonObject fallbacks = swap.value("fallbacks").toObject();
        QCOMPARE(fallbacks.value("host_full").toInteger(), swapEvictions.toLongLong());
        QCOMPARE(fallbacks.value("hybrid_shrunk").toInteger(), 0);
        QCOMPARE(fallbacks.value("nothing_to_swap").toInteger(), 0);
        QCOMPARE(fallbacks.value("total").toInteger(), swapEvictions.toLongLong());
        QCOMPARE(swap.value("fallback: host full").toString(), swapEvictions); // the table's display string
        QVERIFY(swap.value("fallback_note").toString().startsWith("swap: all " + swapEvictions + " evictions"));
        QCOMPARE(modes.value("recompute").toObject().value("fallback_note").toString(), QString());
        QCOMPARE(modes.value("recompute").toObject().value("fallbacks").toObject().value("total").toInteger(), 0);

        const auto c = cli({"compare", kSample, "--host-capacity-bytes", "1000", "--out", csv});
        QCOMPARE(c.code, 0);
        QFile g(csv);
        QVERIFY(g.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = g.readAll().split('\n');
        // The fallbacks after the percentiles, then (added 2026-12-04) ITL's columns.
        QVERIFY2(lines[0].contains(",fallbacks_host_full,fallbacks_hybrid_shrunk,fallbacks_nothing_to_swap,"
                                   "fallbacks_total,itl_ticks_p50,"),
                 lines[0].constData());
        const auto at = lines[0].split(',').indexOf("fallbacks_host_full");
        const auto fallbacksOf = [&](const QByteArray& line) { return line.split(',').mid(at, 4).join(','); };
        QVERIFY2(lines[1].startsWith("recompute,") && fallbacksOf(lines[1]) == "0,0,0,0", lines[1].constData());
        const QByteArray n = swapEvictions.toUtf8();
        QVERIFY2(lines[2].startsWith("swap,") && fallbacksOf(lines[2]) == n + ",0,0," + n, lines[2].constData());

        // The sample's own 1 MiB: swap swaps, nothing falls back, no note.
        const auto fine = cli({"compare", kSample});
        QVERIFY2(QString::fromUtf8(fine.out).contains(QRegularExpression("\nfallback: host full\\s+0\\s+0\\s+0\\s+0\n")),
                 fine.out.constData());
        QVERIFY(!fine.out.contains("\nnote: "));
    }

    // Success is said only once the receipt reached standard output.
    void runToAFullDiskSaysNoSuccess() {
        if (!QFile::exists(QStringLiteral("/dev/full"))) {
            QSKIP("no /dev/full here");
        }
        QProcess p;
        p.setStandardOutputFile(QStringLiteral("/dev/full"));
        p.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli"), {"run", kSample});
        QVERIFY(p.waitForFinished(60'000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.startsWith("preemptlab-cli: cannot write to standard output: No space left on device\n"),
                 err.constData());
        QVERIFY2(!err.contains("completed"), err.constData()); // no summary line
        QCOMPARE(err.count("cannot write"), 1);
    }
};

QTEST_GUILESS_MAIN(TestCliUsage)
#include "test_cli_usage.moc"
