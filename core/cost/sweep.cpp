#include "core/cost/sweep.h"

#include "core/number_text.h"
#include "core/receipt.h"
#include "core/review/outcomes.h"
#include "core/run_control.h"
#include "core/stop_check.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <mutex>
#include <thread>

namespace pl::cost {

namespace {

constexpr SweepMetric kMetrics[] = {SweepMetric::MeanCompletion, SweepMetric::P95Completion, SweepMetric::MeanQueue,
                                    SweepMetric::P95Queue,       SweepMetric::MaxQueue,      SweepMetric::Ticks,
                                    SweepMetric::Evictions,      SweepMetric::ReplayTokens,  SweepMetric::SwapBytes,
                                    SweepMetric::Censored,       SweepMetric::SloMisses};

InputError axisError(const std::string& key, const std::string& reason) {
    return InputError{"", "--vary " + key, reason};
}

// "'SPEC'TAIL", built by appending (GCC 12 warns falsely about "'" + std::string(...) under -O2).
std::string quoted(std::string_view spec, std::string_view tail) {
    std::string out = "'";
    out.append(spec).append("'").append(tail);
    return out;
}

std::optional<std::int64_t> parseInt(std::string_view s) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::int64_t nearestRank95(std::vector<std::int64_t>& v) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const std::size_t rank = (v.size() * 95 + 99) / 100; // ceil(0.95 n), 1-based
    return v[std::max<std::size_t>(rank, 1) - 1];
}

double metricOf(SweepMetric m, const ModeResult& r) {
    switch (m) {
    case SweepMetric::MeanCompletion: return r.mean_completion_ticks;
    case SweepMetric::P95Completion: return static_cast<double>(r.p95_completion_ticks);
    case SweepMetric::MeanQueue: return r.mean_queue_ticks;
    case SweepMetric::P95Queue: return static_cast<double>(r.p95_queue_ticks);
    case SweepMetric::MaxQueue: return static_cast<double>(r.max_queue_ticks);
    case SweepMetric::Ticks: return static_cast<double>(r.totals.ticks);
    case SweepMetric::Evictions: return static_cast<double>(r.totals.evictions);
    case SweepMetric::ReplayTokens: return static_cast<double>(r.totals.replay_tokens);
    case SweepMetric::SwapBytes: return static_cast<double>(r.totals.swap_out_bytes + r.totals.swap_in_bytes);
    case SweepMetric::Censored: return static_cast<double>(r.totals.censored);
    case SweepMetric::SloMisses: return r.goodput ? 100.0 - r.goodput->percent() : 0.0;
    }
    return 0.0;
}

ModeResult runOne(const Workload& w, Recovery mode, const SweepSpec& sweep, std::int64_t maxEvents,
                  const std::atomic<bool>* stop) {
    Workload run = w;
    run.policy.recovery = mode;
    RunControl control;
    control.cancel = stop; // RunCancelled (a pl::Cancelled) at the run's next check
    control.max_events = maxEvents; // a point that outgrows memory fails with its figures (RunTooLarge)
    const RunResult rr = runWorkload(run, nullptr, control);
    ModeResult m;
    m.mode = mode;
    m.input_hash = receiptHashes(run, rr).input_hash;
    m.totals = rr.totals;
    std::vector<std::int64_t> queue;
    std::vector<std::int64_t> completion;
    std::int64_t queueSum = 0;
    std::int64_t completionSum = 0;
    for (const auto& rec : rr.records) {
        const auto& spec = run.requests[static_cast<std::size_t>(rec.request)];
        const std::int64_t end = rec.completed ? rec.completion_tick : run.config.max_ticks;
        const std::int64_t c = std::max<std::int64_t>(0, end - spec.arrival_tick);
        queue.push_back(rec.queue_ticks);
        completion.push_back(c);
        queueSum += rec.queue_ticks;
        completionSum += c;
    }
    const auto n = static_cast<double>(std::max<std::size_t>(1, rr.records.size()));
    m.mean_queue_ticks = static_cast<double>(queueSum) / n;
    m.mean_completion_ticks = static_cast<double>(completionSum) / n;
    m.max_queue_ticks = queue.empty() ? 0 : *std::max_element(queue.begin(), queue.end());
    m.p95_queue_ticks = nearestRank95(queue);
    m.p95_completion_ticks = nearestRank95(completion);
    if (sweep.slos.any()) {
        m.goodput = review::goodput(review::outcomesFromRun(run, rr), sweep.slos);
    }
    m.metric = metricOf(sweep.metric, m);
    return m;
}

// The workload of point `index` (row-major, last axis fastest).
std::variant<Workload, InputError> pointWorkload(const Workload& base, const std::vector<SweepAxis>& axes,
                                                 std::size_t index, std::vector<std::string>& values) {
    Workload w = base;
    values.assign(axes.size(), {});
    for (std::size_t a = axes.size(); a-- > 0;) {
        const auto& axis = axes[a];
        const std::string& v = axis.values[index % axis.values.size()];
        index /= axis.values.size();
        values[a] = v;
        if (auto err = applyOverride(w, axis.key, v)) {
            return axisError(axis.key, "value " + v + ": " + err->reason);
        }
    }
    if (auto err = validateWorkload(w)) {
        std::string at;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            at += (a ? ", " : "") + axes[a].key + "=" + values[a];
        }
        return InputError{err->file, err->path, "at " + at + ": " + err->reason};
    }
    return w;
}

} // namespace

