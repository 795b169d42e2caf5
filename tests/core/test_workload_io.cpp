// preemptlab.workload.v1: every validation error with its exact path, empty files, defaults, normalised
// order, the normalised JSON forms and file loading. Overrides and in-memory validation: test_workload_overrides.
#include "core/hashing.h"
#include "core/verify.h"
#include "core/workload_io.h"
#include "tests/core/workload_io_fixtures.h"
#include "core/workload_overrides.h"

#include <QtTest>

#include <fstream>
#include <functional>

using nlohmann::json;

using namespace pltest::workloadio;

class TestWorkloadIo : public QObject {
    Q_OBJECT
  private slots:
    void rejects_data();
    void rejects();
    void duplicateJsonKeys_data();
    void duplicateJsonKeys();
    void syntaxErrorsGiveLineAndColumn_data();
    void syntaxErrorsGiveLineAndColumn();
    void emptyFilesSaySo_data();
    void emptyFilesSaySo();
    void deepNestingIsRefused();
    void caps_data();
    void caps();
    void baseDocumentParses();
    void defaultsAreFilled();
    void acceptsBoundaryValues();
    void requestsAreNormalised();
    void normalisedFormsRoundTrip();
    void inputHashIgnoresOrderAndPolicy();
    void loadsFiles();
    void messagesArePrintable();
    void commentsAndHugeIntegersAreNamed_data();
    void commentsAndHugeIntegersAreNamed();
};

