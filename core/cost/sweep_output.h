#pragma once
// The sweep's two output forms: CSV (one row per point and mode) and JSON (preemptlab.sweep.v1), and the
// pieces of the JSON that sweep shards and the sweep reader share.

#include "core/cost/sweep.h"
#include "core/results.h"
#include "core/review/goodput.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pl::cost {

std::string sweepCsv(const SweepResult& r);
nlohmann::json sweepJson(const SweepResult& r);
nlohmann::json sweepTotalsJson(const Totals& t); // the "totals" object of a result, as in sweepJson
// The SLOs as the sweep's files record them (integers only, so the shard description can be hashed):
// {"ttft": {"ticks": N} | {"us": N}, "tpot": ...}, each key only when given (an SLO given in ms is in
// microseconds). The "goodput" object of a result: {"requests", "good", "censored", "missed_ttft",
// "missed_tpot"} (sweepJson adds "percent").
nlohmann::json sweepSlosJson(const review::Slos& slos);
nlohmann::json sweepGoodputJson(const review::Goodput& g);

} // namespace pl::cost
