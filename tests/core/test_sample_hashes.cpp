// Pins the event_hash of every sample without prefix_blocks under each recovery mode, as the engine produced
// them before prefix sharing existed (issue 6): workloads that share nothing must keep byte-identical
// receipts. A change here is a change of the tick model, never a side effect.
#include "tests/core/engine_fixtures.h"

#include "core/hashing.h"
#include "core/receipt.h"

#include <QtTest>

#include <algorithm>
#include <cstring>
#include <set>

using namespace pl;
using namespace pltest;

namespace {

struct Pin {
    const char* sample;
    Recovery mode;
    const char* eventHash;
    const char* receiptHash; // SHA-256 of the whole receipt file as `run --out` writes it
};

// Computed with preemptlab-cli run --out from main at commit 27f315a (before issue 6).
const Pin kPins[] = {
#include "tests/core/sample_hashes.inc"
};

} // namespace

class TestSampleHashes : public QObject {
    Q_OBJECT
  private slots:
    void pinnedEventHashes_data() {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("expectedReceipt");
        for (const auto& p : kPins) {
            QTest::addRow("%s/%s", p.sample, std::string(toString(p.mode)).c_str())
                << QString(p.sample) << static_cast<int>(p.mode) << QString(p.eventHash) << QString(p.receiptHash);
        }
    }
    void pinnedEventHashes() {
        QFETCH(QString, sample);
        QFETCH(int, mode);
        QFETCH(QString, expected);
        QFETCH(QString, expectedReceipt);
        Workload w = loadSample(sample.toStdString());
        QVERIFY2(std::all_of(w.requests.begin(), w.requests.end(), [](const RequestSpec& r) { return r.prefix_blocks.empty(); }),
                 "pinned samples share no prefix");
        w.policy.recovery = static_cast<Recovery>(mode);
        const RunResult run = runWorkload(w);
        QCOMPARE(QString::fromStdString(receiptHashes(w, run).event_hash), expected);
        // Every byte, not only the hashed parts (totals, records, limitations).
        QCOMPARE(QString::fromStdString(sha256Tagged(receiptText(w, run))), expectedReceipt);
        // The lab's engine (series and block owners tracked) writes the same events.
        const RunResult labRun = pltest::tickByTickRun(w);
        QCOMPARE(QString::fromStdString(receiptHashes(w, labRun).event_hash), expected);
    }
    void everyPlainSampleIsPinned() {
        const QDir dir(QString(PREEMPTLAB_SOURCE_DIR) + "/samples");
        std::set<std::string> pinned;
        for (const auto& p : kPins) {
            pinned.insert(p.sample);
        }
        for (const QString& f : dir.entryList({"*.workload.json"}, QDir::Files)) {
            const std::string name = f.chopped(static_cast<int>(std::strlen(".workload.json"))).toStdString();
            const Workload w = loadSample(name);
            const bool plain = std::all_of(w.requests.begin(), w.requests.end(),
                                           [](const RequestSpec& r) { return r.prefix_blocks.empty(); });
            QVERIFY2(plain == (pinned.count(name) == 1), name.c_str());
        }
        QCOMPARE(std::size(kPins), pinned.size() * 4);
    }
};

QTEST_GUILESS_MAIN(TestSampleHashes)
#include "test_sample_hashes.moc"
