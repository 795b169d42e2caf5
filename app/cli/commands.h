#pragma once
// The CLI's command table. Each family of commands lives in its own cmd_*.cpp and registers itself here;
// main.cpp only dispatches. Exit codes (docs/contracts.md): 0 done, 1 a check failed, 2 bad input or usage,
// 3 needs a CUDA device and none is usable.

#include <cstdint>
#include <string>
#include <vector>

namespace pl::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNoDevice = 3;

struct Command {
    std::string name;
    std::string usage;   // one line: "run WORKLOAD [--out RECEIPT] ..."
    std::string summary; // one sentence
    int (*run)(int argc, char** argv); // argv[0] is the command name
};

void registerCoreCommands(std::vector<Command>& table);   // validate run verify compare
void registerBenchCommands(std::vector<Command>& table);  // bench (cmd_bench.cpp)
void registerCostCommands(std::vector<Command>& table);   // breakeven rates sweep sweep-merge (cmd_cost.cpp)
void registerTraceCommands(std::vector<Command>& table);  // import-trace generate (cmd_trace.cpp)
void registerReviewCommands(std::vector<Command>& table); // gate report (cmd_review.cpp)
void registerGpuCommands(std::vector<Command>& table);    // gpu-info gpu-selftest calibrate live-plan (cmd_gpu.cpp)

} // namespace pl::cli
