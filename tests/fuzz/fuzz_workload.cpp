// Fuzz target: the workload parser and validator (parseWorkload, validateWorkload, the normalised JSON).
// Properties checked on every input:
//  - bad input yields an InputError with a reason and the file name, never a crash or an exception;
//  - reading the requests while parsing (parseWorkload) gives what reading them from the whole DOM does;
//  - an accepted workload also passes validateWorkload (the lab's in-memory check agrees with the reader);
//  - an accepted workload written back (fullWorkloadJson) parses again to the same workload (round trip).
#include "fuzz_common.h"

#include "workload_io.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pl;
    const std::string file = "fuzz.workload.json";
    const Caps caps = fuzz::smallCaps();
    auto parsed = parseWorkload(fuzz::asText(data, size), file, caps);
    // Requests read while parsing, or from the whole document's JSON: the same error or the same workload.
    const auto whole = parseWorkloadWhole(fuzz::asText(data, size), file, caps);
    const auto* e1 = std::get_if<InputError>(&parsed);
    const auto* e2 = std::get_if<InputError>(&whole);
    if ((e1 == nullptr) != (e2 == nullptr) || (e1 != nullptr && e1->message() != e2->message()) ||
        (e1 == nullptr && fullWorkloadJson(std::get<Workload>(parsed)) != fullWorkloadJson(std::get<Workload>(whole)))) {
        fuzz::bug("parseWorkload and parseWorkloadWhole differ: " +
                  (e1 != nullptr ? e1->message() : std::string("a workload")) + " / " +
                  (e2 != nullptr ? e2->message() : std::string("a workload")));
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
