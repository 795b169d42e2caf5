// preemptlab-cli: the headless face of PreemptLab. Dispatches to the command table (commands.h).
#include "app/cli/commands.h"
#include "core/atomic_file.h"
#include "app/cli/shell_files.h"
#include "core/number_text.h"
#include "core/run_control.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"
#include "core/workload_rules.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>
#include <set>
#include <string>
#include <vector>

namespace {

const std::vector<pl::cli::Command>* gTable = nullptr; // the table, for the commands that print files made from it

// completion bash|zsh, man [--out FILE]: shell_files.h. The output goes to stdout, or atomically to --out FILE.
int cmdShellFile(int argc, char** argv) {
    const bool man = std::strcmp(argv[0], "man") == 0;
    std::string shell;
    std::string out;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc && out.empty()) {
            out = argv[++i];
        } else if (!man && shell.empty() && argv[i][0] != '-') {
            shell = argv[i];
        } else {
            std::fprintf(stderr, "preemptlab-cli: %s: unexpected argument '%s'\nusage: preemptlab-cli %s\n", argv[0], argv[i],
                         man ? "man [--out FILE]" : "completion bash|zsh [--out FILE]");
            return pl::cli::kExitBadInput;
        }
    }
    if (!man && shell != "bash" && shell != "zsh") {
        std::fprintf(stderr, "preemptlab-cli: completion: name the shell, bash or zsh%s\nusage: preemptlab-cli completion "
                             "bash|zsh [--out FILE]\n",
                     shell.empty() ? "" : (", got '" + shell + "'").c_str());
        return pl::cli::kExitBadInput;
    }
    const std::string text = man ? pl::cli::manPage(*gTable)
                             : shell == "bash" ? pl::cli::bashCompletion(*gTable)
                                               : pl::cli::zshCompletion(*gTable);
    if (out.empty() || out == "-") {
        std::fputs(text.c_str(), stdout);
        return pl::cli::kExitOk;
    }
    if (auto err = pl::writeFileAtomically(out, text)) {
        std::fprintf(stderr, "preemptlab-cli: %s\n", err->c_str());
        return pl::cli::kExitBadInput;
    }
    return pl::cli::kExitOk;
}

std::vector<pl::cli::Command> buildTable() {
    std::vector<pl::cli::Command> table;
    pl::cli::registerCoreCommands(table);
    pl::cli::registerBenchCommands(table);
    pl::cli::registerCostCommands(table);
    pl::cli::registerTraceCommands(table);
    pl::cli::registerReviewCommands(table);
    pl::cli::registerGpuCommands(table);
    table.push_back({"completion", "completion bash|zsh [--out FILE]",
                     "print a shell completion script: these commands, each command's options from `help COMMAND` "
                     "as you type, the choices of --recovery, --victim-rule, --engine-profile and the like",
                     cmdShellFile});
    table.push_back({"man", "man [--out FILE]", "print the manual page (roff), made from this command table and the "
                                                "workload keys", cmdShellFile});
    return table;
}

constexpr const char* kExitCodes =
    "exit codes: 0 done, 1 a check failed, 2 bad input or usage, 3 no usable CUDA device\n";

void printUsage(const std::vector<pl::cli::Command>& table, std::FILE* to) {
    std::fprintf(to, "usage: preemptlab-cli COMMAND [ARGS]   (preemptlab-cli help COMMAND: its options)\n\ncommands:\n");
    for (const auto& c : table) {
        std::fprintf(to, "  %s\n      %s\n", c.usage.c_str(), c.summary.c_str());
    }
    std::fprintf(to, "\n--<key> V: any config or policy key of the workload, e.g. --capacity-blocks 64; "
                     "`preemptlab-cli run --help` lists them\n");
    std::fprintf(to, "\n%s", kExitCodes);
}

// The --<key> flags a command that reads a workload takes: each config and policy key, its unit and meaning;
// `except` is a key the command refuses (compare runs every recovery mode).
void printWorkloadKeys(std::FILE* to, std::string_view except) {
    std::fprintf(to, "\nworkload keys (--<key> V overrides the file's value):\n");
    for (const auto& keys : {pl::policyKeys(), pl::configKeys()}) {
        for (std::string_view key : keys) {
            if (key == except) {
                continue;
            }
            const pl::SettingHelp help = pl::settingHelp(key);
            const std::string unit = help.unit.empty() ? std::string() : " (" + std::string(help.unit) + ")";
            std::fprintf(to, "  %s%s\n      %.*s%s%s\n", pl::settingFlag(key).c_str(), unit.c_str(),
                         static_cast<int>(help.meaning.size()), help.meaning.data(), pl::isByteKey(key) ? " " : "",
                         pl::isByteKey(key) ? pl::kByteUnitsHint : "");
        }
    }
}

