// The fast path of parseWorkload (workload_plain.h): the text read in one pass into the Workload, then the
// shared rules; any doubt is NotPlain, and the strict reader reads the text instead.
#include "core/workload_plain.h"

#include "core/json_reader.h"
#include "core/stop_check.h"
#include "core/utf8.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

namespace pl {
namespace {

// Thrown inside the reader only: this text is not for the fast path (readPlainWorkload returns nullopt).
struct NotPlain {};

[[noreturn]] void decline() { throw NotPlain{}; }

constexpr std::array<std::string_view, 6> kTopKeys{"format", "name", "notes", "config", "policy", "requests"};
enum TopKey { kFormat, kName, kNotes, kConfig, kPolicy, kRequests };

constexpr std::array<std::string_view, 8> kRequestKeys{"id",               "arrival_tick", "prompt_tokens",
                                                       "output_tokens",    "max_output_tokens", "priority",
                                                       "tenant",           "prefix_blocks"};
enum RequestKey { kId, kArrivalTick, kPromptTokens, kOutputTokens, kMaxOutputTokens, kPriority, kTenant, kPrefixBlocks };

// engine_follows is written beside engine_profile (as the strict reader allows it).
constexpr std::array<std::string_view, 9> kPolicyKeys{"recovery",         "victim_rule",   "adaptive_tie",
                                                      "resume_guard",     "watermark_blocks", "preempt_ahead",
                                                      "hybrid_swap_percent", "engine_profile", "engine_follows"};
enum PolicyKey {
    kRecovery,
    kVictimRule,
    kAdaptiveTie,
    kResumeGuard,
    kWatermarkBlocks,
    kPreemptAhead,
    kHybridSwapPercent,
    kEngineProfile,
    kEngineFollows
};

// The index of `key` in `keys`; an unknown key declines (the strict reader names it).
template <std::size_t N>
std::size_t keyIndex(std::string_view key, const std::array<std::string_view, N>& keys) {
    for (std::size_t i = 0; i < N; ++i) {
        if (keys[i] == key) {
            return i;
        }
    }
    decline();
}

// Marks key `i` of an object as read; a second one declines (the strict reader refuses duplicate keys).
template <std::size_t N>
void markSeen(std::bitset<N>& seen, std::size_t i) {
    if (seen.test(i)) {
        decline();
    }
    seen.set(i);
}

template <typename E>
E enumOrDecline(std::optional<E> parsed) {
    if (!parsed) {
        decline();
    }
    return *parsed;
}

class PlainWorkloadReader {
  public:
    PlainWorkloadReader(std::string_view text, const Caps& caps, const std::atomic<bool>* stop)
        : at_(text.data()), end_(text.data() + text.size()), caps_(caps), stop_(stop, kValuesPerStopCheck), stopFlag_(stop),
          maxRequests_(static_cast<std::uint64_t>(std::max<std::int64_t>(caps.max_requests, 0))),
          maxPrefixBlocks_(static_cast<std::uint64_t>(std::max<std::int64_t>(caps.max_prefix_blocks, 0))) {}

    Workload read() {
        // nlohmann_json skips a UTF-8 byte order mark at the start (and only there).
        if (end_ - at_ >= 3 && std::string_view(at_, 3) == "\xEF\xBB\xBF") {
            at_ += 3;
        }
        Workload w;
        std::bitset<kTopKeys.size()> seen;
        forEachMember([&](std::string_view key) {
            const std::size_t k = keyIndex(key, kTopKeys);
            markSeen(seen, k);
            switch (k) {
            case kFormat:
                if (string() != kWorkloadFormat) {
                    decline();
                }
                break;
            case kName: w.name = string(); break;
            case kNotes: {
                const std::string_view notes = string();
                if (checkNotesSize(notes.size(), caps_, file_)) {
                    decline();
                }
                w.notes = notes;
                break;
            }
            case kConfig: readConfig(w.config); break;
            case kPolicy: readPolicy(w.policy); break;
            case kRequests: readRequests(w.requests); break;
            default: decline();
            }
        });
        skipSpace();
        if (at_ != end_ || !seen.test(kFormat) || !seen.test(kName) || !seen.test(kRequests)) {
            decline();
        }
        check(w);
        normaliseWorkload(w);
        return w;
    }

