#pragma once
// The order and bookkeeping of `preemptlab-cli calibrate`, apart from the device: what is measured, how often,
// the medians, and what happens when one measurement fails. Host-only, so it is tested on the CPU against a
// fake device; on CUDA builds calibrate.cpp drives it with a DeviceContext.
//
// Prefill is measured first (it does not need the swap arena and the prefill target rests on it), then, per
// block size, the reference copy (first block size only) and every method, direction and copy size. A failed
// measurement is logged and recorded; the rest go on (a method and direction that fails skips its larger
// copies; a block size whose arena cannot be made skips its swaps), so one refused call costs one figure,
// not the whole run.

#include "core/cost/calibration.h"
#include "gpu/copy_plan.h"
#include "gpu/device_options.h"
#include "gpu/transformer_shape.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

// What calibration measures with. Every call returns nullopt on success, else the error text.
class CalibrationDevice {
  public:
    virtual ~CalibrationDevice() = default;
    // The synthetic transformer for prefills of up to maxTokens (from position 0).
    virtual std::optional<std::string> openPrefill(const TransformerShape& shape, std::int64_t maxTokens) = 0;
    virtual std::optional<std::string> gemmTflops(std::int64_t n, double* tflops) = 0;
    virtual std::optional<std::string> prefill(std::int64_t tokens, double* us) = 0;
    // An arena of 2 x maxBlocks blocks of blockSize tokens and a pinned pool of maxBlocks (replacing the last).
    virtual std::optional<std::string> openSwaps(const TransformerShape& shape, std::int64_t blockSize,
                                                 std::int64_t maxBlocks) = 0;
    virtual std::int64_t kvBytesPerToken() const = 0;
    virtual std::int64_t blockBytes() const = 0;
    virtual std::int64_t hostPoolBytes() const = 0;
    virtual bool batchMemcpy() const = 0; // cudaMemcpyBatchAsync available
    virtual int runtimeVersion() const = 0;
    virtual std::optional<std::string> referenceCopy(CopyDirection dir, std::int64_t bytes, double* us) = 0;
    virtual std::optional<std::string> swap(SwapMethod method, CopyDirection dir, const std::vector<std::int64_t>& blocks,
                                            const std::vector<std::int64_t>& hostSlots, double* us, std::int64_t* copies) = 0;
};

// The middle value; the mean of the two middle ones for an even count; 0 for none.
double medianOf(std::vector<double> v);
// Timed repetitions of a prefill: an odd number (a true median), at least 3.
int prefillRepetitions(int repetitions);

// What a calibration holds so far (fitted), after each phase that measured something: the prefill lengths,
// then each block size's swaps. The CLI writes it, so a run cut off by a timeout still leaves its figures.
using CalibrationCheckpoint = std::function<void(const cost::Calibration&)>;

// Measures into `c` (device fields are the caller's) and fits it. Returns the failed measurements, one line
// each ("batched d2h block_size 16 x1: <CUDA error>"); empty when everything was measured.
std::vector<std::string> measureCalibration(const CalibrateOptions& options, const TransformerShape& shape,
                                            CalibrationDevice& device, cost::Calibration& c, std::ostream& log,
                                            const CalibrationCheckpoint& checkpoint = {});

// How a calibration ended, for the CLI: Complete (write the file, exit 0), Partial (some failed: write what was
// measured, name the failures, exit 1), Nothing (nothing measured: no file, exit 3 with the failures, which
// say why the device cannot be used).
enum class CalibrationEnd { Complete, Partial, Nothing };
CalibrationEnd calibrationEnd(const cost::Calibration& c, const std::vector<std::string>& failures);

} // namespace pl::gpu