void TestWorkloadIo::rejects_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason"); // a fragment of the reason
    auto row = [](const char* name, const json& doc, const char* path, const char* reason) {
        QTest::newRow(name) << QByteArray::fromStdString(doc.dump()) << QString(path) << QString(reason);
    };
    using R = json&;
    // Shape and required keys.
    row("not an object", json::array(), "", "must be a JSON object, got an array");
    row("format missing", mutated([](R d) { d.erase("format"); }), "/format", "required key is missing");
    row("format wrong", mutated([](R d) { d["format"] = "preemptlab.workload.v2"; }), "/format",
        "must be \"preemptlab.workload.v1\", got \"preemptlab.workload.v2\"");
    row("format not string", mutated([](R d) { d["format"] = 1; }), "/format", "got the integer 1");
    row("name missing", mutated([](R d) { d.erase("name"); }), "/name", "required key is missing");
    row("name not string", mutated([](R d) { d["name"] = json::array(); }), "/name", "expected a string, got an array");
    row("notes not string", mutated([](R d) { d["notes"] = 3; }), "/notes", "expected a string");
    row("requests missing", mutated([](R d) { d.erase("requests"); }), "/requests", "required key is missing");
    row("requests not array", mutated([](R d) { d["requests"] = json::object(); }), "/requests",
        "expected an array, got an object");
    row("config not object", mutated([](R d) { d["config"] = 5; }), "/config", "expected an object");
    row("policy not object", mutated([](R d) { d["policy"] = "swap"; }), "/policy", "expected an object, got a string");
    row("request not object", mutated([](R d) { d["requests"][1] = 5; }), "/requests/1", "expected an object");
    row("id missing", mutated([](R d) { d["requests"][2].erase("id"); }), "/requests/2/id", "required key is missing");
    row("arrival missing", mutated([](R d) { d["requests"][1].erase("arrival_tick"); }), "/requests/1/arrival_tick",
        "required key is missing");
    row("prompt missing", mutated([](R d) { d["requests"][2].erase("prompt_tokens"); }), "/requests/2/prompt_tokens",
        "required key is missing");
    row("output missing", mutated([](R d) { d["requests"][0].erase("output_tokens"); }), "/requests/0/output_tokens",
        "required key is missing");
    // Unknown keys at every level.
    row("unknown top key", mutated([](R d) { d["extra"] = 1; }), "/extra", "unknown key \"extra\"");
    row("unknown config key", mutated([](R d) { d["config"]["block_size"] = 8; }), "/config/block_size",
        "unknown key \"block_size\"");
    row("unknown policy key", mutated([](R d) { d["policy"]["mode"] = "swap"; }), "/policy/mode", "unknown key");
    row("unknown request key", mutated([](R d) { d["requests"][2]["colour"] = "red"; }), "/requests/2/colour",
        "unknown key \"colour\"");
    row("unknown key escaped", mutated([](R d) { d["a/b~c"] = 1; }), "/a~1b~0c", "unknown key");
    // Types.
    row("string for integer", mutated([](R d) { d["requests"][0]["prompt_tokens"] = "24"; }),
        "/requests/0/prompt_tokens", "expected an integer, got a string");
    row("bool for integer", mutated([](R d) { d["config"]["capacity_blocks"] = true; }), "/config/capacity_blocks",
        "expected an integer, got a boolean (true)");
    row("null for integer", mutated([](R d) { d["requests"][3]["priority"] = nullptr; }), "/requests/3/priority",
        "expected an integer, got null");
    row("float 8.0", mutated([](R d) { d["requests"][1]["output_tokens"] = 8.0; }), "/requests/1/output_tokens",
        "got a floating-point number (8.0)");
    row("float in config", mutated([](R d) { d["config"]["max_ticks"] = 1.5e3; }), "/config/max_ticks",
        "floating-point");
    row("float in policy", mutated([](R d) { d["policy"]["watermark_blocks"] = 0.5; }), "/policy/watermark_blocks",
        "floating-point");
    row("tenant not string", mutated([](R d) { d["requests"][0]["tenant"] = 7; }), "/requests/0/tenant",
        "expected a string");
    row("id not string", mutated([](R d) { d["requests"][0]["id"] = 7; }), "/requests/0/id", "expected a string");
    row("preempt_ahead as string", mutated([](R d) { d["policy"]["preempt_ahead"] = "true"; }),
        "/policy/preempt_ahead", "expected true or false, got a string");
    row("prefix not array", mutated([](R d) { d["requests"][3]["prefix_blocks"] = 7; }), "/requests/3/prefix_blocks",
        "expected an array of integers");
    row("prefix float", mutated([](R d) { d["requests"][3]["prefix_blocks"][1] = 9.5; }),
        "/requests/3/prefix_blocks/1", "floating-point");
    // Ranges.
    row("negative", mutated([](R d) { d["requests"][1]["arrival_tick"] = -1; }), "/requests/1/arrival_tick",
        "must be an integer from 0 to 2^53-1 (9007199254740991), got -1");
    // A request arriving at or after max_ticks would never arrive (censored with no `arrive` event).
    row("arrives at max_ticks", mutated([](R d) { d["requests"][2]["arrival_tick"] = 20000; }),
        "/requests/2/arrival_tick",
        "is 20000, at or after max_ticks (20000): the request would never arrive before the run ends; raise "
        "max_ticks above the last arrival (--max-ticks) or leave the late requests out");
    row("arrives after max_ticks", mutated([](R d) { d["config"]["max_ticks"] = 9; }), "/requests/2/arrival_tick",
        "is 9, at or after max_ticks (9)");
    row("negative priority", mutated([](R d) { d["requests"][0]["priority"] = -3; }), "/requests/0/priority", "got -3");
    row("2^53", mutated([](R d) { d["requests"][0]["prompt_tokens"] = std::uint64_t{9007199254740992}; }),
        "/requests/0/prompt_tokens", "got 9007199254740992");
    row("beyond uint64", json::parse(R"({"format":"preemptlab.workload.v1","name":"x","config":)"
                                     R"({"max_ticks":18446744073709551616},"requests":[]})"),
        "/config/max_ticks", "floating-point");
    row("negative prefix id", mutated([](R d) { d["requests"][3]["prefix_blocks"][1] = -9; }),
        "/requests/3/prefix_blocks/1", "got -9");
    row("zero block size", mutated([](R d) { d["config"]["block_size_tokens"] = 0; }), "/config/block_size_tokens",
        "must be at least 1, got 0");
    row("zero capacity", mutated([](R d) { d["config"]["capacity_blocks"] = 0; }), "/config/capacity_blocks",
        "must be at least 1");
    row("zero kv bytes", mutated([](R d) { d["config"]["kv_bytes_per_token"] = 0; }), "/config/kv_bytes_per_token",
        "must be at least 1");
    row("zero prefill rate", mutated([](R d) { d["config"]["prefill_tokens_per_tick"] = 0; }),
        "/config/prefill_tokens_per_tick", "must be at least 1");
    row("zero transfer rate", mutated([](R d) { d["config"]["transfer_bytes_per_tick"] = 0; }),
        "/config/transfer_bytes_per_tick", "must be at least 1");
    row("zero max ticks", mutated([](R d) { d["config"]["max_ticks"] = 0; }), "/config/max_ticks", "must be at least 1");
    row("zero prompt", mutated([](R d) { d["requests"][1]["prompt_tokens"] = 0; }), "/requests/1/prompt_tokens",
        "must be at least 1");
    row("zero output", mutated([](R d) { d["requests"][1]["output_tokens"] = 0; }), "/requests/1/output_tokens",
        "must be at least 1");
    row("zero max output", mutated([](R d) { d["requests"][0]["max_output_tokens"] = 0; }),
        "/requests/0/max_output_tokens", "must be at least 1");
    row("max output below output", mutated([](R d) { d["requests"][0]["max_output_tokens"] = 39; }),
        "/requests/0/max_output_tokens", "must be at least output_tokens (40), got 39");
    row("watermark = capacity", mutated([](R d) { d["policy"]["watermark_blocks"] = 16; }), "/policy/watermark_blocks",
        "must be less than capacity_blocks (16), got 16");
    row("hybrid percent 101", mutated([](R d) { d["policy"]["hybrid_swap_percent"] = 101; }),
        "/policy/hybrid_swap_percent", "from 0 to 100, got 101");
    row("pool bytes overflow", mutated([](R d) { d["config"]["kv_bytes_per_token"] = std::int64_t{1} << 50; }),
        "/config/kv_bytes_per_token", "exceeds 2^53-1 bytes");
    // Enums.
    row("bad recovery", mutated([](R d) { d["policy"]["recovery"] = "teleport"; }), "/policy/recovery",
        "unknown value \"teleport\" (expected one of: recompute, swap, adaptive, hybrid)");
    row("bad victim rule", mutated([](R d) { d["policy"]["victim_rule"] = "random"; }), "/policy/victim_rule",
        "expected one of: priority-newest, last-admitted, longest-context");
    row("bad tie", mutated([](R d) { d["policy"]["adaptive_tie"] = "coin"; }), "/policy/adaptive_tie", "unknown value");
    row("guard not string", mutated([](R d) { d["policy"]["resume_guard"] = 3; }), "/policy/resume_guard",
        "expected a string");
    row("enum case matters", mutated([](R d) { d["policy"]["recovery"] = "Swap"; }), "/policy/recovery",
        "unknown value \"Swap\"");
    // Ids and tenants.
    row("id with space", mutated([](R d) { d["requests"][1]["id"] = "r 1"; }), "/requests/1/id",
        "id \"r 1\" may only hold the characters A-Z a-z 0-9 . _ -");
    row("id with slash", mutated([](R d) { d["requests"][1]["id"] = "a/b"; }), "/requests/1/id", "may only hold");
    row("id non-ascii", mutated([](R d) { d["requests"][1]["id"] = "caf\xc3\xa9"; }), "/requests/1/id", "may only hold");
    row("id empty", mutated([](R d) { d["requests"][2]["id"] = ""; }), "/requests/2/id",
        "id must be 1 to 64 characters long, got 0");
    row("id too long", mutated([](R d) { d["requests"][2]["id"] = std::string(65, 'x'); }), "/requests/2/id",
        "1 to 64 characters long, got 65");
    row("duplicate id", mutated([](R d) { d["requests"][2]["id"] = "r2"; }), "/requests/2/id",
        "duplicate id \"r2\" (first used at /requests/0)");
    row("tenant bad chars", mutated([](R d) { d["requests"][0]["tenant"] = "team a"; }), "/requests/0/tenant",
        "tenant \"team a\" may only hold");
    row("tenant empty", mutated([](R d) { d["requests"][0]["tenant"] = ""; }), "/requests/0/tenant", "1 to 64");
    // Capacity and prefix blocks.
    row("impossible capacity", mutated([](R d) { d["requests"][0]["prompt_tokens"] = 100; }), "/requests/0",
        "can never fit: prompt_tokens + max_output_tokens needs 21 blocks but capacity_blocks is 16");
    row("impossible by one block", mutated([](R d) { d["config"]["capacity_blocks"] = 10; }), "/requests/0",
        "needs 11 blocks but capacity_blocks is 10"); // r2: ceil((24 + 64) / 8) = 11
    row("too many prefix blocks", mutated([](R d) { d["requests"][3]["prefix_blocks"] = {1, 2, 3}; }),
        "/requests/3/prefix_blocks", "has 3 entries but the prompt fills only 2 full blocks");
}