  private:
    // The strict reader's checks after its reading, in its order (any error: the strict reader reports it).
    void check(const Workload& w) const {
        if (checkConfig(w.config, caps_, file_) || checkPolicy(w.policy, w.config, file_) ||
            checkRequestCount(w.requests.size(), caps_, file_)) {
            decline();
        }
        std::uint64_t prefixBlocks = 0;
        StopCheck stopCheck(stopFlag_, kRequestsPerStopCheck);
        for (std::size_t i = 0; i < w.requests.size(); ++i) {
            stopCheck.step();
            const RequestSpec& r = w.requests[i];
            prefixBlocks += r.prefix_blocks.size();
            if (checkRequest(r, i, w.config, file_) || checkPrefixTotal(prefixBlocks, caps_, i, file_)) {
                decline();
            }
        }
        if (checkUniqueIds(w.requests, file_)) {
            decline();
        }
    }

    void readConfig(Config& c) {
        const std::vector<ConfigField>& fields = configFields();
        std::bitset<64> seen; // configFields() and enable_prefix_caching
        if (fields.size() + 1 > seen.size()) {
            decline();
        }
        forEachMember([&](std::string_view key) {
            if (key == "enable_prefix_caching") {
                markSeen(seen, fields.size());
                c.enable_prefix_caching = boolean();
                return;
            }
            const auto field = std::find_if(fields.begin(), fields.end(),
                                             [&](const ConfigField& f) { return f.key == key; });
            if (field == fields.end()) {
                decline();
            }
            markSeen(seen, static_cast<std::size_t>(field - fields.begin()));
            c.*(field->member) = integer();
            // tick_us has no "unset" value in a file: the strict reader refuses 0.
            if (field->key == "tick_us" && c.tick_us == 0) {
                decline();
            }
        });
    }

    void readPolicy(Policy& p) {
        std::bitset<kPolicyKeys.size()> seen;
        std::string follows; // checked once the profile is known, wherever it is in the object
        forEachMember([&](std::string_view key) {
            const std::size_t k = keyIndex(key, kPolicyKeys);
            markSeen(seen, k);
            switch (k) {
            case kRecovery: p.recovery = enumOrDecline(parseRecovery(string())); break;
            case kVictimRule: p.victim_rule = enumOrDecline(parseVictimRule(string())); break;
            case kAdaptiveTie: p.adaptive_tie = enumOrDecline(parseAdaptiveTie(string())); break;
            case kResumeGuard: p.resume_guard = enumOrDecline(parseResumeGuard(string())); break;
            case kWatermarkBlocks: p.watermark_blocks = integer(); break;
            case kPreemptAhead: p.preempt_ahead = boolean(); break;
            case kHybridSwapPercent: p.hybrid_swap_percent = integer(); break;
            case kEngineProfile: p.engine_profile = enumOrDecline(parseEngineProfile(string())); break;
            case kEngineFollows: follows = string(); break;
            default: decline();
            }
        });
        if (seen.test(kEngineFollows) && follows != engineFollows(p.engine_profile)) {
            decline();
        }
    }

    void readRequests(std::vector<RequestSpec>& requests) {
        expect('[');
        if (consume(']')) {
            return;
        }
        do {
            if (requests.size() >= maxRequests_) { // the strict reader stops here, naming the cap
                decline();
            }
            readRequest(requests.emplace_back());
        } while (consume(','));
        expect(']');
    }

