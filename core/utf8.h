#pragma once
// UTF-8 checks for text that reaches a JSON document from outside one: a command-line argument or a file
// name (a workload's name and notes). JSON text must be valid UTF-8; a name typed on a Latin-1 terminal, or
// a file saved under one, is not.

#include <string>
#include <string_view>

namespace pl {

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool isValidUtf8(std::string_view s);

// `s` with each byte that is not part of a well-formed sequence replaced by U+FFFD, for text that only
// describes (notes, a default name taken from a file name); a value the user chose is refused instead.
std::string utf8Lossy(std::string_view s);

} // namespace pl
