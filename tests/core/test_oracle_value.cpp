// The oracle's line reader (core/oracle_value.h): a plain line reads as its nlohmann_json document would
// (same keys, values and kinds, same dump()), anything else is left to nlohmann_json; and the oracle fed a
// receipt's lines reports what checkReceipt reports on the document, for real receipts and for hundreds of
// random edits of them (values of every kind put in every field, fields removed, events repeated).
#include "core/engine.h"
#include "core/oracle.h"
#include "tests/core/oracle_fixtures.h"
#include "core/oracle_value.h"
#include "core/receipt.h"
#include "tests/test_rng.h"
#include "core/workload_io.h"

#include <QtTest>

#include <string>
#include <vector>

using nlohmann::json;
using pl::oracle_detail::Value;
using pl::oracle_detail::ValueReader;

namespace {

// The value reads as the document: kinds, numbers, strings, keys in order, elements, dump().
bool sameAs(const Value& v, const json& j, QString& why, const QString& at = "/") {
    const auto fail = [&](const QString& what) {
        why = at + ": " + what;
        return false;
    };
    if (v.is_null() != j.is_null() || v.is_object() != j.is_object() || v.is_array() != j.is_array() ||
        v.is_string() != j.is_string() || v.is_number_unsigned() != j.is_number_unsigned() ||
        v.is_number_integer() != j.is_number_integer()) {
        return fail("kind differs");
    }
    if (v.dump() != j.dump()) {
        return fail(QString::fromStdString("dump " + v.dump() + " against " + j.dump()));
    }
    if (j.is_number_unsigned() && v.get<std::uint64_t>() != j.get<std::uint64_t>()) {
        return fail("unsigned value differs");
    }
    if (j.is_number_integer() && !j.is_number_unsigned() && v.get<std::int64_t>() != j.get<std::int64_t>()) {
        return fail("integer value differs");
    }
    if (j.is_string() && v.get<std::string>() != j.get<std::string>()) {
        return fail("string differs");
    }
    if (j.is_object() || j.is_array()) {
        if (v.size() != j.size()) {
            return fail("size differs");
        }
        const Value* it = v.begin();
        for (auto member = j.begin(); member != j.end(); ++member, ++it) {
            const QString next = at + (j.is_object() ? QString::fromStdString(member.key()) : QString("[]")) + "/";
            if (j.is_object() && (it->key() != member.key() || &v[member.key()] != it || !v.contains(member.key()))) {
                return fail("member " + QString::fromStdString(member.key()) + " not found in order");
            }
            if (!sameAs(*it, member.value(), why, next)) {
                return false;
            }
        }
        if (j.is_object() && (v.contains("no such key") || !v["no such key"].is_null())) {
            return fail("finds a key it does not have");
        }
    }
    return true;
}

pl::Workload sample(const char* name) {
    auto result = pl::loadWorkloadFile(std::string(PREEMPTLAB_SOURCE_DIR "/samples/") + name);
    if (auto* e = std::get_if<pl::InputError>(&result)) {
        qFatal("%s", e->message().c_str());
    }
    return std::get<pl::Workload>(std::move(result));
}

// Receipts with every kind of event and candidate list: the teaching samples under hybrid (evict, both
// copies, replays), tenant-fair (tenant_blocks on shortened lists) and an engine profile.
std::vector<json> receipts() {
    std::vector<json> out;
    for (const char* name : {"seed-example.workload.json", "multi-tenant.workload.json", "swap-wins.workload.json",
                             "starvation.workload.json"}) {
        pl::Workload w = sample(name);
        for (int variant = 0; variant < 3; ++variant) {
            pl::Workload v = w;
            v.policy.recovery = variant == 0 ? pl::Recovery::Hybrid : variant == 1 ? pl::Recovery::Swap : pl::Recovery::Recompute;
            if (variant == 1) v.policy.victim_rule = pl::VictimRule::TenantFair;
            if (variant == 2) v.policy.engine_profile = pl::EngineProfile::VllmV1;
            out.push_back(json::parse(pl::receiptText(v, pl::runWorkload(v))));
        }
    }
    return out;
}

// Every scalar and container inside the events and records, as JSON pointers.
void pathsOf(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) pathsOf(value, at / key, out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) pathsOf(j[i], at / i, out);
    }
}

} // namespace

class TestOracleValue : public QObject {
    Q_OBJECT
  private slots:
    void plainLinesReadAsTheirDocuments_data();
    void plainLinesReadAsTheirDocuments();
    void otherLinesAreLeftToNlohmann_data();
    void otherLinesAreLeftToNlohmann();
    void documentsAreViewedAsThemselves();
    void receiptsReadFromLinesPassAsTheirDocuments();
    void randomEditsReportAsTheirDocuments();
};

