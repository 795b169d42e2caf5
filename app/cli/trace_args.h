#pragma once
// Flag handling shared by import-trace and generate: every config and policy key as a flag (underscores
// written as dashes), and the small value parsers for the trace options.

#include "app/cli/args.h"

#include "core/trace/generator.h"
#include "core/trace/trace_importer.h"
#include "core/workload.h"

#include <optional>
#include <set>
#include <string>

namespace pl::cli {

// Applies every option that names a config or policy key to `w`, in command-line order; options in `own`
// are skipped. Returns "unknown option --x" or the override's error for the first bad one.
std::optional<std::string> applyWorkloadFlags(const Args& args, const std::set<std::string>& own, Workload& w);

// --tick-ms MS into `tickUs` (microseconds, at least 1; untouched when the flag is absent): the message for a
// bad value (a value past the limit is out of range), else nothing. import-trace and generate take it alike.
std::optional<std::string> tickMsFlag(const Args& args, std::int64_t& tickUs);

// Fills the importer's options from --tick-ms --start --duration --limit --rate-scale --max-output-tokens
// --skip-oversized --spread --seed --prefix-blocks --name --id-prefix.
std::optional<std::string> importOptionsFromArgs(const Args& args, trace::ImportOptions& o);
const std::set<std::string>& importOptionNames();

// Fills the generator's parameters (everything but config and policy) from its flags.
std::optional<std::string> generatorParamsFromArgs(const Args& args, trace::GeneratorParams& p);
const std::set<std::string>& generatorOptionNames();

// The command line as typed, for the `notes` of what it writes.
std::string commandLine(const char* program, int argc, char** argv);

} // namespace pl::cli
