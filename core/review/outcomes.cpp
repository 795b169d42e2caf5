#include "core/review/outcomes.h"

#include "core/json_reader.h"
#include "core/run_control.h"
#include "core/workload_io.h"

#include <algorithm>
#include <map>

namespace pl::review {
namespace {

using nlohmann::json;

// Reads the fields of a receipt; the first mistake is thrown as an InputError naming the file and JSON path.
class ReceiptReader {
  public:
    explicit ReceiptReader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
        throw InputException(InputError{file_, path, reason});
    }
    const json& member(const json& v, const std::string& path, const char* key) const {
        if (!v.is_object() || !v.contains(key)) {
            fail(path + std::string("/") + key, "missing");
        }
        return v[key];
    }
    std::int64_t integer(const json& v, const std::string& path, const char* key, std::int64_t min = 0) const {
        const json& x = member(v, path, key);
        if (!x.is_number_integer()) {
            fail(path + std::string("/") + key, "expected an integer");
        }
        const auto n = x.get<std::int64_t>();
        if (n < min || n > kMaxSafeInteger) {
            fail(path + std::string("/") + key, std::string("must be an integer from ") + std::to_string(min) + std::string(" to 2^53-1, got ") +
                                       std::to_string(n));
        }
        return n;
    }
    // An integer or null (-1).
    std::int64_t nullableTick(const json& v, const std::string& path, const char* key) const {
        const json& x = member(v, path, key);
        return x.is_null() ? -1 : integer(v, path, key);
    }
    std::string text(const json& v, const std::string& path, const char* key) const {
        const json& x = member(v, path, key);
        if (!x.is_string()) {
            fail(path + std::string("/") + key, "expected a string");
        }
        return x.get<std::string>();
    }

  private:
    std::string file_;
};

RunOutcomes readReceipt(const json& doc, const std::string& file) {
    ReceiptReader in(file);
    if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string() ||
        (doc["format"] != kReceiptFormat && doc["format"] != kReceiptFormatV1)) {
        in.fail("/format", std::string("not a receipt: expected \"") + std::string(kReceiptFormat) + std::string("\" (or \"") +
                               std::string(kReceiptFormatV1) + "\")");
    }
    RunOutcomes out;
    out.input_hash = in.text(doc, "", "input_hash");
    out.ticks = in.integer(in.member(doc, "", "totals"), "/totals", "ticks");
    const json& config = in.member(in.member(doc, "", "workload"), "/workload", "config");
    if (config.is_object() && config.contains("tick_us")) {
        out.tick_us = in.integer(config, "/workload/config", "tick_us", 1);
    }
    const json& records = in.member(doc, "", "requests");
    if (!records.is_array()) {
        in.fail("/requests", "expected an array");
    }
    std::map<std::string, std::size_t> index;
    out.requests.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::string p = std::string("/requests/") + std::to_string(i);
        const json& r = records[i];
        if (!r.is_object()) {
            in.fail(p, "expected an object");
        }
        RequestOutcome o;
        o.id = in.text(r, p, "id");
        o.tenant = in.text(r, p, "tenant");
        o.arrival_tick = in.integer(r, p, "arrival_tick");
        o.prompt_tokens = in.integer(r, p, "prompt_tokens");
        o.output_tokens = in.integer(r, p, "output_tokens");
        o.priority = in.integer(r, p, "priority");
        const std::string status = in.text(r, p, "status");
        if (status != "completed" && status != "censored") {
            in.fail(p + "/status", std::string("expected \"completed\" or \"censored\", got \"") + status + "\"");
        }
        o.completed = status == "completed";
        o.generated_tokens = in.integer(r, p, "generated_tokens");
        o.first_token_tick = in.nullableTick(r, p, "first_token_tick");
        o.completion_tick = in.nullableTick(r, p, "completion_tick");
        o.preemptions = in.integer(r, p, "preemptions");
        o.queue_ticks = in.integer(r, p, "queue_ticks");
        if (o.completed && (o.completion_tick < 0 || o.first_token_tick < 0)) {
            in.fail(p, "a completed request needs first_token_tick and completion_tick");
        }
        if (o.first_token_tick >= 0 && o.first_token_tick < o.arrival_tick) {
            in.fail(p + "/first_token_tick", "before the request's arrival_tick");
        }
        if (o.completion_tick >= 0 && o.completion_tick < o.first_token_tick) {
            in.fail(p + "/completion_tick", "before its first_token_tick");
        }
        if (!index.emplace(o.id, i).second) {
            in.fail(p + "/id", std::string("\"") + o.id + "\" is listed twice");
        }
        out.requests.push_back(std::move(o));
    }
    // The token points of each request, from its events in order.
    const json& events = in.member(doc, "", "events");
    if (!events.is_array()) {
        in.fail("/events", "expected an array");
    }
    std::vector<std::vector<TokenPoint>> points(out.requests.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::string p = std::string("/events/") + std::to_string(i);
        const json& e = events[i];
        const std::string kind = in.text(e, p, "kind");
        TokenEvent what = TokenEvent::FirstToken;
        if (kind == "evict") {
            what = TokenEvent::Evict;
        } else if (kind == "complete") {
            what = TokenEvent::Complete;
        } else if (kind == "replay_done" || kind == "swap_in_done") {
            what = TokenEvent::Restart;
        } else if (kind != "first_token") {
            continue;
        }
        const std::string id = in.text(e, p, "request");
        const auto it = index.find(id);
        if (it == index.end()) {
            in.fail(p + "/request", std::string("\"") + id + "\" is not among the receipt's requests");
        }
        const std::int64_t tick = in.integer(e, p, "tick");
        const bool counts = what == TokenEvent::Evict || what == TokenEvent::Complete;
        const std::int64_t tokens = counts ? in.integer(e, p, "generated_tokens") : what == TokenEvent::FirstToken ? 1 : 0;
        auto& pts = points[it->second];
        if (!pts.empty() && tick < pts.back().tick) {
            in.fail(p + "/tick", std::string("goes back in time for request \"") + id + "\"");
        }
        pts.push_back({what, tick, tokens});
    }
    for (std::size_t r = 0; r < out.requests.size(); ++r) {
        out.requests[r].itl = itlGaps(points[r]);
    }
    return out;
}

} // namespace

