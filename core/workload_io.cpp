// Reading preemptlab.workload.v1: syntax (json_reader), then keys and types here, then the shared rules
// (workload_rules) in the same order validateWorkload uses, then normalisation. Nothing per request is
// allocated before the request count has passed its cap.
#include "core/workload_io.h"

#include "core/json_pointer.h"
#include "core/json_reader.h"
#include "core/workload_plain.h"
#include "core/workload_overrides.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pl {
namespace {

using json = nlohmann::json;

// Thrown inside the reader only; parseWorkload and workloadFromJson turn it back into an InputError.
struct ReadFailure {
    InputError error;
};

// The request elements read one by one, each on its own, before the config is known (parseWorkload reads them
// while the parser goes, so their JSON is freed as it is read). Reading stops at the first element with a
// mistake: where its error falls among the checks that need the config decides when it is reported (in the order
// validateWorkload uses), so the error is the same whether the file held its config before or after them.
struct RequestsRead {
    std::vector<RequestSpec> requests; // the elements read without a mistake, in document order
    std::size_t count = 0;             // elements in the document
    // The element after `requests`, when it had a mistake: in a field (reported before the config's checks of
    // it), prefix_blocks not an array (after them), or a prefix block id (after the prefix counts too).
    enum class Stage { None, Fields, PrefixType, PrefixId } stage = Stage::None;
    std::optional<InputError> error;
    RequestSpec failed;                // its fields, for the checks before its error
    std::size_t failedPrefixCount = 0; // PrefixId: its prefix_blocks' length
};

std::string describeValue(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return std::string("a boolean (") + (v.get<bool>() ? "true" : "false") + ")";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a floating-point number (" + v.dump() + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "the integer " + v.dump();
    default: return "a non-JSON value";
    }
}

template <typename E>
std::string enumChoices(std::initializer_list<E> values) {
    std::string out;
    for (E v : values) {
        out += (out.empty() ? "" : ", ") + std::string(toString(v));
    }
    return out;
}

class WorkloadReader {
  public:
    WorkloadReader(const std::string& file, const Caps& caps, const std::atomic<bool>* stop)
        : file_(file), caps_(caps), stop_(stop) {}

    // `streamed`: the requests parseWorkload read while parsing (doc's "requests" is then an empty array).
    Workload read(const json& doc, RequestsRead* streamed = nullptr) const {
        Workload w;
        if (!doc.is_object()) {
            fail("", "a workload must be a JSON object, got " + describeValue(doc));
        }
        const json& format = required(doc, "", "format");
        if (!format.is_string() || format.get<std::string>() != kWorkloadFormat) {
            fail("/format", "must be \"" + std::string(kWorkloadFormat) + "\", got " +
                                (format.is_string() ? "\"" + format.get<std::string>() + "\"" : describeValue(format)));
        }
        checkKeys(doc, "", {"format", "name", "notes", "config", "policy", "requests"});
        w.name = text(required(doc, "", "name"), "/name");
        if (doc.contains("notes")) {
            const json& notes = doc["notes"];
            if (notes.is_string()) { // before the copy: the document holds it once already
                rethrow(checkNotesSize(notes.get_ref<const std::string&>().size(), caps_, file_));
            }
            w.notes = text(notes, "/notes");
        }
        if (doc.contains("config")) {
            readConfig(doc["config"], w.config);
        }
        rethrow(checkConfig(w.config, caps_, file_));
        if (doc.contains("policy")) {
            readPolicy(doc["policy"], w.policy);
        }
        rethrow(checkPolicy(w.policy, w.config, file_));
        const json& requests = required(doc, "", "requests");
        if (!requests.is_array()) {
            fail("/requests", "expected an array, got " + describeValue(requests));
        }
        RequestsRead fromDoc;
        if (streamed == nullptr) {
            rethrow(checkRequestCount(requests.size(), caps_, file_));
            StopCheck stopCheck(stop_, kRequestsPerStopCheck);
            for (std::size_t i = 0; i < requests.size(); ++i) {
                stopCheck.step();
                readElement(requests[i], i, fromDoc);
            }
        }
        finishRequests(streamed != nullptr ? *streamed : fromDoc, w);
        rethrow(checkUniqueIds(w.requests, file_));
        normaliseWorkload(w);
        return w;
    }