    void readRequest(RequestSpec& r) {
        std::bitset<kRequestKeys.size()> seen;
        forEachMember([&](std::string_view key) {
            const std::size_t k = keyIndex(key, kRequestKeys);
            markSeen(seen, k);
            switch (k) {
            case kId: r.id = string(); break;
            case kArrivalTick: r.arrival_tick = integer(); break;
            case kPromptTokens: r.prompt_tokens = integer(); break;
            case kOutputTokens: r.output_tokens = integer(); break;
            case kMaxOutputTokens: r.max_output_tokens = integer(); break;
            case kPriority: r.priority = integer(); break;
            case kTenant: r.tenant = string(); break;
            case kPrefixBlocks: readPrefixBlocks(r.prefix_blocks); break;
            default: decline();
            }
        });
        if (!seen.test(kId) || !seen.test(kArrivalTick) || !seen.test(kPromptTokens) || !seen.test(kOutputTokens)) {
            decline();
        }
        if (!seen.test(kMaxOutputTokens)) {
            r.max_output_tokens = r.output_tokens;
        }
    }

    void readPrefixBlocks(PrefixIds& ids) {
        expect('[');
        if (consume(']')) {
            return;
        }
        do {
            if (++prefixBlocks_ > maxPrefixBlocks_) { // the strict reader stops here, naming the cap
                decline();
            }
            ids.push_back(integer());
        } while (consume(','));
        expect(']');
    }

    // An object's members: `member(key)` reads each value.
    template <typename Member>
    void forEachMember(Member&& member) {
        expect('{');
        if (consume('}')) {
            return;
        }
        do {
            const std::string_view key = plainKey();
            expect(':');
            member(key);
        } while (consume(','));
        expect('}');
    }

    // A key: every key of a workload is printable ASCII without escapes (anything else is not one of them).
    std::string_view plainKey() {
        expect('"');
        const char* start = at_;
        while (at_ < end_ && *at_ != '"') {
            if (*at_ == '\\' || static_cast<unsigned char>(*at_) < 0x20 || static_cast<unsigned char>(*at_) >= 0x80) {
                decline();
            }
            ++at_;
        }
        if (at_ == end_) {
            decline();
        }
        return {start, static_cast<std::size_t>(at_++ - start)};
    }

    // A string value: a view of the text when it has no escape and only ASCII (the common case), else its
    // decoded bytes in scratch_ (valid until the next string).
    std::string_view string() {
        stop_.step();
        expect('"');
        const char* start = at_;
        while (at_ < end_) {
            const auto c = static_cast<unsigned char>(*at_);
            if (c == '"') {
                return {start, static_cast<std::size_t>(at_++ - start)};
            }
            if (c == '\\' || c < 0x20 || c >= 0x80) {
                scratch_.assign(start, at_);
                return decodedString();
            }
            ++at_;
        }
        decline();
    }

    // The rest of a string with escapes or UTF-8, decoded as nlohmann_json's lexer decodes it.
    std::string_view decodedString() {
        while (at_ < end_) {
            const auto c = static_cast<unsigned char>(*at_);
            if (c == '"') {
                ++at_;
                return scratch_;
            }
            if (c < 0x20) { // a control character must be escaped
                decline();
            }
            if (c >= 0x80) { // a run of non-ASCII bytes: well-formed UTF-8 or the strict reader's error
                const char* run = at_;
                while (at_ < end_ && static_cast<unsigned char>(*at_) >= 0x80) {
                    ++at_;
                }
                const std::string_view bytes(run, static_cast<std::size_t>(at_ - run));
                if (!isValidUtf8(bytes)) {
                    decline();
                }
                scratch_.append(bytes);
                continue;
            }
            ++at_;
            if (c != '\\') {
                scratch_.push_back(static_cast<char>(c));
                continue;
            }
            if (at_ == end_) {
                decline();
            }
            switch (*at_++) {
            case '"': scratch_.push_back('"'); break;
            case '\\': scratch_.push_back('\\'); break;
            case '/': scratch_.push_back('/'); break;
            case 'b': scratch_.push_back('\b'); break;
            case 'f': scratch_.push_back('\f'); break;
            case 'n': scratch_.push_back('\n'); break;
            case 'r': scratch_.push_back('\r'); break;
            case 't': scratch_.push_back('\t'); break;
            case 'u': appendCodePoint(); break;
            default: decline();
            }
        }
        decline();
    }

