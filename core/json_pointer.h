#pragma once
// JSON pointer helpers (RFC 6901) for error paths: "/requests/3/prompt_tokens".

#include <cstddef>
#include <string>
#include <string_view>

namespace pl {

// One reference token, escaped: "~" -> "~0", "/" -> "~1".
inline std::string escapePointerToken(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

inline std::string pointerChild(const std::string& parent, std::string_view key) {
    return parent + "/" + escapePointerToken(key);
}

inline std::string pointerChild(const std::string& parent, std::size_t index) {
    return parent + "/" + std::to_string(index);
}

} // namespace pl
