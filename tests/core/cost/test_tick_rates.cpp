// Hardware-grounded tick rates (core/cost/tick_rates.h) against hand-computed cases.
#include "core/cost/tick_rates.h"

#include <QtTest>

#include <cmath>

using namespace pl::cost;

namespace {

TickRatesInputs seed() {
    TickRatesInputs in;
    in.cost.model = *findModelPreset("llama-3.1-8b");
    in.cost.hardware = *findHardwarePreset("h100-sxm");
    in.cost.link_gbps = 50.0;
    return in;
}

} // namespace

class TestTickRates : public QObject {
    Q_OBJECT
  private slots:
    void decodeStepTick() {
        const auto r = std::get<TickRates>(computeTickRates(seed()));
        const double step = (16.06e9 + 64.0 * 2048 * 131072) / 3.35e12 * 1e6; // 9,922.3 us
        QVERIFY(std::abs(r.tick_us - step) < 1e-6);
        QCOMPARE(r.block_size_tokens, 16);
        QCOMPARE(r.kv_bytes_per_token, 131072);
        const double rec = (2 * 8.03e9 + 524288.0 * 2048) / (989e12 * 0.5) * 1e6;
        QCOMPARE(r.prefill_tokens_per_tick, static_cast<std::int64_t>(std::floor(step / rec))); // 286
        QCOMPARE(r.prefill_tokens_per_tick, 286);
        QCOMPARE(r.transfer_bytes_per_tick, static_cast<std::int64_t>(std::floor(step * 1e-6 * 50e9)));
        QVERIFY(r.capacity_blocks.has_value());
        // (80 GB x 0.9 - 16.06 GB) / (16 x 131,072 B) = 26,674 blocks
        QCOMPARE(*r.capacity_blocks, 26674);
    }

    void explicitTickAndCopyPath() {
        auto in = seed();
        in.tick_us = 1000.0;
        in.cost.copy_overhead_us = 5.0;
        const auto r = std::get<TickRates>(computeTickRates(in));
        QCOMPARE(r.prefill_tokens_per_tick, 28); // 1000 / 34.65
        // 1 ms at 5.79 GB/s effective (32 KiB copies, 5 us each)
        QCOMPARE(r.transfer_bytes_per_tick,
                 static_cast<std::int64_t>(std::floor(1e-3 * 32768 / (5e-6 + 32768 / 50e9))));
    }

    void tensorParallelShard() {
        auto in = seed();
        in.cost.model = *findModelPreset("llama-3.1-70b");
        in.cost.tp = 4;
        in.tick_us = 10000.0;
        const auto r = std::get<TickRates>(computeTickRates(in));
        QCOMPARE(r.kv_bytes_per_token, 81920);
        // (80e9 x 0.9 - 70.6e9 x 2 / 4) / (16 x 81,920)
        QCOMPARE(*r.capacity_blocks, static_cast<std::int64_t>(std::floor((72e9 - 35.3e9) / (16.0 * 81920))));
    }

    void errorsNameTheField() {
        auto in = seed();
        in.tick_us = 1.0; // less than one token of prefill
        auto err = std::get<CostInputError>(computeTickRates(in));
        QCOMPARE(err.field, std::string("tick-us"));
        in = seed();
        in.cost.model = *findModelPreset("llama-3.1-70b");
        in.cost.hardware = *findHardwarePreset("l40s"); // 141 GB of weights on a 48 GB card
        err = std::get<CostInputError>(computeTickRates(in));
        QCOMPARE(err.field, std::string("hbm-gb"));
        in = seed();
        in.memory_utilization = 0.0;
        QCOMPARE(std::get<CostInputError>(computeTickRates(in)).field, std::string("mem-util"));
        in = seed();
        in.cost.mfu = 2.0;
        QCOMPARE(std::get<CostInputError>(computeTickRates(in)).field, std::string("mfu"));
        in = seed();
        in.cost.hardware.memory_gb = 0.0; // unknown memory: no capacity figure, not an error
        QVERIFY(!std::get<TickRates>(computeTickRates(in)).capacity_blocks);
    }
};

QTEST_APPLESS_MAIN(TestTickRates)
#include "test_tick_rates.moc"