std::string_view toString(SweepMetric m) {
    switch (m) {
    case SweepMetric::MeanCompletion: return "mean-completion";
    case SweepMetric::P95Completion: return "p95-completion";
    case SweepMetric::MeanQueue: return "mean-queue";
    case SweepMetric::P95Queue: return "p95-queue";
    case SweepMetric::MaxQueue: return "max-queue";
    case SweepMetric::Ticks: return "ticks";
    case SweepMetric::Evictions: return "evictions";
    case SweepMetric::ReplayTokens: return "replay-tokens";
    case SweepMetric::SwapBytes: return "swap-bytes";
    case SweepMetric::Censored: return "censored";
    case SweepMetric::SloMisses: return "slo-misses";
    }
    return "mean-completion";
}

std::optional<SweepMetric> parseSweepMetric(std::string_view s) {
    for (auto m : kMetrics) {
        if (toString(m) == s) {
            return m;
        }
    }
    return std::nullopt;
}

std::string sweepMetricNames() {
    std::string out;
    for (auto m : kMetrics) {
        out += (out.empty() ? "" : ", ") + std::string(toString(m));
    }
    return out;
}

std::variant<SweepAxis, InputError> parseSweepAxis(std::string_view text) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
        std::string reason = "'";
        reason.append(text).append("' is not KEY=LO:HI:STEP or KEY=V1,V2,...");
        return InputError{"", "--vary", reason};
    }
    SweepAxis axis;
    axis.key = std::string(text.substr(0, eq));
    std::replace(axis.key.begin(), axis.key.end(), '-', '_');
    const std::string_view spec = text.substr(eq + 1);
    if (axis.key == "recovery") {
        return axisError(axis.key, "the recovery mode is what a sweep compares: use --modes");
    }
    const auto& ck = configKeys();
    const auto& pk = policyKeys();
    if (std::find(ck.begin(), ck.end(), axis.key) == ck.end() && std::find(pk.begin(), pk.end(), axis.key) == pk.end()) {
        return axisError(axis.key, "not a config or policy key");
    }
    if (spec.find(':') != std::string_view::npos) {
        const auto c1 = spec.find(':');
        const auto c2 = spec.find(':', c1 + 1);
        if (c2 == std::string_view::npos || spec.find(':', c2 + 1) != std::string_view::npos) {
            return axisError(axis.key, quoted(spec, " is not LO:HI:STEP"));
        }
        // A byte key's range takes units as its flag does (host_capacity_bytes=1G:4G:1G).
        const bool bytes = isByteKey(axis.key);
        const auto number = [bytes](std::string_view t) { return bytes ? parseByteSize(t) : parseInt(t); };
        const auto lo = number(spec.substr(0, c1));
        const auto hi = number(spec.substr(c1 + 1, c2 - c1 - 1));
        const auto step = number(spec.substr(c2 + 1));
        if (!lo || !hi || !step) {
            return axisError(axis.key, quoted(spec, bytes ? ": LO, HI and STEP must be bytes (whole numbers, or 1G, 512K)"
                                                          : ": LO, HI and STEP must be whole numbers"));
        }
        if (*step < 1 || *hi < *lo) {
            return axisError(axis.key, quoted(spec, ": needs LO <= HI and STEP >= 1"));
        }
        if ((*hi - *lo) / *step >= 100'000) {
            return axisError(axis.key, quoted(spec, ": more than 100,000 values"));
        }
        for (std::int64_t v = *lo; v <= *hi; v += *step) {
            axis.values.push_back(std::to_string(v));
            if (*hi - v < *step) {
                break;
            }
        }
    } else {
        std::size_t start = 0;
        while (start <= spec.size()) {
            const auto comma = spec.find(',', start);
            const auto item = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
            if (item.empty()) {
                return axisError(axis.key, quoted(spec, " has an empty value"));
            }
            axis.values.emplace_back(item);
            if (comma == std::string_view::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    return axis;
}

std::int64_t estimatedRequestTicks(const Workload& w) {
    const std::int64_t rate = std::max<std::int64_t>(1, w.config.prefill_tokens_per_tick);
    std::int64_t sum = 0;
    for (const auto& r : w.requests) {
        const std::int64_t alive = std::max<std::int64_t>(1, w.config.max_ticks - r.arrival_tick);
        const std::int64_t need = (r.prompt_tokens + rate - 1) / rate + std::max<std::int64_t>(1, r.output_tokens);
        sum += std::min(alive, need);
    }
    return std::max<std::int64_t>(1, sum);
}

std::variant<SweepPlan, InputError> planSweep(const Workload& workload, SweepSpec spec) {
    if (spec.modes.empty()) {
        spec.modes = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid};
    }
    if (spec.metric == SweepMetric::SloMisses && !spec.slos.any()) {
        return InputError{"", "--metric", "slo-misses is the share of requests that miss the SLOs: give "
                                          "--slo-ttft-ms|--slo-ttft-ticks and/or --slo-tpot-ms|--slo-tpot-ticks"};
    }
    // An SLO in ms needs the tick's length: the workload's, or each point's where tick_us is an axis.
    const bool tickVaried = std::any_of(spec.axes.begin(), spec.axes.end(),
                                        [](const SweepAxis& axis) { return axis.key == "tick_us"; });
    if (auto problem = review::sloProblem(spec.slos, workload.config.tick_us); problem && !tickVaried) {
        return InputError{"", "/config/tick_us", *problem};
    }
    std::size_t total = 1;
    for (const auto& axis : spec.axes) {
        if (axis.values.empty()) {
            return axisError(axis.key, "no values");
        }
        total *= axis.values.size();
        if (total * spec.modes.size() > static_cast<std::size_t>(spec.max_runs)) {
            return InputError{"", "--vary", "the grid needs more than " + std::to_string(spec.max_runs) +
                                                " runs (points x modes)"};
        }
    }
    // Every point is checked before anything runs: a bad value is reported, not half a sweep.
    // Workloads are rebuilt by the workers rather than kept, so memory stays at one copy per thread.
    SweepPlan plan;
    plan.points.resize(total);
    plan.costs.resize(total);
    const auto modes = static_cast<std::int64_t>(spec.modes.size());
    for (std::size_t i = 0; i < total; ++i) {
        auto w = pointWorkload(workload, spec.axes, i, plan.points[i].values);
        if (auto* err = std::get_if<InputError>(&w)) {
            return *err;
        }
        if (auto problem = review::sloProblem(spec.slos, std::get<Workload>(w).config.tick_us)) {
            std::string at;
            for (std::size_t a = 0; a < spec.axes.size(); ++a) {
                at += (a ? ", " : "") + spec.axes[a].key + "=" + plan.points[i].values[a];
            }
            return InputError{"", "/config/tick_us", "at " + at + ": " + *problem};
        }
        plan.costs[i] = modes * estimatedRequestTicks(std::get<Workload>(w));
    }
    plan.spec = std::move(spec);
    return plan;
}

std::variant<Workload, InputError> sweepPointWorkload(const Workload& base, const std::vector<SweepAxis>& axes,
                                                      const std::vector<std::string>& values) {
    if (values.size() != axes.size()) {
        return InputError{"", "values", "the point has " + std::to_string(values.size()) + " values for " +
                                            std::to_string(axes.size()) + " axes"};
    }
    // The point's index in a grid of these axes, so pointWorkload applies exactly what the sweep applied.
    std::size_t index = 0;
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const auto& vs = axes[a].values;
        const auto at = std::find(vs.begin(), vs.end(), values[a]);
        if (at == vs.end()) {
            return axisError(axes[a].key, "value " + values[a] + " is not on the axis");
        }
        index = index * vs.size() + static_cast<std::size_t>(at - vs.begin());
    }
    std::vector<std::string> applied;
    return pointWorkload(base, axes, index, applied);
}

