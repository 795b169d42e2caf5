// Block pools and the live backend's bookkeeping (which arena blocks and host slots each request holds, and
// what each engine call implies), on the CPU. The whole protocol through the engine: test_live_protocol.cpp.
#include "gpu/block_pool.h"
#include "gpu/live_bookkeeper.h"

#include "tests/test_rng.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace pl::gpu;

class TestLiveBookkeeping : public QObject {
    Q_OBJECT

  private slots:
    void blockPoolHandsOutLowestFirst() {
        BlockPool p(6);
        auto a = p.allocate(3);
        QVERIFY(a);
        QCOMPARE(*a, (std::vector<std::int64_t>{0, 1, 2}));
        QVERIFY(!p.allocate(4)); // too few: nothing taken
        QCOMPARE(p.freeCount(), std::int64_t{3});
        QVERIFY(p.release({1}));
        QVERIFY(!p.release({1}));    // double free refused
        QVERIFY(!p.release({3, 3})); // 3 is free anyway; and listed twice
        QVERIFY(!p.release({6}));    // out of range
        QCOMPARE(*p.allocate(2), (std::vector<std::int64_t>{1, 3}));
        QCOMPARE(p.usedCount(), std::int64_t{4});
    }

    void blockPoolMatchesAListOfFreeIds() {
        // Against the plainest model (a flag per id, lowest free first) over random allocate/release mixes.
        pltest::XorShift rng(0x9E3779B97F4A7C15ull);
        auto next = [&](std::uint64_t n) { return rng.below(n); };
        for (int world = 0; world < 40; ++world) {
            const std::int64_t cap = 1 + next(90);
            BlockPool p(cap);
            std::vector<bool> used(static_cast<std::size_t>(cap), false);
            std::int64_t peak = 0;
            for (int step = 0; step < 300; ++step) {
                std::int64_t inUse = 0;
                for (bool u : used) inUse += u ? 1 : 0;
                if (next(2) == 0) {
                    const std::int64_t n = next(12);
                    std::vector<std::int64_t> want;
                    for (std::int64_t id = 0; id < cap && static_cast<std::int64_t>(want.size()) < n; ++id) {
                        if (!used[static_cast<std::size_t>(id)]) want.push_back(id);
                    }
                    const auto got = p.allocate(n);
                    if (static_cast<std::int64_t>(want.size()) < n) {
                        QVERIFY(!got);
                    } else {
                        QVERIFY(got);
                        QCOMPARE(*got, want);
                        for (auto id : want) used[static_cast<std::size_t>(id)] = true;
                        peak = std::max(peak, inUse + n);
                    }
                } else {
                    std::vector<std::int64_t> ids;
                    for (std::int64_t id = 0; id < cap; ++id) {
                        if (used[static_cast<std::size_t>(id)] && next(3) == 0) ids.push_back(id);
                    }
                    const bool bad = next(8) == 0;
                    if (bad) ids.push_back(next(static_cast<std::uint64_t>(cap) + 2)); // maybe free, twice, out of range
                    bool ok = true;
                    std::vector<bool> seen(static_cast<std::size_t>(cap), false);
                    for (auto id : ids) {
                        if (id >= cap || !used[static_cast<std::size_t>(id)] || seen[static_cast<std::size_t>(id)]) ok = false;
                        else seen[static_cast<std::size_t>(id)] = true;
                    }
                    QCOMPARE(p.release(ids), ok);
                    if (ok) for (auto id : ids) used[static_cast<std::size_t>(id)] = false;
                }
                std::int64_t freeNow = 0;
                for (std::int64_t id = 0; id < cap; ++id) {
                    QCOMPARE(p.isFree(id), !used[static_cast<std::size_t>(id)]);
                    freeNow += used[static_cast<std::size_t>(id)] ? 0 : 1;
                }
                QCOMPARE(p.freeCount(), freeNow);
                QCOMPARE(p.peakUsed(), peak);
            }
        }
        // A huge pool costs nothing until used (a dry run sizes the arena with one).
        BlockPool huge(std::int64_t{1} << 40);
        QCOMPARE(huge.freeCount(), std::int64_t{1} << 40);
        QCOMPARE(*huge.allocate(3), (std::vector<std::int64_t>{0, 1, 2}));
        QVERIFY(!huge.isFree(2));
        QVERIFY(huge.isFree((std::int64_t{1} << 40) - 1));
        QVERIFY(!huge.isFree(std::int64_t{1} << 40));
    }

