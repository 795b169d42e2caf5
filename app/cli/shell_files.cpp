#include "app/cli/shell_files.h"

#include "core/model.h"
#include "core/workload.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <string_view>
#include <utility>

namespace pl::cli {

namespace {

// Every command name, space-separated ("help" too: `preemptlab-cli help COMMAND`).
std::string commandWords(const std::vector<Command>& table) {
    std::string words;
    for (const auto& c : table) words += c.name + " ";
    return words + "help";
}

std::string joined(const std::vector<std::string_view>& values) {
    std::string out;
    for (auto v : values) {
        if (!out.empty()) out += ' ';
        out += v;
    }
    return out;
}

// The workload flags that take one of a few words, and the words (core's own lists).
std::vector<std::pair<std::string, std::string>> enumeratedFlags() {
    return {{"--recovery", joined(allRecoveries())},
            {"--victim-rule", joined(allVictimRules())},
            {"--engine-profile", joined(allEngineProfiles())},
            {"--resume-guard", "full-reservation next-block"},
            {"--adaptive-tie", "recompute swap"},
            {"--preempt-ahead", "true false"},
            {"--enable-prefix-caching", "true false"},
            {"--swap-method", "per-block batched gather"}};
}

// roff: a backslash and a leading dot or quote are escaped; '-' is written \- so that man renders a real minus.
std::string roff(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

} // namespace

std::string bashCompletion(const std::vector<Command>& table) {
    std::string cases;
    for (const auto& [flag, words] : enumeratedFlags()) {
        cases += std::string("        ") + flag + ") COMPREPLY=($(compgen -W \"" + words + "\" -- \"$cur\")); return ;;\n";
    }
    return "# bash completion for preemptlab-cli (made by `preemptlab-cli completion bash`; do not edit).\n"
           "# Commands are this build's; each command's options come from `preemptlab-cli help COMMAND` as you type.\n"
           "_preemptlab_cli() {\n"
           "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
           "    if [[ $COMP_CWORD -eq 1 ]]; then\n"
           "        COMPREPLY=($(compgen -W \"" + commandWords(table) + " --help --version -V\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    case \"$prev\" in\n" + cases +
           "    esac\n"
           "    if [[ \"$cur\" == --* ]]; then\n"
           "        local opts\n"
           "        opts=$(\"${COMP_WORDS[0]}\" help \"${COMP_WORDS[1]}\" 2>/dev/null | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u)\n"
           "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "}\n"
           "complete -o filenames -F _preemptlab_cli preemptlab-cli\n";
}

std::string zshCompletion(const std::vector<Command>& table) {
    std::string cases;
    for (const auto& [flag, words] : enumeratedFlags()) {
        cases += std::string("        (") + flag + ") compadd -- " + words + "; return ;;\n";
    }
    return "#compdef preemptlab-cli\n"
           "# zsh completion for preemptlab-cli (made by `preemptlab-cli completion zsh`; do not edit).\n"
           "# Commands are this build's; each command's options come from `preemptlab-cli help COMMAND` as you type.\n"
           "_preemptlab_cli() {\n"
           "    if (( CURRENT == 2 )); then\n"
           "        compadd -- " + commandWords(table) + " --help --version -V\n"
           "        return\n"
           "    fi\n"
           "    case \"${words[CURRENT-1]}\" in\n" + cases +
           "    esac\n"
           "    if [[ \"$PREFIX\" == --* ]]; then\n"
           "        compadd -- ${(f)\"$(\"${words[1]}\" help \"${words[2]}\" 2>/dev/null | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u)\"}\n"
           "        return\n"
           "    fi\n"
           "    _files\n"
           "}\n"
           "_preemptlab_cli \"$@\"\n";
}

std::string manPage(const std::vector<Command>& table) {
    std::string m;
    m += ".\\\" The manual page of preemptlab-cli, made by `preemptlab-cli man` from its command table.\n";
    m += std::string(".TH PREEMPTLAB-CLI 1 \"\" \"preemptlab ") + roff(kEngineVersion) + "\" \"User Commands\"\n";
    m += ".SH NAME\npreemptlab\\-cli \\- step a KV\\-cache scheduler and account for every preemption\n";
    m += ".SH SYNOPSIS\n.B preemptlab\\-cli\n.I COMMAND\n[\\fIARGS\\fR]\n.br\n.B preemptlab\\-cli help\n.I COMMAND\n";
    m += ".SH DESCRIPTION\nThe headless face of PreemptLab: it runs a workload under a preemption policy tick by "
         "tick, writes a receipt that an independent oracle checks (what every eviction owed is what was rebuilt), "
         "compares recovery modes and engine profiles, sweeps settings for the point where the recommendation "
         "flips, gates a candidate against a baseline, and on a machine with an NVIDIA GPU measures real swap "
         "copies and prefill kernels.\n";
    m += ".SH COMMANDS\n";
    for (const auto& c : table) {
        m += std::string(".TP\n.B ") + roff(c.usage) + "\n" + roff(c.summary) + "\n";
    }
    m += ".TP\n.B help COMMAND\nThe command's options (also \\fBCOMMAND \\-\\-help\\fR).\n";
    m += ".SH WORKLOAD KEYS\nEvery config and policy key of a workload is also a flag of the commands that read "
         "one (\\fB\\-\\-<key> V\\fR overrides the file's value; the result is validated as a file would be).\n";
    for (const auto& keys : {policyKeys(), configKeys()}) {
        for (std::string_view key : keys) {
            const SettingHelp help = settingHelp(key);
            m += std::string(".TP\n.B ") + roff(settingFlag(key)) +
                 (help.unit.empty() ? std::string() : std::string(" \\fI") + roff(help.unit) + "\\fR") +
                 "\n" + roff(help.meaning) + "\n";
        }
    }
    m += ".SH EXIT STATUS\n.TP\n.B 0\ndone\n.TP\n.B 1\na check failed\n.TP\n.B 2\nbad input or usage (the message "
         "names the file, the field and the reason)\n.TP\n.B 3\nno usable CUDA device\n";
    m += ".SH FILES\n.TP\n.I /usr/share/preemptlab/samples/\nthe bundled workloads\n.TP\n"
         ".I /usr/share/doc/preemptlab/docs/\nthe formats (contracts.md), the tick model, the engine profiles\n";
    m += ".SH SEE ALSO\n.BR preemptlab (1)\n";
    return m;
}

} // namespace pl::cli
