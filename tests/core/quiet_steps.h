#pragma once
// The engine profiles' quiescent skip (core/engine.cpp, skipQuiescentTicks): pure decode steps advanced in one
// pass must give the same events, totals and receipt as ticking every step, with far fewer step() calls.
// Shared by test_engine_vllm and test_engine_trtllm.

#include "tests/core/engine_fixtures.h"

#include "core/ledger.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/trace/generator.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

namespace pltest {

// 300 requests with long outputs arriving slowly into a 600-block pool: long stretches of pure decoding
// between arrivals, and enough pressure to preempt.
inline pl::Workload decodeHeavyWorkload() {
    pl::trace::GeneratorParams p;
    p.count = 300;
    p.rate_per_tick = 0.05;
    p.prompt_median = 200;
    p.output_median = 300;
    p.output_max = 2000;
    p.priority_mix = {{0, 2}, {1, 1}};
    p.config.capacity_blocks = 600;
    p.config.block_size_tokens = 16;
    p.config.prefill_tokens_per_tick = 512;
    auto generated = pl::trace::generateWorkload(p);
    if (!std::holds_alternative<pl::Workload>(generated)) qFatal("decodeHeavyWorkload: the generator refused");
    return std::get<pl::Workload>(std::move(generated));
}

// `w` run by runWorkload's engine (skips on), stepped by hand, against the lab's (every tick): equal totals
// and event hashes, and the receipt passes the oracle. `calls`: the step() calls the skipping engine took.
// Callers check QTest::currentTestFailed() after it.
inline void checkSkippedRunMatchesTicked(const pl::Workload& w, const std::string& what, std::int64_t& calls) {
    pl::RunResult skipping;
    pl::Engine e(w, skipping.ledger);
    calls = 0;
    while (!e.finished()) {
        e.step();
        ++calls;
    }
    pl::collectResult(e, nullptr, skipping);
    const pl::RunResult ticked = tickByTickRun(w);
    QVERIFY2(skipping.totals == ticked.totals, what.c_str());
    QVERIFY2(pl::receiptHashes(w, skipping).event_hash == pl::receiptHashes(w, ticked).event_hash, what.c_str());
    const auto report = pl::checkReceipt(nlohmann::json::parse(pl::receiptText(w, skipping)));
    QVERIFY2(report.passed, (what + ": " + (report.violations.empty() ? "" : report.violations.front())).c_str());
}

} // namespace pltest
