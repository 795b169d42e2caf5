#include "gpu/calibration_run.h"

#include "gpu/kv_layout.h"

#include <algorithm>
#include <ostream>

namespace pl::gpu {

double medianOf(std::vector<double> v) {
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

int prefillRepetitions(int repetitions) {
    const int n = std::max(3, repetitions / 2);
    return n % 2 == 1 ? n : n + 1;
}

namespace {

// A measurement that failed: kept for the CLI and logged where it happened, the rest going on.
void fail(std::vector<std::string>& failures, std::ostream& log, std::string what, const char* note = "") {
    failures.push_back(std::move(what));
    log << "FAILED " << failures.back() << note << "\n";
}

// Times `once` reps times after one untimed warm-up; the median, or the first error.
template <typename F>
std::optional<std::string> timed(int reps, double* median, F&& once) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        double us = 0;
        if (auto e = once(&us)) {
            return e;
        }
        if (r > 0) {
            t.push_back(us); // the first run is a warm-up
        }
    }
    *median = medianOf(std::move(t));
    return std::nullopt;
}

void measurePrefill(const CalibrateOptions& o, const TransformerShape& shape, CalibrationDevice& dev,
                    cost::Calibration& c, std::ostream& log, std::vector<std::string>& failures) {
    if (o.prefill_tokens.empty()) {
        return;
    }
    const std::int64_t maxTokens = *std::max_element(o.prefill_tokens.begin(), o.prefill_tokens.end());
    if (auto e = dev.openPrefill(shape, maxTokens)) {
        fail(failures, log, "prefill model " + shape.name + ": " + *e);
        return;
    }
    if (auto e = dev.gemmTflops(8192, &c.gemm_tflops)) {
        fail(failures, log, "cuBLAS BF16 GEMM 8192^3: " + *e);
    } else {
        log << "cuBLAS BF16 GEMM 8192^3: " << c.gemm_tflops << " TFLOP/s (datasheet " << c.peak_bf16_tflops << ")\n";
    }
    for (std::int64_t tokens : o.prefill_tokens) {
        double us = 0;
        if (auto e = timed(prefillRepetitions(o.repetitions), &us,
                           [&](double* once) { return dev.prefill(tokens, once); })) {
            fail(failures, log, "prefill " + std::to_string(tokens) + ": " + *e);
            continue;
        }
        cost::PrefillSample p{tokens, us, prefillFlops(shape, 0, tokens)};
        const double tflops = p.flops / p.us / 1e6;
        log << "prefill " << tokens << " tokens: " << p.us << " us, " << tflops << " TFLOP/s";
        if (c.peak_bf16_tflops > 0) {
            log << " (" << 100.0 * tflops / c.peak_bf16_tflops << "% of datasheet dense BF16)";
        }
        log << "\n";
        c.prefills.push_back(p);
    }
}

void measureSwaps(const CalibrateOptions& o, const TransformerShape& shape, CalibrationDevice& dev,
                  cost::Calibration& c, std::ostream& log, std::vector<std::string>& failures,
                  const std::function<void()>& save) {
    const std::int64_t maxBlocks = *std::max_element(o.copy_blocks.begin(), o.copy_blocks.end());
    bool referenceDone = false;
    for (std::int64_t bs : o.block_sizes) {
        if (auto e = dev.openSwaps(shape, bs, maxBlocks)) {
            fail(failures, log, "block size " + std::to_string(bs) + ": " + *e);
            continue;
        }
        c.kv_bytes_per_token = dev.kvBytesPerToken(); // the arena's own figure (the same shape)
        if (!referenceDone) {
            referenceDone = true;
            for (CopyDirection dir : {CopyDirection::DeviceToHost, CopyDirection::HostToDevice}) {
                const std::int64_t bytes = dev.hostPoolBytes();
                double us = 0;
                if (auto e = timed(o.repetitions, &us, [&](double* once) { return dev.referenceCopy(dir, bytes, once); })) {
                    fail(failures, log, std::string("reference ") + toString(dir) + ": " + *e);
                    continue;
                }
                cost::SwapSample s{"reference", toString(dir), 0, 0, bytes, 1, us};
                log << "reference " << s.direction << " " << bytes << " B: " << s.us << " us, "
                    << gigabytesPerSecond(bytes, s.us) << " GB/s\n";
                c.swaps.push_back(s);
            }
        }
        for (SwapMethod m : {SwapMethod::PerBlock, SwapMethod::Batched, SwapMethod::Gather}) {
            if (m == SwapMethod::Batched && !dev.batchMemcpy()) {
                log << "batched: skipped, cudaMemcpyBatchAsync needs CUDA 12.8 or later (runtime "
                    << dev.runtimeVersion() << ")\n";
                continue;
            }
            for (CopyDirection dir : {CopyDirection::DeviceToHost, CopyDirection::HostToDevice}) {
                for (std::int64_t n : o.copy_blocks) {
                    std::vector<std::int64_t> blocks, hostSlots;
                    for (std::int64_t i = 0; i < n; ++i) {
                        blocks.push_back(2 * i); // every other block: a fragmented pool, nothing coalesces
                        hostSlots.push_back(i);
                    }
                    double us = 0;
                    std::int64_t copies = 0;
                    if (auto e = timed(o.repetitions, &us, [&](double* once) {
                            return dev.swap(m, dir, blocks, hostSlots, once, &copies);
                        })) {
                        fail(failures, log,
                             std::string(toString(m)) + " " + toString(dir) + " block_size " + std::to_string(bs) +
                                 " x" + std::to_string(n) + ": " + *e,
                             " (its larger copies are skipped)");
                        break;
                    }
                    cost::SwapSample s{std::string(toString(m)), toString(dir), bs, n, n * dev.blockBytes(), copies, us};
                    log << s.method << " " << s.direction << " block_size " << bs << " x" << n << " (" << s.bytes
                        << " B, " << copies << " copies): " << s.us << " us, " << gigabytesPerSecond(s.bytes, s.us)
                        << " GB/s\n";
                    c.swaps.push_back(s);
                }
            }
        }
        save(); // this block size's swaps
    }
}

} // namespace