void TestOracleValue::plainLinesReadAsTheirDocuments_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("event") << QByteArray(R"({"capacity_blocks":16,"kind":"admit","occupied_blocks":3,"request":"r1","seq":4,"tick":0})");
    QTest::newRow("kinds") << QByteArray(R"({"a":1,"b":-2,"c":"x y","d":[1,{"e":null}],"f":true,"g":false,"h":{},"i":[]})");
    QTest::newRow("spaces") << QByteArray(" { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } }\r\n");
    QTest::newRow("largest unsigned") << QByteArray(R"({"a":18446744073709551615})");
    QTest::newRow("beyond 2^53") << QByteArray(R"({"a":9007199254740993})");
    QTest::newRow("smallest integer") << QByteArray(R"({"a":-9223372036854775808})");
    QTest::newRow("minus zero") << QByteArray(R"({"a":-0,"b":0})");
    QTest::newRow("scalar") << QByteArray("42");
    QTest::newRow("string") << QByteArray(R"("text")");
    QTest::newRow("array of objects") << QByteArray(R"([{"id":"r1"},{"id":"r2"},"x",null])");
    QTest::newRow("prefix keys") << QByteArray(R"({"a":1,"ab":2,"b":3})");
}

void TestOracleValue::plainLinesReadAsTheirDocuments() {
    QFETCH(QByteArray, line);
    ValueReader reader;
    const std::string text = line.toStdString();
    const Value* v = reader.readLine(text);
    QVERIFY(v != nullptr);
    QString why;
    QVERIFY2(sameAs(*v, json::parse(text), why), qPrintable(why));
}

void TestOracleValue::otherLinesAreLeftToNlohmann_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("unsorted keys") << QByteArray(R"({"b":1,"a":2})");
    QTest::newRow("duplicate key") << QByteArray(R"({"a":1,"a":2})");
    QTest::newRow("nested duplicate") << QByteArray(R"({"a":{"x":1,"x":1}})");
    QTest::newRow("escape") << QByteArray(R"({"a":"\u00e9"})");
    QTest::newRow("escaped quote") << QByteArray(R"({"a":"say \"hi\""})");
    QTest::newRow("escaped key") << QByteArray(R"({"\u0061":1})");
    QTest::newRow("non-ASCII") << QByteArray("{\"a\":\"\xc3\xa9\"}");
    QTest::newRow("invalid UTF-8") << QByteArray("{\"a\":\"\xff\"}");
    QTest::newRow("control byte") << QByteArray("{\"a\":\"tab\there\"}");
    QTest::newRow("fraction") << QByteArray(R"({"a":1.5})");
    QTest::newRow("whole fraction") << QByteArray(R"({"a":26.0})");
    QTest::newRow("exponent") << QByteArray(R"({"a":1e3})");
    QTest::newRow("beyond uint64") << QByteArray(R"({"a":18446744073709551616})");
    QTest::newRow("below int64") << QByteArray(R"({"a":-9223372036854775809})");
    QTest::newRow("leading zero") << QByteArray(R"({"a":01})");
    QTest::newRow("lone minus") << QByteArray(R"({"a":-})");
    QTest::newRow("plus") << QByteArray(R"({"a":+1})");
    QTest::newRow("trailing text") << QByteArray(R"({"a":1}x)");
    QTest::newRow("two values") << QByteArray(R"({"a":1} {"b":2})");
    QTest::newRow("unterminated") << QByteArray(R"({"a":1)");
    QTest::newRow("unterminated string") << QByteArray(R"({"a":"x)");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("only spaces") << QByteArray("  ");
    QTest::newRow("trailing comma") << QByteArray(R"([1,])");
    QTest::newRow("object trailing comma") << QByteArray(R"({"a":1,})");
    QTest::newRow("lone comma") << QByteArray(R"({,})");
    QTest::newRow("no colon") << QByteArray(R"({"a" 1})");
    QTest::newRow("bare key") << QByteArray(R"({a:1})");
    QTest::newRow("short literal") << QByteArray(R"({"a":tru})");
    QTest::newRow("literal prefix") << QByteArray(R"({"a":nullx})");
    QTest::newRow("capital literal") << QByteArray(R"({"a":True})");
    QTest::newRow("deep") << QByteArray(std::string(40, '[').append(40, ']').c_str());
}

