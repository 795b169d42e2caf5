// parseWorkload reads each request as soon as the parser has it and frees its JSON (JsonElementSink); the
// checks that need the config come afterwards. Which mistake is reported must not depend on that: the same
// error at the same path whether the file holds its config before or after its requests, and the same as
// reading the requests from a whole DOM (parseWorkloadWhole, workloadFromJson). Also the sink itself: indices,
// paths and caps.
#include "core/json_reader.h"
#include "core/workload_io.h"
#include "tests/core/workload_io_fixtures.h"

#include <QtTest>

#include <functional>

using nlohmann::json;

namespace {

json baseDocument() {
    return json::parse(R"({
      "format": "preemptlab.workload.v1",
      "name": "order",
      "config": { "block_size_tokens": 8, "capacity_blocks": 16, "kv_bytes_per_token": 512 },
      "requests": [
        { "id": "r0", "arrival_tick": 0, "prompt_tokens": 24, "output_tokens": 8 },
        { "id": "r1", "arrival_tick": 1, "prompt_tokens": 16, "output_tokens": 8 },
        { "id": "r2", "arrival_tick": 2, "prompt_tokens": 17, "output_tokens": 2, "prefix_blocks": [7, 9] }
      ]
    })");
}

// The same document with "requests" written first (nlohmann writes keys in sorted order: config first).
std::string requestsFirst(json doc) {
    const json requests = doc["requests"];
    doc.erase("requests");
    return "{\"requests\": " + requests.dump() + ", " + doc.dump().substr(1);
}

std::string describe(const pl::Result<pl::Workload>& r) {
    if (const auto* e = std::get_if<pl::InputError>(&r)) return e->message();
    return "a workload of " + std::to_string(std::get<pl::Workload>(r).requests.size()) + " requests";
}

} // namespace

class TestWorkloadOrder : public QObject {
    Q_OBJECT
  private slots:
    void theFirstMistakeWherever_data() {
        QTest::addColumn<QByteArray>("document");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("reason");
        using R = json&;
        auto row = [](const char* name, const std::function<void(R)>& change, const char* path, const char* reason) {
            json doc = baseDocument();
            change(doc);
            QTest::newRow(name) << QByteArray::fromStdString(doc.dump()) << QString(path) << QString(reason);
        };
        row("a rule needing the config, before a later field's mistake",
            [](R d) {
                d["requests"][0]["prompt_tokens"] = 1000;
                d["requests"][1]["output_tokens"] = "x";
            },
            "/requests/0", "can never fit");
        row("a field's mistake, before a later rule needing the config",
            [](R d) {
                d["requests"][0]["output_tokens"] = "x";
                d["requests"][1]["prompt_tokens"] = 1000;
            },
            "/requests/0/output_tokens", "expected an integer, got a string");
        row("a field's mistake, before its own rules", [](R d) {
                d["requests"][1]["prompt_tokens"] = 1000;
                d["requests"][1]["tenant"] = 5;
            },
            "/requests/1/tenant", "expected a string");
        row("prefix_blocks not an array, after its request's rules",
            [](R d) {
                d["requests"][2]["prefix_blocks"] = "x";
                d["requests"][2]["prompt_tokens"] = 1000;
            },
            "/requests/2", "can never fit");
        row("prefix_blocks not an array", [](R d) { d["requests"][2]["prefix_blocks"] = "x"; },
            "/requests/2/prefix_blocks", "expected an array of integers, got a string");
        row("too many prefix ids, before a bad one", [](R d) { d["requests"][2]["prefix_blocks"] = {1, 2, -1}; },
            "/requests/2/prefix_blocks", "has 3 entries but the prompt fills only 2 full blocks");
        row("a bad prefix id", [](R d) { d["requests"][2]["prefix_blocks"] = {1, -1}; }, "/requests/2/prefix_blocks/1",
            "must be an integer from 0 to 2^53-1");
        row("an earlier request's prefix count, before a later field",
            [](R d) {
                d["requests"][0]["prefix_blocks"] = {1, 2, 3, 4};
                d["requests"][1]["id"] = 7;
            },
            "/requests/0/prefix_blocks", "has 4 entries but the prompt fills only 3 full blocks");
        row("not an object, after an earlier rule", [](R d) {
                d["requests"][0]["prompt_tokens"] = 1000;
                d["requests"][1] = 5;
            },
            "/requests/0", "can never fit");
        row("duplicate ids, after every request's rules",
            [](R d) {
                d["requests"][1]["id"] = "r0";
                d["requests"][2]["prompt_tokens"] = 1000;
            },
            "/requests/2", "can never fit");
        row("the config's own mistake, before the requests'",
            [](R d) {
                d["config"]["block_size_tokens"] = 0;
                d["requests"][0]["output_tokens"] = "x";
            },
            "/config/block_size_tokens", "");
    }

