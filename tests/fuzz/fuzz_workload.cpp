// Fuzz target: the workload parser and validator (parseWorkload, validateWorkload, the normalised JSON).
// Properties checked on every input:
//  - bad input yields an InputError with a reason and the file name, never a crash or an exception;
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
