#pragma once
// Reading, validating, normalising and writing preemptlab.workload.v1 files (see docs/contracts.md).
// Validation is strict and happens before anything is allocated for the run: unknown keys, wrong types,
// integers outside 0..2^53-1, bad ids, duplicate ids, requests that can never fit and over-cap workloads are
// all errors naming the JSON path.

#include "core/errors.h"
#include "core/workload.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl {

// Caps enforced before a run (the contract's minimums are 1,000,000 requests and 100,000,000 ticks).
struct Caps {
    std::int64_t max_requests = 10'000'000;
    std::int64_t max_ticks = 1'000'000'000;
    std::int64_t max_capacity_blocks = 50'000'000;
    std::int64_t max_file_bytes = std::int64_t{2} << 30; // 2 GiB of JSON
    // Prefix block ids in the whole workload (every request's prefix_blocks together): counted while reading,
    // so a file cannot hold more of them in memory than this (about 16 bytes each while parsing).
    std::int64_t max_prefix_blocks = 100'000'000;
    // The free-text notes: 1 MiB (an imported trace's notes are about 1 KB). A 1.9 GiB notes string took 5.9 GB
    // as it was copied from the document into the workload and on; it is refused before the copy.
    std::int64_t max_notes_bytes = std::int64_t{1} << 20;
};

template <typename T>
using Result = std::variant<T, InputError>;

// Parse and validate a workload document. `file` is only used in error messages. Text written plainly (as the
// project and its importers write it) is read by the fast path (readPlainWorkload, workload_plain.h: no JSON
// document); anything else, and every text with a mistake, by parseWorkloadStrict, so every error is the strict
// reader's. `stop` (the lab's Cancel on a big file; the CLI gives none) is read while reading the file, parsing
// it and converting its requests (StopCheck, stop_check.h): once set, they end with pl::Cancelled and no workload.
Result<Workload> parseWorkload(std::string_view text, const std::string& file, const Caps& caps = {},
                               const std::atomic<bool>* stop = nullptr);
// The strict reader alone: nlohmann_json's SAX parser into a DOM that checks duplicate keys, depth, caps and
// UTF-8 and reports syntax errors by line and column (json_reader.h); each request is read as soon as the parser
// has it and its JSON freed; the checks that need the config follow, in validateWorkload's order. The reference
// the fast path is held to (test_workload_plain, fuzz_workload).
Result<Workload> parseWorkloadStrict(std::string_view text, const std::string& file, const Caps& caps = {},
                                     const std::atomic<bool>* stop = nullptr);
// The same reading with the whole document held as JSON first (its requests read from the DOM, as
// workloadFromJson does): at 300,000 requests 3.6 times the peak memory and 1.4 times the time. Not for use:
// the reference that the tests and the fuzzer hold parseWorkloadStrict's results to, error for error.
Result<Workload> parseWorkloadWhole(std::string_view text, const std::string& file, const Caps& caps = {},
                                    const std::atomic<bool>* stop = nullptr);
Result<Workload> workloadFromJson(const nlohmann::json& doc, const std::string& file, const Caps& caps = {},
                                  const std::atomic<bool>* stop = nullptr);
Result<Workload> loadWorkloadFile(const std::string& path, const Caps& caps = {},
                                  const std::atomic<bool>* stop = nullptr);

// The whole of a file ("-": standard input) as text, refused over `maxBytes` (from its size when it has one,
// else while reading) and when it is a folder; `kind` names what was expected ("workload file", "receipt").
// Every file the project reads goes through here, so each gets the same caps and messages.
// `stop` is read every few 64 KiB reads (pl::Cancelled once set).
Result<std::string> readTextFile(const std::string& path, std::int64_t maxBytes, const std::string& kind,
                                 const std::atomic<bool>* stop = nullptr);

// Validate a workload built in memory (the lab's editor, generators, importers); same rules as parsing.
// `stop` is read every few thousand requests (pl::Cancelled once set).
std::optional<InputError> validateWorkload(const Workload& w, const Caps& caps = {},
                                           const std::atomic<bool>* stop = nullptr);

// Sort requests into the normalised order: (arrival_tick, id). Parsing does this already; call it after
// building or editing a Workload in memory.
void normaliseWorkload(Workload& w);

// The normalised JSON forms. workloadJson: format, name, config, requests (policy and notes left out); this is
// what input_hash covers. policyJson: every policy key with its value. fullWorkloadJson adds notes and policy.
nlohmann::json workloadJson(const Workload& w);
nlohmann::json policyJson(const Policy& p);
// unsetToo: also the optional keys at their unset values (0, false), as a settings editor lists them; files and
// receipts leave them out so that workloads without them keep their bytes.
nlohmann::json configJson(const Config& c, bool unsetToo = false);
nlohmann::json requestSpecJson(const RequestSpec& r); // one element of workloadJson's "requests"
nlohmann::json fullWorkloadJson(const Workload& w);

} // namespace pl
