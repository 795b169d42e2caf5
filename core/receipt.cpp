// Receipt text. Keys are written sorted (byte order) everywhere, so each event line is already its canonical
// JSON and event_hash can be computed from the very bytes that are written. The conservation check is run by
// the independent oracle (oracle.h) on the receipt's own JSON, never on the engine's bookkeeping.

#include "receipt.h"

#include "atomic_file.h"
#include "hashing.h"
#include "json_reader.h"
#include "oracle.h"
#include "stop_check.h"
#include "workload_io.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pl {
namespace {

// One JSON object built from (key, already-encoded value) pairs, emitted with keys in byte order. Keys are the
// receipt's own names (printable ASCII, written as they are); the values share one buffer.
class ObjectWriter {
  public:
    ObjectWriter() {
        fields_.reserve(24);
        values_.reserve(256);
    }
    void integer(std::string_view key, std::int64_t v) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        add(key, std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    void string(std::string_view key, std::string_view v) {
        if (!plain(v)) {
            add(key, quote(v));
            return;
        }
        fields_.push_back({key, values_.size(), v.size() + 2});
        values_ += '"';
        values_ += v;
        values_ += '"';
    }
    void boolean(std::string_view key, bool v) { add(key, v ? "true" : "false"); }
    void raw(std::string_view key, std::string_view v) { add(key, v); }
    void nullableInteger(std::string_view key, std::int64_t v) {
        if (v < 0) {
            add(key, "null");
        } else {
            integer(key, v);
        }
    }
    std::string str() {
        // Insertion sort: at most a couple of dozen keys, which nearly always differ in their first byte.
        for (std::size_t i = 1; i < fields_.size(); ++i) {
            const Field f = fields_[i];
            std::size_t j = i;
            for (; j > 0 && before(f.key, fields_[j - 1].key); --j) {
                fields_[j] = fields_[j - 1];
            }
            fields_[j] = f;
        }
        std::size_t size = 2 + fields_.size() * 4;
        for (const Field& f : fields_) {
            size += f.key.size() + f.size;
        }
        std::string out;
        out.reserve(size);
        out += '{';
        for (std::size_t i = 0; i < fields_.size(); ++i) {
            if (i > 0) {
                out += ',';
            }
            out += '"';
            out += fields_[i].key;
            out += "\":";
            out.append(values_, fields_[i].begin, fields_[i].size);
        }
        out += '}';
        return out;
    }
    // A JSON string: printable ASCII without '"' or '\\' is written as it is (keys, ids, enum names: nearly
    // every string of a receipt); anything else as nlohmann_json escapes it (control bytes, UTF-8 checked).
    static bool plain(std::string_view s) {
        return std::all_of(s.begin(), s.end(), [](char ch) {
            const auto c = static_cast<unsigned char>(ch);
            return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
        });
    }
    static std::string quote(std::string_view s) {
        if (!plain(s)) {
            return nlohmann::json(std::string(s)).dump();
        }
        std::string out;
        out.reserve(s.size() + 2);
        out += '"';
        out += s;
        out += '"';
        return out;
    }

  private:
    // Byte order, as std::string_view's operator<, deciding on the first byte where it can.
    static bool before(std::string_view a, std::string_view b) {
        if (!a.empty() && !b.empty() && a.front() != b.front()) {
            return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front());
        }
        return a < b;
    }
    struct Field {
        std::string_view key;
        std::size_t begin = 0, size = 0; // the value in values_
    };
    std::vector<Field> fields_;
    std::string values_;

    void add(std::string_view key, std::string_view value) {
        fields_.push_back({key, values_.size(), value.size()});
        values_ += value;
    }
};

// An object written in the order its fields are given, which is byte order of their keys (the callers list
// them so; test_sample_hashes pins the bytes): what ObjectWriter makes, without a field list or a sort, for the
// lines a receipt has most of (candidates, records, workload requests).
class SortedObject {
  public:
    explicit SortedObject(std::string& out) : out_(out) { out_ += '{'; }
    void integer(std::string_view key, std::int64_t v) {
        name(key);
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        out_.append(digits, static_cast<std::size_t>(end - digits));
    }
    void string(std::string_view key, std::string_view v) {
        name(key);
        if (ObjectWriter::plain(v)) {
            out_ += '"';
            out_ += v;
            out_ += '"';
        } else {
            out_ += ObjectWriter::quote(v);
        }
    }
    void raw(std::string_view key, std::string_view v) {
        name(key);
        out_ += v;
    }
    void nullableInteger(std::string_view key, std::int64_t v) {
        if (v < 0) {
            raw(key, "null");
        } else {
            integer(key, v);
        }
    }
    void close() { out_ += '}'; }

