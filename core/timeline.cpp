#include "core/timeline.h"

#include "core/atomic_file.h"
#include "core/stop_check.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <vector>

namespace pl {

namespace {

constexpr int kRequestsPid = 1; // a thread per request
constexpr int kCountersPid = 2; // the pool's counters
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

// A JSON string literal (escaped; bytes that are not UTF-8 replaced, as a name from a file may hold them).
std::string jsonString(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The trace's bytes, gathered into pieces of about kPieceBytes for the sink; events separated by ",\n".
class TraceWriter {
  public:
    explicit TraceWriter(const TimelineSink& sink) : sink_(sink) { buf_.reserve(kPieceBytes + 4096); }
    void raw(std::string_view s) {
        buf_ += s;
        if (buf_.size() >= kPieceBytes) {
            flush();
        }
    }
    // One trace event (a JSON object's text).
    void event(const std::string& obj) {
        if (!first_) {
            buf_ += ",\n";
        }
        first_ = false;
        raw(obj);
    }
    void flush() {
        if (!buf_.empty()) {
            sink_(buf_);
            buf_.clear();
        }
    }

  private:
    const TimelineSink& sink_;
    std::string buf_;
    bool first_ = true;
};

std::string num(std::int64_t v) { return std::to_string(v); }

std::string_view fallbackName(Fallback f) {
    switch (f) {
    case Fallback::None: return "";
    case Fallback::HostFull: return "host-full";
    case Fallback::HybridHostShrunk: return "hybrid-host-shrunk";
    case Fallback::NothingToSwap: return "nothing-to-swap";
    }
    return "";
}

// One request's track while the ledger is read: the state it is in and since when.
struct Track {
    Phase state = Phase::NotArrived;
    Tick since = 0;
    bool first_token = false;       // its first token was generated (a resumed request decodes again)
    bool replay_after_copy = false; // hybrid: the swap-in is followed by a replay of the dropped tail
    std::int64_t link_bytes = 0;    // bytes of its copy on the link (swap-out or swap-in), 0 when none
    bool provisional = false;       // `state` was inferred this tick; the stepped engine has the last word
};

class TimelineBuilder {
  public:
    TimelineBuilder(const Workload& w, const RunResult& run, std::span<const TickStats> series,
                    const TickLength& tick, TraceWriter& out, const std::atomic<bool>* stop,
                    std::span<const std::int32_t> onlyRequests)
        : w_(w), run_(run), series_(series), us_(tick.us), out_(out), tracks_(w.requests.size()),
          shown_(w.requests.size(), onlyRequests.empty() ? 1 : 0), stop_(stop, 1024) {
        for (const std::int32_t r : onlyRequests) {
            if (r >= 0 && static_cast<std::size_t>(r) < shown_.size()) shown_[static_cast<std::size_t>(r)] = 1;
        }
    }

    void metadataEvents() {
        out_.event(meta("process_name", kRequestsPid, -1, R"("name":"requests")"));
        out_.event(meta("process_sort_index", kRequestsPid, -1, R"("sort_index":0)"));
        out_.event(meta("process_name", kCountersPid, -1, R"("name":"pool")"));
        out_.event(meta("process_sort_index", kCountersPid, -1, R"("sort_index":1)"));
        for (std::size_t i = 0; i < w_.requests.size(); ++i) {
            if (!shown_[i]) continue;
            const auto tid = static_cast<std::int64_t>(i) + 1;
            out_.event(meta("thread_name", kRequestsPid, tid, "\"name\":" + jsonString(w_.requests[i].id)));
            out_.event(meta("thread_sort_index", kRequestsPid, tid, "\"sort_index\":" + num(tid - 1)));
        }
    }

    // Slices and eviction instants from the ledger, with the link counter (it follows from the events). A few
    // changes of state have no event of their own (under the engine profiles a request that replayed its
    // context still computes its last sampled token before it decodes again; docs/engines.md): the same run is
    // stepped beside the ledger, and at the end of each tick the requests that had events, or that wait for
    // such a change, take the engine's own phase. The ledger's events are the run's; the stepped engine is only
    // read for phases (its own events are dropped each tick, so it holds no second ledger).
    void requestEvents() {
        const auto& events = run_.ledger.events;
        Ledger scratch;
        Engine engine(w_, scratch);
        std::vector<std::int32_t> touched;
        std::vector<std::int32_t> watched;
        std::vector<std::uint8_t> seen(tracks_.size(), 0);
        std::size_t next = 0;
        Tick lastTick = -1;
        std::int64_t link = 0;
        std::int64_t linkShown = -1;
        const Event* pressure = nullptr;
        while (!engine.finished()) {
            stop_.step();
            engine.step();
            const std::size_t produced = scratch.events.size();
            for (std::size_t k = 0; k < produced; ++k) {
                const Event& mine = scratch.events[k];
                if (next + k >= events.size() || events[next + k].tick != mine.tick ||
                    events[next + k].kind != mine.kind || events[next + k].request != mine.request) {
                    throw std::logic_error("the run's ledger differs from the workload's run at event " +
                                           std::to_string(next + k));
                }
            }
            scratch.truncate(0);
            touched.clear();
            for (const std::size_t end = next + produced; next < end; ++next) {
                const Event& e = events[next];
                stop_.step(); // per event too: a step may cover a long quiet stretch
                if (e.tick != lastTick) {
                    if (lastTick >= 0 && link != linkShown) {
                        counter("link_bytes_in_flight", lastTick, "bytes", link);
                        linkShown = link;
                    }
                    lastTick = e.tick;
                }
                if (e.kind == EventKind::Pressure) {
                    pressure = &e;
                    continue;
                }
                if (e.request < 0) {
                    continue;
                }
                link += apply(e, pressure != nullptr && pressure->tick == e.tick ? pressure : nullptr);
                touched.push_back(e.request);
            }
            const Tick executed = engine.totals().ticks - 1;
            const auto phases = engine.requests();
            std::vector<std::int32_t> stillWatched;
            for (const auto* list : {&touched, &watched}) {
                for (const std::int32_t r : *list) {
                    if (seen[static_cast<std::size_t>(r)] != 0) {
                        continue;
                    }
                    seen[static_cast<std::size_t>(r)] = 1;
                    reconcile(r, executed, phases[static_cast<std::size_t>(r)].phase);
                    const Track& t = tracks_[static_cast<std::size_t>(r)];
                    if (t.state == Phase::Prefill && t.first_token) {
                        stillWatched.push_back(r); // owes its sampled token: decodes without an event
                    }
                }
            }
            for (const auto* list : {&touched, &watched}) {
                for (const std::int32_t r : *list) {
                    seen[static_cast<std::size_t>(r)] = 0;
                }
            }
            watched.swap(stillWatched);
        }
        if (next != events.size()) {
            throw std::logic_error("the run's ledger has more events than the workload's run");
        }
        if (lastTick >= 0 && link != linkShown) {
            counter("link_bytes_in_flight", lastTick, "bytes", link);
        }
    }

    // The per-tick series as counters, a sample where a value changed.
    void seriesCounters() {
        std::int64_t occupied = -1;
        std::int64_t waiting = -1;
        std::int64_t host = -1;
        for (const TickStats& s : series_) {
            if (s.occupied_blocks != occupied) {
                occupied = s.occupied_blocks;
                counter("occupied_blocks", s.tick, "blocks", occupied);
            }
            if (s.waiting != waiting) {
                waiting = s.waiting;
                counter("waiting_requests", s.tick, "requests", waiting);
            }
            if (s.host_bytes != host) {
                host = s.host_bytes;
                counter("host_bytes", s.tick, "bytes", host);
            }
        }
    }

  private:
    const Workload& w_;
    const RunResult& run_;
    std::span<const TickStats> series_;
    std::int64_t us_;
    TraceWriter& out_;
    std::vector<Track> tracks_;
    std::vector<std::uint8_t> shown_; // per request: its track is written (every request unless filtered)
    StopCheck stop_;

    std::string ts(Tick t) const { return num(t * us_); }

    static std::string meta(std::string_view name, int pid, std::int64_t tid, const std::string& args) {
        std::string s = std::string(R"({"name":")") + std::string(name) + R"(","ph":"M","pid":)" + num(pid);
        if (tid >= 0) {
            s += ",\"tid\":" + num(tid);
        }
        return s + ",\"args\":{" + args + "}}";
    }

    // The request of `e` enters the state the event starts; returns the change of link bytes in flight.
    std::int64_t apply(const Event& e, const Event* pressure) {
        Track& t = tracks_[static_cast<std::size_t>(e.request)];
        const std::int64_t linkBefore = t.link_bytes;
        t.provisional = false;
        switch (e.kind) {
        case EventKind::Arrive: enter(e, Phase::Waiting); break;
        case EventKind::Admit: enter(e, Phase::Prefill); break;
        case EventKind::FirstToken:
            t.first_token = true;
            enter(e, Phase::Decode);
            break;
        case EventKind::Pressure: break;
        case EventKind::Evict:
            evictInstant(e, pressure);
            if (e.mode == Recovery::Recompute) {
                t.link_bytes = 0;
                enter(e, Phase::Preempted);
            } else {
                t.link_bytes = e.swap_out_bytes;
                enter(e, Phase::SwapOut);
            }
            break;
        case EventKind::SwapOutDone:
            t.link_bytes = 0;
            enter(e, Phase::SwappedOut);
            break;
        case EventKind::Resume:
            if (e.mode == Recovery::Recompute) { // KV dropped: it replays (or prefills what it never had)
                enter(e, e.replay_tokens > 0 ? Phase::Replay : Phase::Prefill);
                t.provisional = true;
            } else { // its swapped KV comes back first
                t.link_bytes = e.swap_in_bytes;
                t.replay_after_copy = e.replay_tokens > 0;
                enter(e, Phase::SwapIn);
            }
            break;
        case EventKind::SwapInDone:
            t.link_bytes = 0;
            enter(e, t.replay_after_copy ? Phase::Replay : resumedPhase(t));
            t.replay_after_copy = false;
            t.provisional = true;
            break;
        case EventKind::ReplayDone:
            enter(e, resumedPhase(t));
            t.provisional = true;
            break;
        case EventKind::Complete: enter(e, Phase::Done); break;
        case EventKind::Censor:
            t.link_bytes = 0;
            enter(e, Phase::Censored);
            break;
        }
        return t.link_bytes - linkBefore;
    }

    // At the end of tick `tick` request r is in `engine` (the stepped engine's phase). A state the events only
    // guessed this tick takes the engine's name in place; any other difference is a change at this tick.
    void reconcile(std::int32_t r, Tick tick, Phase engine) {
        Track& t = tracks_[static_cast<std::size_t>(r)];
        const bool provisional = t.provisional;
        t.provisional = false;
        if (t.state == Phase::NotArrived || t.state == Phase::Done || t.state == Phase::Censored ||
            t.state == engine) {
            return;
        }
        if (provisional && t.since == tick) {
            t.state = engine;
        } else {
            enterAt(r, tick, engine);
        }
    }

    // After a replay or a copy back: decoding again once it had its first token, else still prefilling.
    static Phase resumedPhase(const Track& t) { return t.first_token ? Phase::Decode : Phase::Prefill; }

    // The request of `e` enters `next`: the slice of the state it leaves is written (one per stretch).
    void enter(const Event& e, Phase next) { enterAt(e.request, e.tick, next); }

    void enterAt(std::int32_t r, Tick tick, Phase next) {
        Track& t = tracks_[static_cast<std::size_t>(r)];
        if (shown_[static_cast<std::size_t>(r)] && t.state != Phase::NotArrived && t.state != Phase::Done &&
            t.state != Phase::Censored) {
            std::string s = std::string(R"({"name":")") + std::string(timelineStateName(t.state)) +
                            R"(","cat":"state","ph":"X","pid":)" + num(kRequestsPid) + ",\"tid\":" + num(r + 1) +
                            ",\"ts\":" + ts(t.since) + ",\"dur\":" + num((tick - t.since) * us_) +
                            R"(,"args":{"phase":")" + std::string(toString(t.state)) + "\",\"from_tick\":" +
                            num(t.since) + ",\"to_tick\":" + num(tick);
            if (next == Phase::Done || next == Phase::Censored) {
                s += R"(,"end":")" + std::string(toString(next)) + "\"";
            }
            out_.event(s + "}}");
        }
        t.state = next;
        t.since = tick;
    }

