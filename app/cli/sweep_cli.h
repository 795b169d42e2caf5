#pragma once
// `preemptlab-cli sweep` (cmd_sweep.cpp) and `sweep-merge` (cmd_sweep_merge.cpp), registered by
// registerCostCommands.

namespace pl::cli {

int runSweep(int argc, char** argv);
int runSweepMerge(int argc, char** argv);

} // namespace pl::cli
