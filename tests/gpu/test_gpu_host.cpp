// Host-only parts of live mode, on the CPU: arena layout, copy plans, model shapes, the CPU reference
// transformer and calibration fitting (synthetic measurements with known answers). Block pools and the live
// backend's bookkeeping: test_live_bookkeeping.cpp.
#include "calibrated_rates.h"
#include "calibration.h"
#include "copy_plan.h"
#include "cost/model_preset.h"
#include "device_memory.h"
#include "kv_layout.h"
#include "reference_model.h"
#include "synthetic.h"
#include "transformer_shape.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

using namespace pl::gpu;

namespace {

KvShape llama8bShape(std::int64_t blocks) {
    return kvShapeOf(*findTransformerPreset("llama-3.1-8b"), 16, blocks, KvDtype::Bf16);
}

// Every byte a plan touches, as (src, dst) pairs, to compare plans by what they move.
std::set<std::pair<std::int64_t, std::int64_t>> bytesMoved(const std::vector<CopySpan>& plan) {
    std::set<std::pair<std::int64_t, std::int64_t>> s;
    for (const auto& c : plan) {
        for (std::int64_t i = 0; i < c.bytes; ++i) {
            s.insert({c.src_offset + i, c.dst_offset + i});
        }
    }
    return s;
}

// A calibration whose derived rates are known by hand: gather at 16-token blocks costs 4 us + bytes / 50 GB/s
// out and 6.5 us + bytes / 25 GB/s in; prefill from position 0 costs 130 + 0.5 T + 1e-4 T^2 us.
Calibration handCalibration() {
    Calibration c;
    c.device_name = "SYNTHETIC (test)";
    c.model = "llama-3.1-8b";
    c.kv_bytes_per_token = 131072;
    c.kv_dtype = "bf16";
    for (std::int64_t blocks : {1, 4, 16, 64}) {
        const std::int64_t bytes = blocks * 16 * 131072;
        const double b = static_cast<double>(bytes);
        c.swaps.push_back({"gather", "d2h", 16, blocks, bytes, 0, 4.0 + b / 50000.0});
        c.swaps.push_back({"gather", "h2d", 16, blocks, bytes, 0, 6.5 + b / 25000.0});
    }
    for (std::int64_t t : {512, 1024, 2048, 4096}) {
        const double T = static_cast<double>(t);
        c.prefills.push_back({t, 130.0 + 0.5 * T + 1e-4 * T * T, 0.0});
    }
    fitCalibration(c);
    return c;
}

bool writeText(const QString& path, const std::string& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text.data(), static_cast<qint64>(text.size())) ==
                                               static_cast<qint64>(text.size());
}

} // namespace

class TestGpuHost : public QObject {
    Q_OBJECT
  private slots:
    void layoutOfLlama8b() {
        const KvLayout l(llama8bShape(100));
        QVERIFY(!KvLayout::check(l.shape()));
        QCOMPARE(l.tokenBytes(), std::int64_t{8 * 128 * 2});
        QCOMPARE(l.chunkBytes(), std::int64_t{32768}); // the seed's 32 KiB per-block copy
        QCOMPARE(l.kvBytesPerToken(), std::int64_t{131072});
        QCOMPARE(l.blockBytes(), std::int64_t{2 * 1024 * 1024});
        QCOMPARE(l.totalBytes(), 100 * l.blockBytes());
        QCOMPARE(l.chunkOffset(0, 0, 1), std::int64_t{32768});
        QCOMPARE(l.chunkOffset(0, 1, 0), 100 * std::int64_t{32768});
        QCOMPARE(l.chunkOffset(1, 0, 0), 2 * 100 * std::int64_t{32768});
        QCOMPARE(l.chunkOffset(31, 1, 99) + l.chunkBytes(), l.totalBytes());
        // Element index agrees with chunk offsets and walks [slot][head][dim] inside a chunk.
        QCOMPARE(l.elementIndex(3, 1, 7, 0, 0, 0) * l.elementBytes(), l.chunkOffset(3, 1, 7));
        QCOMPARE(l.elementIndex(3, 1, 7, 1, 0, 0) - l.elementIndex(3, 1, 7, 0, 0, 0), std::int64_t{8 * 128});
        QCOMPARE(l.elementIndex(3, 1, 7, 0, 1, 0) - l.elementIndex(3, 1, 7, 0, 0, 0), std::int64_t{128});
        QCOMPARE(l.blocksForTokens(0), std::int64_t{0});
        QCOMPARE(l.blocksForTokens(16), std::int64_t{1});
        QCOMPARE(l.blocksForTokens(17), std::int64_t{2});
        KvShape fp8 = l.shape();
        fp8.dtype = KvDtype::Fp8E4M3;
        QCOMPARE(KvLayout(fp8).chunkBytes(), std::int64_t{16384});
    }

