#pragma once
// The config and policy keys as settings (`--capacity-blocks 64`, `--recovery swap`, the lab's policy panel):
// their lists, what each means, its flag, and one override applied to a workload. Rules that relate two keys
// are validateWorkload's (workload_io.h), which the caller runs after overriding.

#include "core/errors.h"
#include "core/workload.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl {

// Keys of `config` and `policy`, as written in files; flags use dashes instead of underscores.
const std::vector<std::string_view>& configKeys();
const std::vector<std::string_view>& policyKeys();

// What a config or policy key means, for help texts and the lab's controls. `unit` is what an integer key
// counts ("tokens", "blocks", "B", "B/tick", "tokens/tick", "ticks", "preemptions", "%"), empty for a choice or
// a flag; `meaning` is one sentence. Every key of configKeys() and policyKeys() has one; an unknown key gets
// empty strings.
struct SettingHelp {
    std::string_view unit;
    std::string_view meaning;
};
SettingHelp settingHelp(std::string_view key);
// A key's command-line flag: "capacity_blocks" -> "--capacity-blocks".
std::string settingFlag(std::string_view key);

// Apply one override (`key` as in the file, `value` as text: "64", "swap", "true"). Returns an error naming
// the flag when the key is unknown or the value does not parse. Re-validate the workload afterwards.
std::optional<InputError> applyOverride(Workload& w, std::string_view key, std::string_view value);

} // namespace pl
