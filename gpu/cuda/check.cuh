#pragma once
// One checking macro for launchers (return the cudaError_t), and error text for the module's edge:
// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version".
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#define PL_CUDA_TRY(expr)                                                                                      \
    do {                                                                                                       \
        const cudaError_t pl_err_ = (expr);                                                                    \
        if (pl_err_ != cudaSuccess) {                                                                          \
            return pl_err_;                                                                                    \
        }                                                                                                      \
    } while (0)

namespace pl::gpu {

inline std::string errorText(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}
inline std::string errorText(cublasStatus_t s) {
    return std::string(cublasGetStatusName(s)) + ": " + cublasGetStatusString(s);
}
inline bool isOk(cudaError_t e) { return e == cudaSuccess; }
inline bool isOk(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS; }

} // namespace pl::gpu

// At the module's edge (functions returning std::optional<std::string>): name the call and the CUDA text.
#define PL_CHECK(expr)                                                                                         \
    do {                                                                                                       \
        const auto pl_st_ = (expr);                                                                            \
        if (!::pl::gpu::isOk(pl_st_)) {                                                                        \
            return std::string(#expr) + ": " + ::pl::gpu::errorText(pl_st_);                                   \
        }                                                                                                      \
    } while (0)
