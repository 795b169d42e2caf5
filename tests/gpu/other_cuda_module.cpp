// A stand-in for a CUDA module of another build (test_cuda_module): the entry point is there, its table's
// version is not this build's, and its functions are never called.
#include "gpu/cuda_module.h"

extern "C" const pl::gpu::CudaModule* preemptlab_cuda_module() {
    static const pl::gpu::CudaModule table{0, nullptr, nullptr, nullptr, nullptr};
    return &table;
}