    void evictInstant(const Event& e, const Event* pressure) {
        if (!shown_[static_cast<std::size_t>(e.request)]) return;
        std::string s = std::string(R"({"name":"evict","cat":"evict","ph":"i","s":"t","pid":)") + num(kRequestsPid) +
                        ",\"tid\":" + num(e.request + 1) + ",\"ts\":" + ts(e.tick) + ",\"args\":{\"victim\":" +
                        jsonString(w_.requests[static_cast<std::size_t>(e.request)].id) + R"(,"rule":")" +
                        std::string(toString(w_.policy.victim_rule)) + R"(","trigger":")" +
                        std::string(pressure != nullptr ? toString(pressure->trigger) : std::string_view("none")) +
                        R"(","mode":")" + std::string(toString(e.mode)) + "\"";
        if (e.fallback != Fallback::None) {
            s += R"(,"fallback":")" + std::string(fallbackName(e.fallback)) + "\"";
        }
        s += ",\"owed_tokens\":" + num(e.replay_tokens) + ",\"swap_out_bytes\":" + num(e.swap_out_bytes) +
             ",\"freed_blocks\":" + num(e.freed_blocks) + ",\"context_tokens\":" + num(e.context_tokens) +
             ",\"generated_tokens\":" + num(e.generated_tokens) + ",\"candidates\":" + num(e.candidates_total) +
             ",\"queue_position\":" + num(e.queue_position) + ",\"seq\":" + num(e.seq) + ",\"tick\":" +
             num(e.tick) + "}}";
        out_.event(s);
    }

    void counter(std::string_view name, Tick tick, std::string_view unit, std::int64_t value) {
        out_.event(std::string(R"({"name":")") + std::string(name) + R"(","cat":"pool","ph":"C","pid":)" +
                   num(kCountersPid) + ",\"ts\":" + ts(tick) + ",\"args\":{\"" + std::string(unit) +
                   "\":" + num(value) + "}}");
    }
};

} // namespace