void TestWorkloadIo::rejects() {
    QFETCH(QByteArray, document);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    const pl::InputError e = parseError(document.toStdString());
    QCOMPARE(QString::fromStdString(e.file), QString("bad.json"));
    QCOMPARE(QString::fromStdString(e.path), path);
    QVERIFY2(QString::fromStdString(e.reason).contains(reason), e.reason.c_str());
}

void TestWorkloadIo::duplicateJsonKeys_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("path");
    QTest::newRow("top level") << QByteArray(R"({"format":"preemptlab.workload.v1","name":"a","name":"b","requests":[]})")
                               << "/name";
    QTest::newRow("config") << QByteArray(R"({"format":"preemptlab.workload.v1","name":"a",)"
                                          R"("config":{"max_ticks":5,"capacity_blocks":4,"max_ticks":6},"requests":[]})")
                            << "/config/max_ticks";
    QTest::newRow("in a request") << QByteArray(R"({"format":"preemptlab.workload.v1","name":"a","requests":[)"
                                                R"({"id":"x","arrival_tick":0,"prompt_tokens":1,"output_tokens":1},)"
                                                R"({"id":"y","arrival_tick":0,"prompt_tokens":1,"prompt_tokens":2,)"
                                                R"("output_tokens":1}]})")
                                  << "/requests/1/prompt_tokens";
    QTest::newRow("escaped key") << QByteArray(R"({"a/b":1,"a\/b":2})") << "/a~1b";
}

