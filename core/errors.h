#pragma once
// InputError: what was wrong with an input, and where. Every reader in core reports through it, so the CLI
// and the lab can print "FILE: /json/path: reason" and exit 2 / show a dialog without knowing the format.

#include <stdexcept>
#include <string>
#include <string_view>

namespace pl {

// `s` fit for a one-line message: control characters (a newline, an escape sequence, a NUL) as \xNN, and at
// most `maxBytes` bytes of it followed by "... (N bytes)", so a hostile 5 MB token or id cannot flood a
// terminal or hide the reason behind a NUL.
inline std::string printable(std::string_view s, std::size_t maxBytes = 400) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (out.size() >= maxBytes) {
            return out + "... (" + std::to_string(s.size()) + " bytes)";
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

struct InputError {
    std::string file;   // the file as the user named it ("-" for stdin, "" when not from a file)
    std::string path;   // JSON pointer (e.g. "/requests/3/prompt_tokens"), "line 12, column 3", or ""
    std::string reason; // what is wrong, in words

    // "FILE: PATH: reason"; an error not from a file (a command-line flag, an edit in the lab) starts at PATH.
    // The file name, path and reason may hold control bytes (a newline in a file name, a key, an id, a token):
    // they are made printable().
    std::string message() const {
        std::string m = printable(file, 4096); // a file name may hold a newline or an escape sequence too
        for (const std::string* part : {&path, &reason}) {
            if (!part->empty()) {
                m += (m.empty() ? "" : ": ") + printable(*part);
            }
        }
        return m;
    }
};

// Thrown only at the edges (CLI, lab) where an InputError must unwind; core functions return it.
class InputException : public std::runtime_error {
  public:
    explicit InputException(InputError e) : std::runtime_error(e.message()), error_(std::move(e)) {}
    const InputError& error() const { return error_; }

  private:
    InputError error_;
};

} // namespace pl