std::optional<InputError> runSweepPoints(const Workload& workload, SweepPlan& plan,
                                         const std::vector<std::size_t>& indices, const SweepProgress& progress,
                                         const std::atomic<bool>* stop) {
    const SweepSpec& spec = plan.spec;
    auto& points = plan.points;
    const std::size_t total = indices.size();
    unsigned threads = spec.threads ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, total)));
    std::atomic<std::size_t> next{0};
    std::size_t done = 0; // under progressMutex
    std::mutex progressMutex;
    std::vector<std::string> failures(total);
    // A Cancel (the caller's flag) or a worker's cancelled run ends every worker at its next point or check.
    std::atomic<bool> cancelled{false};
    const StopCheck stopCheck(stop, 1);
    // The machine's memory is shared by the workers (a point that fits with --threads 1 can fail with more:
    // docs/cost-model.md).
    const std::int64_t maxEvents = memoryBounded(nullptr, threads).max_events;
    auto worker = [&]() {
        for (std::size_t k = next++; k < total; k = next++) {
            if (cancelled.load() || stopCheck.stopRequested()) {
                cancelled = true;
                return;
            }
            const std::size_t i = indices[k];
            try {
                std::vector<std::string> values;
                const auto w = std::get<Workload>(pointWorkload(workload, spec.axes, i, values));
                for (auto mode : spec.modes) {
                    points[i].results.push_back(runOne(w, mode, spec, maxEvents, stop));
                }
            } catch (const Cancelled&) {
                cancelled = true;
                return;
            } catch (const std::exception& e) {
                failures[k] = e.what();
            }
            // Counted under the lock, so reports arrive in order ("2/5" never before "1/5").
            std::lock_guard lock(progressMutex);
            const std::size_t d = ++done;
            if (progress) {
                progress(d, total);
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        pool.emplace_back(worker);
    }
    worker();
    for (auto& t : pool) {
        t.join();
    }
    if (cancelled.load()) {
        throw Cancelled("sweep cancelled");
    }
    for (std::size_t k = 0; k < total; ++k) {
        if (!failures[k].empty()) {
            return InputError{"", "point " + std::to_string(indices[k]), "the run failed: " + failures[k]};
        }
    }
    for (const std::size_t i : indices) {
        auto& p = points[i];
        p.input_hash = p.results.front().input_hash;
        for (const auto& r : p.results) {
            if (r.input_hash != p.input_hash) {
                return InputError{"", "point " + std::to_string(i),
                                  "modes saw different inputs (" + p.input_hash + " vs " + r.input_hash + ")"};
            }
        }
    }
    return std::nullopt;
}

void finishSweepPoints(const SweepSpec& spec, std::vector<SweepPoint>& points) {
    // Winners and flips, serially in point order.
    const std::size_t lastAxis = spec.axes.empty() ? 1 : spec.axes.back().values.size();
    for (std::size_t i = 0; i < points.size(); ++i) {
        auto& p = points[i];
        p.winner.clear();
        double best = p.results.front().metric;
        for (const auto& r : p.results) {
            best = std::min(best, r.metric);
        }
        for (const auto& r : p.results) {
            if (r.metric == best) {
                if (!p.winner.empty()) {
                    p.winner += '=';
                }
                p.winner.append(toString(r.mode));
            }
        }
        p.flip = i % lastAxis != 0 && points[i - 1].winner != p.winner;
        std::vector<double> metrics;
        for (const auto& r : p.results) {
            metrics.push_back(r.metric);
        }
        std::sort(metrics.begin(), metrics.end());
        p.margin = metrics.size() < 2 ? 0.0 : metrics[1] - metrics[0];
    }
    // Flips along every axis: the last axis is the fastest, so axis a steps by the product of the sizes after it.
    std::size_t stride = 1;
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
        const std::size_t size = spec.axes[a].values.size();
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (a == spec.axes.size() - 1) {
                points[i].flip_axes.clear();
            }
            if ((i / stride) % size != 0 && points[i - stride].winner != points[i].winner) {
                points[i].flip_axes.push_back(a);
            }
        }
        stride *= size;
    }
    for (auto& p : points) {
        std::sort(p.flip_axes.begin(), p.flip_axes.end());
    }
}

std::variant<SweepResult, InputError> runSweep(const Workload& workload, SweepSpec spec,
                                               const SweepProgress& progress, const std::atomic<bool>* stop) {
    StopCheck(stop, 1).now();
    auto planned = planSweep(workload, std::move(spec));
    if (auto* err = std::get_if<InputError>(&planned)) {
        return *err;
    }
    auto& plan = std::get<SweepPlan>(planned);
    std::vector<std::size_t> all(plan.points.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i] = i;
    }
    if (auto err = runSweepPoints(workload, plan, all, progress, stop)) {
        return *err;
    }
    finishSweepPoints(plan.spec, plan.points);
    SweepResult out;
    out.workload_name = workload.name;
    out.spec = std::move(plan.spec);
    out.points = std::move(plan.points);
    return out;
}

} // namespace pl::cost