void TestWorkloadIo::duplicateJsonKeys() {
    QFETCH(QByteArray, document);
    QFETCH(QString, path);
    const pl::InputError e = parseError(document.toStdString());
    QCOMPARE(QString::fromStdString(e.path), path);
    QVERIFY2(e.reason.find("duplicate key") != std::string::npos, e.reason.c_str());
}

void TestWorkloadIo::syntaxErrorsGiveLineAndColumn_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("position");
    QTest::newRow("bad literal") << QByteArray("{\n  \"format\": \"preemptlab.workload.v1\",\n  \"name\": x\n}")
                                 << "line 3, column 11";
    QTest::newRow("trailing comma") << QByteArray("{\"a\": 1,\n}") << "line 2, column 1";
    QTest::newRow("truncated") << QByteArray("{\"format\": ") << "line 1, column 12";
    QTest::newRow("whitespace, then a stray character") << QByteArray(" \n\n  x") << "line 3, column 3";
    QTest::newRow("invalid utf-8") << QByteArray("{\"name\": \"a\xff\"}") << "line 1, column 12";
    QTest::newRow("second value") << QByteArray("{}\n\n  {}") << "line 3, column 3";
    // nlohmann's lexer reads a NUL as the end of the input: the document before it would pass, whatever follows.
    QTest::newRow("NUL after the document") << QByteArray("{}\0garbage{{", 12) << "line 1, column 3";
    QTest::newRow("NUL inside") << QByteArray("{\"a\"\0: 1}", 9) << "line 1, column 5";
}

void TestWorkloadIo::syntaxErrorsGiveLineAndColumn() {
    QFETCH(QByteArray, document);
    QFETCH(QString, position);
    const pl::InputError e = parseError(document.toStdString());
    QCOMPARE(QString::fromStdString(e.path), position);
    QVERIFY2(e.reason.rfind("invalid JSON: ", 0) == 0, e.reason.c_str());
    QVERIFY2(e.reason.find("json.exception") == std::string::npos, e.reason.c_str());
}

