// FallbackCounts and hostFullNote (core/fallbacks.h): the evictions that did not run as the policy asked, counted
// from the run's evict events, against the receipt's own fallback strings; and the note for a mode that never
// swapped because host memory was full (what compare in the CLI and the lab print).
#include "tests/core/engine_fixtures.h"

#include "core/fallbacks.h"
#include "core/ledger_csv.h"
#include "core/engine.h"
#include "core/receipt.h"
#include "core/summary.h"
#include "core/workload_io.h"

#include <QtTest>

#include <string>
#include <utility>
#include <vector>

using namespace pl;

namespace {

Workload seedExample(std::int64_t hostCapacityBytes) {
    auto loaded = loadWorkloadFile(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
    Workload w = std::get<Workload>(loaded);
    w.config.host_capacity_bytes = hostCapacityBytes;
    return w;
}

std::int64_t occurrences(const std::string& text, const std::string& what) {
    std::int64_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
        ++n;
    }
    return n;
}

const Recovery kModes[] = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid};

} // namespace

class TestFallbacks : public QObject {
    Q_OBJECT
  private slots:
    // The ledger CSV (core's, for the lab's export, the bundle and `run --ledger-csv`): a row per evict in ledger
    // order; an id holding a comma or a quote is quoted, quotes doubled; a host-full swap says so in the fallback
    // column; swap_in_bytes is what the victim's next landed copy back brought (each swap's bytes, as it copies
    // its whole context back).
    void ledgerCsvHasARowPerEvictionQuotedAndWithItsCopyBack() {
        for (const std::int64_t host : {std::int64_t{1000}, std::int64_t{1} << 30}) {
            Workload w = seedExample(host);
            w.policy.recovery = Recovery::Swap;
            const RunResult run = runWorkload(w);
            QVERIFY(run.totals.evictions > 0);
            // The first victim's id, given a comma and quotes (the CSV only reads ids from the workload).
            Workload named = w;
            for (const Event& e : run.ledger.events) {
                if (e.kind == EventKind::Evict) {
                    named.requests[static_cast<std::size_t>(e.request)].id = "a,\"b\"";
                    break;
                }
            }
            const std::string csv = ledgerCsv(named, run.ledger.events);
            QCOMPARE(occurrences(csv, "\n"), run.totals.evictions + 1);
            QVERIFY(csv.rfind("tick,victim,mode,fallback,freed_blocks,replay_tokens,swap_out_bytes,swap_in_bytes,"
                              "est_recompute_ticks,est_swap_ticks,queue_position\n", 0) == 0);
            const LedgerRows rows = ledgerRows(run.ledger.events);
            std::int64_t swappedIn = 0;
            for (std::size_t r = 0; r < rows.events.size(); ++r) {
                const Event& e = run.ledger.events[rows.events[r]];
                QVERIFY(e.kind == EventKind::Evict);
                QCOMPARE(rows.swap_in_bytes[r], host == 1000 ? 0 : e.swap_out_bytes); // copied back whole (or never left)
                swappedIn += rows.swap_in_bytes[r];
            }
            QCOMPARE(swappedIn, run.totals.swap_in_bytes);
            if (host == 1000) {
                QCOMPARE(occurrences(csv, ",recompute,host memory full,"), run.totals.evictions);
            } else {
                QCOMPARE(occurrences(csv, ",swap,,"), run.totals.evictions);
            }
            QVERIFY2(csv.find(",\"a,\"\"b\"\"\",") != std::string::npos, csv.c_str());
        }
    }

