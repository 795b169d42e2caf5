// Recoveries tell the truth across repeated eviction (issue 21, part 1): a request evicted again while it
// replays still owes the whole context it had, the next resume rebuilds all of it, and replay_done means the
// context is whole. The engine on the reported workload, the oracle on the receipt the old engine wrote and on
// mutations that drop the pending remainder, and a property test that drives tight random workloads into
// repeated eviction in every phase and asserts that it got there.
#include "tests/core/sanitizer_scale.h"
#include "tests/core/engine_fixtures.h"
#include "tests/test_rng.h"

#include "core/engine.h"
#include "core/ledger.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace pl;
using namespace pltest;

class TestRecoveryTruth : public QObject {
    Q_OBJECT

  private slots:
    void reEvictedWhileReplayingOwesTheWholeContext();
    void preFixReceiptFailsTheOracle();
    void droppingThePendingRemainderFailsTheOracle();
    void evictionDuringACopyBackFailsTheOracle();
    void propertyTightWorkloadsReevictInEveryPhase();
    void propertyEngineProfilesConserve();
    void propertyEngineProfilesSwapWhatIfConserves();
    void propertyVllmPrefixCachingConserves();
};

namespace {

const std::string kData = std::string(PREEMPTLAB_SOURCE_DIR) + "/tests/core/data/";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

Workload reportedWorkload() {
    Workload w = loadSampleFile(kData + "re-evicted-while-replaying.workload.json");
    w.policy.resume_guard = ResumeGuard::NextBlock;
    return w;
}

bool anyViolationSays(const OracleReport& report, const std::string& words) {
    for (const auto& v : report.violations) {
        if (v.find(words) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string violations(const OracleReport& report) {
    std::string all;
    for (const auto& v : report.violations) {
        all += v + "\n";
    }
    return all;
}


// A tight pool, a small prefill budget (replays take several ticks, so there is time to be evicted again
// during one), long outputs and a small host: every run preempts, and most re-evict.
Workload tightWorkload(std::uint64_t seed) {
    SplitMix rng{seed};
    Config c;
    c.block_size_tokens = rng.uniform(2, 16);
    c.capacity_blocks = rng.uniform(6, 20);
    c.kv_bytes_per_token = rng.uniform(64, 2048);
    c.prefill_tokens_per_tick = rng.uniform(1, 3) * c.block_size_tokens;
    c.transfer_bytes_per_tick = c.kv_bytes_per_token * c.block_size_tokens * rng.uniform(1, 4);
    c.host_capacity_bytes = c.kv_bytes_per_token * c.block_size_tokens * rng.uniform(0, 8);
    c.max_ticks = 1500;
    c.wait_threshold_ticks = 100;
    c.preemption_threshold = 3;
    std::vector<RequestSpec> reqs;
    const auto n = rng.uniform(3, 8);
    const std::int64_t pool = c.capacity_blocks * c.block_size_tokens;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto prompt = rng.uniform(1, std::max<std::int64_t>(1, pool / 3));
        const auto output = rng.uniform(1, std::max<std::int64_t>(1, pool - prompt));
        std::string id = "q";
        id += std::to_string(i);
        reqs.push_back(req(id, rng.uniform(0, 30), prompt, output, rng.uniform(0, 2), i % 2 == 0 ? "a" : "b", output));
    }
    Policy p;
    p.watermark_blocks = rng.uniform(0, 1);
    p.hybrid_swap_percent = rng.uniform(25, 100);
    return workload(c, p, reqs);
}

// A profile run's variant: the victim rule, and either no request cap and the default budget, or max_num_seqs 2
// with a budget of two blocks and a token.
void setProfileVariant(Workload& w, VictimRule rule, std::int64_t seqs) {
    w.policy.victim_rule = rule;
    w.config.max_num_seqs = seqs;
    w.config.max_num_batched_tokens = seqs == 0 ? 0 : w.config.block_size_tokens * 2 + 1;
}

// The run gives the events the lab's engine (ticked one by one, with the pool map) gives, and its receipt passes
// the oracle; `what` names the run in a failure.
void expectTickedAlikeAndConserved(const Workload& w, const RunResult& run, const std::string& what) {
    QCOMPARE(receiptHashes(w, tickByTickRun(w)).event_hash, receiptHashes(w, run).event_hash);
    const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
    QVERIFY2(report.passed, (what + ": " + (report.violations.empty() ? "" : report.violations.front())).c_str());
}

} // namespace

// The reported workload: q001 (prompt 2, 43 generated) is evicted at tick 56 owing 45 tokens, resumes replaying
// 45, and is evicted again at tick 59 with 32 of them rebuilt. That eviction drops 32 and carries the 13 still
// to replay, so it and every resume after it owe 45, and replay_done reports 45: the context is whole.
void TestRecoveryTruth::reEvictedWhileReplayingOwesTheWholeContext() {
    const Workload w = reportedWorkload();
    const RunResult run = runWorkload(w);
    std::int32_t q001 = -1;
    for (std::size_t i = 0; i < w.requests.size(); ++i) {
        if (w.requests[i].id == "q001") q001 = static_cast<std::int32_t>(i);
    }
    QVERIFY(q001 >= 0);
    const std::int64_t bs = w.config.block_size_tokens;
    int carriedSeen = 0;
    std::int64_t generatedAtEviction = -1;
    for (const Event& e : run.ledger.events) {
        if (e.request != q001) continue;
        if (e.kind == EventKind::Evict) {
            generatedAtEviction = e.generated_tokens;
            // Every eviction of q001 owes its whole context, whatever was resident.
            QCOMPARE(e.replay_tokens, e.prompt_tokens + e.generated_tokens);
            QVERIFY(e.context_tokens <= e.replay_tokens);
            QCOMPARE(droppedReplayTokens(e, bs), e.context_tokens);
            if (carriedReplayTokens(e, bs) > 0) ++carriedSeen;
            if (e.tick == 59) {
                QCOMPARE(e.context_tokens, std::int64_t{32});
                QCOMPARE(e.replay_tokens, std::int64_t{45});
                QCOMPARE(carriedReplayTokens(e, bs), std::int64_t{13});
            }
        } else if (e.kind == EventKind::Resume || e.kind == EventKind::ReplayDone) {
            QCOMPARE(e.replay_tokens, w.requests[static_cast<std::size_t>(q001)].prompt_tokens + generatedAtEviction);
        }
    }
    QVERIFY(carriedSeen >= 3);
    // The work is what it was: only the labels were wrong. Dropped tokens, evictions and the run's length stand.
    QCOMPARE(run.totals.evictions, std::int64_t{36});
    QCOMPARE(run.totals.replay_tokens, std::int64_t{1842});
    QCOMPARE(run.totals.ticks, std::int64_t{288});
    const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
    QVERIFY2(report.passed, violations(report).c_str());
}

// The receipt the engine wrote before the fix (kept as it was) passes every per-event check the old oracle
// made, but a recovery that ends short of the context, and an eviction that forgets the pending replay, are
// what the global checks exist for.
void TestRecoveryTruth::preFixReceiptFailsTheOracle() {
    const auto doc = nlohmann::json::parse(readFile(kData + "re-evicted-while-replaying.pre-fix.receipt.json"));
    QCOMPARE(doc["checks"]["conservation"]["passed"].get<bool>(), true); // what the old oracle said
    const auto report = checkReceipt(doc);
    QVERIFY(!report.passed);
    QVERIFY2(anyViolationSays(report, "evict of q001, tick 59): recompute must replay all context_tokens (32) plus the 13 "
                                      "tokens its unfinished replay still owed"),
             violations(report).c_str());
    QVERIFY2(anyViolationSays(report, "ends with a context of 16 tokens, but the request's context is prompt_tokens + "
                                      "generated_tokens = 45"),
             violations(report).c_str());
}

// Mutations of a correct receipt that make it look as the old engine wrote it: the pending remainder is taken
// out of the eviction's replay, then also out of the resume and replay_done that follow (so every event's
// local arithmetic agrees again). Both must fail.
void TestRecoveryTruth::droppingThePendingRemainderFailsTheOracle() {
    const Workload w = reportedWorkload();
    const auto good = nlohmann::json::parse(receiptText(w, runWorkload(w)));
    QVERIFY(checkReceipt(good).passed);
    const std::int64_t bs = w.config.block_size_tokens;
    for (const bool followers : {false, true}) {
        auto doc = good;
        auto& events = doc["events"];
        bool mutated = false;
        for (std::size_t i = 0; i < events.size() && !mutated; ++i) {
            auto& e = events[i];
            if (e["kind"] != "evict") continue;
            const std::int64_t context = e["context_tokens"].get<std::int64_t>();
            const std::int64_t replay = e["replay_tokens"].get<std::int64_t>();
            const std::int64_t kept = e["mode"] == "swap"     ? context
                                      : e["mode"] == "hybrid" ? e["swap_blocks"].get<std::int64_t>() * bs
                                                              : 0;
            const std::int64_t carried = replay - (context - kept);
            if (carried <= 0) continue;
            e["replay_tokens"] = replay - carried;
            for (std::size_t j = i + 1; followers && j < events.size(); ++j) {
                auto& f = events[j];
                if (f["request"] != e["request"]) continue;
                if (f["kind"] == "resume" || f["kind"] == "replay_done") {
                    f["replay_tokens"] = f["replay_tokens"].get<std::int64_t>() - carried;
                }
                if (f["kind"] == "replay_done" || f["kind"] == "evict") break;
            }
            mutated = true;
        }
        QVERIFY(mutated);
        const auto report = checkReceipt(doc);
        QVERIFY2(!report.passed, followers ? "followers adjusted" : "evict only");
        QVERIFY2(anyViolationSays(report, "its unfinished replay still owed"), violations(report).c_str());
    }
}

// A request whose copy back is in flight holds blocks but is not a candidate (its blocks are the copy's
// target): an eviction between a swap resume and its swap_in_done is refused by the oracle.
void TestRecoveryTruth::evictionDuringACopyBackFailsTheOracle() {
    Workload w = loadSample("swap-wins");
    w.policy.recovery = Recovery::Swap;
    auto doc = nlohmann::json::parse(receiptText(w, runWorkload(w)));
    QVERIFY(checkReceipt(doc).passed);
    auto& events = doc["events"];
    // Find a swap_in_done whose request is evicted again later, and move it after that eviction.
    bool moved = false;
    for (std::size_t i = 0; i < events.size() && !moved; ++i) {
        if (events[i]["kind"] != "swap_in_done") continue;
        for (std::size_t j = i + 1; j < events.size(); ++j) {
            if (events[j]["request"] != events[i]["request"] || events[j]["kind"] != "evict") continue;
            auto landed = events[i];
            landed["tick"] = events[j]["tick"];
            events.insert(events.begin() + static_cast<std::ptrdiff_t>(j) + 1, landed);
            events.erase(events.begin() + static_cast<std::ptrdiff_t>(i));
            moved = true;
            break;
        }
    }
    QVERIFY2(moved, "swap-wins has a request evicted again after a swap-in");
    for (std::size_t i = 0; i < events.size(); ++i) events[i]["seq"] = i;
    const auto report = checkReceipt(doc);
    QVERIFY(!report.passed);
    QVERIFY2(anyViolationSays(report, "was in flight (a request whose swap-in has not landed is not a candidate)"),
             violations(report).c_str());
}

// Tight random workloads under every recovery mode, victim rule, resume guard and preempt-ahead setting pass
// the strengthened oracle, and they reach the hard states: evictions during a replay under recompute, during the
// replayed tail of a hybrid recovery, and of a request whose swap resume still owed a replay (adaptive and
// host-full fallbacks mix the modes). A request whose swap-in is in flight is never a candidate (the oracle
// refuses it, above), so that phase cannot be reached by design.
void TestRecoveryTruth::propertyTightWorkloadsReevictInEveryPhase() {
    const Recovery modes[] = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid};
    const VictimRule rules[] = {VictimRule::PriorityNewest, VictimRule::LastAdmitted,   VictimRule::LongestContext,
                                VictimRule::ShortestContext, VictimRule::FewestDecoded, VictimRule::MostRemaining,
                                VictimRule::TenantFair};
    const auto seeds = std::min<std::uint64_t>(24, static_cast<std::uint64_t>(24 / pltest::sanitizerScale() + 2));
    int runs = 0;
    std::int64_t evictions = 0;
    std::map<std::string, std::int64_t> seen; // "<evict mode> during <interrupted recovery>"
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        Workload w = tightWorkload(seed);
        const auto invalid = validateWorkload(w);
        QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
        const std::int64_t bs = w.config.block_size_tokens;
        for (auto mode : modes) {
            for (auto rule : rules) {
                for (auto guard : {ResumeGuard::FullReservation, ResumeGuard::NextBlock}) {
                    for (bool ahead : {false, true}) {
                        w.policy.recovery = mode;
                        w.policy.victim_rule = rule;
                        w.policy.resume_guard = guard;
                        w.policy.preempt_ahead = ahead;
                        const RunResult run = runWorkload(w);
                        ++runs;
                        evictions += run.totals.evictions;
                        std::map<std::int32_t, Recovery> lastResume;
                        for (const Event& e : run.ledger.events) {
                            if (e.kind == EventKind::Resume) lastResume[e.request] = e.mode;
                            if (e.kind != EventKind::Evict) continue;
                            if (e.generated_tokens == 0 && e.context_tokens < e.prompt_tokens &&
                                !lastResume.contains(e.request)) {
                                seen["evicted during its first prefill"] += 1;
                            }
                            if (carriedReplayTokens(e, bs) > 0) {
                                seen[std::string(toString(e.mode)) + " during a " +
                                     std::string(toString(lastResume[e.request])) + " recovery"] += 1;
                            }
                        }
                        const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
                        if (!report.passed) {
                            QFAIL(("seed " + std::to_string(seed) + " " + std::string(toString(mode)) + "/" +
                                   std::string(toString(rule)) + "/" + std::string(toString(guard)) +
                                   (ahead ? "/preempt-ahead" : "") + ": " + report.violations.front())
                                      .c_str());
                        }
                    }
                }
            }
        }
    }
    std::string counts;
    for (const auto& [what, count] : seen) counts += "\n  " + what + ": " + std::to_string(count);
    qInfo("%d runs, %lld evictions, evictions during an unfinished recovery:%s", runs,
          static_cast<long long>(evictions), counts.c_str());
    QCOMPARE(runs, static_cast<int>(seeds) * 4 * 7 * 2 * 2);
    for (const char* state : {"recompute during a recompute recovery", "hybrid during a hybrid recovery",
                              "recompute during a hybrid recovery", "swap during a recompute recovery",
                              "evicted during its first prefill"}) {
        QVERIFY2(seen[state] > 0, state);
    }
}