// An empty file is not a syntax error at "line 1, column 1" (nlohmann's "unexpected end of input"): it says
// so and names the format that was expected. Receipts (verify) go through the same reader.
void TestWorkloadIo::emptyFilesSaySo_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::newRow("0 bytes") << QByteArray();
    QTest::newRow("whitespace") << QByteArray(" \n\t\r\n  ");
    // What some editors save for an empty file.
    QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF\n");
}

void TestWorkloadIo::emptyFilesSaySo() {
    QFETCH(QByteArray, document);
    const std::string text = document.toStdString();
    QCOMPARE(
        parseError(text).message(),
        std::string("bad.json: the file is empty (a preemptlab.workload.v1 JSON document was expected)"));
    auto fromStdin = parseBothWays(text, "-");
    QVERIFY(std::holds_alternative<pl::InputError>(fromStdin));
    QCOMPARE(std::get<pl::InputError>(fromStdin).message(),
             std::string("-: standard input is empty (a preemptlab.workload.v1 JSON document was expected)"));
    QTemporaryDir dir;
    const std::string path = dir.filePath("empty.workload.json").toStdString();
    std::ofstream(path, std::ios::binary) << text;
    auto loaded = pl::loadWorkloadFile(path);
    QVERIFY(std::holds_alternative<pl::InputError>(loaded));
    QCOMPARE(std::get<pl::InputError>(loaded).message(),
             path + ": the file is empty (a preemptlab.workload.v1 JSON document was expected)");
    auto receipt = pl::verifyReceiptText(text, "r.json");
    QVERIFY(std::holds_alternative<pl::InputError>(receipt));
    QCOMPARE(std::get<pl::InputError>(receipt).message(),
             std::string("r.json: the file is empty (a preemptlab.receipt.v2 JSON document was expected)"));
}

void TestWorkloadIo::deepNestingIsRefused() {
    // 100,000 open brackets: refused at the depth limit, without exhausting the stack.
    const pl::InputError e = parseError(std::string(100000, '['));
    QVERIFY2(e.reason.find("nesting deeper than 256 levels") != std::string::npos, e.reason.c_str());
    QVERIFY(e.path.rfind("/0/0/0/", 0) == 0);
    json doc = baseDocument();
    json deep = 1;
    for (int i = 0; i < 300; ++i) {
        deep = json::array({deep});
    }
    doc["notes"] = deep;
    QVERIFY(parseError(doc.dump()).reason.find("nesting deeper") != std::string::npos);
}

void TestWorkloadIo::caps_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    QTest::newRow("requests") << "requests" << "/requests" << "4 requests exceed the cap of 3";
    QTest::newRow("ticks") << "ticks" << "/config/max_ticks" << "20000 ticks exceed the cap of 19999";
    QTest::newRow("capacity") << "capacity" << "/config/capacity_blocks" << "16 blocks exceed the cap of 15";
    QTest::newRow("file size") << "bytes" << "" << "over the cap of 100 bytes";
}

void TestWorkloadIo::caps() {
    QFETCH(QString, which);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    pl::Caps caps;
    if (which == "requests") caps.max_requests = 3;
    if (which == "ticks") caps.max_ticks = 19999;
    if (which == "capacity") caps.max_capacity_blocks = 15;
    if (which == "bytes") caps.max_file_bytes = 100;
    const pl::InputError e = parseError(baseDocument().dump(), caps);
    QCOMPARE(QString::fromStdString(e.path), path);
    QVERIFY2(QString::fromStdString(e.reason).contains(reason), e.reason.c_str());
    // A huge request array is refused by count before any request is read.
    if (which == "requests") {
        json doc = baseDocument();
        doc["requests"] = json::array();
        for (int i = 0; i < 10; ++i) {
            doc["requests"].push_back("not even an object");
        }
        QCOMPARE(parseError(doc.dump(), caps).path, std::string("/requests"));
    }
}

void TestWorkloadIo::baseDocumentParses() {
    const pl::Workload w = parseOk(baseDocument().dump());
    QCOMPARE(w.name, std::string("base"));
    QCOMPARE(w.notes, std::string("test input"));
    QCOMPARE(w.config.host_capacity_bytes, std::int64_t{0});
    QVERIFY(w.policy.recovery == pl::Recovery::Hybrid);
    QVERIFY(w.policy.victim_rule == pl::VictimRule::TenantFair);
    QVERIFY(w.policy.adaptive_tie == pl::AdaptiveTie::Swap);
    QVERIFY(w.policy.resume_guard == pl::ResumeGuard::NextBlock);
    QCOMPARE(w.policy.watermark_blocks, std::int64_t{2});
    QCOMPARE(w.policy.preempt_ahead, true);
    QCOMPARE(w.policy.hybrid_swap_percent, std::int64_t{25});
    QCOMPARE(w.requests.size(), std::size_t{4});
}

