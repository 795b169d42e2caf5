// Settings changed in memory: a workload validated without a file (what the lab and the CLI's flags change) and
// every override a flag or the lab's panel applies, with the errors that name the flag.
#include "tests/core/engine_fixtures.h"
#include "core/workload_io.h"
#include "tests/core/workload_io_fixtures.h"
#include "core/workload_rules.h"
#include "core/workload_overrides.h"

#include <QtTest>

using namespace pltest::workloadio;

class TestWorkloadOverrides : public QObject {
    Q_OBJECT
  private slots:
    void validateInMemory();
    void overrides_data();
    void overrides();
    void overrideErrors_data();
    void overrideErrors();
    void acceptedRangesAreWhatValidationAccepts();
};

void TestWorkloadOverrides::validateInMemory() {
    pl::Workload w = parseOk(baseDocument().dump());
    QVERIFY(!pl::validateWorkload(w));
    std::swap(w.requests[0], w.requests[3]); // order is not a validity rule
    QVERIFY(!pl::validateWorkload(w));

    pl::Workload bad = w;
    bad.requests[2].arrival_tick = -5;
    auto e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/arrival_tick"));

    bad = w;
    bad.requests[1].id = bad.requests[3].id;
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/3/id"));

    bad = w;
    bad.config.capacity_blocks = 2;
    bad.policy.watermark_blocks = 0;
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QVERIFY2(e->reason.find("can never fit") != std::string::npos, e->reason.c_str());

    bad = w;
    QCOMPARE(bad.requests[2].id, std::string("r2"));
    bad.requests[2].prefix_blocks = {1, 1, 1}; // prompt 24 tokens = 3 full blocks: allowed
    QVERIFY(!pl::validateWorkload(bad));
    bad.requests[2].prefix_blocks.push_back(1);
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/prefix_blocks"));
    // Ids out of range are named by position, inside a run of consecutive ids too (they are stored as runs).
    bad.requests[2].prefix_blocks = {4, -3, 2};
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/prefix_blocks/1"));
    bad.requests[2].prefix_blocks = {pl::kMaxSafeInteger - 1, pl::kMaxSafeInteger, pl::kMaxSafeInteger + 1};
    QCOMPARE(bad.requests[2].prefix_blocks.runs().size(), std::size_t{1});
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/prefix_blocks/2"));

    bad = w;
    bad.policy.hybrid_swap_percent = -1;
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/policy/hybrid_swap_percent"));

    // Name and notes are written as JSON strings, which must be UTF-8: refused here, so no producer of a
    // workload (generator, importer, editor) reaches the writer with other bytes.
    bad = w;
    bad.name = "caf\xe9"; // Latin-1
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/name"));
    QVERIFY2(e->reason.find("UTF-8") != std::string::npos, e->reason.c_str());
    bad = w;
    bad.notes = "ok \xc3";
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/notes"));
    bad.notes = "caf\xc3\xa9";
    QVERIFY(!pl::validateWorkload(bad));

    bad = w;
    bad.requests[2].tenant = std::string(65, 't');
    e = pl::validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/tenant"));

    pl::Caps caps;
    caps.max_requests = 3;
    e = pl::validateWorkload(w, caps);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests"));

    pl::normaliseWorkload(w);
    QCOMPARE(w.requests.front().id, std::string("r3"));
    QCOMPARE(w.requests.back().id, std::string("r0"));
}

void TestWorkloadOverrides::overrides_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("capacity") << "capacity_blocks" << "64" << "/config/capacity_blocks" << "64";
    QTest::newRow("dashes accepted") << "transfer-bytes-per-tick" << "9007199254740991"
                                     << "/config/transfer_bytes_per_tick" << "9007199254740991";
    QTest::newRow("host zero") << "host_capacity_bytes" << "0" << "/config/host_capacity_bytes" << "0";
    QTest::newRow("bytes in GiB") << "host-capacity-bytes" << "64G" << "/config/host_capacity_bytes" << "68719476736";
    QTest::newRow("bytes in GB") << "transfer_bytes_per_tick" << "1.5GB" << "/config/transfer_bytes_per_tick"
                                 << "1610612736";
    QTest::newRow("recovery") << "recovery" << "adaptive" << "/policy/recovery" << "\"adaptive\"";
    QTest::newRow("victim rule") << "victim_rule" << "fewest-decoded" << "/policy/victim_rule" << "\"fewest-decoded\"";
    QTest::newRow("tie") << "adaptive_tie" << "recompute" << "/policy/adaptive_tie" << "\"recompute\"";
    QTest::newRow("guard") << "resume-guard" << "full-reservation" << "/policy/resume_guard" << "\"full-reservation\"";
    QTest::newRow("preempt ahead") << "preempt_ahead" << "false" << "/policy/preempt_ahead" << "false";
    QTest::newRow("watermark") << "watermark_blocks" << "3" << "/policy/watermark_blocks" << "3";
    QTest::newRow("hybrid") << "hybrid_swap_percent" << "0" << "/policy/hybrid_swap_percent" << "0";
}

