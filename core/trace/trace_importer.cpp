#include "core/trace/trace_importer.h"

#include "core/trace/random.h"
#include "core/utf8.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <cstdio>

namespace pl::trace {
namespace {

std::string formatSeconds(std::int64_t us) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld.%06lld s", static_cast<long long>(us / 1'000'000),
                  static_cast<long long>(us % 1'000'000));
    return buf;
}

std::string defaultName(const std::string& file) {
    std::string stem = file.substr(file.find_last_of('/') + 1);
    for (std::string_view ext : {".csv", ".jsonl", ".json"}) {
        if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0) {
            stem.resize(stem.size() - ext.size());
            break;
        }
    }
    return stem.empty() ? "trace" : utf8Lossy(stem);
}

std::string rowId(const std::string& prefix, std::size_t index) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%06zu", index);
    return prefix + "-" + buf;
}

// Trace times after spreading (a per-row seeded offset, independent of the slice chosen).
std::vector<std::int64_t> spreadTimes(const TraceRows& rows, const ImportOptions& o) {
    std::vector<std::int64_t> times(rows.rows.size());
    std::int64_t previousGap = 0;
    std::size_t groupStart = 0;
    while (groupStart < rows.rows.size()) {
        const std::int64_t t = rows.rows[groupStart].time_us;
        std::size_t groupEnd = groupStart;
        while (groupEnd < rows.rows.size() && rows.rows[groupEnd].time_us == t) {
            ++groupEnd;
        }
        std::int64_t window = 0;
        if (o.spread == ImportOptions::Spread::Fixed) {
            window = o.spread_window_us;
        } else if (o.spread == ImportOptions::Spread::Auto) {
            window = groupEnd < rows.rows.size() ? rows.rows[groupEnd].time_us - t : previousGap;
            previousGap = window;
        }
        for (std::size_t i = groupStart; i < groupEnd; ++i) {
            const auto offset =
                window > 0 ? static_cast<std::int64_t>(mix(o.seed, i) % static_cast<std::uint64_t>(window)) : 0;
            times[i] = t + offset;
        }
        groupStart = groupEnd;
    }
    return times;
}

// Why mapHashIds refused a row (the block size was checked before): an id whose sub-block ids pass 2^53-1, or
// fewer ids than the prompt's blocks.
std::string hashIdsProblem(const std::vector<std::int64_t>& hashIds, std::int64_t promptTokens, std::int64_t blockSize) {
    if (kMooncakeHashBlockTokens % blockSize == 0) {
        const std::int64_t k = kMooncakeHashBlockTokens / blockSize;
        for (std::size_t h = 0; h < hashIds.size(); ++h) {
            if (hashIds[h] > (kMaxSafeInteger - (k - 1)) / k) {
                return "hash_ids[" + std::to_string(h) + "]: " + std::to_string(hashIds[h]) + " cannot be mapped to " +
                       std::to_string(k) + " block ids of " + std::to_string(blockSize) + " tokens: id x " +
                       std::to_string(k) + " passes 2^53-1; choose --block-size-tokens 512 or a multiple of it, "
                       "or --prefix-blocks off";
            }
        }
    }
    return "hash_ids: " + std::to_string(hashIds.size()) + " ids cannot cover the " +
           std::to_string(promptTokens / blockSize) + " full blocks of " + std::to_string(blockSize) +
           " tokens of input_length " + std::to_string(promptTokens);
}

} // namespace

std::string_view citation(TraceFormat f) {
    if (f == TraceFormat::Azure) {
        return "Azure LLM inference trace 2023 (github.com/Azure/AzurePublicDataset, CC-BY-4.0); cite Patel et "
               "al., \"Splitwise: Efficient Generative LLM Inference Using Phase Splitting\", ISCA 2024.";
    }
    return "Mooncake FAST25 traces (github.com/kvcache-ai/Mooncake, Apache-2.0); cite Qin et al., \"Mooncake: "
           "Trading More Storage for Less Computation - A KVCache-centric Architecture for Serving LLM "
           "Chatbot\", FAST 2025.";
}