  private:
    [[noreturn]] void fail(std::string path, std::string reason) const {
        throw ReadFailure{InputError{file_, std::move(path), std::move(reason)}};
    }

    static void rethrow(std::optional<InputError> e) {
        if (e) {
            throw ReadFailure{std::move(*e)};
        }
    }

    const json& required(const json& object, const std::string& path, std::string_view key) const {
        const auto it = object.find(key);
        if (it == object.end()) {
            fail(pointerChild(path, key), "required key is missing");
        }
        return *it;
    }

    void checkKeys(const json& object, const std::string& path, const std::vector<std::string_view>& allowed) const {
        for (const auto& [key, value] : object.items()) {
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string list;
                for (auto k : allowed) {
                    list += (list.empty() ? "" : ", ") + std::string(k);
                }
                fail(pointerChild(path, key), "unknown key \"" + key + "\" (allowed here: " + list + ")");
            }
        }
    }

    void expectObject(const json& v, const std::string& path) const {
        if (!v.is_object()) {
            fail(path, "expected an object, got " + describeValue(v));
        }
    }

    std::int64_t integer(const json& v, const std::string& path) const {
        if (v.is_number_unsigned()) {
            const auto u = v.get<json::number_unsigned_t>();
            if (u > static_cast<json::number_unsigned_t>(kMaxSafeInteger)) {
                fail(path, "must be an integer from 0 to 2^53-1 (" + std::to_string(kMaxSafeInteger) + "), got " +
                               v.dump());
            }
            return static_cast<std::int64_t>(u);
        }
        if (v.is_number_integer()) {
            const auto i = v.get<json::number_integer_t>();
            if (i < 0 || i > kMaxSafeInteger) {
                fail(path, "must be an integer from 0 to 2^53-1 (" + std::to_string(kMaxSafeInteger) + "), got " +
                               v.dump());
            }
            return i;
        }
        fail(path, "expected an integer, got " + describeValue(v));
    }

    // Element `index` of the array `arr` at `parent`, an integer as integer() reads it; the element's pointer is
    // built only for an error (a trace's prefix_blocks hold millions of ids).
    std::int64_t integerAt(const json& arr, const std::string& parent, std::size_t index) const {
        const json& v = arr[index];
        if (v.is_number_unsigned() && v.get<json::number_unsigned_t>() <= static_cast<json::number_unsigned_t>(kMaxSafeInteger)) {
            return static_cast<std::int64_t>(v.get<json::number_unsigned_t>());
        }
        return integer(v, pointerChild(parent, index));
    }

    std::string text(const json& v, const std::string& path) const {
        if (!v.is_string()) {
            fail(path, "expected a string, got " + describeValue(v));
        }
        return v.get<std::string>();
    }

    bool boolean(const json& v, const std::string& path) const {
        if (!v.is_boolean()) {
            fail(path, "expected true or false, got " + describeValue(v));
        }
        return v.get<bool>();
    }

    template <typename E>
    E enumeration(const json& v, const std::string& path, std::optional<E> (*parse)(std::string_view),
                  std::initializer_list<E> all) const {
        const std::string name = text(v, path);
        if (auto parsed = parse(name)) {
            return *parsed;
        }
        fail(path, "unknown value \"" + name + "\" (expected one of: " + enumChoices(all) + ")");
    }

    void readConfig(const json& v, Config& c) const {
        expectObject(v, "/config");
        checkKeys(v, "/config", configKeys());
        for (const auto& field : configFields()) {
            const auto it = v.find(field.key);
            if (it != v.end()) {
                c.*(field.member) = integer(*it, pointerChild("/config", field.key));
                // tick_us has no "unset" value in a file: absent is unset, 0 would be a tick of no length.
                if (field.key == "tick_us" && c.tick_us == 0) {
                    fail("/config/tick_us", "must be at least 1 microsecond (leave the key out when the tick "
                                            "length is not known)");
                }
            }
        }
        if (const auto it = v.find("enable_prefix_caching"); it != v.end()) {
            c.enable_prefix_caching = boolean(*it, "/config/enable_prefix_caching");
        }
    }

