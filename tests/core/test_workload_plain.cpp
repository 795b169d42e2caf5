// The fast path for workload text (core/workload_plain.h) against the strict reader (parseWorkloadStrict):
// what the fast path accepts is the strict reader's Workload, field by field; what it declines, parseWorkload
// reports as the strict reader does, error for error. Checked on every sample, on generated and imported
// workloads in every layout the project writes, on escapes and UTF-8, on the caps at their edges, and on
// hundreds of random edits of real workloads (bytes and values), which must reach both outcomes.
#include "core/json_reader.h"
#include "tests/test_rng.h"
#include "core/trace/generator.h"
#include "core/trace/trace_importer.h"
#include "core/trace/workload_text.h"
#include "core/workload_io.h"
#include "core/workload_plain.h"

#include <QDir>
#include <QtTest>

#include <string>
#include <vector>

using nlohmann::json;
using pl::Caps;
using pl::InputError;
using pl::Workload;

namespace {

struct Outcome {
    bool plain = false;   // the fast path read it
    bool accepted = false; // the strict reader accepted it
};

// Why the two readings differ, or empty. Workloads compare field by field (operator==, then the normalised
// JSON for a readable message); errors by their whole message (file, path, reason).
QString difference(const pl::Result<Workload>& a, const pl::Result<Workload>& b) {
    const auto* ea = std::get_if<InputError>(&a);
    const auto* eb = std::get_if<InputError>(&b);
    if ((ea == nullptr) != (eb == nullptr)) {
        return QString::fromStdString("one reads a workload, the other says: " + (ea ? ea->message() : eb->message()));
    }
    if (ea != nullptr) {
        return ea->message() == eb->message()
                   ? QString()
                   : QString::fromStdString("errors differ: " + ea->message() + " / " + eb->message());
    }
    const Workload& wa = std::get<Workload>(a);
    const Workload& wb = std::get<Workload>(b);
    if (wa == wb) {
        return {};
    }
    return QString::fromStdString("workloads differ: " + pl::fullWorkloadJson(wa).dump().substr(0, 300) + " / " +
                                  pl::fullWorkloadJson(wb).dump().substr(0, 300));
}

// Reads `text` all three ways; fails the test (returning false) when they disagree.
bool agree(const std::string& text, Outcome& out, const Caps& caps = {}) {
    const std::string file = "w.json";
    const auto strict = pl::parseWorkloadStrict(text, file, caps);
    const auto plain = pl::readPlainWorkload(text, caps);
    const auto combined = pl::parseWorkload(text, file, caps);
    out.plain = plain.has_value();
    out.accepted = std::holds_alternative<Workload>(strict);
    QString why = difference(combined, strict);
    if (why.isEmpty() && plain) {
        why = difference(pl::Result<Workload>(*plain), strict);
    }
    if (!why.isEmpty()) {
        qWarning("%s\non: %s", qPrintable(why), text.substr(0, 400).c_str());
        return false;
    }
    return true;
}

#define AGREE(text, outcome, ...) QVERIFY(agree((text), (outcome), ##__VA_ARGS__))

std::vector<std::string> sampleTexts() {
    std::vector<std::string> out;
    const QDir dir(PREEMPTLAB_SOURCE_DIR "/samples");
    for (const QString& name : dir.entryList({"*.workload.json"}, QDir::Files, QDir::Name)) {
        auto text = pl::readTextFile(dir.filePath(name).toStdString(), Caps{}.max_file_bytes, "workload file");
        if (auto* e = std::get_if<InputError>(&text)) {
            qFatal("%s", e->message().c_str());
        }
        out.push_back(std::get<std::string>(std::move(text)));
    }
    return out;
}

Workload generated(std::uint64_t seed, std::int64_t count, bool prefixes) {
    pl::trace::GeneratorParams p;
    p.seed = seed;
    p.count = count;
    p.tenant_mix = {{"default", 2}, {"team-a", 1}};
    p.priority_mix = {{0, 3}, {2, 1}};
    if (prefixes) {
        p.prefix_groups = 4;
        p.prefix_tokens = 64;
        p.prefix_share_percent = 50;
    }
    auto w = pl::trace::generateWorkload(p);
    if (auto* e = std::get_if<InputError>(&w)) {
        qFatal("%s", e->message().c_str());
    }
    return std::get<Workload>(std::move(w));
}

// The same workload in each layout the project writes: the importers' text, dump(1) (bench --out-workload),
// dump(2), compact, and the receipt's embedded form (policy first, then the normalised workload).
std::vector<std::string> layouts(const Workload& w) {
    const json full = pl::fullWorkloadJson(w);
    const std::string receiptForm = "{\"policy\":" + pl::policyJson(w.policy).dump() + "," +
                                    pl::workloadJson(w).dump().substr(1);
    return {pl::trace::workloadText(w), full.dump(1) + "\n", full.dump(2), full.dump(), receiptForm};
}

} // namespace