std::string ImportReport::summary() const {
    const std::string base = utf8Lossy(file.substr(file.find_last_of('/') + 1));
    std::string s = "Imported from " + base + " (" + std::string(toString(format)) + " trace, " +
                    std::to_string(rows_in_file) + " requests): " + std::to_string(imported) + " requests";
    if (imported > 0) {
        s += ", lines " + std::to_string(first_line) + "-" + std::to_string(last_line) + ", trace time " +
             formatSeconds(first_offset_us) + " to " + formatSeconds(last_offset_us) +
             " after the first arrival";
    }
    s += ".";
    if (skipped_oversized > 0) {
        s += " Skipped " + std::to_string(skipped_oversized) + " requests that could never fit.";
    }
    if (truncated_outputs > 0) {
        s += " Cut " + std::to_string(truncated_outputs) + " outputs to max_output_tokens.";
    }
    s += " Source: " + std::string(citation(format));
    return s;
}

std::optional<std::vector<std::int64_t>> mapHashIds(const std::vector<std::int64_t>& hashIds,
                                                    std::int64_t promptTokens, std::int64_t blockSize) {
    std::vector<std::int64_t> out;
    const std::int64_t fullBlocks = promptTokens / blockSize;
    if (kMooncakeHashBlockTokens % blockSize == 0) {
        const std::int64_t k = kMooncakeHashBlockTokens / blockSize;
        out.reserve(static_cast<std::size_t>(fullBlocks));
        for (std::int64_t g = 0; g < fullBlocks; ++g) {
            const auto h = static_cast<std::size_t>(g / k);
            if (h >= hashIds.size() || hashIds[h] > (kMaxSafeInteger - (k - 1)) / k) {
                return std::nullopt;
            }
            out.push_back(hashIds[h] * k + g % k);
        }
        return out;
    }
    if (blockSize % kMooncakeHashBlockTokens == 0) {
        const std::int64_t m = blockSize / kMooncakeHashBlockTokens;
        for (std::int64_t g = 0; g < fullBlocks; ++g) {
            const auto h = static_cast<std::size_t>((g + 1) * m - 1);
            if (h >= hashIds.size()) {
                return std::nullopt;
            }
            out.push_back(hashIds[h]);
        }
        return out;
    }
    return std::nullopt;
}