    void layoutRejectsBadShapes() {
        KvShape s = llama8bShape(10);
        s.head_dim = 0;
        auto e = KvLayout::check(s);
        QVERIFY(e && e->find("head_dim") != std::string::npos);
        s = llama8bShape(10);
        s.kv_heads = 1;
        s.head_dim = 8;
        s.block_size = 1;
        s.dtype = KvDtype::Fp8E4M3; // 8-byte chunks cannot be moved in 16-byte vectors
        e = KvLayout::check(s);
        QVERIFY(e && e->find("multiple of 16") != std::string::npos);
        s = llama8bShape(1 << 20);
        s.layers = 1 << 20;
        QVERIFY(KvLayout::check(s).has_value());
    }

    void perBlockPlanIsBlocksTimesLayersTimesTwo() {
        const KvLayout dev(llama8bShape(64));
        const KvLayout host(llama8bShape(32));
        const std::vector<std::int64_t> blocks{5, 9, 2, 40};
        const std::vector<std::int64_t> hostIds{0, 1, 2, 3};
        QVERIFY(!checkBlockLists(dev, host, blocks, hostIds));
        const auto plan = perBlockPlan(dev, host, blocks, hostIds, CopyDirection::DeviceToHost);
        QCOMPARE(plan.size(), std::size_t{4 * 32 * 2});
        QCOMPARE(planBytes(plan), 4 * dev.blockBytes());
        QCOMPARE(plan[0], (CopySpan{dev.chunkOffset(0, 0, 5), host.chunkOffset(0, 0, 0), 32768}));
        QCOMPARE(plan[4], (CopySpan{dev.chunkOffset(0, 1, 5), host.chunkOffset(0, 1, 0), 32768}));
        const auto back = perBlockPlan(dev, host, blocks, hostIds, CopyDirection::HostToDevice);
        QCOMPARE(back[0], (CopySpan{host.chunkOffset(0, 0, 0), dev.chunkOffset(0, 0, 5), 32768}));
    }

    void coalescingMergesContiguousRuns() {
        KvShape small{2, 1, 8, 2, 16, KvDtype::Bf16}; // 32-byte chunks keep the byte sets small
        const KvLayout dev(small);
        small.num_blocks = 8;
        const KvLayout host(small);
        const std::vector<std::int64_t> blocks{3, 4, 5, 9, 10, 0};
        const std::vector<std::int64_t> hostIds{0, 1, 2, 3, 4, 7};
        const auto runs = blockRuns(blocks, hostIds);
        QCOMPARE(runs.size(), std::size_t{3});
        QCOMPARE(runs[0].count, std::int64_t{3});
        QCOMPARE(runs[1].device, std::int64_t{9});
        QCOMPARE(runs[1].count, std::int64_t{2});
        for (auto dir : {CopyDirection::DeviceToHost, CopyDirection::HostToDevice}) {
            const auto coalesced = coalescedPlan(dev, host, blocks, hostIds, dir);
            const auto perBlock = perBlockPlan(dev, host, blocks, hostIds, dir);
            QCOMPARE(coalesced.size(), std::size_t{3 * 2 * 2});
            QCOMPARE(perBlock.size(), std::size_t{6 * 2 * 2});
            QCOMPARE(planBytes(coalesced), planBytes(perBlock));
            QCOMPARE(bytesMoved(coalesced), bytesMoved(perBlock)); // same bytes to the same places
        }
        // A fully contiguous victim costs layers x 2 copies, whatever its length.
        const std::vector<std::int64_t> all{0, 1, 2, 3, 4, 5, 6, 7};
        QCOMPARE(coalescedPlan(dev, host, all, all, CopyDirection::DeviceToHost).size(), std::size_t{4});
    }

    void blockListsAreChecked() {
        const KvLayout dev(llama8bShape(4));
        const KvLayout host(llama8bShape(2));
        QVERIFY(checkBlockLists(dev, host, {0, 1}, {0})->find("host slots") != std::string::npos);
        QVERIFY(checkBlockLists(dev, host, {4}, {0})->find("device block [0] = 4") != std::string::npos);
        QVERIFY(checkBlockLists(dev, host, {0}, {2})->find("host slot [0] = 2") != std::string::npos);
        KvShape other = llama8bShape(2);
        other.block_size = 32;
        QVERIFY(checkBlockLists(dev, KvLayout(other), {0}, {0}).has_value());
    }

