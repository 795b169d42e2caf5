#include "args.h"

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
            out.switches.insert(name);
            continue;
        }
        if (!spec.valued.count(name) && !spec.allow_any_valued) {
            return "unknown option --" + name;
        }
        if (inlineValue) {
            out.options.emplace_back(name, *inlineValue);
        } else if (i + 1 < argc) {
            out.options.emplace_back(name, argv[++i]);
        } else {
            return "option --" + name + " needs a value";
        }
    }
    return std::nullopt;
}

} // namespace pl::cli
