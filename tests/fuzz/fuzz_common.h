#pragma once
// Shared helpers for the libFuzzer targets (tests/fuzz/README.md). A target reports a real bug by aborting
// with a message; libFuzzer then saves the input that caused it.

#include "core/workload_io.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace pl::fuzz {

// Caps small enough that every accepted workload runs in milliseconds: the fuzzer looks for crashes and
// wrong answers, not for slow legitimate runs (those are the caps' business, tested in test_limits).
inline Caps smallCaps() {
    Caps c;
    c.max_requests = 64;
    c.max_ticks = 4096;
    c.max_capacity_blocks = 4096;
    c.max_file_bytes = 1 << 20;
    return c;
}

[[noreturn]] inline void bug(const std::string& what) {
    std::fprintf(stderr, "FUZZ BUG: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// An InputError must always say what is wrong and name the file it was given.
inline void checkError(const InputError& e, const std::string& file) {
    if (e.reason.empty()) {
        bug("an InputError without a reason: " + e.message());
    }
    if (e.file != file) {
        bug("an InputError names the file \"" + e.file + "\" instead of \"" + file + "\"");
    }
}

} // namespace pl::fuzz