std::vector<std::string> measureCalibration(const CalibrateOptions& o, const TransformerShape& shape,
                                            CalibrationDevice& dev, cost::Calibration& c, std::ostream& log,
                                            const CalibrationCheckpoint& checkpoint) {
    std::vector<std::string> failures;
    c.model = shape.name;
    c.kv_dtype = "bf16";
    // From the model, not from a swap arena: a file whose swaps all failed must still read back (>= 1).
    c.kv_bytes_per_token = KvLayout(kvShapeOf(shape, 16, 1, KvDtype::Bf16)).kvBytesPerToken();
    const auto save = [&] {
        if (!checkpoint || (c.swaps.empty() && c.prefills.empty())) {
            return;
        }
        cost::Calibration sofar = c;
        cost::fitCalibration(sofar);
        checkpoint(sofar);
    };
    measurePrefill(o, shape, dev, c, log, failures);
    save();
    if (!o.copy_blocks.empty() && !o.block_sizes.empty()) {
        measureSwaps(o, shape, dev, c, log, failures, save);
    }
    cost::fitCalibration(c);
    for (const cost::SwapFit& f : c.swap_fits) {
        log << "fit " << f.method << " " << f.direction << " block_size " << f.block_size << ": " << f.fixed_us
            << " us + bytes / " << f.bandwidth_gbps << " GB/s (r2 " << f.r2 << "), largest copy at "
            << 100.0 * cost::efficiencyVsReference(c, parseSwapMethod(f.method).value_or(SwapMethod::Gather), f.direction,
                                                   f.block_size)
            << "% of the reference\n";
    }
    for (const std::string& line : cost::targetReport(c)) {
        log << line << "\n";
    }
    return failures;
}

CalibrationEnd calibrationEnd(const cost::Calibration& c, const std::vector<std::string>& failures) {
    if (c.swaps.empty() && c.prefills.empty()) {
        return CalibrationEnd::Nothing;
    }
    return failures.empty() ? CalibrationEnd::Complete : CalibrationEnd::Partial;
}

} // namespace pl::gpu