class TestWorkloadPlain : public QObject {
    Q_OBJECT
  private slots:
    void samplesAreReadPlainly();
    void generatedAndImportedAreReadPlainly();
    void keysInAnyOrderAndAnySpacing();
    void escapesAndUtf8_data();
    void escapesAndUtf8();
    void capsAtTheirEdges();
    void declinedTextsAreTheStrictReadersErrors_data();
    void declinedTextsAreTheStrictReadersErrors();
    void randomByteEditsAgree();
    void randomValueEditsAgree();
    void stopFlag();
};

// Every sample is written plainly: the fast path reads each, and reads it as the strict reader does.
void TestWorkloadPlain::samplesAreReadPlainly() {
    const auto texts = sampleTexts();
    QVERIFY(texts.size() >= 10);
    for (const std::string& text : texts) {
        Outcome o;
        AGREE(text, o);
        QVERIFY2(o.plain && o.accepted, text.substr(0, 200).c_str());
    }
}

void TestWorkloadPlain::generatedAndImportedAreReadPlainly() {
    std::vector<Workload> workloads{generated(1, 300, false), generated(2, 300, true)};
    // A Mooncake import: hash ids expand to runs of prefix block ids.
    pl::trace::TraceRows rows{pl::trace::TraceFormat::Mooncake, "m.jsonl", {}};
    for (std::int64_t i = 0; i < 50; ++i) {
        rows.rows.push_back(pl::trace::TraceRow{i * 30'000, 1536 - 16 * (i % 10), 10 + i, {i % 5, i % 5 + 1, 100 + i}, i + 1});
    }
    pl::Config c;
    c.block_size_tokens = 16;
    c.capacity_blocks = 4096;
    auto imported = pl::trace::importTrace(rows, pl::trace::ImportOptions{}, c, pl::Policy{});
    if (auto* e = std::get_if<InputError>(&imported)) {
        QFAIL(e->message().c_str());
    }
    workloads.push_back(std::get<pl::trace::ImportResult>(imported).workload);
    QVERIFY(!workloads.back().requests.front().prefix_blocks.empty());
    workloads.back().policy.engine_profile = pl::EngineProfile::VllmV1; // engine_follows written too
    workloads.back().config.tick_us = 20'000;
    workloads.back().config.enable_prefix_caching = true;
    for (const Workload& w : workloads) {
        const std::vector<std::string> texts = layouts(w);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            Outcome o;
            AGREE(texts[i], o);
            QVERIFY2(o.plain && o.accepted, texts[i].substr(0, 300).c_str());
            Workload expected = w;
            if (i + 1 == texts.size()) { // the receipt's form holds no notes
                expected.notes.clear();
            }
            QVERIFY(*pl::readPlainWorkload(texts[i]) == expected);
        }
    }
}

// Config after the requests, keys reversed, a byte order mark, tabs and CRLF: all plain.
void TestWorkloadPlain::keysInAnyOrderAndAnySpacing() {
    const Workload w = generated(3, 20, true);
    const json full = pl::fullWorkloadJson(w);
    std::vector<std::string> members;
    for (const auto& [key, value] : full.items()) {
        members.push_back(json(key).dump() + ":" + value.dump());
    }
    std::string reversed = "{";
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
        reversed += (it == members.rbegin() ? "" : ",") + *it;
    }
    reversed += "}";
    std::string crlf;
    for (char ch : full.dump(1, '\t')) { // tabs for indentation, CRLF line ends
        crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
    }
    for (const std::string& text : {reversed, "\xEF\xBB\xBF" + full.dump(), crlf, " \n" + full.dump() + " \n\t"}) {
        Outcome o;
        AGREE(text, o);
        QVERIFY2(o.plain && o.accepted, text.substr(0, 200).c_str());
        QVERIFY(*pl::readPlainWorkload(text) == w);
    }
}