// The same tight workloads under the vllm-v1 profile (recompute only; every victim rule, the non-vLLM ones as
// what-ifs; max_num_seqs and the token budget varied): the oracle's checks, vLLM's victim and no-admission
// rules included, hold; the lab's engine (ticked one by one) writes the same events; re-eviction during a
// replay is reached here too.
void TestRecoveryTruth::propertyEngineProfilesConserve() {
    const VictimRule rules[] = {VictimRule::PriorityNewest, VictimRule::LastAdmitted,   VictimRule::LongestContext,
                                VictimRule::ShortestContext, VictimRule::FewestDecoded, VictimRule::MostRemaining,
                                VictimRule::TenantFair};
    const auto seeds = std::min<std::uint64_t>(24, static_cast<std::uint64_t>(24 / pltest::sanitizerScale() + 2));
    int runs = 0;
    std::int64_t evictions = 0;
    std::int64_t carried = 0;
    std::map<std::string, std::int64_t> byProfile;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      for (auto profile : {EngineProfile::VllmV1, EngineProfile::Sglang, EngineProfile::TrtllmMaxUtilization,
                           EngineProfile::TrtllmGuaranteedNoEvict}) {
        Workload w = tightWorkload(seed);
        w.policy.engine_profile = profile;
        w.policy.recovery = Recovery::Recompute;
        for (auto rule : rules) {
            for (std::int64_t seqs : {0, 2}) {
                setProfileVariant(w, rule, seqs);
                const auto invalid = validateWorkload(w);
                QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                const RunResult run = runWorkload(w);
                ++runs;
                evictions += run.totals.evictions;
                byProfile[std::string(toString(profile))] += run.totals.evictions;
                for (const Event& e : run.ledger.events) {
                    if (e.kind == EventKind::Evict && carriedReplayTokens(e, w.config.block_size_tokens) > 0) ++carried;
                }
                expectTickedAlikeAndConserved(w, run, "seed " + std::to_string(seed) + " " +
                                                          std::string(toString(profile)) + "/" + std::string(toString(rule)));
                if (QTest::currentTestFailed()) return;
            }
        }
      }
    }
    std::string counts;
    for (const auto& [profile, count] : byProfile) counts += " " + profile + "=" + std::to_string(count);
    qInfo("engine profiles: %d runs, %lld evictions (%s), %lld during an unfinished replay", runs,
          static_cast<long long>(evictions), counts.c_str(), static_cast<long long>(carried));
    QVERIFY(byProfile["vllm-v1"] > 100);
    QVERIFY(byProfile["sglang"] > 0);
    QVERIFY(byProfile["trtllm-max-utilization"] > 100);
    QCOMPARE(byProfile["trtllm-guaranteed-no-evict"], std::int64_t{0}); // it never pauses
    QVERIFY(carried > 0);
}