  private:
    void name(std::string_view key) {
        out_ += first_ ? "\"" : ",\"";
        first_ = false;
        out_ += key;
        out_ += "\":";
    }
    std::string& out_;
    bool first_ = true;
};

std::string fallbackText(const Workload& w, const Event& e) {
    const auto& c = w.config;
    switch (e.fallback) {
    case Fallback::None:
        return {};
    case Fallback::HostFull: {
        // Swap wanted the whole context on the host; hybrid its prefix of full blocks (not even one fitted).
        const std::int64_t need =
            e.fallback_need_bytes > 0 ? e.fallback_need_bytes : e.context_tokens * c.kv_bytes_per_token;
        const std::string what =
            w.policy.recovery == Recovery::Hybrid
                ? "hybrid swapping a " + std::to_string(need / c.kv_bytes_per_token) + "-token prefix"
                : "swapping " + std::to_string(e.context_tokens) + " tokens";
        return "host memory full: " + what + " needs " + std::to_string(need) + " bytes but " +
               std::to_string(e.fallback_free_bytes) + " of host_capacity_bytes " +
               std::to_string(c.host_capacity_bytes) + " are free; recomputed instead";
    }
    case Fallback::HybridHostShrunk:
        return "host memory short: hybrid wanted " + std::to_string(e.fallback_need_bytes) + " bytes but " +
               std::to_string(e.fallback_free_bytes) + " are free; swapped prefix shrunk to " +
               std::to_string(e.swap_blocks) + " blocks";
    case Fallback::NothingToSwap: {
        const std::int64_t full = e.context_tokens / c.block_size_tokens;
        if (full > 0) { // the share rounds down to no block (issue 21: it said "no full block" here too)
            return "hybrid: hybrid_swap_percent " + std::to_string(w.policy.hybrid_swap_percent) + " of its " +
                   std::to_string(full) + " full block" + (full == 1 ? "" : "s") + " rounds down to 0 blocks (context " +
                   std::to_string(e.context_tokens) + " tokens, block size " + std::to_string(c.block_size_tokens) +
                   "); recomputed instead";
        }
        return "hybrid: no full block to swap (context " + std::to_string(e.context_tokens) + " tokens, block size " +
               std::to_string(c.block_size_tokens) + ", hybrid_swap_percent " +
               std::to_string(w.policy.hybrid_swap_percent) + "); recomputed instead";
    }
    }
    return {};
}

// One candidate's object appended to `out` (an evict lists up to 8).
void appendCandidate(std::string& out, const Workload& w, const RunResult& run, const Candidate& c,
                     bool tenantBlocks) {
    SortedObject o(out);
    o.integer("admit_seq", c.admit_seq);
    o.integer("arrival_tick", c.arrival_tick);
    o.integer("blocks", c.blocks);
    o.integer("context_tokens", c.context_tokens);
    o.integer("generated_tokens", c.generated_tokens);
    o.string("id", w.requests[static_cast<std::size_t>(c.request)].id);
    o.integer("max_output_tokens", c.max_output_tokens);
    o.integer("priority", c.priority);
    o.integer("prompt_tokens", c.prompt_tokens);
    o.string("tenant", run.tenants[static_cast<std::size_t>(c.tenant)]);
    if (tenantBlocks) {
        o.integer("tenant_blocks", c.tenant_blocks);
    }
    o.close();
}

// A request's record: its workload fields (all but prefix_blocks), then what happened to it.
std::string requestJson(const Workload& w, const RunResult& run, const RequestRecord& rec) {
    const RequestSpec& spec = w.requests[static_cast<std::size_t>(rec.request)];
    std::string out;
    out.reserve(320);
    SortedObject o(out);
    o.integer("arrival_tick", spec.arrival_tick);
    o.nullableInteger("completion_tick", rec.completion_tick);
    o.nullableInteger("first_token_tick", rec.first_token_tick);
    std::string_view flags = "[]";
    if (rec.excessive_wait && rec.repeated_preemption) {
        flags = "[\"excessive_wait\",\"repeated_preemption\"]";
    } else if (rec.excessive_wait) {
        flags = "[\"excessive_wait\"]";
    } else if (rec.repeated_preemption) {
        flags = "[\"repeated_preemption\"]";
    }
    o.raw("flags", flags);
    o.integer("generated_tokens", rec.generated_tokens);
    o.string("id", spec.id);
    o.integer("max_output_tokens", spec.max_output_tokens);
    o.integer("output_tokens", spec.output_tokens);
    o.integer("preemptions", rec.preemptions);
    o.integer("priority", spec.priority);
    o.integer("prompt_tokens", spec.prompt_tokens);
    o.integer("queue_ticks", rec.queue_ticks);
    o.string("status", rec.completed ? "completed" : "censored");
    o.string("tenant", spec.tenant);
    o.close();
    (void)run;
    return out;
}

std::string totalsJson(const Totals& t, bool prefixSharing) {
    ObjectWriter o;
    if (prefixSharing) {
        o.integer("cached_tokens", t.cached_tokens);
    }
    o.integer("ticks", t.ticks);
    o.integer("request_ticks", t.request_ticks);
    o.integer("pressure_events", t.pressure_events);
    o.integer("evictions", t.evictions);
    o.integer("freed_blocks", t.freed_blocks);
    o.integer("replay_tokens", t.replay_tokens);
    o.integer("swap_out_bytes", t.swap_out_bytes);
    o.integer("swap_in_bytes", t.swap_in_bytes);
    o.integer("peak_host_bytes", t.peak_host_bytes);
    o.integer("completed", t.completed);
    o.integer("censored", t.censored);
    o.integer("queue_reentries", t.queue_reentries);
    return o.str();
}

std::string engineJson(const Policy& p) {
    ObjectWriter o;
    o.string("name", kEngineName);
    o.string("version", kEngineVersion);
    o.string("tick_model", toString(p.engine_profile)); // "tick-model-1" unless an engine profile is followed
    return o.str();
}

std::string stringArray(const std::vector<std::string>& items, std::string_view indent) {
    std::string out = "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += indent;
        out += "  ";
        out += ObjectWriter::quote(items[i]);
        out += i + 1 < items.size() ? ",\n" : "\n";
    }
    out += indent;
    out += ']';
    return out;
}

