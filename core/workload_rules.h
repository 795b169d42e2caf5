#pragma once
// The rules of preemptlab.workload.v1 that hold for any Workload, however it was made (a file, the lab's
// editor, a generator, an override). The file reader checks syntax and types, then applies these in the same
// order as validateWorkload, so both report the same path and reason for the same mistake. Request paths use
// the index in the vector given, which for a file is the original order (before normalisation).

#include "core/errors.h"
#include "core/model.h"
#include "core/stop_check.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl {

// How often reading and validating a workload's requests read a stop flag: 4,096 requests are a few
// milliseconds of either (Release, this project's 2-core machine).
inline constexpr int kRequestsPerStopCheck = 4096;

// One integer key of `config`: its name in files and its least allowed value (1 for counts).
struct ConfigField {
    std::string_view key;
    std::int64_t Config::*member;
    std::int64_t min;
    bool bytes = false;    // its flag also takes "64G" (parseByteSize)
    bool optional = false; // an engine-profile key: written only when set (not 0)
};
const std::vector<ConfigField>& configFields();
bool isByteKey(std::string_view key); // a config key whose flag takes "64G"

// Ids and tenants: 1..64 characters of A-Z a-z 0-9 . _ -
bool isValidName(std::string_view s);
inline constexpr std::size_t kMaxNameLength = 64;

// "must be an integer from MIN to 2^53-1, got V" or nullopt.
std::optional<std::string> integerRangeProblem(std::int64_t value, std::int64_t min, std::int64_t max = kMaxSafeInteger);

std::optional<InputError> checkConfig(const Config& c, const Caps& caps, const std::string& file);
std::optional<InputError> checkPolicy(const Policy& p, const Config& c, const std::string& file);
std::optional<InputError> checkRequestCount(std::uint64_t count, const Caps& caps, const std::string& file);
// `bytes` of notes against Caps::max_notes_bytes.
std::optional<InputError> checkNotesSize(std::uint64_t bytes, const Caps& caps, const std::string& file);
// `total`: prefix block ids in requests 0..index together (Caps::max_prefix_blocks).
std::optional<InputError> checkPrefixTotal(std::uint64_t total, const Caps& caps, std::size_t index,
                                           const std::string& file);
// `c` must already have passed checkConfig.
std::optional<InputError> checkRequest(const RequestSpec& r, std::size_t index, const Config& c, const std::string& file);
// prefix_blocks may name at most floor(prompt_tokens / block_size_tokens) blocks (full prompt blocks).
std::optional<InputError> checkPrefixCount(std::size_t count, const RequestSpec& r, std::size_t index, const Config& c,
                                           const std::string& file);
// The values an integer setting (a `config` key, watermark_blocks or hybrid_swap_percent) may take, the rest of
// `w` as it is: what the rules above accept, so that the lab offers no value it would then refuse. Exact for
// every bound these rules tie to other settings: capacity_blocks (every request must fit, the watermark below
// it, the pool's bytes inside 2^53-1), watermark_blocks (below capacity), block_size_tokens (every request fits,
// prefix_blocks fill whole prompt blocks, the pool's bytes), kv_bytes_per_token (the pool's bytes), max_ticks
// (after the last arrival, the cap), tick_us (from 1: its 0 means unset, which no value sets); every other key
// from its least value to 2^53-1. nullopt for a key that is
// not an integer setting. min > max when no value fits (the rest of `w` already breaks a rule).
struct IntegerRange {
    std::int64_t min = 0;
    std::int64_t max = kMaxSafeInteger;
};
std::optional<IntegerRange> acceptedRange(const Workload& w, std::string_view key, const Caps& caps = {});

std::optional<InputError> checkUniqueIds(const std::vector<RequestSpec>& requests, const std::string& file);

} // namespace pl
