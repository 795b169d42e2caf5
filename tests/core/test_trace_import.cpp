// Trace import: both formats, broken rows (file, line, column), slicing arithmetic, spreading, prefix-block
// mapping, the oversized rule, the stop flag, and the whole public traces from /work/shared/data/traces when
// present.
#include "core/trace/fixed_point.h"
#include "core/trace/trace_importer.h"
#include "core/trace/trace_rows.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

using namespace pl;
using namespace pl::trace;

namespace {

const char* kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

TraceRows rowsOrFail(const RowsResult& r) {
    if (const auto* e = std::get_if<InputError>(&r)) {
        qFatal("unexpected error: %s", e->message().c_str());
    }
    return std::get<TraceRows>(r);
}

InputError errorOf(const RowsResult& r) {
    if (!std::holds_alternative<InputError>(r)) {
        qFatal("expected an error");
    }
    return std::get<InputError>(r);
}

// Rows at the given microsecond times, prompt 10, output 5.
TraceRows syntheticRows(const std::vector<std::int64_t>& times) {
    TraceRows rows{TraceFormat::Azure, "synthetic.csv", {}};
    std::int64_t line = 2;
    for (auto t : times) {
        rows.rows.push_back(TraceRow{t, 10, 5, {}, line++});
    }
    return rows;
}

Config roomyConfig() {
    Config c;
    c.block_size_tokens = 8;
    c.capacity_blocks = 100000;
    return c;
}

ImportResult importOrFail(const TraceRows& rows, const ImportOptions& o, const Config& c = roomyConfig()) {
    auto r = importTrace(rows, o, c, Policy{});
    if (const auto* e = std::get_if<InputError>(&r)) {
        qFatal("unexpected import error: %s", e->message().c_str());
    }
    return std::get<ImportResult>(std::move(r));
}

std::vector<Tick> arrivals(const Workload& w) {
    std::vector<Tick> out;
    for (const auto& r : w.requests) {
        out.push_back(r.arrival_tick);
    }
    return out;
}

std::string tracePath(const char* name) { return std::string("/work/shared/data/traces/") + name; }

} // namespace