void TestWorkloadIo::defaultsAreFilled() {
    const pl::Workload w = parseOk(R"({"format":"preemptlab.workload.v1","name":"min","requests":[
        {"id":"a","arrival_tick":3,"prompt_tokens":5,"output_tokens":7}]})");
    QVERIFY(w.config == pl::Config{});
    QVERIFY(w.policy == pl::Policy{});
    QCOMPARE(w.notes, std::string());
    const pl::RequestSpec& r = w.requests.at(0);
    QCOMPARE(r.max_output_tokens, std::int64_t{7});
    QCOMPARE(r.priority, std::int64_t{0});
    QCOMPARE(r.tenant, std::string("default"));
    QVERIFY(r.prefix_blocks.empty());
    // Partial config and policy keep the defaults of the keys left out.
    const pl::Workload p = parseOk(R"({"format":"preemptlab.workload.v1","name":"p","config":{"capacity_blocks":99},
        "policy":{"recovery":"swap"},"requests":[]})");
    QCOMPARE(p.config.capacity_blocks, std::int64_t{99});
    QCOMPARE(p.config.block_size_tokens, pl::Config{}.block_size_tokens);
    QVERIFY(p.policy.recovery == pl::Recovery::Swap);
    QVERIFY(p.policy.victim_rule == pl::Policy{}.victim_rule);
}

void TestWorkloadIo::acceptsBoundaryValues() {
    json doc = baseDocument();
    doc["requests"][0]["id"] = std::string(64, 'z');
    doc["requests"][0]["tenant"] = "A-z_0.9";
    doc["requests"][1]["arrival_tick"] = 19999; // the last tick before max_ticks (20000)
    doc["requests"][1]["priority"] = std::int64_t{9007199254740991};
    doc["requests"][3]["prefix_blocks"] = {0, std::int64_t{9007199254740991}};
    doc["policy"]["watermark_blocks"] = 15;
    doc["policy"]["hybrid_swap_percent"] = 100;
    doc["requests"][0]["prompt_tokens"] = 64; // 64 + 64 = 128 tokens = exactly 16 blocks
    const pl::Workload w = parseOk(doc.dump());
    QCOMPARE(w.requests.back().arrival_tick, std::int64_t{19999});
    // Exactly full: r2 needs ceil((24 + 64) / 8) = 11 blocks and capacity is 11.
    json tight = baseDocument();
    tight["config"]["capacity_blocks"] = 11;
    QCOMPARE(parseOk(tight.dump()).config.capacity_blocks, std::int64_t{11});
}

void TestWorkloadIo::requestsAreNormalised() {
    const pl::Workload w = parseOk(baseDocument().dump());
    QStringList ids;
    for (const auto& r : w.requests) {
        ids << QString::fromStdString(r.id);
    }
    QCOMPARE(ids, (QStringList{"r3", "r1", "r2", "r0"}));
    // Ids compare as bytes: "B" < "a" < "aa".
    const pl::Workload bytes = parseOk(R"({"format":"preemptlab.workload.v1","name":"b","requests":[
        {"id":"aa","arrival_tick":1,"prompt_tokens":1,"output_tokens":1},
        {"id":"a","arrival_tick":1,"prompt_tokens":1,"output_tokens":1},
        {"id":"B","arrival_tick":1,"prompt_tokens":1,"output_tokens":1}]})");
    QCOMPARE(bytes.requests[0].id, std::string("B"));
    QCOMPARE(bytes.requests[1].id, std::string("a"));
    QCOMPARE(bytes.requests[2].id, std::string("aa"));
}

