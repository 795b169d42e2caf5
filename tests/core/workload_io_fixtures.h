#pragma once
// The workload-file suites' shared fixtures (test_workload_io, test_workload_overrides): a base document with
// every key, requests deliberately out of order, and parsing that must succeed or must fail.
#include "core/workload_io.h"

#include <QtTest>

#include <functional>
#include <string>
#include <string_view>

namespace pltest::workloadio {

using nlohmann::json;

// Requests deliberately out of order: normalised order is r3, r1, r2, r0.
inline json baseDocument() {
    return json::parse(R"({
      "format": "preemptlab.workload.v1",
      "name": "base",
      "notes": "test input",
      "config": { "block_size_tokens": 8, "capacity_blocks": 16, "kv_bytes_per_token": 512,
                  "prefill_tokens_per_tick": 64, "transfer_bytes_per_tick": 16384,
                  "host_capacity_bytes": 0, "max_ticks": 20000, "wait_threshold_ticks": 0,
                  "preemption_threshold": 0 },
      "policy": { "recovery": "hybrid", "victim_rule": "tenant-fair", "adaptive_tie": "swap",
                  "resume_guard": "next-block", "watermark_blocks": 2, "preempt_ahead": true,
                  "hybrid_swap_percent": 25 },
      "requests": [
        { "id": "r2", "arrival_tick": 5, "prompt_tokens": 24, "output_tokens": 40, "max_output_tokens": 64,
          "priority": 1, "tenant": "team-a" },
        { "id": "r1", "arrival_tick": 5, "prompt_tokens": 16, "output_tokens": 8 },
        { "id": "r0", "arrival_tick": 9, "prompt_tokens": 8, "output_tokens": 1 },
        { "id": "r3", "arrival_tick": 0, "prompt_tokens": 17, "output_tokens": 2, "prefix_blocks": [7, 9] }
      ]
    })");
}

inline json mutated(const std::function<void(json&)>& change) {
    json doc = baseDocument();
    change(doc);
    return doc;
}

// parseWorkload (its fast path first, core/workload_plain.h) and the strict reader alone read `text` alike: the
// same workload, field by field, or the same error (file, path and reason). Returns parseWorkload's result.
inline pl::Result<pl::Workload> parseBothWays(std::string_view text, const std::string& file,
                                              const pl::Caps& caps = {}) {
    auto result = pl::parseWorkload(text, file, caps);
    const auto strict = pl::parseWorkloadStrict(text, file, caps);
    const auto* e1 = std::get_if<pl::InputError>(&result);
    const auto* e2 = std::get_if<pl::InputError>(&strict);
    if ((e1 == nullptr) != (e2 == nullptr) || (e1 != nullptr && e1->message() != e2->message()) ||
        (e1 == nullptr && !(std::get<pl::Workload>(result) == std::get<pl::Workload>(strict)))) {
        qFatal("parseWorkload and parseWorkloadStrict differ (%s / %s) on: %s",
               e1 != nullptr ? e1->message().c_str() : "a workload", e2 != nullptr ? e2->message().c_str() : "a workload",
               std::string(text.substr(0, 200)).c_str());
    }
    return result;
}

inline pl::Workload parseOk(const std::string& text) {
    auto result = parseBothWays(text, "ok.json");
    if (auto* e = std::get_if<pl::InputError>(&result)) {
        qFatal("unexpected error: %s", e->message().c_str());
    }
    return std::get<pl::Workload>(std::move(result));
}

inline pl::InputError parseError(const std::string& text, const pl::Caps& caps = {}) {
    auto result = parseBothWays(text, "bad.json", caps);
    if (!std::holds_alternative<pl::InputError>(result)) {
        qFatal("expected an error for: %s", text.substr(0, 200).c_str());
    }
    return std::get<pl::InputError>(result);
}


} // namespace pltest::workloadio