// A name or notes with escapes and UTF-8: the fast path decodes them as nlohmann_json does, or declines; a
// declined one is the strict reader's error.
void TestWorkloadPlain::escapesAndUtf8_data() {
    QTest::addColumn<QByteArray>("notes"); // the JSON text of the notes value, quotes included
    QTest::addColumn<bool>("plain");
    QTest::addColumn<bool>("valid");
    QTest::newRow("quote and backslash") << QByteArray(R"("a \"b\" \\ c")") << true << true;
    QTest::newRow("short escapes") << QByteArray(R"("\/\b\f\n\r\t")") << true << true;
    QTest::newRow("u escapes") << QByteArray(R"("\u0041\u00e9\u20AC\u0000")") << true << true;
    QTest::newRow("surrogate pair") << QByteArray(R"("\uD83D\uDE00 ok")") << true << true;
    QTest::newRow("raw UTF-8") << QByteArray("\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"") << true << true;
    QTest::newRow("raw DEL") << QByteArray("\"a\x7F\"") << true << true;
    QTest::newRow("lone high surrogate") << QByteArray(R"("\uD800")") << false << false;
    QTest::newRow("high then not low") << QByteArray(R"("\uD800\u0041")") << false << false;
    QTest::newRow("lone low surrogate") << QByteArray(R"("\uDC00")") << false << false;
    QTest::newRow("bad escape") << QByteArray(R"("\x41")") << false << false;
    QTest::newRow("short u escape") << QByteArray(R"("\u12")") << false << false;
    QTest::newRow("bad hex") << QByteArray(R"("\u12G4")") << false << false;
    QTest::newRow("raw newline") << QByteArray("\"a\nb\"") << false << false;
    QTest::newRow("raw NUL") << QByteArray("\"a\0b\"", 5) << false << false;
    QTest::newRow("overlong") << QByteArray("\"\xC0\xAF\"") << false << false;
    QTest::newRow("encoded surrogate") << QByteArray("\"\xED\xA0\x80\"") << false << false;
    QTest::newRow("above U+10FFFF") << QByteArray("\"\xF4\x90\x80\x80\"") << false << false;
    QTest::newRow("cut sequence") << QByteArray("\"\xE2\x82\"") << false << false;
    QTest::newRow("lone continuation") << QByteArray("\"a\x80\"") << false << false;
    QTest::newRow("unterminated") << QByteArray("\"abc") << false << false;
}

void TestWorkloadPlain::escapesAndUtf8() {
    QFETCH(QByteArray, notes);
    QFETCH(bool, plain);
    QFETCH(bool, valid);
    const std::string value = notes.toStdString();
    const std::string texts[] = {
        R"({"format":"preemptlab.workload.v1","name":"n","notes":)" + value + R"(,"requests":[]})",
        R"({"format":"preemptlab.workload.v1","name":)" + value + R"(,"requests":[]})"};
    for (const std::string& text : texts) {
        Outcome o;
        AGREE(text, o);
        QCOMPARE(o.plain, plain);
        QCOMPARE(o.accepted, valid);
    }
}

// Each cap exactly met is read plainly; one over declines, and the strict reader names the cap.
void TestWorkloadPlain::capsAtTheirEdges() {
    const Workload w = generated(4, 40, true);
    const std::string text = pl::fullWorkloadJson(w).dump();
    std::int64_t prefixIds = 0;
    for (const auto& r : w.requests) {
        prefixIds += static_cast<std::int64_t>(r.prefix_blocks.size());
    }
    QVERIFY(prefixIds > 0);
    const auto notesBytes = static_cast<std::int64_t>(w.notes.size());
    QVERIFY(notesBytes > 0);
    const struct {
        std::int64_t Caps::*cap;
        std::int64_t edge;
    } edges[] = {{&Caps::max_requests, 40},
                 {&Caps::max_prefix_blocks, prefixIds},
                 {&Caps::max_notes_bytes, notesBytes},
                 {&Caps::max_file_bytes, static_cast<std::int64_t>(text.size())}};
    for (const auto& e : edges) {
        Caps caps;
        caps.*(e.cap) = e.edge;
        Outcome o;
        AGREE(text, o, caps);
        QVERIFY(o.plain && o.accepted);
        caps.*(e.cap) = e.edge - 1;
        AGREE(text, o, caps);
        QVERIFY(!o.plain && !o.accepted);
    }
}

// Texts the fast path must decline; the strict reader refuses each (or, for the last rows, reads it) as before.
void TestWorkloadPlain::declinedTextsAreTheStrictReadersErrors_data() {
    QTest::addColumn<QByteArray>("request"); // one element of "requests"
    QTest::addColumn<bool>("valid");
    const auto row = [](const char* name, const char* request, bool valid) {
        QTest::newRow(name) << QByteArray(request) << valid;
    };
    row("duplicate key", R"({"id":"a","id":"b","arrival_tick":0,"prompt_tokens":1,"output_tokens":1})", false);
    row("unknown key", R"({"id":"a","arrival_tick":0,"prompt_tokens":1,"output_tokens":1,"x":1})", false);
    row("missing key", R"({"id":"a","arrival_tick":0,"prompt_tokens":1})", false);
    row("negative", R"({"id":"a","arrival_tick":-1,"prompt_tokens":1,"output_tokens":1})", false);
    row("fraction", R"({"id":"a","arrival_tick":1.5,"prompt_tokens":1,"output_tokens":1})", false);
    row("exponent", R"({"id":"a","arrival_tick":1e2,"prompt_tokens":1,"output_tokens":1})", false);
    row("leading zero", R"({"id":"a","arrival_tick":01,"prompt_tokens":1,"output_tokens":1})", false);
    row("2^53", R"({"id":"a","arrival_tick":9007199254740992,"prompt_tokens":1,"output_tokens":1})", false);
    row("2^64", R"({"id":"a","arrival_tick":18446744073709551616,"prompt_tokens":1,"output_tokens":1})", false);
    row("null", R"({"id":"a","arrival_tick":null,"prompt_tokens":1,"output_tokens":1})", false);
    row("string for integer", R"({"id":"a","arrival_tick":"1","prompt_tokens":1,"output_tokens":1})", false);
    row("bad id", R"({"id":"a b","arrival_tick":0,"prompt_tokens":1,"output_tokens":1})", false);
    row("trailing comma", R"({"id":"a","arrival_tick":0,"prompt_tokens":1,"output_tokens":1,})", false);
    row("prefix not array", R"({"id":"a","arrival_tick":0,"prompt_tokens":64,"output_tokens":1,"prefix_blocks":3})",
        false);
    row("too many prefix ids", R"({"id":"a","arrival_tick":0,"prompt_tokens":16,"output_tokens":1,"prefix_blocks":[1,2]})",
        false);
    row("escaped key", R"({"\u0069d":"a","arrival_tick":0,"prompt_tokens":1,"output_tokens":1})", true);
    row("minus zero", R"({"id":"a","arrival_tick":-0,"prompt_tokens":1,"output_tokens":1})", true);
}

void TestWorkloadPlain::declinedTextsAreTheStrictReadersErrors() {
    QFETCH(QByteArray, request);
    QFETCH(bool, valid);
    const std::string text = R"({"format":"preemptlab.workload.v1","name":"n","config":{"block_size_tokens":16},)"
                             R"("requests":[)" + request.toStdString() + "]}";
    Outcome o;
    AGREE(text, o);
    QVERIFY(!o.plain);
    QCOMPARE(o.accepted, valid);
}

// Bytes deleted, inserted, replaced, repeated or cut at random places of real workloads: the fast path and the
// strict reader agree on each; both outcomes (read plainly, refused) are reached many times.
void TestWorkloadPlain::randomByteEditsAgree() {
    std::vector<std::string> bases = sampleTexts();
    bases.resize(4);
    bases.push_back(pl::trace::workloadText(generated(5, 30, true)));
    bases.push_back(pl::fullWorkloadJson(generated(6, 30, true)).dump(2));
    const std::string interesting[] = {"\"", "\\", ",", "}", "]", "{", "[", "-", ".", "e", "0", "9", " ", ":",
                                       std::string(1, '\0'), "\x80", "\xC3\xA9", "u", "\\u00", "null", "true"};
    pltest::SplitMix rng{2026};
    int plain = 0, refused = 0;
    constexpr int kEdits = 500;
    for (int trial = 0; trial < kEdits; ++trial) {
        std::string text = bases[rng.next() % bases.size()];
        const std::size_t at = rng.next() % text.size();
        switch (rng.next() % 5) {
        case 0: text.erase(at, 1 + rng.next() % 3); break;
        case 1: text.insert(at, interesting[rng.next() % std::size(interesting)]); break;
        case 2: text.replace(at, 1, interesting[rng.next() % std::size(interesting)]); break;
        case 3: text.insert(at, text.substr(at, 1 + rng.next() % 40)); break;
        default: text.resize(at); break;
        }
        Outcome o;
        AGREE(text, o);
        plain += o.plain ? 1 : 0;
        refused += o.accepted ? 0 : 1;
    }
    QVERIFY2(plain > kEdits / 10 && refused > kEdits / 2,
             qPrintable(QString("%1 read plainly, %2 refused of %3").arg(plain).arg(refused).arg(kEdits)));
}

namespace {

void pathsOf(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            pathsOf(value, at / key, out);
        }
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            pathsOf(j[i], at / i, out);
        }
    }
}

} // namespace

