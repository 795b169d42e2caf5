// Host-only parts of live mode, on the CPU: arena layout, copy plans, model shapes and the CPU reference
// transformer. Block pools and the live backend's bookkeeping: test_live_bookkeeping.cpp; the calibration's
// fits and rates (core): tests/core/cost/test_calibration.cpp.
#include "gpu/copy_plan.h"
#include "core/cost/model_preset.h"
#include "gpu/device_memory.h"
#include "gpu/kv_layout.h"
#include "gpu/no_device.h"
#include "gpu/reference_model.h"
#include "gpu/synthetic.h"
#include "gpu/transformer_shape.h"

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

    // The one sentence for "no device" (the CLI's and the lab's): CUDA finding none reads "no NVIDIA GPU found"
    // with the CUDA error; any other failure keeps its own words after "no usable CUDA device".
    void noDeviceTextNamesTheMissingGpu() {
        QCOMPARE(pl::gpu::noDeviceText("cudaGetDeviceCount: cudaErrorInsufficientDriver: CUDA driver version is "
                                       "insufficient for CUDA runtime version"),
                 std::string("no NVIDIA GPU found (cudaGetDeviceCount: cudaErrorInsufficientDriver: CUDA driver "
                             "version is insufficient for CUDA runtime version)"));
        QCOMPARE(pl::gpu::noDeviceText("cudaGetDeviceCount: no CUDA device"),
                 std::string("no NVIDIA GPU found (cudaGetDeviceCount: no CUDA device)"));
        QCOMPARE(pl::gpu::noDeviceText("cudaSetDevice: cudaErrorDevicesUnavailable: CUDA-capable device(s) is/are busy"),
                 std::string("no usable CUDA device: cudaSetDevice: cudaErrorDevicesUnavailable: CUDA-capable device(s) "
                             "is/are busy"));
        QCOMPARE(pl::gpu::noDeviceText("built without CUDA"), std::string("no usable CUDA device: built without CUDA"));
    }
};

QTEST_GUILESS_MAIN(TestGpuHost)
#include "test_gpu_host.moc"
