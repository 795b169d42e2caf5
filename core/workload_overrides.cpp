// Command-line overrides of config and policy keys (`--capacity-blocks 64`, `--recovery swap`). Each value is
// parsed strictly and range-checked on its own here; rules that relate two keys (watermark < capacity, every
// request still fits) are left to validateWorkload, which the caller runs afterwards.
#include "workload_io.h"

#include "workload_rules.h"

#include <algorithm>
#include <charconv>

namespace pl {
namespace {

std::string flagName(std::string_view key) {
    std::string flag = "--" + std::string(key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

InputError overrideError(std::string_view key, std::string reason) { return InputError{"", flagName(key), std::move(reason)}; }

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t value = 0;
    if (text.empty() || text.front() < '0' || text.front() > '9') {
        return std::nullopt; // no sign, no spaces
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value > kMaxSafeInteger) {
        return std::nullopt;
    }
    return value;
}

template <typename E>
std::optional<InputError> setEnum(std::string_view key, std::string_view value, E& target,
                                  std::optional<E> (*parse)(std::string_view), std::initializer_list<E> all) {
    if (auto parsed = parse(value)) {
        target = *parsed;
        return std::nullopt;
    }
    std::string choices;
    for (E v : all) {
        choices += (choices.empty() ? "" : ", ") + std::string(toString(v));
    }
    return overrideError(key, "unknown value \"" + std::string(value) + "\" (expected one of: " + choices + ")");
}

std::optional<InputError> setInteger(std::string_view key, std::string_view value, std::int64_t& target,
                                     std::int64_t min, std::int64_t max = kMaxSafeInteger) {
    const auto parsed = parseInteger(value);
    if (!parsed) {
        return overrideError(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                                      ", got \"" + std::string(value) + "\"");
    }
    if (auto problem = integerRangeProblem(*parsed, min, max)) {
        return overrideError(key, *problem);
    }
    target = *parsed;
    return std::nullopt;
}

} // namespace

const std::vector<std::string_view>& configKeys() {
    static const std::vector<std::string_view> keys = [] {
        std::vector<std::string_view> out;
        for (const auto& field : configFields()) {
            out.push_back(field.key);
        }
        return out;
    }();
    return keys;
}

const std::vector<std::string_view>& policyKeys() {
    static const std::vector<std::string_view> keys{"recovery",         "victim_rule",   "adaptive_tie",
                                                    "resume_guard",     "watermark_blocks", "preempt_ahead",
                                                    "hybrid_swap_percent"};
    return keys;
}

std::optional<InputError> applyOverride(Workload& w, std::string_view rawKey, std::string_view value) {
    std::string key(rawKey);
    std::replace(key.begin(), key.end(), '-', '_'); // accept the flag spelling too
    for (const auto& field : configFields()) {
        if (field.key == key) {
            return setInteger(key, value, w.config.*(field.member), field.min);
        }
    }
    Policy& p = w.policy;
    if (key == "recovery") {
        return setEnum(key, value, p.recovery, parseRecovery,
                       {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid});
    }
    if (key == "victim_rule") {
        return setEnum(key, value, p.victim_rule, parseVictimRule,
                       {VictimRule::PriorityNewest, VictimRule::LastAdmitted, VictimRule::LongestContext,
                        VictimRule::ShortestContext, VictimRule::FewestDecoded, VictimRule::MostRemaining,
                        VictimRule::TenantFair});
    }
    if (key == "adaptive_tie") {
        return setEnum(key, value, p.adaptive_tie, parseAdaptiveTie, {AdaptiveTie::Recompute, AdaptiveTie::Swap});
    }
    if (key == "resume_guard") {
        return setEnum(key, value, p.resume_guard, parseResumeGuard,
                       {ResumeGuard::FullReservation, ResumeGuard::NextBlock});
    }
    if (key == "watermark_blocks") {
        return setInteger(key, value, p.watermark_blocks, 0);
    }
    if (key == "hybrid_swap_percent") {
        return setInteger(key, value, p.hybrid_swap_percent, 0, 100);
    }
    if (key == "preempt_ahead") {
        if (value == "true" || value == "false") {
            p.preempt_ahead = value == "true";
            return std::nullopt;
        }
        return overrideError(key, "expected true or false, got \"" + std::string(value) + "\"");
    }
    return overrideError(key, "unknown option: not a config or policy key");
}

} // namespace pl
