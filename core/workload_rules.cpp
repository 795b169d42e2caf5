#include "core/workload_rules.h"

#include "core/utf8.h"

#include <algorithm>
#include <functional>

namespace pl {
namespace {

std::string requestPath(std::size_t index) { return "/requests/" + std::to_string(index); }

std::optional<InputError> rangeError(const std::string& file, std::string path, std::int64_t value, std::int64_t min,
                                     std::int64_t max = kMaxSafeInteger) {
    if (auto problem = integerRangeProblem(value, min, max)) {
        return InputError{file, std::move(path), *problem};
    }
    return std::nullopt;
}

std::optional<std::string> nameProblem(const std::string& name, std::string_view what) {
    if (name.empty() || name.size() > kMaxNameLength) {
        return std::string(what) + " must be 1 to 64 characters long, got " + std::to_string(name.size());
    }
    if (!isValidName(name)) {
        return std::string(what) + " \"" + name + "\" may only hold the characters A-Z a-z 0-9 . _ -";
    }
    return std::nullopt;
}

} // namespace

const std::vector<ConfigField>& configFields() {
    static const std::vector<ConfigField> fields{
        {"block_size_tokens", &Config::block_size_tokens, 1},
        {"capacity_blocks", &Config::capacity_blocks, 1},
        {"kv_bytes_per_token", &Config::kv_bytes_per_token, 1, true},
        {"prefill_tokens_per_tick", &Config::prefill_tokens_per_tick, 1},
        {"transfer_bytes_per_tick", &Config::transfer_bytes_per_tick, 1, true},
        {"host_capacity_bytes", &Config::host_capacity_bytes, 0, true},
        {"max_ticks", &Config::max_ticks, 1},
        {"wait_threshold_ticks", &Config::wait_threshold_ticks, 0},
        {"preemption_threshold", &Config::preemption_threshold, 0},
        {"max_num_seqs", &Config::max_num_seqs, 0, false, true},
        {"max_num_batched_tokens", &Config::max_num_batched_tokens, 0, false, true},
        {"tick_us", &Config::tick_us, 0, false, true},
    };
    return fields;
}

bool isByteKey(std::string_view key) {
    for (const auto& field : configFields()) {
        if (field.key == key) {
            return field.bytes;
        }
    }
    return false;
}

bool isValidName(std::string_view s) {
    if (s.empty() || s.size() > kMaxNameLength) {
        return false;
    }
    for (char ch : s) {
        const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                        ch == '.' || ch == '_' || ch == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

std::optional<std::string> integerRangeProblem(std::int64_t value, std::int64_t min, std::int64_t max) {
    if (value >= min && value <= max) {
        return std::nullopt;
    }
    if (value < min && min == 1 && value == 0) {
        return std::string("must be at least 1, got 0");
    }
    return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
           std::to_string(value);
}

std::optional<InputError> checkConfig(const Config& c, const Caps& caps, const std::string& file) {
    for (const auto& field : configFields()) {
        if (auto e = rangeError(file, "/config/" + std::string(field.key), c.*field.member, field.min)) {
            return e;
        }
    }
    if (c.max_ticks > caps.max_ticks) {
        return InputError{file, "/config/max_ticks",
                          std::to_string(c.max_ticks) + " ticks exceed the cap of " + std::to_string(caps.max_ticks)};
    }
    if (c.capacity_blocks > caps.max_capacity_blocks) {
        return InputError{file, "/config/capacity_blocks",
                          std::to_string(c.capacity_blocks) + " blocks exceed the cap of " +
                              std::to_string(caps.max_capacity_blocks)};
    }
    // The engine multiplies tokens by bytes per token; keep every such product (the whole pool, twice for a
    // round trip) inside 2^53-1 so integer accounting can never overflow.
    const bool tokensFit = c.capacity_blocks <= kMaxSafeInteger / c.block_size_tokens;
    const std::int64_t poolTokens = tokensFit ? c.capacity_blocks * c.block_size_tokens : 0;
    if (!tokensFit || poolTokens > kMaxSafeInteger / 2 / c.kv_bytes_per_token) {
        return InputError{file, "/config/kv_bytes_per_token",
                          "capacity_blocks (" + std::to_string(c.capacity_blocks) + ") x block_size_tokens (" +
                              std::to_string(c.block_size_tokens) + ") x kv_bytes_per_token (" +
                              std::to_string(c.kv_bytes_per_token) +
                              ") x 2 exceeds 2^53-1 bytes, too large for exact accounting"};
    }
    return std::nullopt;
}

std::optional<InputError> checkPolicy(const Policy& p, const Config& c, const std::string& file) {
    if (auto e = rangeError(file, "/policy/watermark_blocks", p.watermark_blocks, 0)) {
        return e;
    }
    if (p.watermark_blocks >= c.capacity_blocks) {
        return InputError{file, "/policy/watermark_blocks",
                          "must be less than capacity_blocks (" + std::to_string(c.capacity_blocks) + "), got " +
                              std::to_string(p.watermark_blocks)};
    }
    if (auto e = rangeError(file, "/policy/hybrid_swap_percent", p.hybrid_swap_percent, 0, 100)) {
        return e;
    }
    if (p.engine_profile != EngineProfile::TickModel1) {
        // The engines preempt only when their step does not fit; the profiles do not model preempt-ahead. Swap,
        // hybrid and adaptive recovery are what-ifs under every profile (receipt_limitations.cpp says so).
        const std::string name(toString(p.engine_profile));
        if (p.preempt_ahead) {
            return InputError{file, "/policy/preempt_ahead",
                              "engine_profile " + name + " preempts only when its step does not fit (no preempt-ahead)"};
        }
    }
    return std::nullopt;
}

std::optional<InputError> checkNotesSize(std::uint64_t bytes, const Caps& caps, const std::string& file) {
    if (bytes > static_cast<std::uint64_t>(caps.max_notes_bytes)) {
        return InputError{file, "/notes",
                          "holds " + std::to_string(bytes) + " bytes, over the cap of " +
                              std::to_string(caps.max_notes_bytes) + " bytes (1 MiB) for free text"};
    }
    return std::nullopt;
}

std::optional<InputError> checkRequestCount(std::uint64_t count, const Caps& caps, const std::string& file) {
    if (count > static_cast<std::uint64_t>(caps.max_requests)) {
        return InputError{file, "/requests",
                          std::to_string(count) + " requests exceed the cap of " + std::to_string(caps.max_requests)};
    }
    return std::nullopt;
}

std::optional<InputError> checkPrefixTotal(std::uint64_t total, const Caps& caps, std::size_t index,
                                           const std::string& file) {
    if (total > static_cast<std::uint64_t>(caps.max_prefix_blocks)) {
        return InputError{file, requestPath(index) + "/prefix_blocks",
                          "the workload's prefix_blocks hold " + std::to_string(total) +
                              " ids up to here, over the cap of " + std::to_string(caps.max_prefix_blocks)};
    }
    return std::nullopt;
}

std::optional<InputError> checkRequest(const RequestSpec& r, std::size_t index, const Config& c, const std::string& file) {
    // Paths are made only for a mistake: a request that passes allocates nothing (60 of validateWorkload's
    // 145 ms at 300,000 requests went to paths that were never used).
    const auto at = [&](std::string_view field, std::string problem) {
        return InputError{file, requestPath(index) + std::string(field), std::move(problem)};
    };
    if (auto p = nameProblem(r.id, "id")) {
        return at("/id", std::move(*p));
    }
    const struct {
        std::string_view field;
        std::int64_t value;
        std::int64_t min;
    } ranges[] = {{"/arrival_tick", r.arrival_tick, 0},
                  {"/prompt_tokens", r.prompt_tokens, 1},
                  {"/output_tokens", r.output_tokens, 1},
                  {"/max_output_tokens", r.max_output_tokens, 1}};
    for (const auto& f : ranges) {
        if (auto p = integerRangeProblem(f.value, f.min)) {
            return at(f.field, std::move(*p));
        }
    }
    // A request arriving at or after max_ticks would never enter the run: no `arrive`, censored at max_ticks
    // (docs/receipt.md: `arrive` is every request's first event), counted as if the policy had failed it.
    if (r.arrival_tick >= c.max_ticks) {
        return at("/arrival_tick", "is " + std::to_string(r.arrival_tick) + ", at or after max_ticks (" +
                                       std::to_string(c.max_ticks) +
                                       "): the request would never arrive before the run ends; raise max_ticks "
                                       "above the last arrival (--max-ticks) or leave the late requests out");
    }
    if (r.max_output_tokens < r.output_tokens) {
        return at("/max_output_tokens", "must be at least output_tokens (" + std::to_string(r.output_tokens) +
                                            "), got " + std::to_string(r.max_output_tokens));
    }
    if (auto p = integerRangeProblem(r.priority, 0)) {
        return at("/priority", std::move(*p));
    }
    if (auto p = nameProblem(r.tenant, "tenant")) {
        return at("/tenant", std::move(*p));
    }
    const std::int64_t needed = ceilDiv(r.prompt_tokens + r.max_output_tokens, c.block_size_tokens);
    if (needed > c.capacity_blocks) {
        return InputError{file, requestPath(index),
                          "can never fit: prompt_tokens + max_output_tokens needs " + std::to_string(needed) +
                              " blocks but capacity_blocks is " + std::to_string(c.capacity_blocks)};
    }
    if (auto e = checkPrefixCount(r.prefix_blocks.size(), r, index, c, file)) {
        return e;
    }
    // Ids rise by one along a run, so its first id is its smallest and its last its largest: the first id out of
    // range is the run's first, or the first past 2^53-1.
    for (const IdRun& run : r.prefix_blocks.runs()) {
        std::int64_t bad = -1; // position of the first id out of range
        if (run.id < 0 || run.id > kMaxSafeInteger) {
            bad = run.pos;
        } else if (run.id + (run.len - 1) > kMaxSafeInteger) {
            bad = run.pos + (kMaxSafeInteger - run.id + 1);
        }
        if (bad >= 0) {
            return rangeError(file, requestPath(index) + "/prefix_blocks/" + std::to_string(bad),
                              r.prefix_blocks[static_cast<std::size_t>(bad)], 0);
        }
    }
    return std::nullopt;
}

std::optional<InputError> checkPrefixCount(std::size_t count, const RequestSpec& r, std::size_t index, const Config& c,
                                           const std::string& file) {
    const std::int64_t fullPromptBlocks = r.prompt_tokens / c.block_size_tokens;
    if (static_cast<std::int64_t>(count) > fullPromptBlocks) {
        return InputError{file, requestPath(index) + "/prefix_blocks",
                          "has " + std::to_string(count) + " entries but the prompt fills only " +
                              std::to_string(fullPromptBlocks) + " full blocks (prompt_tokens " +
                              std::to_string(r.prompt_tokens) + " / block_size_tokens " +
                              std::to_string(c.block_size_tokens) + ")"};
    }
    return std::nullopt;
}

std::optional<InputError> checkUniqueIds(const std::vector<RequestSpec>& requests, const std::string& file) {
    // Open addressing over request indices, at most half full: no node per id (a std::unordered_map took
    // 50 to 60 ms of 300,000 ids, this about a fifth of it).
    constexpr std::size_t kEmpty = static_cast<std::size_t>(-1);
    std::size_t size = 16;
    while (size < requests.size() * 2) {
        size *= 2;
    }
    std::vector<std::size_t> slots(size, kEmpty);
    const std::hash<std::string_view> hash;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const std::string& id = requests[i].id;
        std::size_t s = hash(id) & (size - 1);
        for (; slots[s] != kEmpty; s = (s + 1) & (size - 1)) {
            if (requests[slots[s]].id == id) {
                return InputError{file, requestPath(i) + "/id",
                                  "duplicate id \"" + id + "\" (first used at " + requestPath(slots[s]) + ")"};
            }
        }
        slots[s] = i;
    }
    return std::nullopt;
}

std::optional<InputError> validateWorkload(const Workload& w, const Caps& caps, const std::atomic<bool>* stop) {
    const std::string file;
    // JSON text is UTF-8, and the writer throws on other bytes: a producer that let them through (a file name
    // in an imported workload's notes, a byte typed into --name) is stopped here, by field.
    for (const auto& [text, path] : {std::pair{&w.name, "/name"}, std::pair{&w.notes, "/notes"}}) {
        if (!isValidUtf8(*text)) {
            return InputError{file, path, "is not UTF-8 text (a JSON string must be)"};
        }
    }
    if (auto e = checkNotesSize(w.notes.size(), caps, file)) {
        return e;
    }
    if (auto e = checkConfig(w.config, caps, file)) {
        return e;
    }
    if (auto e = checkPolicy(w.policy, w.config, file)) {
        return e;
    }
    if (auto e = checkRequestCount(w.requests.size(), caps, file)) {
        return e;
    }
    std::uint64_t prefixBlocks = 0;
    StopCheck stopCheck(stop, kRequestsPerStopCheck);
    for (std::size_t i = 0; i < w.requests.size(); ++i) {
        stopCheck.step();
        if (auto e = checkRequest(w.requests[i], i, w.config, file)) {
            return e;
        }
        prefixBlocks += w.requests[i].prefix_blocks.size();
        if (auto e = checkPrefixTotal(prefixBlocks, caps, i, file)) {
            return e;
        }
    }
    return checkUniqueIds(w.requests, file);
}

std::optional<IntegerRange> acceptedRange(const Workload& w, std::string_view key, const Caps& caps) {
    const Config& c = w.config;
    if (key == "watermark_blocks") return IntegerRange{0, c.capacity_blocks - 1};
    if (key == "hybrid_swap_percent") return IntegerRange{0, 100};
    const auto& fields = configFields();
    const auto field = std::find_if(fields.begin(), fields.end(), [&](const ConfigField& f) { return f.key == key; });
    if (field == fields.end()) return std::nullopt;
    IntegerRange range{field->min, kMaxSafeInteger};
    // Every request must fit the pool: the most tokens one holds, and the most prefix blocks per prompt token.
    std::int64_t mostTokens = 0;
    std::int64_t largestBlock = kMaxSafeInteger; // block_size_tokens at which every prefix still fills its prompt
    Tick lastArrival = -1;
    for (const RequestSpec& r : w.requests) {
        mostTokens = std::max(mostTokens, r.prompt_tokens + r.max_output_tokens);
        lastArrival = std::max(lastArrival, r.arrival_tick);
        const auto prefix = static_cast<std::int64_t>(r.prefix_blocks.size());
        if (prefix > 0) largestBlock = std::min(largestBlock, r.prompt_tokens / prefix);
    }
    // The pool's bytes, twice for a round trip, stay inside 2^53-1 (checkConfig).
    const std::int64_t poolTokens = kMaxSafeInteger / 2 / std::max<std::int64_t>(1, c.kv_bytes_per_token);
    if (key == "capacity_blocks") {
        range.min = std::max({range.min, c.block_size_tokens > 0 ? ceilDiv(mostTokens, c.block_size_tokens) : 1,
                              w.policy.watermark_blocks + 1});
        range.max = std::min(caps.max_capacity_blocks, poolTokens / std::max<std::int64_t>(1, c.block_size_tokens));
    } else if (key == "block_size_tokens") {
        if (c.capacity_blocks > 0) range.min = std::max(range.min, ceilDiv(mostTokens, c.capacity_blocks));
        range.max = std::min(largestBlock, poolTokens / std::max<std::int64_t>(1, c.capacity_blocks));
    } else if (key == "kv_bytes_per_token") {
        const std::int64_t blocks = std::max<std::int64_t>(1, c.capacity_blocks);
        const std::int64_t bs = std::max<std::int64_t>(1, c.block_size_tokens);
        range.max = blocks > kMaxSafeInteger / bs ? 0 : kMaxSafeInteger / 2 / (blocks * bs);
    } else if (key == "tick_us") {
        range.min = 1; // 0 is "unset" (no key in the file), which no value sets
    } else if (key == "max_ticks") {
        range.min = std::max(range.min, lastArrival + 1);
        range.max = caps.max_ticks;
    }
    return range;
}

} // namespace pl