class TestTraceImport : public QObject {
    Q_OBJECT
  private slots:
    void fixedPoint() {
        QCOMPARE(parseScaledDecimal("1.5", 6).value(), 1'500'000);
        QCOMPARE(parseScaledDecimal("0.0000019", 6).value(), 1); // truncated, not rounded
        QCOMPARE(parseScaledDecimal("20", 3).value(), 20'000);
        QVERIFY(!parseScaledDecimal("-1", 3));
        QVERIFY(!parseScaledDecimal("1e3", 3));
        QVERIFY(!parseScaledDecimal("1.", 3));
        QVERIFY(!parseScaledDecimal("1.2.3", 3));
        QVERIFY(!parseScaledDecimal("", 3));
        QCOMPARE(parseRational("1.5").value(), (Rational{3, 2}));
        QCOMPARE(parseRational("4").value(), (Rational{4, 1}));
        QCOMPARE(parseRational("0.125").value(), (Rational{1, 8}));
        QVERIFY(!parseRational("0"));
        QVERIFY(!parseRational("0.0000001"));
    }

    void azureTimestamp() {
        // 2023-11-16 18:15:46.6805900 UTC = 1700158546 s since the epoch.
        auto t = parseAzureTimestamp("2023-11-16 18:15:46.6805900");
        QCOMPARE(std::get<std::int64_t>(t), std::int64_t{1700158546} * 1'000'000 + 680590);
        QCOMPARE(std::get<std::int64_t>(parseAzureTimestamp("1970-01-01 00:00:00")), 0);
        QCOMPARE(std::get<std::int64_t>(parseAzureTimestamp("2024-02-29 00:00:00.5")),
                 std::int64_t{1709164800} * 1'000'000 + 500000);
        QCOMPARE(std::get<std::size_t>(parseAzureTimestamp("2023-02-29 00:00:00")), std::size_t{8});
        QCOMPARE(std::get<std::size_t>(parseAzureTimestamp("2023-11-16 25:00:00")), std::size_t{11});
        QCOMPARE(std::get<std::size_t>(parseAzureTimestamp("2023-11-16T18:15:46")), std::size_t{10});
        QCOMPARE(std::get<std::size_t>(parseAzureTimestamp("2023-11-16 18:15:46.12x")), std::size_t{22});
    }

    void azureReadsRows() {
        const std::string text = std::string(kAzureHeader) +
                                 "2023-11-16 18:15:46.6805900,374,44\r\n"
                                 "2023-11-16 18:15:50.9951690,396,109\n\n";
        auto rows = rowsOrFail(readAzureCsv(text, "a.csv"));
        QCOMPARE(rows.rows.size(), std::size_t{2});
        QCOMPARE(rows.rows[1].time_us - rows.rows[0].time_us, std::int64_t{4314579});
        QCOMPARE(rows.rows[1].prompt_tokens, 396);
        QCOMPARE(rows.rows[1].output_tokens, 109);
        QCOMPARE(rows.rows[1].line, 3);
    }

    void azureBrokenRows_data() {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("reason");
        QTest::newRow("bad number") << "2023-11-16 18:15:50.9951690,39x6,109" << "line 3, column 29"
                                    << "ContextTokens";
        QTest::newRow("zero output") << "2023-11-16 18:15:50.9951690,396,0" << "line 3, column 33"
                                     << "GeneratedTokens";
        QTest::newRow("missing column") << "2023-11-16 18:15:50.9951690,396" << "line 3, column 32"
                                        << "missing column GeneratedTokens";
        QTest::newRow("extra column") << "2023-11-16 18:15:50.9951690,396,5,7" << "line 3, column 34"
                                      << "too many columns";
        QTest::newRow("bad timestamp") << "2023-13-16 18:15:50.9951690,396,109" << "line 3, column 6"
                                       << "TIMESTAMP";
        QTest::newRow("backwards") << "2023-11-16 18:15:40.0000000,396,109" << "line 3, column 1"
                                   << "goes backwards (earlier than line 2)";
        // Issue 21: a NUL in place of a comma read "missing column GeneratedTokens".
        QTest::newRow("NUL") << QString::fromLatin1("2023-11-16 18:15:50.9951690,396\0" "109", 35) << "line 3, column 32"
                             << "a NUL byte (a CSV trace is text and holds none)";
    }
    void azureBrokenRows() {
        QFETCH(QString, row);
        QFETCH(QString, where);
        QFETCH(QString, reason);
        const std::string text =
            std::string(kAzureHeader) + "2023-11-16 18:15:46.6805900,374,44\n" + row.toStdString() + "\n";
        const InputError e = errorOf(readAzureCsv(text, "broken.csv"));
        QCOMPARE(QString::fromStdString(e.file), QString("broken.csv"));
        QCOMPARE(QString::fromStdString(e.path), where);
        QVERIFY2(QString::fromStdString(e.reason).contains(reason), e.reason.c_str());
    }

    void azureMissingHeader() {
        const InputError e = errorOf(readAzureCsv("2023-11-16 18:15:46.6805900,374,44\n", "h.csv"));
        QCOMPARE(QString::fromStdString(e.path), QString("line 1, column 1"));
        QVERIFY(errorOf(readAzureCsv("", "empty.csv")).reason.find("empty") != std::string::npos);
    }

    void mooncakeReadsRowsAndMapsPrefixes() {
        const std::string text = "{\"timestamp\": 0, \"input_length\": 1100, \"output_length\": 7, \"hash_ids\": [0, 1, 2]}\n"
                                 "{\"timestamp\": 3000, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [0, 9]}\n";
        auto rows = rowsOrFail(readMooncakeJsonl(text, "m.jsonl"));
        QCOMPARE(rows.rows.size(), std::size_t{2});
        QCOMPARE(rows.rows[1].time_us, 3'000'000);
        QCOMPARE(rows.rows[0].hash_ids, (std::vector<std::int64_t>{0, 1, 2}));
        // block size 256: K = 2 sub-blocks per hash, full blocks floor(1100/256) = 4.
        QCOMPARE(mapHashIds(rows.rows[0].hash_ids, 1100, 256).value(), (std::vector<std::int64_t>{0, 1, 2, 3}));
        // 600 tokens: 2 full blocks; the shared first hash gives the shared ids 0 and 1.
        QCOMPARE(mapHashIds(rows.rows[1].hash_ids, 600, 256).value(), (std::vector<std::int64_t>{0, 1}));
        // block size 1024 (two hashes a block): block 0 takes the id of hash 1.
        QCOMPARE(mapHashIds(rows.rows[0].hash_ids, 1100, 1024).value(), (std::vector<std::int64_t>{1}));
        QVERIFY(!mapHashIds(rows.rows[0].hash_ids, 1100, 48));
        // Through the importer: the first 512 tokens of both requests share ids.
        Config c = roomyConfig();
        c.block_size_tokens = 128;
        auto res = importOrFail(rows, ImportOptions{}, c);
        QCOMPARE(res.workload.requests[0].id, std::string("mc-000000"));
        QCOMPARE(res.workload.requests[0].prefix_blocks.size(), std::size_t{8});
        QCOMPARE(res.workload.requests[1].prefix_blocks,
                 (std::vector<std::int64_t>{0, 1, 2, 3}));
        QCOMPARE(res.report.prefix_block_ids, 8 + 4);
        c.block_size_tokens = 48;
        auto bad = importTrace(rows, ImportOptions{}, c, Policy{});
        QCOMPARE(QString::fromStdString(std::get<InputError>(bad).path), QString("--block-size-tokens"));
        ImportOptions noPrefix;
        noPrefix.prefix_blocks = false;
        QVERIFY(importOrFail(rows, noPrefix, c).workload.requests[0].prefix_blocks.empty());
    }

    void mooncakeBrokenRows_data() {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not json") << "{\"timestamp\": 1, \"input_length\": 10 \"output_length\": 1}"
                                  << "line 2, column 51" << "not valid JSON: syntax error";
        QTest::newRow("missing key") << "{\"timestamp\": 1, \"input_length\": 10, \"hash_ids\": [1]}"
                                     << "line 2, column 54" << "missing key 'output_length'";
        QTest::newRow("bad number") << "{\"timestamp\": 1, \"input_length\": -10, \"output_length\": 1, \"hash_ids\": [1]}"
                                    << "line 2, column 18" << "input_length";
        QTest::newRow("fraction") << "{\"timestamp\": 1.5, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}"
                                  << "line 2, column 2" << "timestamp";
        QTest::newRow("hash count") << "{\"timestamp\": 1, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1]}"
                                    << "line 2, column 59" << "expected one per 512 tokens: 2";
        QTest::newRow("unknown key") << "{\"timestamp\": 1, \"input_len\": 10, \"output_length\": 1, \"hash_ids\": [1]}"
                                     << "line 2, column 18" << "unknown key 'input_len'";
        QTest::newRow("backwards") << "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}"
                                   << "line 2, column 2" << "goes backwards";
    }
    void mooncakeBrokenRows() {
        QFETCH(QString, row);
        QFETCH(QString, where);
        QFETCH(QString, reason);
        const std::string text = "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n" +
                                 row.toStdString() + "\n";
        const InputError e = errorOf(readMooncakeJsonl(text, "broken.jsonl"));
        QCOMPARE(QString::fromStdString(e.file), QString("broken.jsonl"));
        QCOMPARE(QString::fromStdString(e.path), where);
        QVERIFY2(QString::fromStdString(e.reason).contains(reason), e.reason.c_str());
    }

    // Issue 21: ids near 2^53 read "hash_ids cannot be mapped to blocks", with no column or reason.
    void hashIdsPastTheIdRangeSayWhy() {
        const std::string text =
            "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [5, 9007199254740000]}\n";
        const TraceRows rows = rowsOrFail(readMooncakeJsonl(text, "big.jsonl"));
        Config c = roomyConfig();
        c.block_size_tokens = 64; // 8 ids per hash: 9007199254740000 x 8 passes 2^53-1
        const auto r = importTrace(rows, ImportOptions{}, c, Policy{});
        QVERIFY(std::holds_alternative<InputError>(r));
        const InputError& e = std::get<InputError>(r);
        QCOMPARE(e.path, std::string("line 1, column 59"));
        QVERIFY2(e.reason.find("hash_ids[1]: 9007199254740000 cannot be mapped to 8 block ids of 64 tokens: id x 8 "
                               "passes 2^53-1") == 0,
                 e.reason.c_str());
        c.block_size_tokens = 512; // one id per hash: fine
        QVERIFY(std::holds_alternative<ImportResult>(importTrace(rows, ImportOptions{}, c, Policy{})));
    }

    void slicingArithmetic() {
        // Times in microseconds after an arbitrary clock start.
        const std::int64_t t0 = 1'000'000'000;
        auto rows = syntheticRows({t0, t0 + 19'999, t0 + 20'000, t0 + 1'000'000, t0 + 2'500'000, t0 + 3'000'000});
        ImportOptions o; // tick 20 ms
        QCOMPARE(arrivals(importOrFail(rows, o).workload), (std::vector<Tick>{0, 0, 1, 50, 125, 150}));
        // start 1 s, duration 2 s: t in [1 s, 3 s) from the first arrival; ticks count from the slice start.
        o.start_us = 1'000'000;
        o.duration_us = 2'000'000;
        auto sliced = importOrFail(rows, o);
        QCOMPARE(arrivals(sliced.workload), (std::vector<Tick>{0, 75}));
        QCOMPARE(sliced.workload.requests[0].id, std::string("az-000003"));
        QCOMPARE(sliced.report.rows_in_window, 2);
        QCOMPARE(sliced.report.first_line, 5);
        // limit keeps the earliest rows of the window.
        o = ImportOptions{};
        o.limit = 3;
        auto limited = importOrFail(rows, o);
        QCOMPARE(arrivals(limited.workload), (std::vector<Tick>{0, 0, 1}));
        QCOMPARE(limited.report.rows_in_window, 6);
        // rate scale 2 halves every gap; 0.5 doubles it; tick 1.5 ms exercises non-round division.
        o = ImportOptions{};
        o.rate_scale = *parseRational("2");
        QCOMPARE(arrivals(importOrFail(rows, o).workload), (std::vector<Tick>{0, 0, 0, 25, 62, 75}));
        o.rate_scale = *parseRational("0.5");
        QCOMPARE(arrivals(importOrFail(rows, o).workload), (std::vector<Tick>{0, 1, 2, 100, 250, 300}));
        o = ImportOptions{};
        o.tick_us = 1'500;
        QCOMPARE(arrivals(importOrFail(rows, o).workload), (std::vector<Tick>{0, 13, 13, 666, 1666, 2000}));
        // max_ticks: last arrival + the configured max_ticks.
        QCOMPARE(importOrFail(rows, o).workload.config.max_ticks, 2000 + roomyConfig().max_ticks);
    }

    void maxOutputAndOversized() {
        auto rows = syntheticRows({0, 1000, 2000});
        rows.rows[1].prompt_tokens = 70; // 70 + 5 tokens = 10 blocks of 8
        Config c = roomyConfig();
        c.capacity_blocks = 9;
        auto refused = importTrace(rows, ImportOptions{}, c, Policy{});
        const auto& e = std::get<InputError>(refused);
        QCOMPARE(QString::fromStdString(e.file), QString("synthetic.csv"));
        QCOMPARE(QString::fromStdString(e.path), QString("line 3"));
        QVERIFY(e.reason.find("needs 10 blocks") != std::string::npos);
        ImportOptions skip;
        skip.skip_oversized = true;
        auto skipped = importOrFail(rows, skip, c);
        QCOMPARE(skipped.workload.requests.size(), std::size_t{2});
        QCOMPARE(skipped.report.skipped_oversized, 1);
        ImportOptions cap;
        cap.max_output_tokens = 3;
        auto capped = importOrFail(rows, cap);
        QCOMPARE(capped.workload.requests[0].output_tokens, 3);
        QCOMPARE(capped.workload.requests[0].max_output_tokens, 3);
        QCOMPARE(capped.report.truncated_outputs, 3);
    }

    void spreadIsSeededAndWithinWindow() {
        auto rows = syntheticRows({0, 0, 0, 0, 3'000'000, 3'000'000, 6'000'000});
        ImportOptions o;
        o.tick_us = 1'000;
        o.spread = ImportOptions::Spread::Auto;
        o.seed = 7;
        const auto a = importOrFail(rows, o);
        const auto b = importOrFail(rows, o);
        QCOMPARE(arrivals(a.workload), arrivals(b.workload));
        for (const auto& r : a.workload.requests) {
            const int row = std::stoi(r.id.substr(3));
            const std::int64_t base = rows.rows[static_cast<std::size_t>(row)].time_us / 1000;
            QVERIFY(r.arrival_tick >= base && r.arrival_tick < base + 3000); // window: 3 s gap
        }
        std::set<Tick> distinct;
        for (auto t : arrivals(a.workload)) {
            distinct.insert(t);
        }
        QVERIFY(distinct.size() >= 5); // the batch at t=0 is spread out
        o.seed = 8;
        QVERIFY(arrivals(importOrFail(rows, o).workload) != arrivals(a.workload));
    }

    // The lab's Cancel: a set stop flag ends both readers and the importer with pl::Cancelled, so the caller
    // gets no rows and no workload; a clear flag reads and imports exactly what no flag does (the CLI's case).
    void stopFlagEndsReadingAndImporting() {
        const int n = 3 * kRowsPerStopCheck;
        std::string csv = kAzureHeader;
        std::string jsonl;
        for (int i = 0; i < n; ++i) {
            csv += "2023-11-16 18:15:46.6805900,374,44\n";
            jsonl += "{\"timestamp\": " + std::to_string(i) +
                     ", \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n";
        }
        const std::atomic<bool> set{true};
        const std::atomic<bool> clear{false};
        QVERIFY_THROWS_EXCEPTION(pl::Cancelled, readAzureCsv(csv, "big.csv", &set));
        QVERIFY_THROWS_EXCEPTION(pl::Cancelled, readMooncakeJsonl(jsonl, "big.jsonl", &set));
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("big.csv")).toStdString();
        {
            std::ofstream(path) << csv;
        }
        QVERIFY_THROWS_EXCEPTION(pl::Cancelled, loadTraceFile(path, TraceFormat::Azure, &set));

        const TraceRows azure = rowsOrFail(readAzureCsv(csv, "big.csv"));
        QCOMPARE(rowsOrFail(readAzureCsv(csv, "big.csv", &clear)).rows.size(), std::size_t(n));
        const TraceRows mooncake = rowsOrFail(readMooncakeJsonl(jsonl, "big.jsonl"));
        const TraceRows mooncakeClear = rowsOrFail(readMooncakeJsonl(jsonl, "big.jsonl", &clear));
        QCOMPARE(mooncakeClear.rows.size(), std::size_t(n));
        QCOMPARE(mooncakeClear.rows.back().time_us, mooncake.rows.back().time_us);
        QVERIFY(mooncakeClear.rows.back().hash_ids == mooncake.rows.back().hash_ids);

        for (const TraceRows* rows : {&azure, &mooncake}) {
            QVERIFY_THROWS_EXCEPTION(pl::Cancelled,
                                     importTrace(*rows, ImportOptions{}, roomyConfig(), Policy{}, &set));
            auto withClear = importTrace(*rows, ImportOptions{}, roomyConfig(), Policy{}, &clear);
            QVERIFY(std::holds_alternative<ImportResult>(withClear));
            const ImportResult plain = importOrFail(*rows, ImportOptions{});
            QCOMPARE(fullWorkloadJson(std::get<ImportResult>(withClear).workload).dump(),
                     fullWorkloadJson(plain.workload).dump());
            QCOMPARE(plain.workload.requests.size(), std::size_t(n));
        }
    }

    void wholeAzureConvTrace() {
        const auto path = tracePath("azure2023_AzureLLMInferenceTrace_conv.csv");
        if (!std::filesystem::exists(path)) {
            QSKIP("the public traces are not on this machine");
        }
        auto rows = rowsOrFail(loadTraceFile(path, TraceFormat::Azure));
        QCOMPARE(rows.rows.size(), std::size_t{19366});
        Config c = roomyConfig();
        auto res = importOrFail(rows, ImportOptions{}, c);
        QCOMPARE(res.workload.requests.size(), std::size_t{19366});
        QCOMPARE(res.workload.requests.front().id, std::string("az-000000"));
        // 58 minutes at 20 ms a tick: the last arrival is near tick 174,000.
        QVERIFY(res.report.last_arrival_tick > 170'000 && res.report.last_arrival_tick < 180'000);
    }

    void wholeMooncakeConversationTrace() {
        const auto path = tracePath("mooncake_conversation_trace.jsonl");
        if (!std::filesystem::exists(path)) {
            QSKIP("the public traces are not on this machine");
        }
        auto rows = rowsOrFail(loadTraceFile(path, TraceFormat::Mooncake));
        QCOMPARE(rows.rows.size(), std::size_t{12031});
        Config c = roomyConfig();
        c.block_size_tokens = 512;
        c.capacity_blocks = 512;
        auto res = importOrFail(rows, ImportOptions{}, c);
        QCOMPARE(res.workload.requests.size(), std::size_t{12031});
        // Shared prefixes: the first block of the first three requests is the same hash (0).
        QCOMPARE(res.workload.requests[0].prefix_blocks[0], res.workload.requests[1].prefix_blocks[0]);
    }
};

QTEST_GUILESS_MAIN(TestTraceImport)
#include "test_trace_import.moc"
