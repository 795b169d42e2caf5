// The live run's whole call protocol on the CPU: the engine drives a BookkeepingLiveBackend (the backend a GPU
// run uses) whose device is a host fake that remembers, for every token slot of every arena block and host
// slot, which request's which position it holds. A prefill checks that the context it attends over
// (positions [0, start)) really is in the request's blocks before it writes the new positions; a swap copies
// the slots' contents. So a lost notification, a block handed to two requests, a swap of the wrong blocks or a
// leak fails here, where on the device it would fail the live run (or, worse, compute on the wrong K/V).
#include "gpu/live_backend_core.h"

#include "tests/core/engine_fixtures.h"

#include "core/engine.h"
#include "core/trace/generator.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include "tests/test_rng.h"

#include <QtTest>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

using namespace pl;
using namespace pl::gpu;

namespace {

// Arena and pool as tags (request seed << 32 | position) per token slot; -1 is empty.
class TagDevice final : public LiveDevice {
  public:
    TagDevice(const KvShape& arena, std::int64_t hostSlots)
        : arena_(arena), pool_([&] {
              KvShape p = arena;
              p.num_blocks = hostSlots;
              return p;
          }()),
          dev_(static_cast<std::size_t>(arena.num_blocks * arena.block_size), -1),
          host_(static_cast<std::size_t>(hostSlots * arena.block_size), -1) {}

    std::string name() const override { return "tag device"; }
    std::int64_t deviceBlocks() const override { return arena_.shape().num_blocks; }
    std::int64_t hostSlots() const override { return pool_.shape().num_blocks; }
    std::int64_t blockSize() const override { return arena_.shape().block_size; }
    std::int64_t blockBytes() const override { return arena_.blockBytes(); }

    std::optional<std::string> prefill(std::uint32_t seed, std::int64_t start, std::int64_t count,
                                       const std::vector<std::int64_t>& table, double* us) override {
        *us = static_cast<double>(count);
        if (auto e = checkPrefillTable(arena_, start, count, table)) {
            return e;
        }
        prefills += 1;
        for (std::int64_t p = 0; p < start; ++p) {
            if (at(table, p) != tag(seed, p)) {
                return "prefill of request seed " + std::to_string(seed) + " at " + std::to_string(start) +
                       ": position " + std::to_string(p) + " of its context is not in its blocks (slot holds " +
                       std::to_string(at(table, p)) + ")";
            }
        }
        for (std::int64_t p = start; p < start + count; ++p) {
            at(table, p) = tag(seed, p);
        }
        return std::nullopt;
    }

    std::optional<std::string> swap(SwapMethod, CopyDirection dir, const std::vector<std::int64_t>& blocks,
                                    const std::vector<std::int64_t>& hostIds, double* us) override {
        *us = static_cast<double>(blocks.size());
        if (auto e = checkBlockLists(arena_, pool_, blocks, hostIds)) {
            return e;
        }
        swaps += 1;
        const std::int64_t bs = blockSize();
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            for (std::int64_t k = 0; k < bs; ++k) {
                auto& d = dev_[static_cast<std::size_t>(blocks[i] * bs + k)];
                auto& h = host_[static_cast<std::size_t>(hostIds[i] * bs + k)];
                (dir == CopyDirection::DeviceToHost ? h : d) = (dir == CopyDirection::DeviceToHost ? d : h);
            }
        }
        return std::nullopt;
    }

    std::int64_t prefills = 0;
    std::int64_t swaps = 0;

  private:
    static std::int64_t tag(std::uint32_t seed, std::int64_t pos) {
        return (static_cast<std::int64_t>(seed) << 32) | pos;
    }
    std::int64_t& at(const std::vector<std::int64_t>& table, std::int64_t pos) {
        const std::int64_t bs = blockSize();
        return dev_[static_cast<std::size_t>(table[static_cast<std::size_t>(pos / bs)] * bs + pos % bs)];
    }

    KvLayout arena_;
    KvLayout pool_;
    std::vector<std::int64_t> dev_;
    std::vector<std::int64_t> host_;
};

// Runs `w` live on a TagDevice through the real backend and checks the protocol: no failed call, no error,
// everything released at the end, swaps as annotated, the simulation's event hash.
struct LiveTally {
    std::int64_t swaps = 0, replays = 0, censored = 0, prefixWorkloads = 0;
};

