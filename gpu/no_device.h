#pragma once
// What a program says when live mode has no device: the one sentence of the CLI (gpu-info, gpu-selftest,
// calibrate, run --live) and the lab (Run > Live Mode's tooltip and the status bar, through
// liveBackendFactory's probe), made from the error the device probe or makeLiveBackend gave.

#include <string>

namespace pl::gpu {

// "no NVIDIA GPU found (cudaGetDeviceCount: <the CUDA error>)" when CUDA found no device (no GPU, no driver:
// the probe's first call failed or counted none); anything else (a device that failed to start, a module that
// did not load, a build without CUDA, an arena that does not fit) as "no usable CUDA device: <error>".
std::string noDeviceText(const std::string& error);

} // namespace pl::gpu
