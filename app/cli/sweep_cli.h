#pragma once
// `preemptlab-cli sweep` (cmd_sweep.cpp), registered by registerCostCommands.

namespace pl::cli {

int runSweep(int argc, char** argv);

} // namespace pl::cli
