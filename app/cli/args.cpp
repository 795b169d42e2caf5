#include "app/cli/args.h"

#include "core/atomic_file.h"
#include "core/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace pl::cli {

bool Args::has(const std::string& name) const {
    if (switches.count(name)) {
        return true;
    }
    for (const auto& [k, v] : options) {
        if (k == name) {
            return true;
        }
    }
    return false;
}

std::optional<std::string> Args::value(const std::string& name) const {
    std::optional<std::string> found;
    for (const auto& [k, v] : options) {
        if (k == name) {
            found = v;
        }
    }
    return found;
}

std::vector<std::string> Args::values(const std::string& name) const {
    std::vector<std::string> found;
    for (const auto& [k, v] : options) {
        if (k == name) {
            found.push_back(v);
        }
    }
    return found;
}

std::optional<std::string> parseArgs(int argc, char** argv, int first, const ArgSpec& spec, Args& out) {
    bool onlyPositional = false;
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (onlyPositional || a.size() < 3 || a.rfind("--", 0) != 0) {
            if (a == "--") {
                onlyPositional = true;
                continue;
            }
            if (!onlyPositional && a.size() >= 2 && a[0] == '-' && a[1] != '-' &&
                !(a[1] >= '0' && a[1] <= '9')) {
                return "unknown option " + a + " (options start with --, e.g. --out)";
            }
            out.positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (spec.switches.count(name)) {
            if (inlineValue) {
                return "option --" + name + " takes no value";
            }
            if (out.switches.count(name)) {
                return "option --" + name + " is given twice (each option once)";
            }
            out.switches.insert(name);
            continue;
        }
        if (!spec.valued.count(name) && !spec.allow_any_valued) {
            return "unknown option --" + name;
        }
        if (!spec.repeatable.count(name) && out.has(name)) {
            return "option --" + name + " is given twice (each option once; the second would silently win)";
        }
        if (inlineValue) {
            out.options.emplace_back(name, *inlineValue);
        } else if (i + 1 < argc && std::string_view(argv[i + 1]).rfind("--", 0) != 0) {
            out.options.emplace_back(name, argv[++i]);
        } else if (i + 1 < argc) {
            // "--capacity-blocks --out x.json": taking --out as the number would leave x.json a stray argument
            // and the real mistake unsaid. A value that starts with -- can still be given as --name=--value.
            return "option --" + name + " needs a value, got " + argv[i + 1];
        } else {
            return "option --" + name + " needs a value";
        }
    }
    return std::nullopt;
}

std::optional<std::string> positionalProblem(const Args& args, const std::vector<std::string>& names) {
    if (args.positional.size() < names.size()) {
        return "missing " + names[args.positional.size()];
    }
    if (args.positional.size() > names.size()) {
        return "unexpected argument '" + printable(args.positional[names.size()]) + "'";
    }
    return std::nullopt;
}

std::optional<std::string> writeStdout(std::string_view text) {
    errno = 0;
    const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    int err = errno;
    const bool flushed = std::fflush(stdout) == 0;
    err = err != 0 ? err : errno;
    if (written && flushed && !std::ferror(stdout)) {
        return std::nullopt;
    }
    std::clearerr(stdout); // reported here, once; what did not fit is dropped (main's last flush has nothing left)
    return std::string("cannot write to standard output: ") +
           (err != 0 ? std::strerror(err) : "a write failed (a full disk or a closed pipe)");
}

std::optional<std::string> checkOutputs(const std::vector<std::string>& outputs,
                                        const std::vector<std::string>& inputs) {
    // Two outputs of one command that are one file (compare --out into its own --receipts folder): the second
    // would silently replace the first.
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            std::error_code a, b;
            const auto pi = std::filesystem::weakly_canonical(outputs[i], a);
            const auto pj = std::filesystem::weakly_canonical(outputs[j], b);
            if (outputs[i] != "-" && !a && !b && pi == pj) {
                return printable(outputs[i], 4096) + ": is also " + printable(outputs[j], 4096) +
                       ", another output of this command (name another file)";
            }
        }
    }
    for (const std::string& out : outputs) {
        if (auto e = outputIsAnInput(out, inputs)) {
            return e;
        }
        if (out != "-") {
            if (auto e = checkWritable(out)) {
                return "cannot write " + *e;
            }
        }
    }
    return std::nullopt;
}

} // namespace pl::cli