void runLiveChecked(const Workload& w, LiveTally* tally = nullptr) {
    std::string error;
    const auto sizing = sizeLiveRun(w, LiveOptions{}, &error);
    QVERIFY2(sizing.has_value(), error.c_str());
    auto owned = std::make_unique<TagDevice>(sizing->arena, sizing->host_slots);
    TagDevice* device = owned.get();
    BookkeepingLiveBackend backend(std::move(owned), SwapMethod::Gather, std::nullopt, sizing->note);

    const RunResult live = runWorkload(w, &backend);
    for (const LiveAnnotation& a : live.live) {
        QVERIFY2(a.ok, (a.kind + " of " + w.requests[static_cast<std::size_t>(a.request)].id + " at seq " +
                        std::to_string(a.seq) + ": " + a.error)
                           .c_str());
    }
    QVERIFY2(backend.lastError().empty(), backend.lastError().c_str());
    QVERIFY2(live.live_error.empty(), live.live_error.c_str());
    // Everything was given back: every request ended (completed or censored) and said so.
    QCOMPARE(backend.bookkeeper().trackedRequests(), std::int64_t{0});
    QCOMPARE(backend.bookkeeper().freeDeviceBlocks(), sizing->arena.num_blocks);
    QCOMPARE(backend.bookkeeper().freeHostSlots(), sizing->host_slots);
    // The device did the work the receipt describes, and the simulation is untouched.
    QVERIFY(device->prefills > 0);
    std::int64_t swapped = 0;
    for (const LiveAnnotation& a : live.live) {
        swapped += a.kind == "replay" ? 0 : 1;
    }
    QCOMPARE(device->swaps, swapped);
    QCOMPARE(receiptHashes(w, live).event_hash, receiptHashes(w, runWorkload(w)).event_hash);
    if (tally != nullptr) {
        tally->swaps += swapped;
        tally->replays += static_cast<std::int64_t>(live.live.size()) - swapped;
        tally->censored += live.totals.censored;
        tally->prefixWorkloads += sharesPrefixes(w) ? 1 : 0;
    }
}

} // namespace

class TestLiveProtocol : public QObject {
    Q_OBJECT