void TestWorkloadOverrides::overrides() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    pl::Workload w = parseOk(baseDocument().dump());
    const auto e = pl::applyOverride(w, key.toStdString(), value.toStdString());
    QVERIFY2(!e, e ? e->message().c_str() : "");
    const json full = pl::fullWorkloadJson(w);
    QCOMPARE(QString::fromStdString(full.at(json::json_pointer(field.toStdString())).dump()), expected);
}

void TestWorkloadOverrides::overrideErrors_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("reason");
    QTest::newRow("not a number") << "capacity_blocks" << "abc" << "--capacity-blocks" << "expected an integer from 1";
    QTest::newRow("negative") << "max_ticks" << "-1" << "--max-ticks" << "got \"-1\"";
    QTest::newRow("plus sign") << "max_ticks" << "+5" << "--max-ticks" << "expected an integer";
    QTest::newRow("fraction") << "kv_bytes_per_token" << "1.5" << "--kv-bytes-per-token" << "expected bytes from 1";
    QTest::newRow("trailing text") << "kv_bytes_per_token" << "15x" << "--kv-bytes-per-token" << "1.5GiB or 512K";
    QTest::newRow("units on counts") << "capacity_blocks" << "64K" << "--capacity-blocks" << "expected an integer";
    QTest::newRow("zero count") << "block_size_tokens" << "0" << "--block-size-tokens" << "must be at least 1, got 0";
    QTest::newRow("too large") << "max_ticks" << "9007199254740992" << "--max-ticks" << "expected an integer";
    QTest::newRow("empty") << "max_ticks" << "" << "--max-ticks" << "expected an integer";
    QTest::newRow("bad enum") << "recovery" << "teleport" << "--recovery" << "expected one of: recompute, swap";
    QTest::newRow("bad rule") << "victim-rule" << "oldest" << "--victim-rule" << "unknown value \"oldest\"";
    QTest::newRow("bad bool") << "preempt_ahead" << "yes" << "--preempt-ahead" << "expected true or false";
    QTest::newRow("percent") << "hybrid_swap_percent" << "101" << "--hybrid-swap-percent" << "from 0 to 100, got 101";
    QTest::newRow("unknown key") << "colour" << "red" << "--colour" << "unknown option";
    QTest::newRow("request key") << "prompt_tokens" << "5" << "--prompt-tokens" << "unknown option";
}

void TestWorkloadOverrides::overrideErrors() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, flag);
    QFETCH(QString, reason);
    pl::Workload w = parseOk(baseDocument().dump());
    const json before = pl::fullWorkloadJson(w);
    const auto e = pl::applyOverride(w, key.toStdString(), value.toStdString());
    QVERIFY(e.has_value());
    QCOMPARE(QString::fromStdString(e->path), flag);
    QVERIFY2(QString::fromStdString(e->reason).contains(reason), e->reason.c_str());
    QCOMPARE(pl::fullWorkloadJson(w), before); // a failed override changes nothing
}

// pl::acceptedRange (the lab's sliders offer only these): for every integer setting of every sample, both ends
// validate and the values just outside them are refused.
void TestWorkloadOverrides::acceptedRangesAreWhatValidationAccepts() {
    int boundsChecked = 0;
    for (const std::string& path : pltest::sampleFiles()) {
        const pl::Workload w = pltest::loadSampleFile(path);
        std::vector<std::string_view> keys; // every integer setting (enable_prefix_caching is a flag)
        for (const pl::ConfigField& f : pl::configFields()) keys.push_back(f.key);
        keys.push_back("watermark_blocks");
        keys.push_back("hybrid_swap_percent");
        for (std::string_view key : keys) {
            const auto range = pl::acceptedRange(w, key);
            QVERIFY2(range.has_value(), std::string(key).c_str());
            QVERIFY2(range->min <= range->max, (path + " " + std::string(key)).c_str());
            const auto accepts = [&](std::int64_t v) {
                pl::Workload after = w;
                if (pl::applyOverride(after, key, std::to_string(v))) return false;
                return !pl::validateWorkload(after);
            };
            const std::string what = path + " " + std::string(key) + " ";
            QVERIFY2(accepts(range->min), (what + std::to_string(range->min)).c_str());
            QVERIFY2(accepts(range->max), (what + std::to_string(range->max)).c_str());
            if (range->min > 0) {
                QVERIFY2(!accepts(range->min - 1), (what + std::to_string(range->min - 1)).c_str());
                ++boundsChecked;
            }
            if (range->max < pl::kMaxSafeInteger) {
                QVERIFY2(!accepts(range->max + 1), (what + std::to_string(range->max + 1)).c_str());
                ++boundsChecked;
            }
        }
        // The capacity the largest request needs: the bound the lab's slider used to cross.
        const auto capacity = pl::acceptedRange(w, "capacity_blocks");
        std::int64_t need = w.policy.watermark_blocks + 1;
        for (const auto& r : w.requests)
            need = std::max(need, pl::ceilDiv(r.prompt_tokens + r.max_output_tokens, w.config.block_size_tokens));
        QCOMPARE(capacity->min, need);
    }
    QVERIFY(boundsChecked > 0);
    QVERIFY(!pl::acceptedRange(pltest::loadSampleFile(pltest::sampleFiles().front()), "recovery"));
}

QTEST_APPLESS_MAIN(TestWorkloadOverrides)
#include "test_workload_overrides.moc"