namespace {

// "20" or "0.5" (milliseconds, at most 3 decimals) as whole microseconds; 0 when it is not such a number.
std::int64_t millisToMicros(std::string_view text) {
    std::int64_t whole = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        if (whole > kMaxSafeInteger / 10000) {
            return 0;
        }
        whole = whole * 10 + (text[i] - '0');
    }
    if (i == 0) {
        return 0;
    }
    std::int64_t frac = 0;
    int digits = 0;
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
            if (digits >= 3) {
                return 0; // finer than a microsecond
            }
            frac = frac * 10 + (text[i] - '0');
        }
    }
    if (i < text.size() && text[i] != ' ') {
        return 0;
    }
    for (; digits < 3; ++digits) {
        frac *= 10;
    }
    return whole * 1000 + frac;
}

} // namespace

TickLength tickLengthOf(const Workload& w) {
    // The workload's config.tick_us when it has one. Else a workload made by `import-trace` or `generate
    // --tick-ms` before tick_us existed says in its notes the command that made it, and that command's --tick-ms
    // is the length of its ticks.
    if (w.config.tick_us > 0) {
        return TickLength{w.config.tick_us, "config.tick_us " + std::to_string(w.config.tick_us)};
    }
    constexpr std::string_view kCommand = "Command: preemptlab-cli ";
    constexpr std::string_view kFlag = " --tick-ms ";
    const std::string_view notes = w.notes;
    const auto command = notes.find(kCommand);
    if (command != std::string_view::npos) {
        const auto flag = notes.find(kFlag, command);
        if (flag != std::string_view::npos) {
            const std::string_view value = notes.substr(flag + kFlag.size());
            if (const std::int64_t us = millisToMicros(value); us > 0) {
                const std::string_view number = value.substr(0, value.find(' '));
                return TickLength{us, "notes: the command that made the workload gave --tick-ms " + std::string(number)};
            }
        }
    }
    return TickLength{};
}