Result<ImportResult> importTrace(const TraceRows& rows, const ImportOptions& o, const Config& config,
                                 const Policy& policy, const std::atomic<bool>* stop) {
    ImportResult result;
    ImportReport& rep = result.report;
    rep.file = rows.file;
    rep.format = rows.format;
    rep.rows_in_file = static_cast<std::int64_t>(rows.rows.size());
    auto optionError = [&](const std::string& flag, const std::string& reason) -> Result<ImportResult> {
        return InputError{"", flag, reason};
    };
    if (!isValidUtf8(o.name)) {
        return optionError("--name", "is not valid UTF-8 (a workload's name is JSON text)");
    }
    // Ids are PREFIX-NNNNNN (up to 8 digits at the request cap): the prefix must leave them valid names.
    if (!o.id_prefix.empty() && (!isValidName(o.id_prefix) || o.id_prefix.size() > kMaxNameLength - 9)) {
        return optionError("--id-prefix", "may only hold the characters A-Z a-z 0-9 . _ - and at most " +
                                              std::to_string(kMaxNameLength - 9) + " of them (ids are PREFIX-NNNNNN)");
    }
    if (o.tick_us < 1) {
        return optionError("--tick-ms", "must be at least 0.001 (one microsecond)");
    }
    if (config.block_size_tokens < 1 || config.capacity_blocks < 1) {
        return optionError("--block-size-tokens", "block size and capacity must be at least 1");
    }
    const bool mapPrefixes = o.prefix_blocks && rows.format == TraceFormat::Mooncake;
    if (mapPrefixes && kMooncakeHashBlockTokens % config.block_size_tokens != 0 &&
        config.block_size_tokens % kMooncakeHashBlockTokens != 0) {
        return optionError("--block-size-tokens",
                           std::to_string(config.block_size_tokens) +
                               " neither divides nor is a multiple of Mooncake's 512-token hash blocks; "
                               "choose such a size or give --prefix-blocks off");
    }

    const std::vector<std::int64_t> times = spreadTimes(rows, o);
    std::vector<std::size_t> order(rows.rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    // Spreading may reorder rows; ties keep file order. Both sorts read the stop flag per comparison (a Cancel
    // then drops their half-sorted vectors), and are skipped where the order already holds (a trace without
    // --spread is in time order: its reader requires it).
    StopCheck stopCheck(stop, kRowsPerStopCheck);
    const auto byTime = [&](std::size_t a, std::size_t b) {
        stopCheck.step();
        return times[a] < times[b];
    };
    if (!std::is_sorted(order.begin(), order.end(), byTime)) {
        std::stable_sort(order.begin(), order.end(), byTime);
    }
    const std::int64_t first = rows.rows.empty() ? 0 : rows.rows.front().time_us; // unspread first arrival
    const std::int64_t origin = first + o.start_us;
    const std::string prefix = o.id_prefix.empty() ? (rows.format == TraceFormat::Azure ? "az" : "mc") : o.id_prefix;
    const std::int64_t blockSize = config.block_size_tokens;

    Workload& w = result.workload;
    w.name = o.name.empty() ? defaultName(rows.file) : o.name;
    w.config = config;
    w.config.tick_us = o.tick_us; // the tick the arrivals were converted at: latencies can be given in ms
    w.policy = policy;
    for (std::size_t i : order) {
        stopCheck.step();
        const TraceRow& row = rows.rows[i];
        const std::int64_t t = times[i];
        if (t < origin || (o.duration_us && t - origin >= *o.duration_us)) {
            continue;
        }
        ++rep.rows_in_window;
        if (o.limit && rep.imported >= *o.limit) {
            continue;
        }
        RequestSpec r;
        r.id = rowId(prefix, i);
        std::int64_t scaled = 0;
        std::int64_t divisor = 0;
        if (__builtin_mul_overflow(t - origin, o.rate_scale.den, &scaled) ||
            __builtin_mul_overflow(o.tick_us, o.rate_scale.num, &divisor)) {
            return InputError{rows.file, "line " + std::to_string(row.line), "arrival time overflows the tick arithmetic"};
        }
        r.arrival_tick = scaled / divisor;
        r.prompt_tokens = row.prompt_tokens;
        r.output_tokens = row.output_tokens;
        r.max_output_tokens = row.output_tokens;
        if (o.max_output_tokens) {
            if (r.output_tokens > *o.max_output_tokens) {
                r.output_tokens = *o.max_output_tokens;
                ++rep.truncated_outputs;
            }
            r.max_output_tokens = *o.max_output_tokens;
        }
        const std::int64_t needBlocks = ceilDiv(r.prompt_tokens + r.max_output_tokens, blockSize);
        if (needBlocks > config.capacity_blocks) {
            if (o.skip_oversized) {
                ++rep.skipped_oversized;
                continue;
            }
            return InputError{rows.file, "line " + std::to_string(row.line),
                              "request needs " + std::to_string(needBlocks) + " blocks (prompt " +
                                  std::to_string(r.prompt_tokens) + " + max output " +
                                  std::to_string(r.max_output_tokens) + " tokens) but capacity_blocks is " +
                                  std::to_string(config.capacity_blocks) +
                                  "; raise --capacity-blocks or give --skip-oversized"};
        }
        if (mapPrefixes) {
            auto ids = mapHashIds(row.hash_ids, r.prompt_tokens, blockSize);
            if (!ids) {
                return InputError{rows.file,
                                  "line " + std::to_string(row.line) + ", column " +
                                      std::to_string(row.hash_ids_column + 1),
                                  hashIdsProblem(row.hash_ids, r.prompt_tokens, blockSize)};
            }
            r.prefix_blocks = std::move(*ids);
            rep.prefix_block_ids += static_cast<std::int64_t>(r.prefix_blocks.size());
        }
        if (rep.imported == 0) {
            rep.first_line = row.line;
            rep.first_offset_us = t - first;
        }
        rep.last_line = row.line;
        rep.last_offset_us = t - first;
        rep.last_arrival_tick = std::max(rep.last_arrival_tick, r.arrival_tick);
        ++rep.imported;
        w.requests.push_back(std::move(r));
    }
    if (o.auto_max_ticks && !w.requests.empty()) {
        w.config.max_ticks = std::min(kMaxSafeInteger - config.max_ticks, rep.last_arrival_tick) + config.max_ticks;
    }
    const auto byArrival = [&](const RequestSpec& a, const RequestSpec& b) {
        stopCheck.step();
        return a.arrival_tick != b.arrival_tick ? a.arrival_tick < b.arrival_tick : a.id < b.id;
    };
    if (!std::is_sorted(w.requests.begin(), w.requests.end(), byArrival)) {
        std::stable_sort(w.requests.begin(), w.requests.end(), byArrival);
    }
    w.notes = rep.summary();
    return result;
}

} // namespace pl::trace