void TestWorkloadIo::normalisedFormsRoundTrip() {
    const pl::Workload w = parseOk(baseDocument().dump());
    const json normal = pl::workloadJson(w);
    QCOMPARE(normal.size(), std::size_t{4});
    for (const char* key : {"format", "name", "config", "requests"}) {
        QVERIFY2(normal.contains(key), key);
    }
    // Every key, but the optional ones (engine profiles', tick_us) only when set (so older workloads keep their bytes).
    QCOMPARE(normal["config"].size(), pl::configKeys().size() - 4);
    QVERIFY(!normal["config"].contains("max_num_seqs") && !normal["config"].contains("max_num_batched_tokens") &&
            !normal["config"].contains("enable_prefix_caching"));
    QVERIFY(!normal["config"].contains("tick_us"));
    QCOMPARE(pl::configJson(w.config, true).size(), pl::configKeys().size()); // a settings editor lists them all
    pl::Workload caching = w;
    caching.config.enable_prefix_caching = true;
    QCOMPARE(pl::workloadJson(caching)["config"]["enable_prefix_caching"], json(true));
    QVERIFY(parseOk(pl::workloadJson(caching).dump()).config.enable_prefix_caching);
    pl::Workload engine = w;
    engine.config.max_num_seqs = 4;
    QCOMPARE(pl::workloadJson(engine)["config"]["max_num_seqs"], json(4));
    QCOMPARE(normal["requests"][0]["id"], json("r3"));
    QCOMPARE(normal["requests"][0]["prefix_blocks"], json({7, 9}));
    QVERIFY(!normal["requests"][1].contains("prefix_blocks")); // only when non-empty
    QCOMPARE(normal["requests"][1]["max_output_tokens"], json(8));
    QCOMPARE(normal["requests"][1]["tenant"], json("default"));
    QCOMPARE(normal["requests"][1].size(), std::size_t{7});

    const json policy = pl::policyJson(w.policy);
    QCOMPARE(policy.size(), pl::policyKeys().size() - 1); // engine_profile only when not tick-model-1
    QCOMPARE(policy["victim_rule"], json("tenant-fair"));
    QCOMPARE(policy["preempt_ahead"], json(true));

    const json full = pl::fullWorkloadJson(w);
    QCOMPARE(full["notes"], json("test input"));
    QCOMPARE(full["policy"], policy);
    const pl::Workload again = parseOk(full.dump());
    QCOMPARE(again.name, w.name);
    QCOMPARE(again.notes, w.notes);
    QVERIFY(again.config == w.config);
    QVERIFY(again.policy == w.policy);
    QVERIFY(again.requests == w.requests);
    QCOMPARE(pl::canonicalJson(pl::fullWorkloadJson(again)), pl::canonicalJson(full));
}

void TestWorkloadIo::inputHashIgnoresOrderAndPolicy() {
    json reordered = baseDocument();
    std::reverse(reordered["requests"].begin(), reordered["requests"].end());
    reordered["policy"] = {{"recovery", "swap"}};
    reordered["notes"] = "other notes";
    const auto hashOf = [](const json& doc) {
        return pl::sha256Tagged(pl::canonicalJson(pl::workloadJson(parseOk(doc.dump()))));
    };
    QCOMPARE(hashOf(reordered), hashOf(baseDocument()));
    json changed = baseDocument();
    changed["requests"][1]["output_tokens"] = 9;
    QVERIFY(hashOf(changed) != hashOf(baseDocument()));
}

void TestWorkloadIo::loadsFiles() {
    QTemporaryDir dir;
    const std::string good = dir.filePath("good.json").toStdString();
    std::ofstream(good) << baseDocument().dump(2);
    auto result = pl::loadWorkloadFile(good);
    QVERIFY(std::holds_alternative<pl::Workload>(result));
    QCOMPARE(std::get<pl::Workload>(result).requests.size(), std::size_t{4});

    const std::string missing = dir.filePath("missing.json").toStdString();
    result = pl::loadWorkloadFile(missing);
    QVERIFY(std::holds_alternative<pl::InputError>(result));
    QCOMPARE(std::get<pl::InputError>(result).message(), missing + ": cannot open: No such file or directory");

    result = pl::loadWorkloadFile(dir.path().toStdString());
    QVERIFY(std::holds_alternative<pl::InputError>(result));
    QVERIFY(std::get<pl::InputError>(result).reason.find("folder") != std::string::npos);

    pl::Caps caps;
    caps.max_file_bytes = 64;
    result = pl::loadWorkloadFile(good, caps);
    QVERIFY(std::holds_alternative<pl::InputError>(result));
    QVERIFY(std::get<pl::InputError>(result).reason.find("over the cap of 64 bytes") != std::string::npos);

    const std::string broken = dir.filePath("broken.json").toStdString();
    std::ofstream(broken) << "{\n  \"format\": \"preemptlab.workload.v1\",\n  \"name\": \"x\",,\n}";
    result = pl::loadWorkloadFile(broken);
    QVERIFY(std::holds_alternative<pl::InputError>(result));
    QCOMPARE(std::get<pl::InputError>(result).file, broken);
    QCOMPARE(std::get<pl::InputError>(result).path, std::string("line 3, column 15")); // the second comma
}