    // A live run's measurements per ledger row (liveRowSums, what the CSV's live columns and the lab's ledger
    // show): an evict's calls are summed, failed calls' errors joined by "; " and the row not ok; a call that
    // carries another event's seq (a resume's swap_in) or no event's is nobody's; a row without calls has none.
    void liveRowSumsAddAnEvictsCallsOnly() {
        Workload w = seedExample(std::int64_t{1} << 30);
        w.policy.recovery = Recovery::Hybrid;
        const RunResult run = runWorkload(w);
        const LedgerRows rows = ledgerRows(run.ledger.events);
        QVERIFY(rows.events.size() >= 2);
        const std::int64_t firstSeq = run.ledger.events[rows.events[0]].seq;
        std::int64_t otherSeq = -1; // an event that is not an evict
        for (const Event& e : run.ledger.events) {
            if (e.kind != EventKind::Evict) {
                otherSeq = e.seq;
                break;
            }
        }
        QVERIFY(otherSeq >= 0);
        const auto call = [](std::int64_t seq, std::string kind, double measured, double modelled, std::int64_t bytes,
                             std::int64_t tokens, std::string error) {
            LiveAnnotation a;
            a.seq = seq;
            a.kind = std::move(kind);
            a.measured_us = measured;
            a.modelled_us = modelled;
            a.bytes_moved = bytes;
            a.tokens_computed = tokens;
            a.ok = error.empty();
            a.error = std::move(error);
            return a;
        };
        const std::vector<LiveAnnotation> live{
            call(firstSeq, "swap_out", 1.5, 2.0, 4096, 0, ""),
            call(firstSeq, "replay", 0.25, 0.5, 0, 7, "boom"),
            call(otherSeq, "swap_in", 100.0, 100.0, 1, 1, ""),
            call(1'000'000'000, "replay", 100.0, 100.0, 1, 1, "nobody's"),
            call(firstSeq, "replay", 0.125, 0.25, 0, 3, "again"),
        };
        const std::vector<LiveRowSums> sums = liveRowSums(run.ledger.events, rows.events, live);
        QCOMPARE(sums.size(), rows.events.size());
        QVERIFY(sums[0].any);
        QVERIFY(!sums[0].ok);
        QCOMPARE(sums[0].measured_us, 1.875);
        QCOMPARE(sums[0].modelled_us, 2.75);
        QCOMPARE(sums[0].bytes_moved, std::int64_t{4096});
        QCOMPARE(sums[0].tokens_computed, std::int64_t{10});
        QCOMPARE(sums[0].errors, std::string("boom; again"));
        QVERIFY(sums[0].annotations == (std::vector<std::size_t>{0, 1, 4}));
        for (std::size_t r = 1; r < sums.size(); ++r) {
            QVERIFY(!sums[r].any);
            QVERIFY(sums[r].ok);
            QVERIFY(sums[r].annotations.empty());
        }
        // The CSV's live columns are these sums: the first row's, and empty cells elsewhere.
        const std::string csv = ledgerCsv(w, run.ledger.events, live);
        QVERIFY2(csv.find(",1.875,4096,10,2.750,boom; again\n") != std::string::npos, csv.c_str());
        QCOMPARE(occurrences(csv, ",,,,,\n"), static_cast<std::int64_t>(rows.events.size() - 1));
    }

    // The seed example's block is 8 tokens x 512 B = 4 KiB: 1000 B of host memory holds no block, so every swap
    // falls back to recompute and hybrid never has a block to put there.
    void swapFallsBackWhenHostHoldsNoBlock() {
        const Workload base = seedExample(1000);
        Workload w = base;
        w.policy.recovery = Recovery::Swap;
        const RunResult run = runWorkload(w);
        const FallbackCounts f = countFallbacks(run.ledger);
        QVERIFY(run.totals.evictions > 0);
        QCOMPARE(f.evictions, run.totals.evictions);
        QCOMPARE(f.host_full, run.totals.evictions);
        QCOMPARE(f.swapped, 0);
        QCOMPARE(f.hybrid_shrunk + f.nothing_to_swap, 0);
        QCOMPARE(f.total(), f.host_full);
        QCOMPARE(run.totals.swap_out_bytes, 0);
        QVERIFY(f.largest_host_full_need_bytes > 1000);
        QCOMPARE(summarize(w, run).fallbacks, f); // the summary every compare reads carries the same counts

        const std::string note = hostFullNote(w, Recovery::Swap, f);
        const std::string all = "swap: all " + std::to_string(f.host_full) + " evictions fell back to recompute "
                                "because host memory was full (host_capacity_bytes 1000 (1000 B), KV 512 B per token";
        QVERIFY2(note.starts_with(all), note.c_str());
        QVERIFY2(note.find("--host-capacity-bytes") != std::string::npos, note.c_str());
        QVERIFY2(note.find("the largest swap needed " + std::to_string(f.largest_host_full_need_bytes) + " B") !=
                     std::string::npos,
                 note.c_str());

        w.policy.recovery = Recovery::Hybrid;
        const RunResult hybrid = runWorkload(w);
        const FallbackCounts h = countFallbacks(hybrid.ledger);
        QCOMPARE(h.swapped, 0);
        QCOMPARE(h.host_full + h.nothing_to_swap, hybrid.totals.evictions);
        QCOMPARE(h.hybrid_shrunk, 0);

        w.policy.recovery = Recovery::Recompute;
        const RunResult recompute = runWorkload(w);
        QCOMPARE(countFallbacks(recompute.ledger), (FallbackCounts{.evictions = recompute.totals.evictions}));
        QVERIFY(hostFullNote(w, Recovery::Recompute, countFallbacks(recompute.ledger)).empty());
    }

    // The counts are the receipt's fallback strings, reason by reason, under every mode and host capacity (none,
    // less than a block, a block or two, the sample's own 1 MiB).
    void countsAreTheReceiptsFallbacks_data() {
        QTest::addColumn<qint64>("host");
        for (qint64 host : {0LL, 1000LL, 4096LL, 8192LL, 12288LL, 1048576LL}) {
            QTest::newRow(std::to_string(host).c_str()) << host;
        }
    }
    void countsAreTheReceiptsFallbacks() {
        QFETCH(qint64, host);
        for (Recovery mode : kModes) {
            Workload w = seedExample(host);
            w.policy.recovery = mode;
            const RunResult run = runWorkload(w);
            const std::string receipt = receiptText(w, run);
            const FallbackCounts f = countFallbacks(run.ledger);
            const QByteArray where = QByteArray(toString(mode).data(), static_cast<qsizetype>(toString(mode).size()));
            QVERIFY2(f.host_full == occurrences(receipt, "host memory full:"), where.constData());
            QVERIFY2(f.hybrid_shrunk == occurrences(receipt, "host memory short:"), where.constData());
            QVERIFY2(f.nothing_to_swap == occurrences(receipt, "hybrid: no full block") +
                                              occurrences(receipt, "rounds down to 0 blocks"),
                     where.constData());
            QVERIFY2(f.total() == occurrences(receipt, "\"fallback\""), where.constData());
            QCOMPARE(f.evictions, run.totals.evictions);
        }
    }

    // Issue 21: a context with full blocks whose hybrid share rounds down to none was said to have "no full block
    // to swap"; the text now says the percentage rounded down.
    void hybridShareThatRoundsDownSaysSo() {
        Config c;
        c.block_size_tokens = 8;
        c.capacity_blocks = 4;
        c.max_ticks = 500;
        Policy p;
        p.recovery = Recovery::Hybrid;
        p.hybrid_swap_percent = 50;
        p.resume_guard = ResumeGuard::NextBlock;
        const Workload w = pltest::workload(c, p, {pltest::req("a", 0, 8, 16), pltest::req("b", 0, 8, 16)});
        const RunResult run = runWorkload(w);
        const std::string receipt = receiptText(w, run);
        QVERIFY(run.totals.evictions > 0);
        QVERIFY2(occurrences(receipt, "hybrid: hybrid_swap_percent 50 of its 1 full block rounds down to 0 blocks") > 0,
                 receipt.c_str());
        QCOMPARE(occurrences(receipt, "no full block"), 0);
    }

    // The sample as shipped (1 MiB of host memory): swap swaps, nothing falls back, no note.
    void noNoteWhereSwapRan() {
        const Workload base = seedExample(1048576);
        for (Recovery mode : kModes) {
            Workload w = base;
            w.policy.recovery = mode;
            const FallbackCounts f = countFallbacks(runWorkload(w).ledger);
            QCOMPARE(f.host_full, 0);
            QVERIFY(hostFullNote(w, mode, f).empty());
        }
    }

    // The note's wording from the counts alone: every eviction, the only one, those that tried to swap (adaptive
    // chose recompute for the others), and none where one swap got through.
    void noteWording() {
        const Workload w = seedExample(2048);
        const std::string one = hostFullNote(w, Recovery::Swap, {.host_full = 1, .evictions = 1});
        QVERIFY2(one.starts_with("swap: its only eviction fell back to recompute"), one.c_str());
        const std::string some =
            hostFullNote(w, Recovery::Adaptive, {.host_full = 3, .evictions = 5, .largest_host_full_need_bytes = 4096});
        QVERIFY2(some.starts_with("adaptive: every eviction that tried to swap (3 of 5) fell back to recompute"),
                 some.c_str());
        QVERIFY2(some.find("host_capacity_bytes 2048 (2.0 KiB), KV 512 B per token, the largest swap needed 4096 B "
                           "(4.0 KiB)") != std::string::npos,
                 some.c_str());
        QVERIFY(hostFullNote(w, Recovery::Hybrid, {.host_full = 2, .evictions = 3, .swapped = 1}).empty());
        QVERIFY(hostFullNote(w, Recovery::Swap, {.evictions = 3}).empty());
    }
};

QTEST_GUILESS_MAIN(TestFallbacks)
#include "test_fallbacks.moc"
