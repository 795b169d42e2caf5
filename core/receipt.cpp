// Receipt text. Keys are written sorted (byte order) everywhere, so each event line is already its canonical
// JSON and event_hash can be computed from the very bytes that are written. The conservation check is run by
// the independent oracle (oracle.h) on the receipt's own JSON, never on the engine's bookkeeping.
// Here: the head (workload, policy, engine), the records, the totals and the two passes that check, hash and
// stream the whole; each event's line is receipt_events.cpp's, the JSON writers receipt_writer.h's.

#include "core/receipt.h"

#include "core/atomic_file.h"
#include "core/hashing.h"
#include "core/json_reader.h"
#include "core/oracle.h"
#include "core/receipt_writer.h"
#include "core/stop_check.h"
#include "core/workload_io.h"

#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pl {

using receipt_detail::ObjectWriter;
using receipt_detail::SortedObject;

namespace {

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