// Swap, hybrid and adaptive as what-ifs under every profile, on the same tight workloads (small hosts, so the
// fallbacks to recompute happen too): what is owed is what is rebuilt across every eviction (the oracle), the
// lab's engine ticked one by one writes the same events, a swapped request resumes by swap-in only after its
// copy out landed, and under vLLM's fcfs queue every victim goes back to the head of the waiting queue.
void TestRecoveryTruth::propertyEngineProfilesSwapWhatIfConserves() {
    const auto seeds = std::min<std::uint64_t>(24, static_cast<std::uint64_t>(24 / pltest::sanitizerScale() + 2));
    int runs = 0;
    std::map<std::string, std::int64_t> seen;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      for (auto profile : {EngineProfile::VllmV1, EngineProfile::Sglang, EngineProfile::TrtllmMaxUtilization,
                           EngineProfile::TrtllmGuaranteedNoEvict}) {
        const VictimRule own = profile == EngineProfile::Sglang ? VictimRule::FewestDecoded : VictimRule::LastAdmitted;
        for (auto recovery : {Recovery::Swap, Recovery::Hybrid, Recovery::Adaptive}) {
          for (auto rule : {own, VictimRule::LongestContext}) {
            for (std::int64_t seqs : {0, 2}) {
                Workload w = tightWorkload(seed);
                w.policy.engine_profile = profile;
                w.policy.recovery = recovery;
                setProfileVariant(w, rule, seqs);
                if (rule != own) { // the what-if rule's runs with a host that holds the whole pool (no fallbacks)
                    w.config.host_capacity_bytes =
                        w.config.capacity_blocks * w.config.block_size_tokens * w.config.kv_bytes_per_token;
                }
                const auto invalid = validateWorkload(w);
                QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                const RunResult run = runWorkload(w);
                ++runs;
                const std::string what = "seed " + std::to_string(seed) + " " + std::string(toString(profile)) + "/" +
                                         std::string(toString(recovery)) + "/" + std::string(toString(rule)) +
                                         " seqs " + std::to_string(seqs);
                std::map<std::int32_t, Phase> state; // SwapOut until swap_out_done, then SwappedOut
                for (const Event& e : run.ledger.events) {
                    if (e.kind == EventKind::Evict) {
                        seen[std::string(toString(profile)) + " evict " + std::string(toString(e.mode))] += 1;
                        if (e.mode != Recovery::Recompute) state[e.request] = Phase::SwapOut;
                        if (profile == EngineProfile::VllmV1 && rule == VictimRule::LastAdmitted) {
                            QVERIFY2(e.queue_position == 0, (what + ": a vLLM fcfs victim goes to the queue's head").c_str());
                        }
                    } else if (e.kind == EventKind::SwapOutDone) {
                        QVERIFY2(state[e.request] == Phase::SwapOut, what.c_str());
                        state[e.request] = Phase::SwappedOut;
                    } else if (e.kind == EventKind::Resume && e.mode != Recovery::Recompute) {
                        QVERIFY2(state[e.request] == Phase::SwappedOut,
                                 (what + ": a swap-in started before the copy out landed").c_str());
                        state.erase(e.request);
                        seen[std::string(toString(profile)) + " resumes by swap-in"] += 1;
                    }
                }
                expectTickedAlikeAndConserved(w, run, what);
                if (QTest::currentTestFailed()) return;
            }
          }
        }
      }
    }
    std::string counts;
    for (const auto& [what, count] : seen) counts += "\n  " + what + ": " + std::to_string(count);
    qInfo("swap what-ifs under the engine profiles: %d runs:%s", runs, counts.c_str());
    QCOMPARE(runs, static_cast<int>(seeds) * 4 * 3 * 2 * 2);
    for (const char* profile : {"vllm-v1", "sglang", "trtllm-max-utilization"}) {
        for (const char* kind : {" evict swap", " evict hybrid", " evict recompute", " resumes by swap-in"}) {
            const std::string key = std::string(profile) + kind;
            QVERIFY2(seen[key] > 0, key.c_str());
        }
    }
    QCOMPARE(seen["trtllm-guaranteed-no-evict resumes by swap-in"], std::int64_t{0}); // it never pauses
}

