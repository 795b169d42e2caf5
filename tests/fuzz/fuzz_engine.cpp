// Fuzz target: the engine. The input bytes are read as a small workload (config, policy, up to 24 requests,
// shared prefixes); every one that passes validateWorkload must
//  - run to completion, every request completed or censored;
//  - produce a receipt that the conservation oracle passes (oracle.h);
//  - be deterministic: the Session's run (record_series; its snapshots with block owners) writes the
//    byte-identical receipt, and the Session's cursor after seeking to any tick equals a fresh engine stepped
//    to that tick.
#include "tests/fuzz/fuzz_common.h"

#include "core/engine.h"
#include "core/ledger.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/session.h"

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace pl;

template <typename E>
E pick(FuzzedDataProvider& in, int count) {
    return static_cast<E>(in.ConsumeIntegralInRange<int>(0, count - 1));
}

Workload makeWorkload(FuzzedDataProvider& in) {
    Workload w;
    w.name = "fuzz";
    Config& c = w.config;
    c.block_size_tokens = in.ConsumeIntegralInRange<std::int64_t>(1, 16);
    c.capacity_blocks = in.ConsumeIntegralInRange<std::int64_t>(1, 48);
    c.kv_bytes_per_token = in.ConsumeIntegralInRange<std::int64_t>(1, 2048);
    c.prefill_tokens_per_tick = in.ConsumeIntegralInRange<std::int64_t>(1, 256);
    c.transfer_bytes_per_tick = in.ConsumeIntegralInRange<std::int64_t>(1, 1 << 16);
    c.host_capacity_bytes = in.ConsumeIntegralInRange<std::int64_t>(0, 1 << 18);
    c.max_ticks = in.ConsumeIntegralInRange<std::int64_t>(1, 3000);
    c.wait_threshold_ticks = in.ConsumeIntegralInRange<std::int64_t>(0, 100);
    c.preemption_threshold = in.ConsumeIntegralInRange<std::int64_t>(0, 5);
    Policy& p = w.policy;
    p.recovery = pick<Recovery>(in, 4);
    p.victim_rule = pick<VictimRule>(in, 7);
    p.adaptive_tie = pick<AdaptiveTie>(in, 2);
    p.resume_guard = pick<ResumeGuard>(in, 2);
    p.watermark_blocks = in.ConsumeIntegralInRange<std::int64_t>(0, 4);
    p.preempt_ahead = in.ConsumeBool();
    p.hybrid_swap_percent = in.ConsumeIntegralInRange<std::int64_t>(0, 100);
    const int n = in.ConsumeIntegralInRange<int>(1, 24);
    const std::int64_t maxTokens = c.capacity_blocks * c.block_size_tokens;
    for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
        RequestSpec r;
        r.id = "r" + std::to_string(i);
        // before max_ticks: validation refuses a request that would arrive after the run ends
        r.arrival_tick = in.ConsumeIntegralInRange<std::int64_t>(0, std::min<std::int64_t>(300, c.max_ticks - 1));
        r.prompt_tokens = in.ConsumeIntegralInRange<std::int64_t>(1, maxTokens);
        r.max_output_tokens = in.ConsumeIntegralInRange<std::int64_t>(1, std::max<std::int64_t>(1, maxTokens - r.prompt_tokens));
        r.output_tokens = in.ConsumeIntegralInRange<std::int64_t>(1, r.max_output_tokens);
        r.priority = in.ConsumeIntegralInRange<std::int64_t>(0, 3);
        r.tenant = "t" + std::to_string(in.ConsumeIntegralInRange<int>(0, 2));
        if (in.ConsumeBool()) {
            const std::int64_t full = r.prompt_tokens / c.block_size_tokens;
            const std::int64_t count = in.ConsumeIntegralInRange<std::int64_t>(0, full);
            // Chains of consecutive ids from a few shared starts (runs, as real traces name them), with
            // stray small ids mixed in (runs broken, ids repeated).
            const std::int64_t base = 8 * in.ConsumeIntegralInRange<std::int64_t>(0, 3);
            for (std::int64_t b = 0; b < count; ++b) {
                r.prefix_blocks.push_back(in.ConsumeBool() ? base + b : in.ConsumeIntegralInRange<std::int64_t>(0, 5));
            }
        }
        w.requests.push_back(std::move(r));
    }
    return w;
}