// Floating point as JSON (nlohmann's shortest round-trip form); never in a hashed part.
std::string number(double v) { return nlohmann::json(v).dump(); }

// The live run's measurements on one line, so that deleting that line leaves the simulated receipt.
std::string liveJson(const Workload& w, const RunResult& run) {
    std::string annotations = "[";
    for (std::size_t i = 0; i < run.live.size(); ++i) {
        const auto& a = run.live[i];
        ObjectWriter o;
        o.integer("seq", a.seq);
        o.string("kind", a.kind);
        o.string("request", w.requests[static_cast<std::size_t>(a.request)].id);
        o.integer("tokens", a.tokens);
        o.raw("measured_us", number(a.measured_us));
        o.raw("modelled_us", number(a.modelled_us));
        o.integer("bytes_moved", a.bytes_moved);
        o.integer("tokens_computed", a.tokens_computed);
        o.boolean("ok", a.ok);
        if (!a.ok || !a.error.empty()) {
            o.string("error", a.error);
        }
        annotations += i > 0 ? "," : "";
        annotations += o.str();
    }
    annotations += ']';
    ObjectWriter live;
    live.string("device", run.live_device);
    live.raw("annotations", annotations);
    if (!run.live_error.empty()) {
        live.string("error", run.live_error);
    }
    return live.str();
}

// How often the receipt's loops read a stop flag: a few milliseconds of lines.
constexpr int kLinesPerStopCheck = 4096;

