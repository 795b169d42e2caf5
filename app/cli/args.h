#pragma once
// A small, strict command-line parser for the Qt-free CLI: positionals plus "--key value" / "--key=value"
// options. Unknown options are errors (each command declares what it accepts).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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
    std::set<std::string> valued;     // options that take a value
    std::set<std::string> switches;   // options without a value
    bool allow_any_valued = false;    // accept any --name value (checked later by the command)
    std::set<std::string> repeatable; // valued options that may be given more than once (sweep's --vary)
};

// Parses argv[first..]. On error returns a message naming the offending argument: an unknown option, a
// missing value (or a value that is another option: "--capacity-blocks --out x.json"), an option or switch
// given twice (unless repeatable: the second would silently win), a single-dash option ("-o": options start
// with --).
std::optional<std::string> parseArgs(int argc, char** argv, int first, const ArgSpec& spec, Args& out);

// The positional arguments a command takes, by name ({"WORKLOAD"}; {} for none): "missing WORKLOAD" when one
// is absent, "unexpected argument 'X'" for the first extra one, or nothing when they match.
std::optional<std::string> positionalProblem(const Args& args, const std::vector<std::string>& names);

// Writes `text` to standard output and flushes it; the reason when that failed (a full disk behind stdout). A
// command reports success only after this, so "wrote ..." never precedes "cannot write".
std::optional<std::string> writeStdout(std::string_view text);

// Every output a command will write, checked before its work: not an input (pl::outputIsAnInput, atomic_file.h),
// and writable now.
std::optional<std::string> checkOutputs(const std::vector<std::string>& outputs,
                                        const std::vector<std::string>& inputs);

} // namespace pl::cli
