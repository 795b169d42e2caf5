#pragma once
// InputError: what was wrong with an input, and where. Every reader in core reports through it, so the CLI
// and the lab can print "FILE: /json/path: reason" and exit 2 / show a dialog without knowing the format.

#include <stdexcept>
#include <string>

namespace pl {

struct InputError {
    std::string file;   // the file as the user named it ("-" for stdin, "" when not from a file)
    std::string path;   // JSON pointer (e.g. "/requests/3/prompt_tokens"), "line 12, column 3", or ""
    std::string reason; // what is wrong, in words

    // "FILE: PATH: reason"; an error not from a file (a command-line flag, an edit in the lab) starts at PATH.
    std::string message() const {
        std::string m = file;
        for (const std::string* part : {&path, &reason}) {
            if (!part->empty()) {
                m += (m.empty() ? "" : ": ") + *part;
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