// canonicalJson(requestSpecJson(r)), written directly when every string is printable ASCII without escapes
// and there are no prefix blocks (nearly every request): keys sorted, no spaces, as canonicalJson writes them.
std::string canonicalRequest(const RequestSpec& r) {
    if (!r.prefix_blocks.empty() || !ObjectWriter::plain(r.id) || !ObjectWriter::plain(r.tenant)) {
        return canonicalJson(requestSpecJson(r));
    }
    std::string out;
    out.reserve(160);
    SortedObject o(out);
    o.integer("arrival_tick", r.arrival_tick);
    o.string("id", r.id);
    o.integer("max_output_tokens", r.max_output_tokens);
    o.integer("output_tokens", r.output_tokens);
    o.integer("priority", r.priority);
    o.integer("prompt_tokens", r.prompt_tokens);
    o.string("tenant", r.tenant);
    o.close();
    return out;
}

// The canonical JSON of workloadJson(w), what input_hash covers, made and hashed piece by piece: its keys
// before "requests" (the last in canonical order), then each request's canonical text. The whole document is
// never built (at 300,000 requests it was a DOM of the workload built, serialized twice and freed).
class CanonicalWorkload {
  public:
    // `keep`, where given, receives the canonical text as it is made (the oracle reads the workload from it).
    explicit CanonicalWorkload(const Workload& w, std::string* keep = nullptr) : w_(w), keep_(keep) {
        Workload head; // the workload without its requests
        head.name = w.name;
        head.config = w.config;
        head_ = workloadJson(head);
        std::string text = canonicalJson(head_);
        constexpr std::string_view kTail = "\"requests\":[]}";
        if (text.size() < kTail.size() || text.compare(text.size() - kTail.size(), kTail.size(), kTail) != 0) {
            throw std::logic_error("canonical workload: \"requests\" is not the last key: " + text);
        }
        text.resize(text.size() - 2); // up to and with its "["
        update(text);
    }

    // The keys before "requests", in canonical order, with their values.
    const nlohmann::json& head() const { return head_; }
    std::size_t requestCount() const { return w_.requests.size(); }

    // Request i's canonical text, added to the hash; call for i = 0, 1, ... in turn.
    std::string request(std::size_t i) {
        std::string text = canonicalRequest(w_.requests[i]);
        if (i > 0) {
            update(",");
        }
        update(text);
        return text;
    }

    // After every request: input_hash.
    std::string finishHash() {
        update("]}");
        return hash_.finishTagged();
    }

  private:
    const Workload& w_;
    std::string* keep_;
    nlohmann::json head_;
    Sha256 hash_;

    void update(std::string_view text) {
        hash_.update(text);
        if (keep_ != nullptr) {
            keep_->append(text);
        }
    }
};

// input_hash alone (receiptHashes).
std::string inputHashOf(const Workload& w) {
    CanonicalWorkload canonical(w);
    for (std::size_t i = 0; i < canonical.requestCount(); ++i) {
        (void)canonical.request(i);
    }
    return canonical.finishHash();
}

// What the first pass over a run works out: the hashes, and the oracle's verdict on the receipt's own lines.
struct CheckedReceipt {
    std::string inputHash, policyHash, eventHash;
    OracleReport report;
    // The first events' lines, kept for the second pass while they fit in kKeptLineBytes (a receipt of up to
    // tens of MB is made once; a larger one makes the rest again rather than hold them).
    std::vector<std::string> lines;
};

constexpr std::size_t kKeptLineBytes = std::size_t{64} << 20;