// Commands that print a page of their own for --help (every option explained); the others get their line of
// the command table.
const std::set<std::string> kDetailedHelp = {"breakeven", "rates", "sweep", "sweep-merge", "import-trace", "generate"};

bool asksForHelp(int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) {
            return false;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            return true;
        }
    }
    return false;
}

// What a command printed must have reached its destination: a full disk behind stdout (or a closed pipe, when
// SIGPIPE is ignored; else that signal ends the program first) is a failure (exit 2 with the reason), not a
// receipt silently lost with exit 0.
int finish(int code) {
    errno = 0;
    const bool flushFailed = std::fflush(stdout) != 0;
    const int err = errno;
    if (flushFailed || std::ferror(stdout)) {
        std::fprintf(stderr, "preemptlab-cli: cannot write to standard output: %s\n",
                     flushFailed && err != 0 ? std::strerror(err) : "a write failed (a full disk or a closed pipe)");
        return pl::cli::kExitBadInput;
    }
    return code;
}

} // namespace

int main(int argc, char** argv) {
    const auto table = buildTable();
    gTable = &table;
    // "help COMMAND" is "COMMAND --help".
    std::vector<char*> helpArgs;
    if (argc == 3 && std::strcmp(argv[1], "help") == 0) {
        helpArgs = {argv[0], argv[2], const_cast<char*>("--help")};
        argc = 3;
        argv = helpArgs.data();
    }
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
        std::strcmp(argv[1], "help") == 0) {
        if (argc < 2) {
            std::fprintf(stderr, "preemptlab-cli: missing COMMAND\n");
        }
        printUsage(table, argc < 2 ? stderr : stdout);
        return finish(argc < 2 ? pl::cli::kExitBadInput : pl::cli::kExitOk);
    }
    if (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-V") == 0) {
        std::printf("preemptlab-cli %s (%s)\n", std::string(pl::kEngineVersion).c_str(),
                    std::string(pl::kTickModel).c_str());
        return pl::cli::kExitOk;
    }
    for (const auto& c : table) {
        if (c.name != argv[1]) {
            continue;
        }
        const bool help = asksForHelp(argc, argv);
        if (help && !kDetailedHelp.count(c.name)) {
            std::printf("usage: preemptlab-cli %s\n  %s\n", c.usage.c_str(), c.summary.c_str());
            if (c.usage.find("--<key>") != std::string::npos) {
                printWorkloadKeys(stdout, c.name == "compare" ? "recovery" : "");
            }
            std::printf("\n%s", kExitCodes);
            return finish(pl::cli::kExitOk);
        }
        if (help) {
            // The command's own page; the rest of the line is not parsed ("sweep --help -h" is help, not a
            // switch given twice).
            std::vector<char*> args = {argv[1], const_cast<char*>("--help")};
            return finish(c.run(static_cast<int>(args.size()), args.data()));
        }
        if (const std::string problem = pl::eventBudgetProblem(); !problem.empty()) {
            std::fprintf(stderr, "preemptlab-cli: %s\n", problem.c_str());
            return pl::cli::kExitBadInput;
        }
        // An allocation that fails (a huge input under `ulimit -v`, a machine out of memory) ends the command
        // with exit 2 and the figures, never std::terminate's abort. Every file is written atomically, so
        // nothing half-written is left behind.
        try {
            return finish(c.run(argc - 1, argv + 1));
        } catch (const std::bad_alloc&) {
            const std::string m = pl::outOfMemoryMessage("preemptlab-cli " + c.name);
            std::fprintf(stderr, "%s\n", m.c_str());
            return pl::cli::kExitBadInput;
        }
    }
    std::fprintf(stderr, "preemptlab-cli: unknown command '%s'\n\n", argv[1]);
    printUsage(table, stderr);
    return pl::cli::kExitBadInput;
}