std::int64_t ItlGaps::sum() const {
    std::int64_t total = one_tick;
    for (std::int64_t g : longer) {
        total += g;
    }
    return total;
}

ItlGaps itlGaps(const std::vector<TokenPoint>& points) {
    ItlGaps gaps;
    const auto add = [&gaps](std::int64_t gap, std::int64_t times = 1) {
        if (gap == 1) {
            gaps.one_tick += times;
        } else {
            gaps.longer.insert(gaps.longer.end(), static_cast<std::size_t>(times), std::max<std::int64_t>(1, gap));
        }
    };
    bool started = false;
    std::int64_t tokens = 0;  // tokens placed so far
    std::int64_t last = 0;    // the tick of the last one
    bool evicted = false;     // evicted since, no token yet
    std::int64_t restart = -1; // the latest restart tick since that eviction
    for (const TokenPoint& p : points) {
        if (p.kind == TokenEvent::FirstToken) {
            started = true;
            tokens = 1;
            last = p.tick;
            continue;
        }
        if (!started) {
            continue; // evicted and restarted while still prefilling: no output yet
        }
        if (p.kind == TokenEvent::Restart) {
            restart = evicted ? std::max(restart, p.tick) : restart;
            continue;
        }
        std::int64_t n = p.tokens - tokens; // new tokens in this stretch
        if (n > 0) {
            std::int64_t at = last; // the tick the stretch's tokens follow on from
            if (evicted) {
                // The first token after the eviction: at the restart, or (no restart event) after the stall.
                const std::int64_t first = restart >= 0 ? restart : p.tick - (n - 1);
                add(first - last);
                at = first;
                n -= 1;
            }
            if (p.kind == TokenEvent::Evict) {
                add(1, n);
                last = at + n;
            } else if (n > 0) {
                add(1, n - 1);
                add(p.tick - (at + n - 1)); // the last gap closes on complete's tick
                last = p.tick;
            } else {
                last = at;
            }
            tokens = p.tokens;
            evicted = false;
            restart = -1;
        }
        if (p.kind == TokenEvent::Evict) {
            evicted = true;
            restart = -1;
        }
    }
    return gaps;
}

std::variant<RunOutcomes, InputError> outcomesFromReceipt(const nlohmann::json& receipt, const std::string& file) {
    try {
        return readReceipt(receipt, file);
    } catch (const InputException& e) {
        return e.error();
    }
}

std::variant<RunOutcomes, InputError> outcomesFromReceiptFile(const std::string& file, nlohmann::json* keep) {
    const std::int64_t cap = std::max(Caps{}.max_file_bytes, eventBudget() * 512);
    auto text = readTextFile(file, cap, "receipt");
    if (auto* err = std::get_if<InputError>(&text)) {
        return *err;
    }
    auto doc = parseJsonStrict(std::get<std::string>(text), file, kReceiptFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        e->reason = std::string("not a receipt: ") + e->reason;
        return *e;
    }
    auto result = outcomesFromReceipt(std::get<nlohmann::json>(doc), file);
    if (keep != nullptr && std::holds_alternative<RunOutcomes>(result)) {
        *keep = std::move(std::get<nlohmann::json>(doc));
    }
    return result;
}

RunOutcomes outcomesFromRun(const Workload& workload, const RunResult& run) {
    RunOutcomes out;
    out.ticks = run.totals.ticks;
    out.tick_us = workload.config.tick_us;
    std::vector<std::vector<TokenPoint>> points(run.records.size());
    for (const Event& e : run.ledger.events) {
        if (e.request < 0 || static_cast<std::size_t>(e.request) >= points.size()) {
            continue;
        }
        auto& pts = points[static_cast<std::size_t>(e.request)];
        if (e.kind == EventKind::FirstToken) {
            pts.push_back({TokenEvent::FirstToken, e.tick, 1});
        } else if (e.kind == EventKind::Evict) {
            pts.push_back({TokenEvent::Evict, e.tick, e.generated_tokens});
        } else if (e.kind == EventKind::Complete) {
            pts.push_back({TokenEvent::Complete, e.tick, e.generated_tokens});
        } else if (e.kind == EventKind::ReplayDone || e.kind == EventKind::SwapInDone) {
            pts.push_back({TokenEvent::Restart, e.tick, 0});
        }
    }
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        const RequestRecord& rec = run.records[i];
        const RequestSpec& spec = workload.requests[static_cast<std::size_t>(rec.request)];
        RequestOutcome o;
        o.id = spec.id;
        o.tenant = spec.tenant;
        o.arrival_tick = spec.arrival_tick;
        o.prompt_tokens = spec.prompt_tokens;
        o.output_tokens = spec.output_tokens;
        o.priority = spec.priority;
        o.completed = rec.completed;
        o.generated_tokens = rec.generated_tokens;
        o.first_token_tick = rec.first_token_tick;
        o.completion_tick = rec.completion_tick;
        o.preemptions = rec.preemptions;
        o.queue_ticks = rec.queue_ticks;
        o.itl = itlGaps(points[static_cast<std::size_t>(rec.request)]);
        out.requests.push_back(std::move(o));
    }
    return out;
}

} // namespace pl::review