    void readPolicy(const json& v, Policy& p) const {
        expectObject(v, "/policy");
        // engine_follows is written beside engine_profile (derived from it, so no setting of its own).
        static const std::vector<std::string_view> keys = [] {
            auto k = policyKeys();
            k.push_back("engine_follows");
            return k;
        }();
        checkKeys(v, "/policy", keys);
        if (v.contains("recovery")) {
            p.recovery = enumeration(v["recovery"], "/policy/recovery", parseRecovery,
                                     {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid});
        }
        if (v.contains("victim_rule")) {
            p.victim_rule = enumeration(v["victim_rule"], "/policy/victim_rule", parseVictimRule,
                                        {VictimRule::PriorityNewest, VictimRule::LastAdmitted,
                                         VictimRule::LongestContext, VictimRule::ShortestContext,
                                         VictimRule::FewestDecoded, VictimRule::MostRemaining, VictimRule::TenantFair});
        }
        if (v.contains("adaptive_tie")) {
            p.adaptive_tie = enumeration(v["adaptive_tie"], "/policy/adaptive_tie", parseAdaptiveTie,
                                         {AdaptiveTie::Recompute, AdaptiveTie::Swap});
        }
        if (v.contains("resume_guard")) {
            p.resume_guard = enumeration(v["resume_guard"], "/policy/resume_guard", parseResumeGuard,
                                         {ResumeGuard::FullReservation, ResumeGuard::NextBlock});
        }
        if (v.contains("watermark_blocks")) {
            p.watermark_blocks = integer(v["watermark_blocks"], "/policy/watermark_blocks");
        }
        if (v.contains("preempt_ahead")) {
            p.preempt_ahead = boolean(v["preempt_ahead"], "/policy/preempt_ahead");
        }
        if (v.contains("hybrid_swap_percent")) {
            p.hybrid_swap_percent = integer(v["hybrid_swap_percent"], "/policy/hybrid_swap_percent");
        }
        if (v.contains("engine_profile")) {
            p.engine_profile = enumeration(v["engine_profile"], "/policy/engine_profile", parseEngineProfile,
                                           {EngineProfile::TickModel1, EngineProfile::VllmV1, EngineProfile::Sglang,
                                            EngineProfile::TrtllmMaxUtilization, EngineProfile::TrtllmGuaranteedNoEvict});
        }
        // Written beside the profile (a receipt's policy carries it); when present it must name that profile's.
        if (v.contains("engine_follows")) {
            const std::string follows = text(v["engine_follows"], "/policy/engine_follows");
            if (follows != engineFollows(p.engine_profile)) {
                fail("/policy/engine_follows", "is \"" + follows + "\" but engine_profile " +
                                                   std::string(toString(p.engine_profile)) + " follows \"" +
                                                   std::string(engineFollows(p.engine_profile)) + "\"");
            }
        }
    }

  public:
    // Element `i` of "requests", on its own (nothing here needs the config); nothing once one had a mistake.
    void readElement(const json& v, std::size_t i, RequestsRead& into) const {
        ++into.count;
        if (into.error) {
            return;
        }
        const std::string path = pointerChild("/requests", i);
        RequestSpec r;
        try {
            r = readRequest(v, path);
            // readRequest saw an object; prefix_blocks is read last, its length checked after the config's checks.
            if (const auto it = v.find("prefix_blocks"); it != v.end()) {
                const std::string blocksPath = path + "/prefix_blocks";
                if (!it->is_array()) {
                    into.stage = RequestsRead::Stage::PrefixType;
                    fail(blocksPath, "expected an array of integers, got " + describeValue(*it));
                }
                into.stage = RequestsRead::Stage::PrefixId;
                into.failedPrefixCount = it->size();
                for (std::size_t b = 0; b < it->size(); ++b) {
                    r.prefix_blocks.push_back(integerAt(*it, blocksPath, b));
                }
            }
        } catch (ReadFailure& failure) {
            if (into.stage == RequestsRead::Stage::None) {
                into.stage = RequestsRead::Stage::Fields;
            }
            into.error = std::move(failure.error);
            into.failed = std::move(r);
            into.failed.prefix_blocks = {};
            return;
        }
        into.stage = RequestsRead::Stage::None;
        into.requests.push_back(std::move(r));
    }