// The first pass: every line of the receipt as it will be written (the workload's canonical text, each event,
// each record, the totals) is made once, hashed where a hash covers it, and read back by the conservation
// oracle as a reviewer would read the file: each line parsed from its own bytes, the workload and policy first.
// Nothing is kept but the workload's text (read by the oracle before the events) and the verdict.
CheckedReceipt checkPass(const Workload& w, const RunResult& run, ReceiptVersion version,
                         const std::atomic<bool>* stop) {
    CheckedReceipt out;
    StopCheck stopCheck(stop, kLinesPerStopCheck);
    const std::string policyText = canonicalJson(policyJson(w.policy));
    out.policyHash = sha256Tagged(policyText);
    std::string workloadText;
    CanonicalWorkload workload(w, &workloadText);
    for (std::size_t i = 0; i < workload.requestCount(); ++i) {
        stopCheck.step();
        (void)workload.request(i);
    }
    out.inputHash = workload.finishHash();
    // The embedded workload plus the policy is a workload document again (its keys follow the policy's).
    std::string workloadDoc = "{\"policy\":";
    workloadDoc += policyText;
    workloadDoc += ',';
    workloadDoc.append(workloadText, 1, std::string::npos); // past its "{"
    workloadText = std::string();
    OracleStream oracle(stop);
    Caps caps; // the document's own size is no limit here: workloadFromJson, which verify uses, has none
    caps.max_file_bytes = std::numeric_limits<std::int64_t>::max();
    oracle.begin(parseWorkload(workloadDoc, "receipt", caps, stop));
    workloadDoc = std::string();
    // The writer's own lines (the strict reader's guards against hostile files are not needed: a line that
    // does not parse is the writer's bug, and throws). Events and records are read by the oracle from their
    // bytes without a JSON document (OracleStream::eventLine); the totals, one line, are parsed.
    const auto parsed = [](std::string_view line) { return nlohmann::json::parse(line); };
    Sha256 eventHash;
    eventHash.update("[");
    std::size_t keptBytes = 0;
    bool keeping = true;
    for (std::size_t i = 0; i < run.ledger.events.size(); ++i) {
        stopCheck.step();
        std::string line = eventCanonical(w, run, run.ledger.events[i], version);
        if (i > 0) {
            eventHash.update(",");
        }
        eventHash.update(line);
        oracle.eventLine(line);
        keptBytes += line.size();
        keeping = keeping && keptBytes <= kKeptLineBytes;
        if (keeping) {
            line.shrink_to_fit(); // made with room to spare; kept lines are up to 64 MB
            out.lines.push_back(std::move(line));
        }
    }
    eventHash.update("]");
    out.eventHash = eventHash.finishTagged();
    for (const auto& rec : run.records) {
        stopCheck.step();
        oracle.recordLine(requestJson(w, run, rec));
    }
    nlohmann::json rest = nlohmann::json::object();
    rest["events"] = nlohmann::json::array();   // read above
    rest["requests"] = nlohmann::json::array(); // read above
    rest["totals"] = parsed(totalsJson(run.totals, sharesPrefixes(w)));
    StopCheck(stop, 1).now();
    out.report = oracle.end(rest);
    StopCheck(stop, 1).now();
    return out;
}

