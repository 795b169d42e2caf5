#pragma once
// A small, strict command-line parser for the Qt-free CLI: positionals plus "--key value" / "--key=value"
// options. Unknown options are errors (each command declares what it accepts).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pl::cli {

struct Args {
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> options; // in command-line order, name without dashes
    std::set<std::string> switches;                           // value-less flags that were given

    bool has(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const; // last occurrence
    std::vector<std::string> values(const std::string& name) const;  // every occurrence
};

struct ArgSpec {
    std::set<std::string> valued;   // options that take a value
    std::set<std::string> switches; // options without a value
    bool allow_any_valued = false;  // accept any --name value (checked later by the command)
};

// Parses argv[first..]. On error returns a message naming the offending argument.
std::optional<std::string> parseArgs(int argc, char** argv, int first, const ArgSpec& spec, Args& out);

} // namespace pl::cli