    void effectiveBandwidthArithmetic() {
        QCOMPARE(gigabytesPerSecond(50000, 1.0), 50.0);
        QCOMPARE(gigabytesPerSecond(1, 0.0), 0.0);
        // The seed's per-block collapse: 32 KiB at 5 us fixed cost over a 50 GB/s link is 5.8 GB/s.
        const double us = 5.0 + 32768.0 / 50000.0;
        QVERIFY(std::fabs(gigabytesPerSecond(32768, us) - 5.794) < 0.001);
    }

    void referenceTransformerIsCausalAndDeterministic() {
        // The CPU transformer the selftest's "model" check compares the device with (reference_model.h).
        QCOMPARE(roundToBf16(1.0f), 1.0f);
        // bf16 keeps 7 fraction bits: near 1 a step is 1/128, half a step 1/256.
        QCOMPARE(roundToBf16(1.0f + 1.0f / 512.0f), 1.0f);                // below half a step: down
        QCOMPARE(roundToBf16(1.0f + 1.0f / 256.0f), 1.0f);                // a tie goes to even (down)
        QCOMPARE(roundToBf16(1.0f + 3.0f / 256.0f), 1.0f + 1.0f / 64.0f); // a tie goes to even (up)
        QCOMPARE(roundToBf16(-2.5f), -2.5f);
        const TransformerShape tiny = *findTransformerPreset("tiny");
        const ReferenceKv full = referencePrefill(tiny, 4242, 48);
        const ReferenceKv head = referencePrefill(tiny, 4242, 20);
        QCOMPARE(full.values.size(), static_cast<std::size_t>(tiny.layers * 2 * 48 * tiny.kv_heads * tiny.head_dim));
        double maxAbs = 0.0, layerDiff = 0.0;
        for (std::int64_t l = 0; l < tiny.layers; ++l) {
            for (int kv = 0; kv < 2; ++kv) {
                for (std::int64_t p = 0; p < 48; ++p) {
                    for (std::int64_t h = 0; h < tiny.kv_heads; ++h) {
                        for (std::int64_t d = 0; d < tiny.head_dim; ++d) {
                            const float v = full.at(l, kv, p, h, d);
                            QVERIFY(std::isfinite(v));
                            QCOMPARE(v, roundToBf16(v)); // stored as the arena stores it
                            maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(v)));
                            if (p < 20) {
                                QVERIFY(head.at(l, kv, p, h, d) == v); // later tokens change nothing before them (bitwise)
                            }
                            if (l == 1) {
                                layerDiff = std::max(layerDiff, static_cast<double>(std::fabs(v - full.at(0, kv, p, h, d))));
                            }
                        }
                    }
                }
            }
        }
        QVERIFY2(maxAbs > 0.1 && maxAbs < 100.0, std::to_string(maxAbs).c_str());
        QVERIFY(layerDiff > 0.01); // layers have their own weights
        // Another request (seed) has other tokens, so other K/V from the first position on.
        const ReferenceKv other = referencePrefill(tiny, 4243, 1);
        QVERIFY(other.at(0, 0, 0, 0, 0) != full.at(0, 0, 0, 0, 0) || other.at(0, 1, 0, 0, 1) != full.at(0, 1, 0, 0, 1));
        // One token alone: the same K/V as the first position of the longer prefill.
        const ReferenceKv one = referencePrefill(tiny, 4242, 1);
        QCOMPARE(one.at(1, 1, 0, 1, 7), full.at(1, 1, 0, 1, 7));
    }

    void transformerShapes() {
        const auto llama = *findTransformerPreset("llama-3.1-8b");
        QVERIFY(!checkShape(llama));
        QCOMPARE(weightParams(llama), std::int64_t{6979321856});
        // Per token at 4K context the seed counts 2N + 4 x layers x heads x head_dim x L/2 (N without embeddings).
        const double perToken = prefillFlops(llama, 0, 4096) / 4096.0;
        const double seed = 2.0 * 6979321856.0 + 524288.0 * 4097.0 / 2.0;
        QVERIFY(std::fabs(perToken - seed) / seed < 1e-12);
        QCOMPARE(prefillFlops(llama, 100, 1) - prefillFlops(llama, 0, 1), 524288.0 * 100.0);
        TransformerShape bad = llama;
        bad.heads = 30;
        QVERIFY(checkShape(bad)->find("kv_heads") != std::string::npos);
        std::string note;
        QCOMPARE(shapeForKvBytes(131072, &note).name, std::string("llama-3.1-8b"));
        QCOMPARE(shapeForKvBytes(524288, &note).name, std::string("llama-2-7b")); // 32 layers of 32 KV heads
        // The 70B's KV (327,680 B/token) gets the synthetic shape: its weights (127.5 GiB) only by name.
        const auto seventy = shapeForKvBytes(327680, &note);
        QCOMPARE(seventy.name, std::string("synthetic-80x8x128"));
        QVERIFY(2 * weightParams(seventy) < kMaxAutoWeightBytes);
        const auto tiny = shapeForKvBytes(512, &note);
        QCOMPARE(2 * tiny.layers * tiny.kv_heads * tiny.head_dim * 2, std::int64_t{512});
        QVERIFY(!checkShape(tiny));
        const auto odd = shapeForKvBytes(10000, &note);
        QCOMPARE(odd.layers, std::int64_t{3}); // 12,288 B/token: rounded up to whole 4,096-byte layers
        QVERIFY(note.find("no preset") != std::string::npos);
    }

    // Live mode runs every model the cost model prices (live-plan --model and breakeven --model take the same
    // names), with the same KV shape, and parameters near the published count (embeddings excluded here).
    void presetsMatchTheCostModel() {
        for (const auto& spec : pl::cost::modelPresets()) {
            const auto shape = findTransformerPreset(spec.name);
            QVERIFY2(shape.has_value(), spec.name.c_str());
            QVERIFY2(!checkShape(*shape), spec.name.c_str());
            QCOMPARE(shape->layers, spec.layers);
            QCOMPARE(shape->heads, spec.heads);
            QCOMPARE(shape->kv_heads, spec.kv_heads);
            QCOMPARE(shape->head_dim, spec.head_dim);
            const double ratio = static_cast<double>(weightParams(*shape)) / spec.params;
            QVERIFY2(ratio > 0.85 && ratio <= 1.0, qPrintable(QStringLiteral("%1: %2").arg(spec.name.c_str()).arg(ratio)));
        }
        QCOMPARE(transformerPresets().size(), pl::cost::modelPresets().size() + 1); // and "tiny"
    }

    // A setup that cannot fit is refused before any allocation, with what it needs and what is free.
    void deviceMemoryIsCheckedFirst() {
        DeviceSetup setup;
        setup.model = *findTransformerPreset("llama-3.1-70b");
        setup.arena = kvShapeOf(setup.model, 16, 768, KvDtype::Bf16);
        setup.with_model = true;
        const DeviceMemoryNeed need = deviceMemoryNeed(setup);
        QCOMPARE(need.arena_bytes, std::int64_t{768} * 16 * 327680);
        QCOMPARE(need.weight_bytes, 2 * weightParams(setup.model));
        const std::int64_t gib = std::int64_t{1} << 30;
        QVERIFY(need.total() > 120 * gib && need.total() < 135 * gib); // over an H100's 80 GB, under an H200's 141
        const auto tooSmall = deviceMemoryShortfall(setup, 79 * gib, "NVIDIA H100 80GB HBM3");
        QVERIFY(tooSmall.has_value());
        for (const char* part : {"live mode needs ", "llama-3.1-70b weights ", "arena 3.75 GiB",
                                 "NVIDIA H100 80GB HBM3 has 79.00 GiB free", "--model"}) {
            QVERIFY2(tooSmall->find(part) != std::string::npos, tooSmall->c_str());
        }
        QVERIFY(!deviceMemoryShortfall(setup, 139 * gib, "NVIDIA H200"));
        // The scratch reserve counts: exactly enough for arena and weights is not enough.
        QVERIFY(deviceMemoryShortfall(setup, need.total(), "d").has_value());
        QVERIFY(!deviceMemoryShortfall(setup, need.total() + kScratchReserveBytes, "d"));
        setup.with_model = false; // swap-only (calibration's copy sweeps): the arena alone
        QCOMPARE(deviceMemoryNeed(setup).total(), need.arena_bytes);
        QVERIFY(deviceMemoryShortfall(setup, 2 * gib, "d")->find("weights") == std::string::npos);
    }

    void syntheticDataIsDeterministicAndInRange() {
        // The device kernels and the selftest's CPU reference share these functions: pin their values.
        QCOMPARE(mix32(0u), 0u);
        QCOMPARE(mix32(1u), mix32(1u));
        QVERIFY(mix32(1u) != mix32(2u));
        std::set<std::uint32_t> tokens;
        float lo = 1.0f, hi = -1.0f;
        for (std::int64_t pos = 0; pos < 2000; ++pos) {
            const std::uint32_t t = syntheticToken(7, pos);
            QVERIFY(t < kVocab);
            tokens.insert(t);
            const float e = embeddingValue(t, pos % 64);
            lo = std::min(lo, e);
            hi = std::max(hi, e);
            const float w = weightValue(3, pos, 0.125f);
            QVERIFY(w >= -0.125f && w < 0.125f);
        }
        QVERIFY(lo >= -1.0f && hi < 1.0f && lo < -0.9f && hi > 0.9f);
        QVERIFY(tokens.size() > 1900); // 2,000 positions over a 32,000-token vocabulary rarely collide
        QVERIFY(syntheticToken(7, 5) != syntheticToken(8, 5) || syntheticToken(7, 6) != syntheticToken(8, 6));
    }

    void linearAndQuadraticFitsRecoverKnownAnswers() {
        std::vector<double> x{1, 2, 4, 8, 16}, y;
        for (double v : x) {
            y.push_back(3.0 + 0.5 * v);
        }
        auto f = fitLinear(x, y);
        QVERIFY(f);
        QVERIFY(std::fabs(f->intercept - 3.0) < 1e-9);
        QVERIFY(std::fabs(f->slope - 0.5) < 1e-12);
        QVERIFY(std::fabs(f->r2 - 1.0) < 1e-12);
        QVERIFY(!fitLinear({1, 1}, {2, 3}));
        // A copy's fixed cost is never negative: a positive intercept stays, a negative one gives the best line
        // through the origin (sum xy / sum x^2), which is what a copy measured with noise at small sizes needs.
        auto kept = fitLinearNonNegative(x, y);
        QVERIFY(kept && std::fabs(kept->intercept - 3.0) < 1e-9 && std::fabs(kept->slope - 0.5) < 1e-12);
        const std::vector<double> bx{1, 2, 3}, by{1.5, 4.5, 6.5}; // OLS: intercept -0.667, slope 2.5
        QVERIFY(fitLinear(bx, by)->intercept < 0.0);
        auto origin = fitLinearNonNegative(bx, by);
        QVERIFY(origin);
        QCOMPARE(origin->intercept, 0.0);
        QVERIFY(std::fabs(origin->slope - (1.5 + 9.0 + 19.5) / 14.0) < 1e-12);
        QVERIFY(origin->r2 > 0.9 && origin->r2 < 1.0);
        std::vector<double> t{512, 1024, 2048, 4096, 8192}, u;
        for (double v : t) {
            u.push_back(150.0 + 0.3 * v + 2e-5 * v * v);
        }
        auto q = fitQuadratic(t, u);
        QVERIFY(q);
        QVERIFY(std::fabs(q->c0 - 150.0) < 1e-6);
        QVERIFY(std::fabs(q->c1 - 0.3) < 1e-9);
        QVERIFY(std::fabs(q->c2 - 2e-5) < 1e-13);
        QVERIFY(!fitQuadratic({1, 2, 2}, {1, 2, 3}));
    }

    void calibrationFitsSwapBandwidthAndEfficiency() {
        Calibration c;
        c.device_name = "synthetic";
        for (std::int64_t blocks : {1, 4, 16, 64}) {
            const std::int64_t bytes = blocks * 2 * 1024 * 1024;
            // per-block: 10 us fixed and 25 GB/s; gather: 4 us and 50 GB/s.
            c.swaps.push_back({"per-block", "d2h", 16, blocks, bytes, blocks * 64, 10.0 + static_cast<double>(bytes) / 25000.0});
            c.swaps.push_back({"gather", "d2h", 16, blocks, bytes, 0, 4.0 + static_cast<double>(bytes) / 50000.0});
        }
        c.swaps.push_back({"reference", "d2h", 0, 0, 1 << 30, 1, (1 << 30) / 55000.0});
        c.prefills = {{512, 1000, 0}, {1024, 2100, 0}, {2048, 4400, 0}};
        fitCalibration(c);
        QCOMPARE(c.swap_fits.size(), std::size_t{2});
        for (const SwapFit& f : c.swap_fits) {
            const bool gather = f.method == "gather";
            QVERIFY(std::fabs(f.fixed_us - (gather ? 4.0 : 10.0)) < 1e-6);
            QVERIFY(std::fabs(f.bandwidth_gbps - (gather ? 50.0 : 25.0)) < 1e-9);
        }
        QVERIFY(c.prefill_fit);
        const double eff = efficiencyVsReference(c, "gather", "d2h", 16);
        const double bytes = 64.0 * 2 * 1024 * 1024;
        QVERIFY(std::fabs(eff - (bytes / (4.0 + static_cast<double>(bytes) / 50000.0)) / 55000.0) < 1e-12);
        QCOMPARE(efficiencyVsReference(c, "gather", "h2d", 16), 0.0); // no reference that way
        QCOMPARE(datasheetBf16Tflops("NVIDIA H200"), 989.4);
        QCOMPARE(datasheetBf16Tflops("NVIDIA GeForce GTX 1080"), 0.0);
    }

    void calibrationJsonRoundTripAndErrors() {
        Calibration c;
        c.device_name = "NVIDIA H200";
        c.compute_capability = "9.0";
        c.model = "llama-3.1-8b";
        c.kv_bytes_per_token = 131072;
        c.kv_dtype = "bf16";
        c.swaps = {{"batched", "h2d", 16, 4, 8388608, 64, 200.0}, {"batched", "h2d", 16, 8, 16777216, 64, 380.0}};
        c.prefills = {{512, 900.0, 7.2e12}};
        fitCalibration(c);
        const auto j = toJson(c);
        QCOMPARE(j["format"].get<std::string>(), std::string(kCalibrationFormat));
        Calibration back;
        QVERIFY(!fromJson(j, back));
        QCOMPARE(back.device_name, c.device_name);
        QCOMPARE(back.swaps.size(), std::size_t{2});
        QCOMPARE(back.swap_fits.size(), std::size_t{1});
        QCOMPARE(back.swap_fits[0].bandwidth_gbps, c.swap_fits[0].bandwidth_gbps);
        auto broken = j;
        broken["measurements"]["swap"][1]["bytes"] = "many";
        auto e = fromJson(broken, back);
        QVERIFY(e);
        QCOMPARE(*e, std::string("/measurements/swap/1/bytes: must be an integer"));
        broken = j;
        broken["format"] = "other";
        QVERIFY(fromJson(broken, back)->find("/format") == 0);
    }

    void calibrationReaderIsStrict() {
        const auto good = toJson(handCalibration());
        Calibration back;
        QVERIFY(!fromJson(good, back));
        const struct {
            const char* pointer;
            nlohmann::json value;
            const char* expected;
        } cases[] = {
            {"/measurements/swap/3/us", -1.0, "/measurements/swap/3/us: must be a finite number above 0, got -1.0"},
            {"/measurements/swap/0/method", "memcpy",
             "/measurements/swap/0/method: must be one of per-block, batched, gather, reference, got \"memcpy\""},
            {"/measurements/swap/1/direction", "d2d",
             "/measurements/swap/1/direction: must be one of d2h, h2d, got \"d2d\""},
            {"/measurements/swap/2/bytes", 0, "/measurements/swap/2/bytes: must be an integer from 1 to "
                                              "9223372036854775807, got 0"},
            {"/measurements/swap/2/block_size", 0,
             "/measurements/swap/2/block_size: must be at least 1 for a gather swap (0 only for the reference copy)"},
            {"/measurements/prefill/1/tokens", 2.5, "/measurements/prefill/1/tokens: must be an integer"},
            {"/model/kv_bytes_per_token", -4, "/model/kv_bytes_per_token: must be an integer from 1 to "
                                              "9223372036854775807, got -4"},
            {"/device/colour", "blue", "/device/colour: unknown member"},
            {"/fits/swap", "none", "/fits/swap: must be an array"},
            {"/measurements", nlohmann::json::array(), "/measurements: must be an object"},
        };
        for (const auto& c : cases) {
            auto broken = good;
            broken[nlohmann::json::json_pointer(c.pointer)] = c.value;
            const auto e = fromJson(broken, back);
            QVERIFY2(e, c.pointer);
            QCOMPARE(QString::fromStdString(*e), QString::fromLatin1(c.expected));
        }
        auto missing = good;
        missing["measurements"].erase("prefill");
        QCOMPARE(QString::fromStdString(*fromJson(missing, back)), QStringLiteral("/measurements/prefill: missing"));
        QCOMPARE(QString::fromStdString(*fromJson(nlohmann::json::array(), back)), QStringLiteral("/: must be an object"));
    }

    void calibrationFileErrorsNameTheFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string missing = dir.filePath(QStringLiteral("absent.json")).toStdString();
        auto r = loadCalibrationFile(missing);
        QVERIFY(std::holds_alternative<std::string>(r));
        QCOMPARE(std::get<std::string>(r), missing + ": cannot open: No such file or directory");
        r = loadCalibrationFile(dir.path().toStdString());
        QCOMPARE(std::get<std::string>(r), dir.path().toStdString() + ": is a folder, not a calibration file");
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        const std::string badName = bad.toStdString();
        auto refused = [&](const std::string& text) {
            if (!writeText(bad, text)) return std::string("(not written)");
            auto loaded = loadCalibrationFile(badName);
            return std::holds_alternative<std::string>(loaded) ? std::get<std::string>(loaded) : std::string("(loaded)");
        };
        QVERIFY2(refused("{\"format\": ").rfind(badName + ": line 1, column 12: invalid JSON", 0) == 0,
                 refused("{\"format\": ").c_str());
        QCOMPARE(refused("\n"),
                 badName + ": the file is empty (a preemptlab.calibration.v1 JSON document was expected)");
        // The strict reader's refusals: a number past a double (nlohmann's own parse threw out_of_range and the
        // CLI aborted), a NUL byte (it ended the input there), a duplicate key (the last one won).
        auto over = toJson(handCalibration());
        over["measurements"]["prefill"][0]["us"] = 12345.0;
        std::string overText = over.dump();
        overText.replace(overText.find("12345.0"), 7, "1e999");
        QVERIFY2(refused(overText).rfind(badName + ": line 1, column ", 0) == 0, refused(overText).c_str());
        const std::string nul = refused(std::string("{}\0garbage", 10));
        QVERIFY2(nul == badName + ": line 1, column 3: invalid JSON: a NUL byte (JSON text holds none)", nul.c_str());
        QVERIFY2(refused("{\"format\": 1, \"format\": 2}").find("/format") != std::string::npos,
                 refused("{\"format\": 1, \"format\": 2}").c_str());
        auto j = toJson(handCalibration());
        j["measurements"]["prefill"][0]["us"] = 0;
        QVERIFY(writeText(bad, j.dump()));
        r = loadCalibrationFile(bad.toStdString());
        QCOMPARE(QString::fromStdString(std::get<std::string>(r)),
                 bad + QStringLiteral(": /measurements/prefill/0/us: must be a finite number above 0, got 0"));
        // The committed example says it is synthetic, and its fits are the formulas it was made from.
        r = loadCalibrationFile(PREEMPTLAB_SOURCE_DIR "/samples/synthetic.calibration.json");
        if (const auto* e = std::get_if<std::string>(&r)) QFAIL(e->c_str());
        const Calibration& c = std::get<Calibration>(r);
        QVERIFY(c.device_name.rfind("SYNTHETIC - not a measurement", 0) == 0);
        const auto gather = swapFitsOf(c, "gather", 8);
        QVERIFY(gather);
        QVERIFY(std::fabs(gather->first.fixed_us - 5.0) < 1e-6 && std::fabs(gather->first.bandwidth_gbps - 51.2) < 1e-9);
        QVERIFY(std::fabs(gather->second.fixed_us - 6.0) < 1e-6 && std::fabs(gather->second.bandwidth_gbps - 25.6) < 1e-9);
        QVERIFY(std::fabs(c.prefill_fit->c1 - 30.0) < 1e-6 && std::fabs(c.prefill_fit->c2 - 0.0005) < 1e-12);
    }

    void ratesFromAHandCalibration() {
        const Calibration c = handCalibration();
        RatesRequest q;
        q.block_size_tokens = 16;
        q.kv_bytes_per_token = 1000;
        q.context_tokens = 1000;
        q.tick_us = 7000.0;
        const auto result = deriveRates(c, q);
        QVERIFY(std::holds_alternative<CalibratedRates>(result));
        const auto& r = std::get<CalibratedRates>(result);
        // By hand: C = 1000 x 1000 B; out 4 + 1e6 / 5e4 = 24 us; in 6.5 + 1e6 / 2.5e4 = 46.5 us;
        // floor(7000 x 2e6 / 70.5) = floor(198,581,560.28). Replay p(1000) = 130 + 500 + 100 = 730 us;
        // floor(7000 x 1000 / 730) = floor(9589.04).
        QCOMPARE(r.swap_bytes, 1e6);
        QVERIFY(std::fabs(r.swap_out_us - 24.0) < 1e-6);
        QVERIFY(std::fabs(r.swap_in_us - 46.5) < 1e-6);
        QCOMPARE(r.transfer_bytes_per_tick, std::int64_t{198581560});
        QVERIFY(std::fabs(r.replay_us - 730.0) < 1e-6);
        QCOMPARE(r.prefill_tokens_per_tick, std::int64_t{9589});
        QVERIFY(std::fabs(r.effective_gbps - 2e6 / 70.5 / 1e3) < 1e-9);
        // 1000 tokens x 1000 B is inside the measured copy sizes? No: the smallest copy was 2 MiB; both
        // directions say so, and the KV size differs from the model's.
        QCOMPARE(r.notes.size(), std::size_t{3});
        QVERIFY(r.notes[0].find("gather d2h is extrapolated") == 0);
        QVERIFY(r.notes[2].find("prefill was measured on llama-3.1-8b (131072 B") == 0);
        const std::string text = describeRates(c, q, r);
        QVERIFY(text.find("transfer_bytes_per_tick = 198581560 = floor(tick x 2 x bytes / (out + in))\n") !=
                std::string::npos);
        QVERIFY(text.find("prefill_tokens_per_tick = 9589 = floor(tick x L / replay)\n") != std::string::npos);
        QVERIFY(text.find("d2h 4.000 us + bytes / 50.000 GB/s") != std::string::npos);
        QVERIFY(text.find("note: prefill was measured") != std::string::npos);
        // Deterministic: the same inputs give the same rates and text.
        QCOMPARE(describeRates(c, q, std::get<CalibratedRates>(deriveRates(c, q))), text);
        // Inside the measured range, with the model's own KV size, there is nothing to note.
        q.kv_bytes_per_token = 131072;
        q.context_tokens = 512;
        QVERIFY(std::get<CalibratedRates>(deriveRates(c, q)).notes.empty());
    }

    void ratesRefuseWhatTheyCannotPrice() {
        const Calibration c = handCalibration();
        RatesRequest q{16, 1000, 1000, 7000.0, "gather"};
        auto fieldOf = [&](RatesRequest r) {
            const auto out = deriveRates(c, r);
            return std::holds_alternative<RatesError>(out) ? std::get<RatesError>(out) : RatesError{};
        };
        RatesRequest other = q;
        other.block_size_tokens = 32;
        const RatesError e = fieldOf(other);
        QCOMPARE(e.field, std::string("block_size_tokens"));
        QVERIFY2(e.reason.find("it has: gather at 16") != std::string::npos, e.reason.c_str());
        other = q;
        other.method = "batched";
        QCOMPARE(fieldOf(other).field, std::string("block_size_tokens"));
        other.method = "memcpy";
        QCOMPARE(fieldOf(other).field, std::string("method"));
        other = q;
        other.tick_us = 1e-6; // a picosecond moves no byte
        QCOMPARE(fieldOf(other).field, std::string("tick"));
        other.tick_us = 0.0;
        QCOMPARE(fieldOf(other).field, std::string("tick"));
        other = q;
        other.context_tokens = 0;
        QCOMPARE(fieldOf(other).field, std::string("context"));
        Calibration noPrefill = c;
        noPrefill.prefill_fit.reset();
        QCOMPARE(std::get<RatesError>(deriveRates(noPrefill, q)).field, std::string("prefill"));
    }

    void measuredBreakevenIsWhereTheCurvesMeet() {
        const Calibration c = handCalibration();
        // With 20,000 B per token: swap round trip per token 10.5 / L + 20000 x (1/50 + 1/25) / 1e3 = 10.5 / L + 1.2,
        // replay per token 130 / L + 0.5 + 1e-4 L. Equal where 1e-4 L^2 - 0.7 L + 119.5 = 0:
        // L = (0.7 -+ sqrt(0.4422)) / 2e-4 = 175.094 and 6824.906.
        const auto roots = measuredBreakevenContexts(c, "gather", 16, 20000);
        QCOMPARE(roots.size(), std::size_t{2});
        QVERIFY(std::fabs(roots[0] - 175.0939863) < 1e-4);
        QVERIFY(std::fabs(roots[1] - 6824.9060137) < 1e-4);
        for (double L : roots) {
            const double swap = *measuredSwapUsPerToken(c, "gather", 16, 20000, L);
            const double rec = *measuredRecomputeUsPerToken(c, L);
            QVERIFY(std::fabs(swap - rec) < 1e-6 * swap);
        }
        // Between them the replay is cheaper (at 1,000 tokens 0.73 vs 1.2105 us per token), outside swap is.
        QVERIFY(std::fabs(*measuredRecomputeUsPerToken(c, 1000) - 0.73) < 1e-9);
        QVERIFY(std::fabs(*measuredSwapUsPerToken(c, "gather", 16, 20000, 1000) - 1.2105) < 1e-9);
        // With the model's own 1,000 B per token swap is cheaper at every length: no crossover.
        QVERIFY(measuredBreakevenContexts(c, "gather", 16, 1000).empty());
        QVERIFY(measuredBreakevenContexts(c, "per-block", 16, 1000).empty()); // no such fit
        QVERIFY(!measuredSwapUsPerToken(c, "per-block", 16, 1000, 100));
    }
};

QTEST_GUILESS_MAIN(TestGpuHost)
#include "test_gpu_host.moc"