// Values of every kind put in every field, fields removed, unknown keys added, requests repeated (duplicate
// ids), written in several layouts: the two readings agree.
void TestWorkloadPlain::randomValueEditsAgree() {
    std::vector<json> bases;
    for (const std::string& text : sampleTexts()) {
        bases.push_back(json::parse(text));
        if (bases.size() == 4) {
            break;
        }
    }
    bases.push_back(pl::fullWorkloadJson(generated(7, 30, true)));
    std::vector<std::vector<json::json_pointer>> paths(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i) {
        pathsOf(bases[i], json::json_pointer(), paths[i]);
    }
    const json replacements[] = {0, 1, -1, "x", nullptr, 1.5, std::uint64_t{9007199254740991u},
                                 std::uint64_t{9007199254740992u}, true, false, json::object(), json::array(),
                                 "r1", "swap", "default", "vllm-v1", "a\"b", "caf\xC3\xA9"};
    pltest::SplitMix rng{23};
    int plain = 0, refused = 0;
    constexpr int kEdits = 400;
    for (int trial = 0; trial < kEdits; ++trial) {
        const std::size_t base = rng.next() % bases.size();
        json w = bases[base];
        const auto& at = paths[base][1 + rng.next() % (paths[base].size() - 1)];
        const std::uint64_t how = rng.next() % 6;
        if (how == 0 && w.at(at.parent_pointer()).is_object()) {
            w.at(at.parent_pointer()).erase(at.back());
        } else if (how == 1 && w.at(at).is_number_integer()) {
            w.at(at) = w.at(at).get<std::int64_t>() + (rng.next() % 2 == 0 ? 1 : -1);
        } else if (how == 2 && w.at(at).is_object()) {
            w.at(at)["unknown"] = 1;
        } else if (how == 3) {
            json& requests = w["requests"];
            requests.push_back(requests[rng.next() % requests.size()]);
        } else {
            w.at(at) = replacements[rng.next() % std::size(replacements)];
        }
        Outcome o;
        AGREE(rng.next() % 2 == 0 ? w.dump() : w.dump(2), o);
        plain += o.plain ? 1 : 0;
        refused += o.accepted ? 0 : 1;
    }
    QVERIFY2(plain > kEdits / 10 && refused > kEdits / 3,
             qPrintable(QString("%1 read plainly, %2 refused of %3").arg(plain).arg(refused).arg(kEdits)));
}

// A set flag ends a big reading with Cancelled; a small document is read whole (the check's granularity).
void TestWorkloadPlain::stopFlag() {
    const std::string big = pl::fullWorkloadJson(generated(8, 5000, true)).dump();
    const std::atomic<bool> set{true};
    QVERIFY_THROWS_EXCEPTION(pl::Cancelled, (void)pl::readPlainWorkload(big, {}, &set));
    const std::atomic<bool> clear{false};
    QVERIFY(pl::readPlainWorkload(big, {}, &clear).has_value());
    const std::string small = R"({"format":"preemptlab.workload.v1","name":"s","requests":[]})";
    QVERIFY(pl::readPlainWorkload(small, {}, &set).has_value());
}

QTEST_APPLESS_MAIN(TestWorkloadPlain)
#include "test_workload_plain.moc"