    // After "\u": the code point (a surrogate pair's two escapes together) as UTF-8; a lone surrogate declines.
    void appendCodePoint() {
        std::uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            decline();
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - at_ < 2 || at_[0] != '\\' || at_[1] != 'u') {
                decline();
            }
            at_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) {
                decline();
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        const auto byte = [&](std::uint32_t b) { scratch_.push_back(static_cast<char>(b)); };
        if (cp < 0x80) {
            byte(cp);
        } else if (cp < 0x800) {
            byte(0xC0 | (cp >> 6));
            byte(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            byte(0xE0 | (cp >> 12));
            byte(0x80 | ((cp >> 6) & 0x3F));
            byte(0x80 | (cp & 0x3F));
        } else {
            byte(0xF0 | (cp >> 18));
            byte(0x80 | ((cp >> 12) & 0x3F));
            byte(0x80 | ((cp >> 6) & 0x3F));
            byte(0x80 | (cp & 0x3F));
        }
    }

    std::uint32_t hex4() {
        if (end_ - at_ < 4) {
            decline();
        }
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = *at_++;
            std::uint32_t d = 0;
            if (h >= '0' && h <= '9') {
                d = static_cast<std::uint32_t>(h - '0');
            } else if (h >= 'a' && h <= 'f') {
                d = static_cast<std::uint32_t>(h - 'a' + 10);
            } else if (h >= 'A' && h <= 'F') {
                d = static_cast<std::uint32_t>(h - 'A' + 10);
            } else {
                decline();
            }
            v = v * 16 + d;
        }
        return v;
    }

    // An integer from 0 to 2^53-1 written as digits; anything after it that is not the next token declines at
    // the caller's expect (a fraction, an exponent, a letter).
    std::int64_t integer() {
        stop_.step();
        skipSpace();
        const char* start = at_;
        std::int64_t v = 0;
        while (at_ < end_ && *at_ >= '0' && *at_ <= '9') {
            if (at_ - start == 16) { // 2^53-1 has 16 digits
                decline();
            }
            v = v * 10 + (*at_ - '0');
            ++at_;
        }
        if (at_ == start || (*start == '0' && at_ - start > 1) || v > kMaxSafeInteger) {
            decline();
        }
        return v;
    }

    bool boolean() {
        stop_.step();
        skipSpace();
        const std::string_view rest(at_, static_cast<std::size_t>(end_ - at_));
        if (rest.substr(0, 4) == "true") {
            at_ += 4;
            return true;
        }
        if (rest.substr(0, 5) == "false") {
            at_ += 5;
            return false;
        }
        decline();
    }

    void skipSpace() {
        while (at_ < end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) {
            ++at_;
        }
    }

    void expect(char c) {
        skipSpace();
        if (at_ == end_ || *at_ != c) {
            decline();
        }
        ++at_;
    }

    bool consume(char c) {
        skipSpace();
        if (at_ < end_ && *at_ == c) {
            ++at_;
            return true;
        }
        return false;
    }

    const char* at_;
    const char* end_;
    const Caps& caps_;
    StopCheck stop_;
    const std::atomic<bool>* stopFlag_;
    const std::uint64_t maxRequests_;
    const std::uint64_t maxPrefixBlocks_;
    std::uint64_t prefixBlocks_ = 0; // in the whole workload so far
    std::string scratch_;            // a decoded string
    const std::string file_;         // the rules' messages are not used: any error declines
};

} // namespace

std::optional<Workload> readPlainWorkload(std::string_view text, const Caps& caps, const std::atomic<bool>* stop) {
    if (static_cast<std::uint64_t>(text.size()) > static_cast<std::uint64_t>(caps.max_file_bytes)) {
        return std::nullopt;
    }
    try {
        return PlainWorkloadReader(text, caps, stop).read();
    } catch (const NotPlain&) {
        return std::nullopt;
    }
}

} // namespace pl