// The second pass: the receipt in file order (keys sorted, one event, record and workload request per line),
// its lines made again one at a time and handed to `sink`, with the checks and hashes of the first.
void writeBody(const Workload& w, const RunResult& run, ReceiptVersion version, std::string_view format,
               CheckedReceipt& checked, const ReceiptSink& sink, const std::atomic<bool>* stop) {
    StopCheck stopCheck(stop, kLinesPerStopCheck);
    ObjectWriter conservation;
    conservation.boolean("passed", checked.report.passed);
    const nlohmann::json violations = checked.report.violations;
    conservation.raw("violations", violations.dump());
    ObjectWriter checks;
    checks.raw("conservation", conservation.str());

    std::string out = "{\n  \"checks\": ";
    out += checks.str();
    out += ",\n  \"engine\": ";
    out += engineJson(w.policy);
    out += ",\n  \"event_hash\": ";
    out += ObjectWriter::quote(checked.eventHash);
    out += ",\n  \"events\": [";
    constexpr std::size_t kFlushBytes = 1 << 20;
    const auto flushIfLarge = [&] {
        if (out.size() >= kFlushBytes) {
            sink(out);
            out.clear();
        }
    };
    for (std::size_t i = 0; i < run.ledger.events.size(); ++i) {
        stopCheck.step();
        out += i == 0 ? "\n    " : ",\n    ";
        if (i < checked.lines.size()) {
            out += checked.lines[i];
            std::string().swap(checked.lines[i]); // written: let it go
        } else {
            out += eventCanonical(w, run, run.ledger.events[i], version);
        }
        flushIfLarge();
    }
    out += run.ledger.events.empty() ? "],\n" : "\n  ],\n";
    out += "  \"format\": ";
    out += ObjectWriter::quote(format);
    out += ",\n  \"input_hash\": ";
    out += ObjectWriter::quote(checked.inputHash);
    const bool prefixSharing = sharesPrefixes(w);
    out += ",\n  \"limitations\": ";
    out += stringArray(receiptLimitations(w, prefixSharing), "  ");
    out += ",\n";
    if (run.live_run) {
        out += "  \"live\": ";
        out += liveJson(w, run);
        out += ",\n";
    }
    out += "  \"policy\": ";
    out += canonicalJson(policyJson(w.policy));
    out += ",\n  \"policy_hash\": ";
    out += ObjectWriter::quote(checked.policyHash);
    out += ",\n  \"requests\": [";
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        stopCheck.step();
        out += i == 0 ? "\n    " : ",\n    ";
        out += requestJson(w, run, run.records[i]);
        flushIfLarge();
    }
    out += run.records.empty() ? "],\n" : "\n  ],\n";
    out += "  \"totals\": ";
    out += totalsJson(run.totals, prefixSharing);
    // The workload, one request per line; its canonical form is what input_hash covers.
    out += ",\n  \"workload\": {";
    CanonicalWorkload workload(w);
    bool firstKey = true;
    for (const auto& [key, value] : workload.head().items()) {
        out += firstKey ? "\n    " : ",\n    ";
        firstKey = false;
        out += ObjectWriter::quote(key);
        out += ": ";
        if (key == "requests") {
            out += "[";
            for (std::size_t i = 0; i < workload.requestCount(); ++i) {
                stopCheck.step();
                out += i == 0 ? "\n      " : ",\n      ";
                out += workload.request(i);
                flushIfLarge();
            }
            out += workload.requestCount() == 0 ? "]" : "\n    ]";
        } else {
            out += canonicalJson(value);
        }
    }
    out += "\n  }\n}\n";
    sink(out);
}

} // namespace

void streamReceipt(const Workload& w, const RunResult& run, const ReceiptSink& sink, const std::atomic<bool>* stop,
                   ReceiptFacts* facts, ReceiptVersion version) {
    const std::string_view format = version == ReceiptVersion::V1 ? kReceiptFormatV1 : kReceiptFormat;
    CheckedReceipt checked = checkPass(w, run, version, stop);
    writeBody(w, run, version, format, checked, sink, stop);
    if (facts != nullptr) {
        facts->conservation_passed = checked.report.passed;
        facts->first_violation = checked.report.violations.empty() ? std::string() : checked.report.violations.front();
        facts->hashes = {checked.inputHash, checked.policyHash, checked.eventHash};
    }
}