std::string_view timelineStateName(Phase p) {
    switch (p) {
    case Phase::Waiting: return "waiting";
    case Phase::Prefill: return "prefill";
    case Phase::Decode: return "decode";
    case Phase::Preempted: return "preempted";
    case Phase::SwapOut: return "copying";
    case Phase::SwappedOut: return "swapped";
    case Phase::SwapIn: return "copying";
    case Phase::Replay: return "replaying";
    case Phase::NotArrived: return "not-arrived";
    case Phase::Done: return "done";
    case Phase::Censored: return "censored";
    }
    return "unknown";
}

void streamTimeline(const Workload& workload, const RunResult& run, std::span<const TickStats> series,
                    const TickLength& tick, const TimelineSink& sink, const std::atomic<bool>* stop,
                    std::span<const std::int32_t> onlyRequests) {
    TraceWriter out(sink);
    out.raw(std::string(R"({"displayTimeUnit":"ms","metadata":{"format":")") + std::string(kTimelineFormat) +
            R"(","workload":)" + jsonString(workload.name) + R"(,"engine":")" + std::string(kEngineName) +
            R"(","engine_version":")" + std::string(kEngineVersion) + R"(","engine_profile":")" +
            std::string(toString(workload.policy.engine_profile)) + R"(","recovery":")" +
            std::string(toString(workload.policy.recovery)) + R"(","victim_rule":")" +
            std::string(toString(workload.policy.victim_rule)) + R"(","tick_us":)" + num(tick.us) +
            R"(,"tick_us_source":)" + jsonString(tick.source) + R"(,"ticks":)" + num(run.totals.ticks) +
            R"(,"requests":)" + num(static_cast<std::int64_t>(workload.requests.size())) + R"(,"evictions":)" +
            num(run.totals.evictions) +
            (onlyRequests.empty() ? std::string()
                                  : R"(,"tracks_of_requests":)" + num(static_cast<std::int64_t>(onlyRequests.size()))) +
            "},\"traceEvents\":[\n");
    TimelineBuilder builder(workload, run, series, tick, out, stop, onlyRequests);
    builder.metadataEvents();
    builder.requestEvents();
    builder.seriesCounters();
    out.raw("\n]}\n");
    out.flush();
}

std::string timelineText(const Workload& workload, const RunResult& run, std::span<const TickStats> series,
                         const TickLength& tick, std::span<const std::int32_t> onlyRequests) {
    std::string text;
    streamTimeline(workload, run, series, tick, [&](std::string_view piece) { text += piece; }, nullptr, onlyRequests);
    return text;
}

std::optional<std::string> writeTimeline(const std::string& path, const Workload& workload, const RunResult& run,
                                         std::span<const TickStats> series, const TickLength& tick,
                                         const std::atomic<bool>* stop, std::span<const std::int32_t> onlyRequests) {
    AtomicFileWriter file(path);
    if (!file.ok()) {
        return file.error();
    }
    try {
        streamTimeline(workload, run, series, tick, [&](std::string_view piece) { file.write(piece); }, stop,
                       onlyRequests);
    } catch (const std::logic_error& e) { // `run` is not this workload's run: the file is not written
        return path + ": " + e.what();
    }
    return file.commit();
}

} // namespace pl
