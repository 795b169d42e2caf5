#pragma once
// What an engine profile makes of a workload's settings (docs/engines.md): the keys it does not use, for
// `validate` to say so. The profiles' steps are EngineImpl's (engine_vllm.cpp, engine_sglang.cpp,
// engine_trtllm.cpp).

#include "core/workload.h"

#include <string>
#include <vector>

namespace pl {

// The config and policy keys the workload's engine profile does not use, in file order (empty for a
// tick-model-1 workload that sets no engine key). The engine keys under tick-model-1 are listed when set.
std::vector<std::string> unusedSettings(const Workload& w);

} // namespace pl