    void theFirstMistakeWherever() {
        QFETCH(QByteArray, document);
        QFETCH(QString, path);
        QFETCH(QString, reason);
        const std::string configFirst = document.toStdString();
        const json doc = json::parse(configFirst);
        const auto a = pltest::workloadio::parseBothWays(configFirst, "bad.json");
        const auto b = pltest::workloadio::parseBothWays(requestsFirst(doc), "bad.json");
        const auto fromDom = pl::workloadFromJson(doc, "bad.json");
        QCOMPARE(describe(b), describe(a));
        QCOMPARE(describe(fromDom), describe(a));
        QCOMPARE(describe(pl::parseWorkloadWhole(configFirst, "bad.json")), describe(a));
        QCOMPARE(describe(pl::parseWorkloadWhole(requestsFirst(doc), "bad.json")), describe(a));
        const auto* e = std::get_if<pl::InputError>(&a);
        QVERIFY2(e != nullptr, describe(a).c_str());
        QCOMPARE(QString::fromStdString(e->path), path);
        QVERIFY2(QString::fromStdString(e->reason).contains(reason), e->reason.c_str());
    }

    void aValidDocumentReadsTheSameEitherWay() {
        const json doc = baseDocument();
        const auto a = pltest::workloadio::parseBothWays(doc.dump(), "ok.json");
        const auto b = pltest::workloadio::parseBothWays(requestsFirst(doc), "ok.json");
        const auto fromDom = pl::workloadFromJson(doc, "ok.json");
        QVERIFY2(std::holds_alternative<pl::Workload>(a), describe(a).c_str());
        QVERIFY(std::get<pl::Workload>(b).requests == std::get<pl::Workload>(a).requests);
        QVERIFY(std::get<pl::Workload>(fromDom).requests == std::get<pl::Workload>(a).requests);
        QCOMPARE(pl::fullWorkloadJson(std::get<pl::Workload>(b)).dump(), pl::fullWorkloadJson(std::get<pl::Workload>(a)).dump());
    }

    // A syntax error anywhere still comes first, even after a request whose mistake was already read.
    void aSyntaxErrorStillComesFirst() {
        json doc = baseDocument();
        doc["requests"][0]["output_tokens"] = "x";
        std::string text = requestsFirst(doc);
        text.back() = ','; // "...}" -> "...,": the document ends inside its object
        const auto e = pltest::workloadio::parseBothWays(text, "bad.json");
        QVERIFY(std::holds_alternative<pl::InputError>(e));
        QVERIFY2(std::get<pl::InputError>(e).path.rfind("line 1, column ", 0) == 0, describe(e).c_str());
    }

    // The sink gets each element of its array once complete, with its index; the DOM keeps the array empty.
    // Paths inside an element, and caps on the array, count the elements as if they were kept.
    void theSinkSeesEachElementOnce() {
        std::vector<std::pair<std::size_t, std::string>> seen;
        const std::vector<pl::JsonElementSink> sink{
            {"/a", [&seen](json&& e, std::size_t i) { seen.emplace_back(i, e.dump()); }}};
        const auto doc = pl::parseJsonStrict(R"({"a": [1, {"b": [2, [3]]}, [4], "x"], "c": [5]})", "s.json", "test",
                                             {}, nullptr, sink);
        QVERIFY(std::holds_alternative<json>(doc));
        QCOMPARE(std::get<json>(doc).dump(), std::string(R"({"a":[],"c":[5]})"));
        const std::vector<std::pair<std::size_t, std::string>> want{
            {0, "1"}, {1, R"({"b":[2,[3]]})"}, {2, "[4]"}, {3, "\"x\""}};
        QVERIFY(seen == want);

        const auto duplicate = pl::parseJsonStrict(R"({"a": [1, {"b": [2, {"c": 1, "c": 2}]}]})", "s.json", "test", {},
                                                   nullptr, sink);
        QVERIFY(std::holds_alternative<pl::InputError>(duplicate));
        QCOMPARE(std::get<pl::InputError>(duplicate).path, std::string("/a/1/b/1/c"));

        const auto capped = pl::parseJsonStrict(R"({"a": [1, 2, 3]})", "s.json", "test",
                                                {pl::JsonArrayCap{"/a", 2, "things"}}, nullptr, sink);
        QVERIFY(std::holds_alternative<pl::InputError>(capped));
        QCOMPARE(std::get<pl::InputError>(capped).path, std::string("/a"));
        QVERIFY2(std::get<pl::InputError>(capped).reason.find("reading stopped at element 2") != std::string::npos,
                 std::get<pl::InputError>(capped).reason.c_str());

        // A cap on arrays inside the elements ("*"): the elements' own indices match it.
        const auto inner = pl::parseJsonStrict(R"({"a": [{"p": [1]}, {"p": [2, 3]}]})", "s.json", "test",
                                               {pl::JsonArrayCap{"/a/*/p", 2, "ids", true}}, nullptr, sink);
        QVERIFY(std::holds_alternative<pl::InputError>(inner));
        QCOMPARE(std::get<pl::InputError>(inner).path, std::string("/a/1/p"));
    }
};

QTEST_APPLESS_MAIN(TestWorkloadOrder)
#include "test_workload_order.moc"