  private slots:
    void everySampleRunsLiveWithoutAFault_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("mode");
        const std::vector<std::string> paths = pltest::sampleFiles();
        QVERIFY(paths.size() >= 10);
        const std::pair<const char*, Recovery> modes[] = {{"recompute", Recovery::Recompute},
                                                          {"swap", Recovery::Swap},
                                                          {"hybrid", Recovery::Hybrid},
                                                          {"adaptive", Recovery::Adaptive}};
        for (const auto& p : paths) {
            const std::string stem = std::filesystem::path(p).filename().string();
            for (const auto& [name, mode] : modes) {
                QTest::newRow((stem.substr(0, stem.size() - 14) + "/" + name).c_str())
                    << QString::fromStdString(p) << static_cast<int>(mode);
            }
        }
    }

    void everySampleRunsLiveWithoutAFault() {
        QFETCH(QString, path);
        QFETCH(int, mode);
        Workload w = pltest::loadSampleFile(path.toStdString());
        w.policy.recovery = static_cast<Recovery>(mode);
        runLiveChecked(w);
    }

    void randomWorkloadsRunLiveWithoutAFault() {
        // Generated workloads on tight machines under every policy knob: censoring, host pools too small to
        // swap into, watermarks, preempt-ahead, both resume guards, hybrid shares, shared prefixes.
        pltest::XorShift rng(0x2545F4914F6CDD1Dull);
        auto pick = [&](std::uint64_t n) { return rng.below(n); };
        LiveTally tally;
        for (int world = 0; world < 60; ++world) {
            trace::GeneratorParams g;
            g.seed = static_cast<std::uint64_t>(world + 1);
            g.count = 20 + pick(40);
            g.rate_per_tick = 0.05 + 0.05 * static_cast<double>(pick(10));
            g.prompt_median = 64.0 + 32.0 * static_cast<double>(pick(8));
            g.prompt_max = 700;
            g.output_median = 16.0 + 8.0 * static_cast<double>(pick(8));
            g.output_max = 200;
            g.priority_mix = {{0, 2}, {1, 1}};
            g.tenant_mix = {{"a", 1}, {"b", 1}};
            if (pick(3) == 0) {
                g.prefix_groups = 1 + pick(3);
                g.prefix_tokens = 32 + 16 * pick(6);
                g.prefix_share_percent = 30 + pick(60);
            }
            Config& c = g.config;
            c.block_size_tokens = pick(2) == 0 ? 8 : 16;
            c.kv_bytes_per_token = 1024; // the tiny model: small tag arrays
            c.capacity_blocks = 100 + pick(150);
            c.prefill_tokens_per_tick = 16 + pick(96);
            c.transfer_bytes_per_tick = 1024 * (8 + pick(200));
            c.host_capacity_bytes = pick(4) == 0 ? 4096 * (1 + pick(8)) : std::int64_t{64} << 20;
            c.max_ticks = 300 + pick(3000);
            Policy& p = g.policy;
            p.recovery = static_cast<Recovery>(pick(4));
            p.victim_rule = static_cast<VictimRule>(pick(7));
            p.adaptive_tie = pick(2) == 0 ? AdaptiveTie::Recompute : AdaptiveTie::Swap;
            p.resume_guard = pick(2) == 0 ? ResumeGuard::FullReservation : ResumeGuard::NextBlock;
            p.watermark_blocks = pick(3) == 0 ? pick(8) : 0;
            p.preempt_ahead = pick(3) == 0;
            p.hybrid_swap_percent = pick(101);
            auto made = trace::generateWorkload(g);
            auto* w = std::get_if<Workload>(&made);
            if (w == nullptr) {
                QFAIL(std::get<InputError>(made).message().c_str());
            }
            runLiveChecked(*w, &tally);
            if (QTest::currentTestFailed()) {
                qInfo("world %d failed (generator seed %llu, recovery %d)", world,
                      static_cast<unsigned long long>(g.seed), static_cast<int>(p.recovery));
                return;
            }
        }
        // The worlds did exercise what they are for.
        qInfo("60 worlds: %lld swap copies, %lld replays, %lld censored requests, %lld sharing prefixes",
              static_cast<long long>(tally.swaps), static_cast<long long>(tally.replays),
              static_cast<long long>(tally.censored), static_cast<long long>(tally.prefixWorkloads));
        QVERIFY(tally.swaps > 100 && tally.replays > 100 && tally.censored > 0 && tally.prefixWorkloads > 5);
    }

    void selftestLeakCyclesHoldTogether() {
        // gpu-selftest's leak check (180 warm-up cycles, then 2,000) on the host device: every call succeeds,
        // every prefill finds its context, and the end leaves every block and slot free.
        const Workload w = leakCheckWorkload();
        std::string error;
        const auto sizing = sizeLiveRun(w, LiveOptions{}, &error);
        QVERIFY2(sizing.has_value(), error.c_str());
        QCOMPARE(sizing->model.name, std::string("tiny"));
        auto owned = std::make_unique<TagDevice>(sizing->arena, sizing->host_slots);
        TagDevice* device = owned.get();
        BookkeepingLiveBackend backend(std::move(owned), SwapMethod::Gather, std::nullopt, sizing->note);
        for (std::int64_t i = 0; i < 2180; ++i) {
            const std::string e = leakCheckCycle(backend, i);
            QVERIFY2(e.empty(), ("cycle " + std::to_string(i) + ": " + e).c_str());
        }
        leakCheckFinish(backend);
        QCOMPARE(backend.bookkeeper().trackedRequests(), std::int64_t{0});
        QCOMPARE(backend.bookkeeper().freeDeviceBlocks(), sizing->arena.num_blocks);
        QCOMPARE(backend.bookkeeper().freeHostSlots(), sizing->host_slots);
        QCOMPARE(device->swaps, std::int64_t{2 * 1090}); // out and in on every even cycle
    }

    void sharedPrefixesGetAnArenaOfTheirOwn() {
        // The device does not share blocks, so a prefix-sharing workload's arena is the dry run's peak: more
        // than the engine's pool, at most the pool plus every request's prefix blocks.
        const Workload shared = pltest::loadSample("generated-bursty-shared-prefix");
        std::string error;
        const auto s = sizeLiveRun(shared, LiveOptions{}, &error);
        QVERIFY2(s.has_value(), error.c_str());
        std::int64_t bound = shared.config.capacity_blocks;
        for (const auto& r : shared.requests) {
            bound += static_cast<std::int64_t>(r.prefix_blocks.size());
        }
        QVERIFY2(s->arena.num_blocks > shared.config.capacity_blocks && s->arena.num_blocks <= bound,
                 std::to_string(s->arena.num_blocks).c_str());
        QVERIFY2(s->note.find("shared prefixes kept per request") != std::string::npos, s->note.c_str());
        // Without prefix sharing the arena is the pool, and an unknown model is refused by name.
        const Workload plain = pltest::loadSample("swap-wins");
        const auto p = sizeLiveRun(plain, LiveOptions{}, &error);
        QVERIFY(p.has_value());
        QCOMPARE(p->arena.num_blocks, plain.config.capacity_blocks);
        LiveOptions bad;
        bad.model = "gpt-7";
        QVERIFY(!sizeLiveRun(plain, bad, &error));
        QVERIFY2(error.find("'gpt-7' is not a preset") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLiveProtocol)
#include "test_live_protocol.moc"