// vllm-v1 with enable_prefix_caching on the same tight workloads, some requests sharing a declared prefix: a
// resume that hits its own surviving blocks replays only the rest, and what is owed is still what is rebuilt
// (the oracle), across every eviction, ticked one by one or skipped.
void TestRecoveryTruth::propertyVllmPrefixCachingConserves() {
    const auto seeds = std::min<std::uint64_t>(24, static_cast<std::uint64_t>(24 / pltest::sanitizerScale() + 2));
    int runs = 0;
    std::int64_t evictions = 0;
    std::int64_t ownHits = 0;     // resumes that attached blocks of their own
    std::int64_t carried = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        Workload w = tightWorkload(seed);
        w.policy.engine_profile = EngineProfile::VllmV1;
        w.policy.recovery = Recovery::Recompute;
        w.policy.watermark_blocks = 0;
        w.config.enable_prefix_caching = true;
        for (std::size_t i = 0; i < w.requests.size(); i += 3) { // every third request shares a prefix
            auto& r = w.requests[i];
            const std::int64_t full = std::min<std::int64_t>(2, r.prompt_tokens / w.config.block_size_tokens);
            r.prefix_blocks.clear();
            for (std::int64_t b = 0; b < full; ++b) r.prefix_blocks.push_back(b + 1);
        }
        for (auto rule : {VictimRule::LastAdmitted, VictimRule::PriorityNewest, VictimRule::LongestContext}) {
            for (std::int64_t seqs : {0, 2}) {
                setProfileVariant(w, rule, seqs);
                const auto invalid = validateWorkload(w);
                QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                const RunResult run = runWorkload(w);
                ++runs;
                evictions += run.totals.evictions;
                for (const Event& e : run.ledger.events) {
                    if (e.kind == EventKind::Resume && e.cached_tokens > 0) {
                        const auto& spec = w.requests[static_cast<std::size_t>(e.request)];
                        const auto declared = static_cast<std::int64_t>(spec.prefix_blocks.size()) *
                                              w.config.block_size_tokens;
                        ownHits += e.cached_tokens > declared ? 1 : 0;
                    }
                    if (e.kind == EventKind::Evict && carriedReplayTokens(e, w.config.block_size_tokens) > 0) ++carried;
                }
                expectTickedAlikeAndConserved(w, run, "seed " + std::to_string(seed) + " caching/" + std::string(toString(rule)));
                if (QTest::currentTestFailed()) return;
            }
        }
    }
    qInfo("vllm-v1 with prefix caching: %d runs, %lld evictions, %lld resumes hit their own blocks, %lld evictions "
          "during an unfinished replay",
          runs, static_cast<long long>(evictions), static_cast<long long>(ownHits), static_cast<long long>(carried));
    QVERIFY(evictions > 100);
    QVERIFY(ownHits > 10);
    QVERIFY(carried > 0);
}

QTEST_GUILESS_MAIN(TestRecoveryTruth)
#include "test_recovery_truth.moc"