// A message quotes the input (an id, a key, the token the parser stopped at): control characters come out as
// \xNN and a huge token is cut, so a hostile file can neither drive the terminal nor flood it.
void TestWorkloadIo::messagesArePrintable() {
    auto doc = baseDocument();
    doc["requests"][0]["id"] = "r\n\x1b[31mred";
    std::string m = parseError(doc.dump()).message();
    QVERIFY2(m.find("r\\x0a\\x1b[31mred") != std::string::npos, m.c_str());
    QVERIFY(m.find('\n') == std::string::npos && m.find('\x1b') == std::string::npos);
    const std::string huge = "{\"name\": \"" + std::string(5'000'000, 'a'); // unterminated: the token is 5 MB
    m = parseError(huge).message();
    QVERIFY2(m.size() < 1000, std::to_string(m.size()).c_str());
    QVERIFY2(m.find("bytes)") != std::string::npos, m.c_str());
    QCOMPARE(pl::printable("plain"), std::string("plain"));
}

// Issue 21: a comment read "invalid literal; last read: <400 bytes of the string before it>"; 2^64 was called "a
// floating-point number". Both are now named for what they are, where they are.
void TestWorkloadIo::commentsAndHugeIntegersAreNamed_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    const QByteArray head = "{\"format\": \"preemptlab.workload.v1\",\n  \"name\": \"" + QByteArray(500, 'n') + "\", ";
    QTest::newRow("line comment") << head + "// a note\n  \"requests\": []}" << "line 2, column 515"
                                  << "invalid JSON: comments are not JSON (remove the // comment)";
    QTest::newRow("block comment") << head + "\n/* a note */ \"requests\": []}" << "line 3, column 1"
                                   << "invalid JSON: comments are not JSON (remove the /* comment)";
    QTest::newRow("2^64") << QByteArray("{\"format\": \"preemptlab.workload.v1\", \"name\": \"x\", \"requests\": "
                                        "[{\"id\": \"a\", \"arrival_tick\": 18446744073709551616, \"prompt_tokens\": 1, "
                                        "\"output_tokens\": 1}]}")
                          << "/requests/0/arrival_tick"
                          << "18446744073709551616 is out of range of a 64-bit integer (integers here are at most 2^53-1)";
    QTest::newRow("-2^63-1") << QByteArray("{\"format\": \"preemptlab.workload.v1\", \"name\": \"x\", \"requests\": "
                                           "[{\"id\": \"a\", \"arrival_tick\": -9223372036854775809, \"prompt_tokens\": 1, "
                                           "\"output_tokens\": 1}]}")
                             << "/requests/0/arrival_tick"
                             << "-9223372036854775809 is out of range of a 64-bit integer";
}

void TestWorkloadIo::commentsAndHugeIntegersAreNamed() {
    QFETCH(QByteArray, document);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    const pl::InputError e = parseError(document.toStdString());
    QCOMPARE(QString::fromStdString(e.path), path);
    QVERIFY2(QString::fromStdString(e.reason).startsWith(reason), e.reason.c_str());
    QVERIFY2(e.reason.find("floating-point") == std::string::npos && e.reason.find("nnnnnnnnnn") == std::string::npos,
             e.reason.c_str());
}

QTEST_APPLESS_MAIN(TestWorkloadIo)
#include "test_workload_io.moc"