  private:
    // The checks that need the config, request by request in document order, and the first element's mistake
    // where it falls among them; the prefix ids of the whole workload are counted against their cap as they go.
    void finishRequests(RequestsRead& in, Workload& w) const {
        rethrow(checkRequestCount(in.count, caps_, file_));
        std::uint64_t prefixBlocks = 0; // so far, against caps_.max_prefix_blocks
        const auto countPrefix = [&](std::size_t n, std::size_t i) {
            prefixBlocks += n;
            rethrow(checkPrefixTotal(prefixBlocks, caps_, i, file_));
        };
        StopCheck stopCheck(stop_, kRequestsPerStopCheck);
        for (std::size_t i = 0; i < in.requests.size(); ++i) {
            stopCheck.step();
            const RequestSpec& r = in.requests[i];
            rethrow(checkRequest(r, i, w.config, file_)); // with its prefix count against its prompt
            countPrefix(r.prefix_blocks.size(), i);
        }
        if (in.error) {
            const std::size_t i = in.requests.size();
            if (in.stage != RequestsRead::Stage::Fields) {
                rethrow(checkRequest(in.failed, i, w.config, file_));
            }
            if (in.stage == RequestsRead::Stage::PrefixId) {
                rethrow(checkPrefixCount(in.failedPrefixCount, in.failed, i, w.config, file_));
                countPrefix(in.failedPrefixCount, i);
            }
            throw ReadFailure{std::move(*in.error)};
        }
        w.requests = std::move(in.requests);
    }

    RequestSpec readRequest(const json& v, const std::string& path) const {
        expectObject(v, path);
        checkKeys(v, path, {"id", "arrival_tick", "prompt_tokens", "output_tokens", "max_output_tokens", "priority",
                            "tenant", "prefix_blocks"});
        RequestSpec r;
        r.id = text(required(v, path, "id"), path + "/id");
        r.arrival_tick = integer(required(v, path, "arrival_tick"), path + "/arrival_tick");
        r.prompt_tokens = integer(required(v, path, "prompt_tokens"), path + "/prompt_tokens");
        r.output_tokens = integer(required(v, path, "output_tokens"), path + "/output_tokens");
        r.max_output_tokens = v.contains("max_output_tokens")
                                  ? integer(v["max_output_tokens"], path + "/max_output_tokens")
                                  : r.output_tokens;
        if (v.contains("priority")) {
            r.priority = integer(v["priority"], path + "/priority");
        }
        if (v.contains("tenant")) {
            r.tenant = text(v["tenant"], path + "/tenant");
        }
        return r;
    }

    const std::string& file_;
    const Caps& caps_;
    const std::atomic<bool>* stop_;
};

} // namespace

void normaliseWorkload(Workload& w) {
    std::sort(w.requests.begin(), w.requests.end(), [](const RequestSpec& a, const RequestSpec& b) {
        return a.arrival_tick != b.arrival_tick ? a.arrival_tick < b.arrival_tick : a.id < b.id;
    });
}

Result<Workload> workloadFromJson(const json& doc, const std::string& file, const Caps& caps,
                                  const std::atomic<bool>* stop) {
    try {
        return WorkloadReader(file, caps, stop).read(doc);
    } catch (const ReadFailure& failure) {
        return failure.error;
    }
}

