#pragma once
// The fast path of parseWorkload: a hand-written reader for workload text as the project and its importers
// write it, with no JSON document and no allocation per value beyond the workload's own (in the spirit of the
// oracle's line reader, oracle_value.h).
//
// It is sure or it declines. It reads plain JSON only: the workload's own keys, each at most once; strings whose
// escapes it decodes as nlohmann_json does (\uXXXX and surrogate pairs included) and whose other bytes are
// well-formed UTF-8; integers written as digits (no sign, fraction or exponent, no leading zero) from 0 to
// 2^53-1; true and false. It then applies the same rules as the strict reader (workload_rules.h: the config,
// the policy, every request, the caps, unique ids) and normalises. When anything is not so (an unknown or
// repeated key, a null, a negative or fractional number, a broken escape, a lone surrogate, a syntax error, a
// cap reached, a rule broken) it returns nothing and the strict reader reads the text, so every error, with
// its path, line and column, is the strict reader's own. What it accepts is the Workload the strict reader
// returns for the same text (test_workload_plain and fuzz_workload hold it to that).
#include "core/errors.h"
#include "core/model.h"
#include "core/workload_io.h"

#include <atomic>
#include <optional>
#include <string_view>

namespace pl {

// `text` read as a workload, or nullopt when the strict reader must read it (see above). `stop` is read as the
// strict reader reads it (every kValuesPerStopCheck values, then every kRequestsPerStopCheck requests checked):
// once set, it throws pl::Cancelled.
std::optional<Workload> readPlainWorkload(std::string_view text, const Caps& caps = {},
                                          const std::atomic<bool>* stop = nullptr);

} // namespace pl