// Each kind's fields are written in byte order of their keys (SortedObject; the order is the canonical JSON's,
// so event_hash covers the very bytes written, and test_sample_hashes pins them).
std::string eventCanonical(const Workload& w, const RunResult& run, const Event& e, ReceiptVersion version) {
    std::string out;
    out.reserve(e.kind == EventKind::Evict ? 2048 : 200);
    SortedObject o(out);
    // kind, then the fields between it and request, then request, seq and the fields between seq and tick.
    const auto kind = [&] { o.string("kind", toString(e.kind)); };
    const auto requestSeq = [&] {
        if (e.request >= 0) {
            o.string("request", w.requests[static_cast<std::size_t>(e.request)].id);
        }
        o.integer("seq", e.seq);
    };
    const auto tick = [&] { o.integer("tick", e.tick); };
    switch (e.kind) {
    case EventKind::Arrive:
        kind();
        requestSeq();
        tick();
        break;
    case EventKind::Admit:
        if (e.prefix) {
            o.integer("cached_tokens", e.cached_tokens);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        kind();
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        tick();
        break;
    case EventKind::FirstToken:
        o.integer("context_tokens", e.context_tokens);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        requestSeq();
        tick();
        break;
    case EventKind::Pressure:
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("free_blocks", e.free_blocks);
        kind();
        o.integer("need_blocks", e.need_blocks);
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        tick();
        o.string("trigger", toString(e.trigger));
        break;
    case EventKind::Evict: {
        // v2 lists what the engine kept (the candidates with the greatest keys) and says how many it left out;
        // under tenant-fair a shortened list gives each its tenant's blocks over the whole list (the key's
        // first figure, which the listed ones alone cannot add up to). v1 listed every candidate.
        const bool v1 = version == ReceiptVersion::V1;
        if (v1 && e.all_candidates_count != e.candidates_total) {
            throw std::logic_error("a v1 receipt needs every candidate (EngineOptions::keep_all_candidates)");
        }
        const auto& list = v1 ? run.ledger.all_candidates : run.ledger.candidates;
        const std::int64_t begin = v1 ? e.all_candidates_begin : e.candidates_begin;
        const std::int64_t count = v1 ? e.all_candidates_count : e.candidates_count;
        const std::int64_t omitted = e.candidates_total - count;
        const bool tenantBlocks = omitted > 0 && w.policy.victim_rule == VictimRule::TenantFair;
        std::string cands;
        cands.reserve(static_cast<std::size_t>(count) * 220 + 2);
        cands += '[';
        for (std::int64_t i = 0; i < count; ++i) {
            if (i > 0) {
                cands += ',';
            }
            appendCandidate(cands, w, run, list[static_cast<std::size_t>(begin + i)], tenantBlocks);
        }
        cands += ']';
        o.raw("candidates", cands);
        if (omitted > 0) {
            o.integer("candidates_omitted", omitted);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("context_tokens", e.context_tokens);
        std::string estimates;
        SortedObject est(estimates);
        est.integer("recompute_ticks", e.est_recompute_ticks);
        est.integer("swap_ticks", e.est_swap_ticks);
        est.close();
        o.raw("estimates", estimates);
        if (e.fallback != Fallback::None) {
            o.string("fallback", fallbackText(w, e));
        }
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        o.integer("prompt_tokens", e.prompt_tokens);
        o.integer("queue_position", e.queue_position);
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        o.integer("swap_blocks", e.swap_blocks);
        o.integer("swap_out_bytes", e.swap_out_bytes);
        tick();
        break;
    }
    case EventKind::SwapOutDone:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        o.integer("swap_out_bytes", e.swap_out_bytes);
        tick();
        break;
    case EventKind::Resume:
        if (e.prefix) {
            o.integer("cached_tokens", e.cached_tokens);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("context_tokens", e.context_tokens);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        o.integer("swap_in_bytes", e.swap_in_bytes);
        tick();
        break;
    case EventKind::SwapInDone:
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        requestSeq();
        o.integer("swap_in_bytes", e.swap_in_bytes);
        tick();
        break;
    case EventKind::ReplayDone:
        kind();
        o.string("mode", toString(e.mode));
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        tick();
        break;
    case EventKind::Complete:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        tick();
        break;
    case EventKind::Censor:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        tick();
        break;
    }
    o.close();
    return out;
}

std::string receiptText(const Workload& workload, const RunResult& run, const std::atomic<bool>* stop,
                        ReceiptFacts* facts, ReceiptVersion version) {
    std::string text;
    streamReceipt(workload, run, [&text](std::string_view piece) { text.append(piece); }, stop, facts, version);
    return text;
}

ReceiptHashes receiptHashes(const Workload& workload, const RunResult& run) {
    ReceiptHashes h;
    h.input_hash = inputHashOf(workload);
    h.policy_hash = sha256Tagged(canonicalJson(policyJson(workload.policy)));
    Sha256 eventHash;
    eventHash.update("[");
    for (std::size_t i = 0; i < run.ledger.events.size(); ++i) {
        if (i > 0) {
            eventHash.update(",");
        }
        eventHash.update(eventCanonical(workload, run, run.ledger.events[i]));
    }
    eventHash.update("]");
    h.event_hash = eventHash.finishTagged();
    return h;
}

std::optional<std::string> writeReceipt(const std::string& path, const Workload& workload, const RunResult& run,
                                        ReceiptFacts* facts, const std::atomic<bool>* stop) {
    AtomicFileWriter file(path);
    if (!file.ok()) {
        return file.error();
    }
    streamReceipt(workload, run, [&file](std::string_view piece) { file.write(piece); }, stop, facts,
                  ReceiptVersion::V2);
    return file.commit();
}

std::string receiptTotalsJson(const Totals& totals, bool prefixSharing) { return totalsJson(totals, prefixSharing); }

} // namespace pl