    void bookkeeperGrowSwapReplay() {
        LiveBookkeeper b(10, 4, 16);
        PrefillStep p;
        QVERIFY(!b.grow(7, 20, &p));
        QCOMPARE(p.start, std::int64_t{0});
        QCOMPARE(p.count, std::int64_t{20});
        QCOMPARE(p.block_table.size(), std::size_t{2});
        QVERIFY(!b.grow(7, 33, &p));
        QCOMPARE(p.start, std::int64_t{20});
        QCOMPARE(p.count, std::int64_t{13});
        QCOMPARE(p.block_table, (std::vector<std::int64_t>{0, 1, 2}));
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{7});

        SwapStep s;
        QVERIFY(!b.swapOut(7, 1000, &s)); // clamps to the 33 resident tokens
        QCOMPARE(s.tokens, std::int64_t{33});
        QCOMPARE(s.device_blocks, (std::vector<std::int64_t>{0, 1, 2}));
        QCOMPARE(s.host_slots.size(), std::size_t{3});
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{10});
        QCOMPARE(b.freeHostSlots(), std::int64_t{1});
        QVERIFY(b.swapOut(7, 10, &s).has_value()); // nothing resident any more

        QVERIFY(!b.grow(8, 16, &p)); // another request takes block 0
        QVERIFY(!b.swapIn(7, &s));
        QCOMPARE(s.tokens, std::int64_t{33});
        QCOMPARE(s.device_blocks, (std::vector<std::int64_t>{1, 2, 3}));
        QCOMPARE(b.freeHostSlots(), std::int64_t{4});
        QCOMPARE(b.find(7)->resident_tokens, std::int64_t{33});

        // A restored prefix is kept; a hybrid resume's replayed tail grows after it.
        QVERIFY(!b.grow(7, 38, &p));
        QCOMPARE(p.start, std::int64_t{33});
        QCOMPARE(p.count, std::int64_t{5});
        // Dropped (evicted by recompute), the context is rebuilt from 0.
        b.drop(7);
        QVERIFY(b.find(7) == nullptr);
        QVERIFY(!b.grow(7, 38, &p));
        QCOMPARE(p.start, std::int64_t{0});
        QCOMPARE(p.count, std::int64_t{38});
        QCOMPARE(b.find(7)->device_blocks.size(), std::size_t{3});

        b.release(7);
        b.release(8);
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{10});
        QCOMPARE(b.trackedRequests(), std::int64_t{0});
    }

    void bookkeeperHybridAndLimits() {
        LiveBookkeeper b(4, 1, 16);
        PrefillStep p;
        QVERIFY(!b.grow(1, 64, &p));
        QVERIFY(b.grow(2, 1, &p)->find("needs 1 more blocks, 0 free") != std::string::npos);
        QVERIFY(b.find(2) && b.find(2)->device_blocks.empty()); // failed grow took nothing
        SwapStep s;
        QVERIFY(!b.swapOut(1, 16, &s)); // hybrid: one block to the host, the other three dropped
        QCOMPARE(s.device_blocks.size(), std::size_t{1});
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{4});
        QVERIFY(!b.grow(3, 64, &p));
        QVERIFY(b.swapIn(1, &s)->find("to swap in") != std::string::npos);
        b.release(3);
        QVERIFY(!b.swapIn(1, &s));
        QVERIFY(!b.grow(1, 64, &p));
        QCOMPARE(p.start, std::int64_t{16});
        QCOMPARE(p.count, std::int64_t{48});
        QCOMPARE(b.find(1)->device_blocks.size(), std::size_t{4});
        QVERIFY(b.grow(4, 1, &p).has_value()); // arena full
    }

    void bookkeeperEvictTimeReplayUsesScratch() {
        // core/engine.cpp calls swapOut/dropAndReplay when it evicts and swapIn when it resumes.
        LiveBookkeeper b(8, 4, 16);
        PrefillStep p;
        QVERIFY(!b.grow(1, 64, &p));
        QVERIFY(!b.replayScratch(1, 64, &p)); // recompute evict: KV dropped, 4 scratch blocks lent
        QCOMPARE(p.start, std::int64_t{0});
        QCOMPARE(p.count, std::int64_t{64});
        QCOMPARE(p.block_table.size(), std::size_t{4});
        QVERIFY(b.find(1) == nullptr);
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{4});
        b.releaseScratch();
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{8});
        QVERIFY(!b.grow(1, 70, &p)); // resume: the context grows again and is rebuilt from 0
        QCOMPARE(p.start, std::int64_t{0});
        QCOMPARE(p.count, std::int64_t{70});
        // Hybrid evict: prefix to the host, the tail measured on scratch; the host copy survives.
        SwapStep s;
        QVERIFY(!b.swapOut(1, 32, &s));
        QVERIFY(!b.replayScratch(1, 38, &p));
        QCOMPARE(b.find(1)->host_tokens, std::int64_t{32});
        b.releaseScratch();
        QVERIFY(!b.swapIn(1, &s));
        QVERIFY(!b.grow(1, 70, &p));
        QCOMPARE(p.start, std::int64_t{32});
        // Evicted by recompute right after a swap-in, before growing (adaptive can): the restored prefix is
        // dropped too, and the replay is measured on scratch from position 0.
        QVERIFY(!b.swapOut(1, 64, &s)); // the four host slots' worth
        QVERIFY(!b.swapIn(1, &s));
        QCOMPARE(b.find(1)->resident_tokens, std::int64_t{64});
        QVERIFY(!b.replayScratch(1, 70, &p));
        QCOMPARE(p.start, std::int64_t{0});
        QCOMPARE(p.count, std::int64_t{70});
        QVERIFY(b.find(1) == nullptr);
        b.releaseScratch();
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{8});
        QVERIFY(!b.grow(1, 70, &p));
        b.release(1);
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{8});
        QCOMPARE(b.freeHostSlots(), std::int64_t{4});
        QVERIFY(b.replayScratch(2, 9 * 16, &p).has_value()); // more than the arena: refused
    }

    void bookkeeperThousandsOfCyclesLeaveNothingBehind() {
        LiveBookkeeper b(64, 32, 16);
        PrefillStep p;
        SwapStep s;
        for (std::int32_t i = 0; i < 5000; ++i) {
            const std::int32_t r = i % 7;
            QVERIFY(!b.grow(r, 1 + (i * 13) % 120, &p));
            if (i % 3 == 0) {
                QVERIFY(!b.swapOut(r, 1000, &s));
                QVERIFY(!b.swapIn(r, &s));
            } else if (i % 3 == 1) {
                b.drop(r);
                QVERIFY(!b.grow(r, 1 + i % 50, &p));
            }
            if (i % 5 == 4) {
                b.release(r);
            }
        }
        for (std::int32_t r = 0; r < 7; ++r) {
            b.release(r);
        }
        QCOMPARE(b.freeDeviceBlocks(), std::int64_t{64});
        QCOMPARE(b.freeHostSlots(), std::int64_t{32});
        QCOMPARE(b.trackedRequests(), std::int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestLiveBookkeeping)
#include "test_live_bookkeeping.moc"