namespace {

Result<Workload> readWorkloadText(std::string_view text, const std::string& file, const Caps& caps,
                                  const std::atomic<bool>* stop, bool stream) {
    if (static_cast<std::uint64_t>(text.size()) > static_cast<std::uint64_t>(caps.max_file_bytes)) {
        return InputError{file, "",
                          "the document is " + std::to_string(text.size()) + " bytes, over the cap of " +
                              std::to_string(caps.max_file_bytes) + " bytes"};
    }
    // The request count is capped while reading, before the DOM holds more requests than a run may have.
    const auto maxRequests = static_cast<std::size_t>(std::max<std::int64_t>(caps.max_requests, 0));
    // So are prefix block ids, over all requests together: a request's own bound (its prompt's full blocks)
    // needs its prompt and the config, which may come later in the document.
    const auto maxPrefixBlocks = static_cast<std::size_t>(std::max<std::int64_t>(caps.max_prefix_blocks, 0));
    // Each request is read as soon as the parser has it, and its JSON freed: the document's requests are never
    // held as JSON all at once (half the time of a big file went to building and freeing them).
    const WorkloadReader reader(file, caps, stop);
    RequestsRead requests; // stream: read while parsing
    std::vector<JsonElementSink> sinks;
    if (stream) {
        sinks.push_back({"/requests", [&](json&& element, std::size_t index) {
                             reader.readElement(element, index, requests);
                         }});
    }
    auto doc = parseJsonStrict(
        text, file, kWorkloadFormat,
        {JsonArrayCap{"/requests", maxRequests, "requests"},
         JsonArrayCap{"/requests/*/prefix_blocks", maxPrefixBlocks, "prefix block ids", true}},
        stop, sinks);
    if (auto* error = std::get_if<InputError>(&doc)) {
        return *error;
    }
    try {
        return reader.read(std::get<json>(doc), stream ? &requests : nullptr);
    } catch (const ReadFailure& failure) {
        return failure.error;
    }
}

} // namespace

Result<Workload> parseWorkload(std::string_view text, const std::string& file, const Caps& caps,
                               const std::atomic<bool>* stop) {
    if (auto plain = readPlainWorkload(text, caps, stop)) {
        return std::move(*plain);
    }
    return parseWorkloadStrict(text, file, caps, stop);
}

Result<Workload> parseWorkloadStrict(std::string_view text, const std::string& file, const Caps& caps,
                                     const std::atomic<bool>* stop) {
    return readWorkloadText(text, file, caps, stop, true);
}

Result<Workload> parseWorkloadWhole(std::string_view text, const std::string& file, const Caps& caps,
                                    const std::atomic<bool>* stop) {
    return readWorkloadText(text, file, caps, stop, false);
}