void sameState(const Engine& a, const Engine& b, Tick t, const Workload& w) {
    const auto ra = a.requests();
    const auto rb = b.requests();
    for (std::size_t i = 0; i < ra.size(); ++i) {
        if (ra[i].phase != rb[i].phase || ra[i].generated_tokens != rb[i].generated_tokens ||
            ra[i].computed_tokens != rb[i].computed_tokens || ra[i].blocks != rb[i].blocks ||
            ra[i].host_bytes != rb[i].host_bytes || ra[i].preemptions != rb[i].preemptions) {
            fuzz::bug("Session cursor differs from a fresh engine at tick " + std::to_string(t) + ", request " +
                      std::to_string(i) + "\nworkload: " + fullWorkloadJson(w).dump());
        }
    }
    if (a.freeBlocks() != b.freeBlocks() || a.hostBytes() != b.hostBytes() || !(a.totals() == b.totals())) {
        fuzz::bug("Session cursor pool differs from a fresh engine at tick " + std::to_string(t) +
                  "\nworkload: " + fullWorkloadJson(w).dump());
    }
}

// The hard states the run reached, each said once on stderr: scripts/fuzz-ci.sh requires the first two in the
// target's log, so a corpus that stops reaching repeated eviction during a recovery fails CI instead of passing
// vacuously.
void noteReached(const Workload& w, const RunResult& run) {
    static bool said[3] = {false, false, false};
    static const char* const what[3] = {"eviction during an unfinished replay",
                                        "eviction during a swap or hybrid recovery's replay",
                                        "a swap eviction carrying a replay"};
    std::vector<Recovery> lastResume(w.requests.size(), Recovery::Recompute);
    for (const Event& e : run.ledger.events) {
        if (e.kind == EventKind::Resume) {
            lastResume[static_cast<std::size_t>(e.request)] = e.mode;
        }
        if (e.kind != EventKind::Evict || carriedReplayTokens(e, w.config.block_size_tokens) <= 0) {
            continue;
        }
        const bool states[3] = {true, lastResume[static_cast<std::size_t>(e.request)] != Recovery::Recompute,
                                e.mode == Recovery::Swap};
        for (int i = 0; i < 3; ++i) {
            if (states[i] && !said[i]) {
                said[i] = true;
                std::fprintf(stderr, "fuzz_engine reached: %s\n", what[i]);
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    Workload w = makeWorkload(in);
    if (validateWorkload(w, fuzz::smallCaps())) {
        return 0;
    }
    normaliseWorkload(w);
    const RunResult run = runWorkload(w);
    if (run.totals.completed + run.totals.censored != static_cast<std::int64_t>(w.requests.size())) {
        fuzz::bug("not every request completed or was censored");
    }
    noteReached(w, run);
    const std::string text = receiptText(w, run);
    const OracleReport report = checkReceipt(nlohmann::json::parse(text));
    if (!report.passed) {
        fuzz::bug("conservation oracle: " + (report.violations.empty() ? std::string("?") : report.violations.front()) +
                  "\nworkload: " + fullWorkloadJson(w).dump());
    }
    Session session(w);
    if (receiptText(session.workload(), session.result()) != text) {
        fuzz::bug("the Session's run writes a different receipt\nworkload: " + fullWorkloadJson(w).dump());
    }
    const Tick t = in.ConsumeIntegralInRange<Tick>(-1, std::max<Tick>(-1, session.lastTick()));
    session.seek(t);
    Ledger ledger;
    Engine fresh(session.workload(), ledger);
    fresh.runToTick(t);
    sameState(session.cursor(), fresh, t, session.workload());
    return 0;
}
