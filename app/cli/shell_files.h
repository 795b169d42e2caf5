#pragma once
// The files a shell and `man` read about preemptlab-cli, made from the same command table the help is printed
// from (commands.h) and core's workload keys, so they can never disagree with the program:
//   completion bash|zsh   command names from the table; each command's options completed as they are typed
//                         from `preemptlab-cli help COMMAND` (the installed program's own help); enumerated
//                         workload values (--recovery, --victim-rule, --engine-profile, ...) from core
//   man                   a roff manual page: synopsis, every command's usage and summary, the workload keys
//                         with their units and meaning, exit codes, files
// Installed (cmake/Install.cmake) as share/bash-completion/completions/preemptlab-cli,
// share/zsh/vendor-completions/_preemptlab-cli and share/man/man1/preemptlab-cli.1.gz.

#include "app/cli/commands.h"

#include <string>
#include <vector>

namespace pl::cli {

std::string bashCompletion(const std::vector<Command>& table);
std::string zshCompletion(const std::vector<Command>& table);
std::string manPage(const std::vector<Command>& table);

} // namespace pl::cli
