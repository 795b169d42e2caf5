// Cost model formulas against hand-computed cases and seed 004's worked numbers (docs/cost-model.md).
#include "core/cost/cost_model.h"
#include "core/cost/cost_report.h"

#include <QtTest>

#include <cmath>

using namespace pl::cost;

namespace {

bool near(double got, double want, double rel = 1e-9) {
    return std::abs(got - want) <= rel * std::max(std::abs(want), 1e-300);
}
#define QNEAR(got, want, rel)                                                                                \
    QVERIFY2(near((got), (want), (rel)),                                                                      \
             qPrintable(QStringLiteral("%1 = %2, expected %3").arg(#got).arg((got), 0, 'g', 12).arg((want), 0, 'g', 12)))

double round1(double v) { return std::round(v * 10.0) / 10.0; }

// Seed 004's scenario: Llama 3.1 8B, BF16, H100 SXM at 50% MFU, 50 GB/s achieved, 4K context.
CostInputs seedInputs() {
    CostInputs in;
    in.model = *findModelPreset("llama-3.1-8b");
    in.hardware = *findHardwarePreset("h100-sxm");
    in.mfu = 0.5;
    in.link_gbps = 50.0;
    in.context = 4096;
    in.batch = 64;
    in.decode_context = 2048;
    return in;
}

constexpr double kFeff = 989e12 * 0.5;
constexpr double kRec8b = (2 * 8.03e9 + 524288.0 * 2048) / kFeff * 1e6; // 34.6486 us

} // namespace

class TestCostModel : public QObject {
    Q_OBJECT
  private slots:
    // The structured report: a title, every figure as a row in the CLI's order, the verdict; the text is made
    // from exactly these (test_cost_cli pins the text's bytes).
    void reportRows() {
        const CostInputs in = seedInputs();
        const CostOutputs out = computeCost(in);
        const CostReport report = costReport(in, out);
        QVERIFY(QString::fromStdString(report.title).startsWith(QStringLiteral("Llama 3.1 8B on H100 SXM")));
        QStringList labels;
        for (const auto& row : report.rows) {
            labels << QString::fromStdString(row.label);
            QVERIFY(!row.value.empty());
        }
        QCOMPARE(labels, (QStringList{"KV per token", "copy path", "link", "swap", "recompute", "break-even link",
                                      "break-even context", "break-even MFU", "spare compute"}));
        QCOMPARE(report.verdicts.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(report.verdicts[0]), QStringLiteral("verdict: ") + QString::fromStdString(out.reason));
        const std::string text = costReportText(report);
        QCOMPARE(text, costReportText(in, out));
        QVERIFY(text.find("  KV per token        " + report.rows[0].value + "\n") != std::string::npos);
    }

    void kvBytesOfPresets() {
        QCOMPARE(kvBytesPerToken(*findModelPreset("llama-3.1-8b")), 131072);  // 2 x 32 x 8 x 128 x 2
        QCOMPARE(kvBytesPerToken(*findModelPreset("llama-3.1-70b")), 327680); // 2 x 80 x 8 x 128 x 2
        QCOMPARE(kvBytesPerToken(*findModelPreset("llama-2-7b")), 524288);    // 2 x 32 x 32 x 128 x 2
        QCOMPARE(kvBytesPerToken(*findModelPreset("mistral-7b")), 131072);    // 2 x 32 x 8 x 128 x 2
        QCOMPARE(kvBytesPerToken(*findModelPreset("qwen2.5-7b")), 57344);     // 2 x 28 x 4 x 128 x 2
        auto fp8 = *findModelPreset("llama-3.1-8b");
        fp8.kv_dtype_bytes = *parseDtypeBytes("fp8");
        QCOMPARE(kvBytesPerToken(fp8), 65536);
        QCOMPARE(attentionFlopPerPair(*findModelPreset("llama-3.1-8b")), 524288.0); // 4 x 32 x 32 x 128
        QVERIFY(!findModelPreset("gpt-5"));
        QVERIFY(!parseDtypeBytes("bf17"));
        QVERIFY(!parseDtypeBytes("0"));
        QCOMPARE(*parseDtypeBytes("4"), 4);
    }

    void hardwarePresets() {
        const auto h100 = *findHardwarePreset("h100-sxm");
        QCOMPARE(h100.bf16_tflops, 989.0);
        QCOMPARE(h100.hbm_tbps, 3.35);
        QCOMPARE(h100.link_gbps, 64.0); // PCIe Gen5 x16, one direction
        QVERIFY(findHardwarePreset("h200") && findHardwarePreset("a100-80gb") && findHardwarePreset("l40s"));
        QVERIFY(!findHardwarePreset("h100"));
        for (const auto& h : pl::cost::hardwarePresets()) {
            CostInputs in = seedInputs();
            in.hardware = h;
            in.link_gbps = 0.0; // falls back to the paper figure
            QVERIFY2(!validateCostInputs(in), qPrintable(QString::fromStdString(h.name)));
            QCOMPARE(computeCost(in).link_gbps, h.link_gbps);
        }
    }

    void seedHeadline() {
        const auto out = computeCost(seedInputs());
        QCOMPARE(out.kv_bytes_per_token, 131072);
        QNEAR(out.swap_us_per_token, 2.0 * 131072 / 50e9 * 1e6, 1e-12);
        QNEAR(out.recompute_us_per_token, kRec8b, 1e-12);
        QCOMPARE(round1(out.swap_us_per_token), 5.2);
        // Exactly 34.649 us; the seed writes 34.7 (34.65 rounded up), so allow the seed's rounding.
        QVERIFY(std::abs(out.recompute_us_per_token - 34.7) < 0.06);
        QCOMPARE(std::round(out.recompute_us_per_token * 100.0) / 100.0, 34.65);
        QVERIFY(out.breakeven_effective_gbps.has_value());
        QCOMPARE(round1(*out.breakeven_effective_gbps), 7.6);
        QNEAR(*out.breakeven_link_gbps, *out.breakeven_effective_gbps, 1e-12); // no per-copy overhead
        QCOMPARE(out.effective_link_gbps, 50.0);
        QCOMPARE(out.verdict, std::string("swap"));
        QVERIFY(out.reason.find("5.24 us/token") != std::string::npos);
        QVERIFY(out.reason.find("34.65 us/token") != std::string::npos);
        QVERIFY(!out.breakeven_context_tokens); // at 50 GB/s swap is cheaper at every length
        QVERIFY(!out.breakeven_mfu);            // recompute would need 330% MFU
        QCOMPARE(round1(out.recompute_us_per_token / out.swap_us_per_token), 6.6);
    }

    void effectiveBandwidthOfSmallCopies() {
        // one copy = 16 tokens x 8 kv_heads x 128 x 2 B = 32 KiB
        auto in = seedInputs();
        in.copy_overhead_us = 5.0;
        auto out = computeCost(in);
        QCOMPARE(out.copy_bytes, 32768);
        QNEAR(out.effective_link_gbps, 32768 / (5e-6 + 32768 / 50e9) / 1e9, 1e-12);
        QCOMPARE(round1(out.effective_link_gbps), 5.8);
        in.copy_overhead_us = 10.0;
        out = computeCost(in);
        QCOMPARE(round1(out.effective_link_gbps), 3.1);
        QCOMPARE(out.verdict, std::string("recompute"));
        QVERIFY(out.reason.rfind("recompute:", 0) == 0);
        // At 10 us per copy the link alone cannot reach 7.6 GB/s: 32 KiB / 7.57 GB/s = 4.33 us < 10 us.
        QVERIFY(!out.breakeven_link_gbps);
        // 1 us per copy: the raw link must give c / (c / B* - o).
        in.copy_overhead_us = 1.0;
        out = computeCost(in);
        QVERIFY(out.breakeven_link_gbps.has_value());
        QNEAR(*out.breakeven_link_gbps, 32768 / (32768 / (*out.breakeven_effective_gbps * 1e9) - 1e-6) / 1e9, 1e-12);
        QNEAR(effectiveBandwidthGbps(32768, *out.breakeven_link_gbps, 1.0), *out.breakeven_effective_gbps, 1e-9);
    }

    void breakevenContextLengths() {
        const auto in = seedInputs();
        // (2 x 131,072 x 494.5e12 / B - 16.06e9) / 262,144
        const auto at4 = breakevenContextAt(in, 4.0);
        const auto at3 = breakevenContextAt(in, 3.0);
        QVERIFY(at4 && at3);
        QNEAR(*at4, (2.0 * 131072 * kFeff / 4e9 - 16.06e9) / 262144, 1e-12);
        QNEAR(*at4, 62000.0, 0.01);  // the seed's "62,000"
        QNEAR(*at3, 104000.0, 0.01); // the seed's "104,000"
        QVERIFY(!breakevenContextAt(in, 50.0));
        // At the break-even length the two per-token costs agree.
        auto tied = in;
        tied.link_gbps = 4.0;
        tied.context = static_cast<std::int64_t>(std::llround(*at4));
        QNEAR(swapUsPerToken(tied, *at4), recomputeUsPerToken(tied, *at4), 1e-9);
        // And the output field uses the effective link: 5 us per copy -> 5.79 GB/s -> 24,081 tokens.
        auto slow = in;
        slow.copy_overhead_us = 5.0;
        const auto out = computeCost(slow);
        QVERIFY(out.breakeven_context_tokens.has_value());
        QNEAR(*out.breakeven_context_tokens, 24080.673828125, 1e-6);
    }

    void spareCompute() {
        const auto out = computeCost(seedInputs());
        // (16.06e9 B weights + 64 x 2048 x 131,072 B KV) / 3.35 TB/s = 9.92 ms
        QNEAR(out.decode_step_us, (16.06e9 + 64.0 * 2048 * 131072) / 3.35e12 * 1e6, 1e-12);
        QCOMPARE(std::round(out.decode_step_us / 10.0) / 100.0, 9.92);
        QCOMPARE(std::llround(std::floor(out.compute_capacity_tokens)), 611LL);
        QCOMPARE(std::llround(std::floor(out.spare_compute_tokens)), 547LL);
        QNEAR(out.spare_compute_tokens_at_mfu, out.compute_capacity_tokens * 0.5 - 64, 1e-12);
        // A compute-bound case has no spare tokens (never negative).
        auto big = seedInputs();
        big.batch = 100000;
        big.decode_context = 0;
        QCOMPARE(computeCost(big).spare_compute_tokens, 0.0);
    }

    void mhaRaisesBreakevenFourfold() {
        auto mha = seedInputs();
        mha.model.kv_heads = 32; // the same architecture with MHA
        const auto gqa = computeCost(seedInputs());
        const auto out = computeCost(mha);
        QCOMPARE(out.kv_bytes_per_token, 4 * gqa.kv_bytes_per_token);
        QNEAR(*out.breakeven_effective_gbps, 4.0 * *gqa.breakeven_effective_gbps, 1e-12);
        QCOMPARE(std::round(*out.breakeven_effective_gbps), 30.0); // "about 30 GB/s"
        // Llama 2 7B itself (N = 6.74e9): 2 x 524,288 x 494.5e12 / (13.48e9 + 524,288 x 2,048) = 35.6 GB/s.
        auto l2 = seedInputs();
        l2.model = *findModelPreset("llama-2-7b");
        QNEAR(*computeCost(l2).breakeven_effective_gbps, 35.6280081281178, 1e-9);
    }

    void tensorParallel() {
        // 70B on TP=4: each GPU moves 2 x 80 x 2 x 128 x 2 = 81,920 B per token and does 2N/4 FLOP.
        auto in = seedInputs();
        in.model = *findModelPreset("llama-3.1-70b");
        in.tp = 4;
        auto out = computeCost(in);
        QCOMPARE(out.kv_bytes_per_token, 327680);
        QCOMPARE(out.kv_bytes_per_token_per_gpu, 81920);
        QCOMPARE(round1(out.swap_us_per_token), 3.3);
        QNEAR(out.recompute_weights_us_per_token, 2 * 70.6e9 / 4 / kFeff * 1e6, 1e-12);
        QCOMPARE(std::round(out.recompute_weights_us_per_token), 71.0); // the seed's "71 us" (weights term)
        QNEAR(out.recompute_us_per_token, (2 * 70.6e9 / 4 + 4.0 * 80 * 16 * 128 * 2048) / kFeff * 1e6, 1e-12);
        // Uneven split: 8 KV heads over 16 GPUs -> each holds ceil(8/16) = 1 (replicated) head.
        in.tp = 16;
        out = computeCost(in);
        QCOMPARE(out.kv_bytes_per_token_per_gpu, 2 * 80 * 1 * 128 * 2);
        // 3 KV heads over 2 GPUs: the slowest shard holds 2.
        auto odd = seedInputs();
        odd.model.kv_heads = 3;
        odd.model.heads = 6;
        odd.tp = 2;
        QCOMPARE(computeCost(odd).kv_bytes_per_token_per_gpu, 2 * 32 * 2 * 128 * 2);
        // TP=2 halves both per-GPU costs of the 8B when the heads split evenly.
        auto tp2 = seedInputs();
        tp2.tp = 2;
        const auto one = computeCost(seedInputs());
        const auto two = computeCost(tp2);
        QNEAR(two.swap_us_per_token, one.swap_us_per_token / 2, 1e-12);
        QNEAR(two.recompute_us_per_token, one.recompute_us_per_token / 2, 1e-12);
        QCOMPARE(two.copy_bytes, one.copy_bytes / 2);
    }

    void copyGranularity() {
        auto in = seedInputs();
        in.copy_overhead_us = 5.0;
        auto out = computeCost(in);
        QCOMPARE(out.copies_per_block, 64);        // 2 x 32 layers
        QCOMPARE(out.copies_per_swap, 256 * 64);   // 4096 / 16 blocks
        in.layout = CopyLayout::Together;
        out = computeCost(in);
        QCOMPARE(out.copy_bytes, 65536);
        QCOMPARE(out.copies_per_block, 32);
        QCOMPARE(out.copies_per_swap, 256 * 32);
        QNEAR(out.effective_link_gbps, 10.384868921454286, 1e-9);
        in.block_size = 32; // bigger blocks, bigger copies
        QCOMPARE(computeCost(in).copy_bytes, 131072);
        QCOMPARE(computeCost(in).copies_per_swap, 128 * 32);
        // Batched: one copy of the whole request; its overhead is shared by every token.
        in = seedInputs();
        in.layout = CopyLayout::Batched;
        in.copy_overhead_us = 10.0;
        out = computeCost(in);
        QCOMPARE(out.copy_bytes, std::int64_t{4096} * 131072);
        QCOMPARE(out.copies_per_swap, 1);
        QNEAR(out.swap_us_per_token, 2.0 * (10.0 + 4096.0 * 131072 / 50e3) / 4096, 1e-12);
        // Batched with overhead always has a break-even: short requests pay the fixed cost per token.
        in.link_gbps = 64.0;
        out = computeCost(in);
        QVERIFY(out.breakeven_context_tokens.has_value());
        const double L = *out.breakeven_context_tokens;
        QVERIFY(L > 0 && L < 100);
        // Exact check on the continuous form: 2o/L + 2b/B == (2N + aL/2)/F.
        const double swapCont = 2.0 * 10e-6 / L + 2.0 * 131072 / 64e9;
        const double recCont = (2 * 8.03e9 + 524288.0 * L / 2) / kFeff;
        QNEAR(swapCont, recCont, 1e-9);
        QVERIFY(parseCopyLayout("together") == CopyLayout::Together);
        QVERIFY(!parseCopyLayout("interleaved"));
    }

    void breakevenMfu() {
        auto in = seedInputs();
        in.copy_overhead_us = 10.0; // recompute wins; at what MFU would it tie?
        const auto out = computeCost(in);
        QVERIFY(out.breakeven_mfu.has_value());
        auto tied = in;
        tied.mfu = *out.breakeven_mfu;
        const auto t = computeCost(tied);
        QNEAR(t.swap_us_per_token, t.recompute_us_per_token, 1e-9);
    }

    void validation_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("field");
        QTest::newRow("kv-heads > heads") << 0 << "kv-heads";
        QTest::newRow("mfu 0") << 1 << "mfu";
        QTest::newRow("mfu 1.5") << 2 << "mfu";
        QTest::newRow("context 0") << 3 << "context";
        QTest::newRow("params NaN") << 4 << "params";
        QTest::newRow("tp 0") << 5 << "tp";
        QTest::newRow("negative overhead") << 6 << "copy-overhead-us";
        QTest::newRow("link 0") << 7 << "link-gbps";
        QTest::newRow("layers 0") << 8 << "layers";
        QTest::newRow("tp 3: 32 heads do not split in 3") << 9 << "tp";
        QTest::newRow("tp 16 over 6 KV heads") << 10 << "tp";
    }
    void validation() {
        QFETCH(int, which);
        QFETCH(QString, field);
        auto in = seedInputs();
        switch (which) {
        case 0: in.model.kv_heads = 64; break;
        case 1: in.mfu = 0.0; break;
        case 2: in.mfu = 1.5; break;
        case 3: in.context = 0; break;
        case 4: in.model.params = std::nan(""); break;
        case 5: in.tp = 0; break;
        case 6: in.copy_overhead_us = -1.0; break;
        case 7: in.link_gbps = 0.0; in.hardware.link_gbps = 0.0; break;
        case 8: in.model.layers = 0; break;
        case 9: in.tp = 3; break;
        case 10: in.tp = 16; in.model.kv_heads = 6; break;
        }
        const auto err = validateCostInputs(in);
        QVERIFY(err.has_value());
        QCOMPARE(QString::fromStdString(err->field), field);
        QVERIFY(!err->reason.empty());
        QVERIFY(!validateCostInputs(seedInputs()));
        auto replicated = seedInputs(); // 16 GPUs over Llama 3.1 8B's 8 KV heads: each head on two GPUs
        replicated.tp = 16;
        QVERIFY(!validateCostInputs(replicated));
    }

    void curves() {
        auto in = seedInputs();
        in.link_gbps = 4.0;
        const auto c = sampleCurves(in, 1024, 131072, 129);
        QCOMPARE(c.size(), std::size_t{129});
        QCOMPARE(c.front().context, 1024);
        QCOMPARE(c.back().context, 131072);
        int crossings = 0;
        for (std::size_t i = 0; i < c.size(); ++i) {
            QNEAR(c[i].recompute_us_per_token, recomputeUsPerToken(in, static_cast<double>(c[i].context)), 1e-12);
            QNEAR(c[i].swap_us_per_token, 2.0 * 131072 / 4e9 * 1e6, 1e-12);
            if (i > 0) {
                QVERIFY(c[i].context > c[i - 1].context);
                QVERIFY(c[i].recompute_us_per_token > c[i - 1].recompute_us_per_token);
                const bool before = c[i - 1].recompute_us_per_token < c[i - 1].swap_us_per_token;
                const bool after = c[i].recompute_us_per_token < c[i].swap_us_per_token;
                if (before != after) {
                    ++crossings;
                    QVERIFY(c[i - 1].context <= 62361 && c[i].context >= 62360);
                }
            }
        }
        QCOMPARE(crossings, 1);
        QCOMPARE(sampleCurves(in, 5, 5, 1).size(), std::size_t{1});
        QCOMPARE(sampleCurves(in, 0, -3, 0).front().context, 1); // clamped, never empty
    }
};

QTEST_APPLESS_MAIN(TestCostModel)
#include "test_cost_model.moc"
