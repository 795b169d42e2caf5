// Fuzz target: the workload parser and validator (parseWorkload, validateWorkload, the normalised JSON).
// Properties checked on every input:
//  - bad input yields an InputError with a reason and the file name, never a crash or an exception;
//  - the fast path (readPlainWorkload), when it reads the input at all, gives the strict reader's workload, field by
//    field, and parseWorkload (the fast path, else the strict reader) gives the strict reader's error or workload;
//  - reading the requests while parsing (parseWorkloadStrict) gives what reading them from the whole DOM does;
//  - an accepted workload also passes validateWorkload (the lab's in-memory check agrees with the reader);
//  - an accepted workload written back (fullWorkloadJson) parses again to the same workload (round trip).
#include "tests/fuzz/fuzz_common.h"

#include "core/workload_io.h"
#include "core/workload_plain.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pl;
    const std::string file = "fuzz.workload.json";
    const Caps caps = fuzz::smallCaps();
    const std::string_view text = fuzz::asText(data, size);
    auto parsed = parseWorkload(text, file, caps);
    const auto strict = parseWorkloadStrict(text, file, caps);
    // The same error or the same workload, field by field.
    const auto differ = [](const Result<Workload>& a, const Result<Workload>& b) {
        const auto* ea = std::get_if<InputError>(&a);
        const auto* eb = std::get_if<InputError>(&b);
        return (ea == nullptr) != (eb == nullptr) || (ea != nullptr && ea->message() != eb->message()) ||
               (ea == nullptr && !(std::get<Workload>(a) == std::get<Workload>(b)));
    };
    const auto described = [](const Result<Workload>& r) {
        const auto* e = std::get_if<InputError>(&r);
        return e != nullptr ? e->message() : std::string("a workload");
    };
    if (auto plain = readPlainWorkload(text, caps)) {
        if (differ(Result<Workload>(std::move(*plain)), strict)) {
            fuzz::bug("the fast path reads a workload where the strict reader reads " + described(strict));
        }
    }
    if (differ(parsed, strict)) {
        fuzz::bug("parseWorkload and parseWorkloadStrict differ: " + described(parsed) + " / " + described(strict));
    }
    // Requests read while parsing, or from the whole document's JSON: the same error or the same workload.
    const auto whole = parseWorkloadWhole(text, file, caps);
    if (differ(strict, whole)) {
        fuzz::bug("parseWorkloadStrict and parseWorkloadWhole differ: " + described(strict) + " / " + described(whole));
    }
    if (auto* e = std::get_if<InputError>(&parsed)) {
        fuzz::checkError(*e, file);
        return 0;
    }
    const Workload& w = std::get<Workload>(parsed);
    if (auto e = validateWorkload(w, caps)) {
        fuzz::bug("parsed but validateWorkload refuses it: " + e->message());
    }
    const std::string written = fullWorkloadJson(w).dump();
    auto again = parseWorkload(written, file, caps);
    if (auto* e = std::get_if<InputError>(&again)) {
        fuzz::bug("the written form does not parse: " + e->message() + "\n" + written);
    }
    const Workload& w2 = std::get<Workload>(again);
    if (fullWorkloadJson(w2).dump() != written || w2.requests != w.requests || !(w2.config == w.config) ||
        !(w2.policy == w.policy)) {
        fuzz::bug("round trip changed the workload:\n" + written);
    }
    return 0;
}