// nullptr, and the caller parses the line with nlohmann_json (which reads it, or throws as it always did).
void TestOracleValue::otherLinesAreLeftToNlohmann() {
    QFETCH(QByteArray, line);
    ValueReader reader;
    const std::string text = line.toStdString();
    QVERIFY(reader.readLine(text) == nullptr);
    // The reader is usable again after refusing a line.
    const std::string plain = R"({"a":[1,2],"b":"c"})";
    const Value* v = reader.readLine(plain);
    QVERIFY(v != nullptr);
    QString why;
    QVERIFY2(sameAs(*v, json::parse(plain), why), qPrintable(why));
}

void TestOracleValue::documentsAreViewedAsThemselves() {
    const json doc = json::parse(R"({"a":1,"b":-2,"c":"\u00e9\"","d":[1.5,{"e":null,"f":true}],"g":9007199254740993,
                                     "h":1e300,"i":{},"j":[],"k":-9223372036854775808})");
    ValueReader reader;
    QString why;
    QVERIFY2(sameAs(reader.view(doc), doc, why), qPrintable(why));
    QVERIFY2(sameAs(reader.view(doc["d"]), doc["d"], why), qPrintable(why));
    QVERIFY2(sameAs(reader.view(json(7)), json(7), why), qPrintable(why));
}

// Real receipts, their lines as receiptText feeds them: they pass, as their documents do.
void TestOracleValue::receiptsReadFromLinesPassAsTheirDocuments() {
    for (const json& r : receipts()) {
        const pl::OracleReport report = pl::checkReceipt(r);
        QVERIFY2(report.passed, qPrintable(pltest::joined(report)));
        QCOMPARE(pltest::joined(*pltest::fedAsLines(r, true)), pltest::joined(report));
        QCOMPARE(pltest::joined(*pltest::fedAsLines(r, false)), pltest::joined(report));
    }
}

// Random edits of real receipts: a field set to another value of any kind (a neighbour, zero, a negative, a
// string, null, a fraction, beyond 2^53, a container) or removed, or an event repeated. Whatever the oracle
// says of the document, it says of the lines.
void TestOracleValue::randomEditsReportAsTheirDocuments() {
    const std::vector<json> bases = receipts();
    std::vector<std::vector<json::json_pointer>> eventPaths(bases.size()), recordPaths(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i) {
        pathsOf(bases[i]["events"], json::json_pointer("/events"), eventPaths[i]);
        pathsOf(bases[i]["requests"], json::json_pointer("/requests"), recordPaths[i]);
    }
    pltest::SplitMix rng{23};
    const json replacements[] = {0, -1, "x", nullptr, 1.5, 26.0, std::uint64_t{9007199254740993u}, true,
                                 json::object(), json::array(), "r1", "recompute", "swap", "default"};
    int failing = 0;
    constexpr int kEdits = 400;
    for (int trial = 0; trial < kEdits; ++trial) {
        const std::size_t base = rng.next() % bases.size();
        json r = bases[base];
        const bool records = rng.next() % 4 == 0;
        const auto& paths = records ? recordPaths[base] : eventPaths[base];
        const auto& at = paths[1 + rng.next() % (paths.size() - 1)];
        const std::uint64_t how = rng.next() % 8;
        if (how == 0 && !at.parent_pointer().empty() && r.at(at.parent_pointer()).is_object()) {
            r.at(at.parent_pointer()).erase(at.back());
        } else if (how == 1 && r.at(at).is_number_integer()) {
            r.at(at) = r.at(at).get<std::int64_t>() + (rng.next() % 2 == 0 ? 1 : -1);
        } else if (how == 2 && !records) {
            json& events = r["events"];
            events.insert(events.begin() + static_cast<std::ptrdiff_t>(rng.next() % events.size()),
                          events[rng.next() % events.size()]);
        } else {
            r.at(at) = replacements[rng.next() % std::size(replacements)];
        }
        const pl::OracleReport report = pl::checkReceipt(r);
        failing += report.passed ? 0 : 1;
        QCOMPARE(pltest::joined(*pltest::fedAsLines(r, true)), pltest::joined(report));
        if (trial % 8 == 0) { // keys reversed: nlohmann_json reads every line, as before
            QCOMPARE(pltest::joined(*pltest::fedAsLines(r, false)), pltest::joined(report));
        }
    }
    QVERIFY2(failing > kEdits / 2, qPrintable(QString("only %1 of %2 edits were caught").arg(failing).arg(kEdits)));
}

QTEST_APPLESS_MAIN(TestOracleValue)
#include "test_oracle_value.moc"
