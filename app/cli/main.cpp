// preemptlab-cli: the headless face of PreemptLab. Dispatches to the command table (commands.h).
#include "commands.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<pl::cli::Command> buildTable() {
    std::vector<pl::cli::Command> table;
    pl::cli::registerCoreCommands(table);
    pl::cli::registerBenchCommands(table);
    pl::cli::registerCostCommands(table);
    pl::cli::registerTraceCommands(table);
    pl::cli::registerGpuCommands(table);
    return table;
}

void printUsage(const std::vector<pl::cli::Command>& table, std::FILE* to) {
    std::fprintf(to, "usage: preemptlab-cli COMMAND [ARGS]\n\ncommands:\n");
    for (const auto& c : table) {
        std::fprintf(to, "  %s\n      %s\n", c.usage.c_str(), c.summary.c_str());
    }
    std::fprintf(to, "\nexit codes: 0 done, 1 a check failed, 2 bad input or usage, 3 no usable CUDA device\n");
}

} // namespace

int main(int argc, char** argv) {
    const auto table = buildTable();
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
        std::strcmp(argv[1], "help") == 0) {
        printUsage(table, argc < 2 ? stderr : stdout);
        return argc < 2 ? pl::cli::kExitBadInput : pl::cli::kExitOk;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::printf("preemptlab-cli 0.1.0 (tick-model-1)\n");
        return pl::cli::kExitOk;
    }
    for (const auto& c : table) {
        if (c.name == argv[1]) {
            return c.run(argc - 1, argv + 1);
        }
    }
    std::fprintf(stderr, "preemptlab-cli: unknown command '%s'\n\n", argv[1]);
    printUsage(table, stderr);
    return pl::cli::kExitBadInput;
}
