#pragma once
// Strict JSON text -> DOM. nlohmann's own parser keeps the last of two equal keys and reports errors as byte
// offsets; this reader refuses duplicate object keys (naming the JSON pointer of the second one), reports
// syntax errors as "line L, column C", and bounds nesting depth, so no input can exhaust the stack.

#include "core/errors.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl {

inline constexpr std::size_t kMaxJsonDepth = 256;

// A cap on the element count of the array at one JSON pointer (e.g. "/requests"), enforced while reading: the
// parse stops at the first element over the cap, so a document claiming 10^9 requests is refused after reading
// only `max_elements` of them, in bounded memory and time. `what` names the elements in the message.
// A "*" segment in `pointer` matches any one key or index ("/requests/*/prefix_blocks"); with `across_arrays`
// the cap counts the elements of every matching array together (a whole document's prefix block ids).
struct JsonArrayCap {
    std::string pointer;
    std::size_t max_elements = 0;
    std::string what;
    bool across_arrays = false;
};

// The elements of the array at `pointer` (exact: no "*"), handed to `take` one at a time as each is complete,
// with its index, instead of being kept: that array stays empty in the DOM, so a 300,000-request document never
// holds its requests as JSON all at once. Paths, caps and errors count the elements as if they were kept.
// Sinks' arrays may not nest (one inside another's element is not handed over separately).
struct JsonElementSink {
    std::string pointer;
    std::function<void(nlohmann::json&& element, std::size_t index)> take;
};

// True for text that holds no JSON value at all: 0 bytes, or only JSON whitespace (space, tab, CR, LF), after
// an optional UTF-8 byte order mark (which the parser skips too).
bool isEmptyJsonText(std::string_view text);

// `format` is what the document should have been ("preemptlab.workload.v1"): empty text is refused as
// "FILE: the file is empty (a FORMAT JSON document was expected)" ("standard input is empty" for "-") instead
// of the parser's "line 1, column 1: ... unexpected end of input", which reads like a broken file.
// `stop` is read every kValuesPerStopCheck values: once set, the parse ends with pl::Cancelled.
inline constexpr int kValuesPerStopCheck = 16384; // a few milliseconds of parsing
std::variant<nlohmann::json, InputError> parseJsonStrict(std::string_view text, const std::string& file,
                                                         std::string_view format,
                                                         const std::vector<JsonArrayCap>& arrayCaps = {},
                                                         const std::atomic<bool>* stop = nullptr,
                                                         const std::vector<JsonElementSink>& sinks = {});

// 1-based line and column of the byte at `offset` (0-based) in `text`, as "line L, column C".
std::string lineColumnAt(std::string_view text, std::size_t offset);

} // namespace pl
