// The oracle's checks of the request records and the totals against what the events added up to.
#include "core/oracle_impl.h"

namespace pl::oracle_detail {

void Oracle::endRecords(const json& receipt) {
    const auto records = receipt.find("requests");
    if (records == receipt.end() || !records->is_array()) {
        add("the receipt has no 'requests' array of records");
        return;
    }
    for (const auto& r : workload_.requests) {
        const Track& t = *tracks_.find(r.id);
        if (!tracks_.hasRecord(t)) {
            add("request " + r.id + ": no record in 'requests'");
        }
        if (t.ending.empty()) {
            add("request " + r.id + ": never completed or censored");
        }
    }
}

void Oracle::checkRecord(const Value& record, std::size_t index) {
    std::string where = "record " + n(static_cast<std::int64_t>(index));
    try {
        const std::string id = strOf(record, "id");
        where = "record of " + id;
        const Track* track = tracks_.find(id);
        if (track == nullptr) {
            add(where + ": no request with this id in the workload");
            return;
        }
        if (const std::size_t first = tracks_.firstRecord(*track, index); first != index) {
            add(where + ": listed twice (records " + n(static_cast<std::int64_t>(first)) + " and " +
                n(static_cast<std::int64_t>(index)) + ")");
            return;
        }
        const Track& t = *track;
        const std::string status = strOf(record, "status");
        const std::string expected = t.ending == "complete" ? "completed" : t.ending == "censor" ? "censored" : "";
        if (status != expected) {
            add(where + ": status '" + status + "' but its events " +
                (expected.empty() ? std::string("never end it") : "end with '" + t.ending + "'"));
        }
        const std::int64_t generated = intOf(record, "generated_tokens");
        if (generated != t.generated) {
            add(where + ": generated_tokens " + n(generated) + " differs from the last seen in its events (" + n(t.generated) + ")");
        }
        if (status == "completed" && generated != t.spec->output_tokens) {
            add(where + ": completed with " + n(generated) + " tokens, not output_tokens " + n(t.spec->output_tokens));
        }
        const std::int64_t preemptions = intOf(record, "preemptions");
        if (preemptions != t.evicts) {
            add(where + ": preemptions " + n(preemptions) + " but it was evicted " + n(t.evicts) + " times");
        }
        const auto tickMatches = [&](std::string_view key, const std::optional<std::int64_t>& fromEvents) {
            const auto f = record.find(key);
            const bool isNull = f == record.end() || f->is_null();
            if (isNull ? fromEvents.has_value() : (!fromEvents || intOf(record, key) != *fromEvents)) {
                add(where + ": " + std::string(key) + " is " + (isNull ? "null" : f->dump()) + " but its events say " +
                    (fromEvents ? n(*fromEvents) : std::string("null")));
            }
        };
        tickMatches("first_token_tick", t.firstTokenTick);
        tickMatches("completion_tick", t.completionTick);
        const std::int64_t queueTicks = intOf(record, "queue_ticks");
        const auto flags = record.find("flags");
        if (flags == record.end() || !flags->is_array()) {
            throw BadField{"has no 'flags' array"};
        }
        bool wait = false;
        bool repeated = false;
        for (const auto& f : *flags) {
            if (f == "excessive_wait" && !wait) {
                wait = true;
            } else if (f == "repeated_preemption" && !repeated) {
                repeated = true;
            } else {
                add(where + ": unknown or repeated flag " + f.dump());
            }
        }
        const Config& c = workload_.config;
        if (wait != (queueTicks > c.wait_threshold_ticks)) {
            add(where + ": excessive_wait is " + (wait ? "set" : "missing") + " but queue_ticks " + n(queueTicks) +
                (wait ? " <= " : " > ") + "wait_threshold_ticks " + n(c.wait_threshold_ticks));
        }
        if (repeated != (preemptions > c.preemption_threshold)) {
            add(where + ": repeated_preemption is " + (repeated ? "set" : "missing") + " but preemptions " + n(preemptions) +
                (repeated ? " <= " : " > ") + "preemption_threshold " + n(c.preemption_threshold));
        }
    } catch (const BadField& bad) {
        add(where + " " + bad.reason);
    }
}

void Oracle::checkTotals(const json& receipt) {
    const auto totals = receipt.find("totals");
    if (totals == receipt.end() || !totals->is_object()) {
        add("the receipt has no 'totals' object");
        return;
    }
    const std::pair<std::string_view, std::int64_t> sums[] = {
        {"evictions", sums_.evictions},       {"queue_reentries", sums_.evictions}, {"freed_blocks", sums_.freedBlocks},
        {"replay_tokens", sums_.replayTokens}, {"swap_out_bytes", sums_.swapOutBytes}, {"swap_in_bytes", sums_.swapInBytes},
        {"completed", sums_.completed},       {"censored", sums_.censored},         {"pressure_events", sums_.pressure},
    };
    try {
        for (const auto& [key, fromEvents] : sums) {
            const std::int64_t stated = intOf(*totals, key);
            if (stated != fromEvents) {
                add("totals." + std::string(key) + " is " + n(stated) + " but the events add up to " + n(fromEvents));
            }
        }
        if (prefix_ && intOf(*totals, "cached_tokens") != sums_.cachedTokens) {
            add("totals.cached_tokens is " + n(intOf(*totals, "cached_tokens")) + " but the admit and resume events add up to " +
                n(sums_.cachedTokens));
        }
        const std::int64_t peak = intOf(*totals, "peak_host_bytes");
        if (peak < sums_.peakHostSeen || peak > workload_.config.host_capacity_bytes) {
            add("totals.peak_host_bytes " + n(peak) + " is below an event's host_bytes (" + n(sums_.peakHostSeen) +
                ") or above host_capacity_bytes " + n(workload_.config.host_capacity_bytes));
        }
        const std::int64_t ticks = intOf(*totals, "ticks");
        if (ticks > workload_.config.max_ticks || ticks <= sums_.lastNonCensorTick) {
            add("totals.ticks " + n(ticks) + " must exceed the last event tick " + n(sums_.lastNonCensorTick) +
                " and be at most max_ticks " + n(workload_.config.max_ticks));
        }
    } catch (const BadField& bad) {
        add("totals " + bad.reason);
    }
}

} // namespace pl::oracle_detail