Result<std::string> readTextFile(const std::string& path, std::int64_t maxBytes, const std::string& kind,
                                 const std::atomic<bool>* stop) {
    const bool isStdin = path == "-";
    const int fd = isStdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return InputError{path, "", std::string("cannot open: ") + std::strerror(errno)};
    }
    const auto closeFd = [&] {
        if (!isStdin) {
            ::close(fd);
        }
    };
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        closeFd();
        return InputError{path, "", "is a folder, not a " + kind};
    }
    const auto cap = static_cast<std::uint64_t>(maxBytes);
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > cap) {
        closeFd();
        return InputError{path, "",
                          "the file is " + std::to_string(st.st_size) + " bytes, over the cap of " +
                              std::to_string(cap) + " bytes"};
    }
    // Read in chunks of at most 64 MiB kept apart, checking the cap before each is kept: an endless input
    // (/dev/zero, a pipe) stops at the cap holding no more than it, where one growing string doubled past it
    // (4.25 GB for a 2 GiB cap). The chunks are joined once the whole input is known to fit.
    constexpr std::size_t kPiece = std::size_t{64} << 20;
    std::vector<std::string> pieces;
    std::uint64_t total = 0;
    char chunk[1 << 16];
    StopCheck stopCheck(stop, 16); // every MiB: a millisecond or less from the page cache
    for (;;) {
        if (stopCheck.due() && stopCheck.stopRequested()) {
            closeFd();
            throw Cancelled();
        }
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            const int err = errno;
            closeFd();
            return InputError{path, "", std::string("cannot read: ") + std::strerror(err)};
        }
        if (n == 0) {
            break;
        }
        total += static_cast<std::uint64_t>(n);
        if (total > cap) { // a pipe, a device or a growing file
            closeFd();
            return InputError{path, "", "the input exceeds the cap of " + std::to_string(cap) +
                                            " bytes (reading stopped there)"};
        }
        if (pieces.empty() ||
            pieces.back().size() + static_cast<std::size_t>(n) > std::max(kPiece, pieces.back().capacity())) {
            pieces.emplace_back();
            pieces.back().reserve(S_ISREG(st.st_mode) && pieces.size() == 1
                                      ? static_cast<std::size_t>(st.st_size)
                                      : std::min<std::size_t>(kPiece, static_cast<std::size_t>(cap)));
        }
        pieces.back().append(chunk, static_cast<std::size_t>(n));
    }
    if (pieces.size() == 1) {
        closeFd();
        return std::move(pieces.front());
    }
    std::string text;
    text.reserve(static_cast<std::size_t>(total));
    for (std::string& piece : pieces) {
        text += piece;
        std::string().swap(piece);
    }
    closeFd();
    return text;
}

Result<Workload> loadWorkloadFile(const std::string& path, const Caps& caps, const std::atomic<bool>* stop) {
    auto text = readTextFile(path, caps.max_file_bytes, "workload file", stop);
    if (auto* error = std::get_if<InputError>(&text)) {
        return *error;
    }
    return parseWorkload(std::get<std::string>(text), path, caps, stop);
}

nlohmann::json requestSpecJson(const RequestSpec& r) {
    json j = {{"id", r.id},
              {"arrival_tick", r.arrival_tick},
              {"prompt_tokens", r.prompt_tokens},
              {"output_tokens", r.output_tokens},
              {"max_output_tokens", r.max_output_tokens},
              {"priority", r.priority},
              {"tenant", r.tenant}};
    if (!r.prefix_blocks.empty()) {
        j["prefix_blocks"] = r.prefix_blocks.toVector();
    }
    return j;
}

nlohmann::json configJson(const Config& c, bool unsetToo) {
    json j = json::object();
    for (const auto& field : configFields()) {
        if (unsetToo || !field.optional || c.*(field.member) != 0) {
            j[std::string(field.key)] = c.*(field.member);
        }
    }
    if (unsetToo || c.enable_prefix_caching) {
        j["enable_prefix_caching"] = c.enable_prefix_caching;
    }
    return j;
}

nlohmann::json policyJson(const Policy& p) {
    json j{{"recovery", toString(p.recovery)},
           {"victim_rule", toString(p.victim_rule)},
           {"adaptive_tie", toString(p.adaptive_tie)},
           {"resume_guard", toString(p.resume_guard)},
           {"watermark_blocks", p.watermark_blocks},
           {"preempt_ahead", p.preempt_ahead},
           {"hybrid_swap_percent", p.hybrid_swap_percent}};
    if (p.engine_profile != EngineProfile::TickModel1) { // tick-model-1 policies keep their bytes and hashes
        j["engine_profile"] = toString(p.engine_profile);
        j["engine_follows"] = engineFollows(p.engine_profile);
    }
    return j;
}

nlohmann::json workloadJson(const Workload& w) {
    json requests = json::array();
    for (const auto& r : w.requests) {
        requests.push_back(requestSpecJson(r));
    }
    return json{{"format", kWorkloadFormat}, {"name", w.name}, {"config", configJson(w.config)},
                {"requests", std::move(requests)}};
}

nlohmann::json fullWorkloadJson(const Workload& w) {
    json j = workloadJson(w);
    if (!w.notes.empty()) {
        j["notes"] = w.notes;
    }
    j["policy"] = policyJson(w.policy);
    return j;
}

} // namespace pl
