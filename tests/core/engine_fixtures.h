#pragma once
// Small builders shared by the engine, receipt and session suites.

#include "core/engine.h"
#include "core/model.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pltest {

inline pl::RequestSpec req(std::string id, pl::Tick arrival, std::int64_t prompt, std::int64_t output,
                           std::int64_t priority = 0, std::string tenant = "default", std::int64_t maxOutput = 0) {
    pl::RequestSpec r;
    r.id = std::move(id);
    r.arrival_tick = arrival;
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    r.max_output_tokens = maxOutput > 0 ? maxOutput : output;
    r.priority = priority;
    r.tenant = std::move(tenant);
    return r;
}

inline pl::Workload workload(pl::Config c, pl::Policy p, std::vector<pl::RequestSpec> reqs) {
    pl::Workload w;
    w.name = "test";
    w.config = c;
    w.policy = p;
    w.requests = std::move(reqs);
    pl::normaliseWorkload(w);
    return w;
}

// A bundled workload file; a file that does not load stops the suite.
inline pl::Workload loadSampleFile(const std::string& path) {
    auto r = pl::loadWorkloadFile(path);
    if (auto* e = std::get_if<pl::InputError>(&r)) {
        qFatal("cannot load sample %s: %s", path.c_str(), e->message().c_str());
    }
    return std::get<pl::Workload>(std::move(r));
}

inline pl::Workload loadSample(const std::string& name) {
    return loadSampleFile(std::string(PREEMPTLAB_SOURCE_DIR) + "/samples/" + name + ".workload.json");
}

// Every bundled samples/*.workload.json, as paths in name order.
inline std::vector<std::string> sampleFiles() {
    std::vector<std::string> paths;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(PREEMPTLAB_SOURCE_DIR) + "/samples")) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 14 && name.ends_with(".workload.json")) {
            paths.push_back(entry.path().string());
        }
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

// A run ticked one by one (no quiescent skips: the lab's way, with `options`), as a RunResult to compare with
// runWorkload's.
inline pl::RunResult tickByTickRun(const pl::Workload& w, pl::EngineOptions options = {true, true}) {
    pl::RunResult run;
    pl::Engine engine(w, run.ledger, options);
    engine.runToEnd();
    pl::collectResult(engine, nullptr, run);
    return run;
}

// A workload from JSON text in a test (normalised, as a file would be); a bad one stops the suite.
inline pl::Workload workloadFromJsonText(std::string_view text) {
    auto r = pl::parseWorkload(text, "<test>");
    if (auto* e = std::get_if<pl::InputError>(&r)) {
        qFatal("bad test workload: %s", e->message().c_str());
    }
    return std::get<pl::Workload>(std::move(r));
}

inline std::vector<const pl::Event*> eventsOf(const pl::RunResult& run, pl::EventKind kind) {
    std::vector<const pl::Event*> out;
    for (const auto& e : run.ledger.events) {
        if (e.kind == kind) {
            out.push_back(&e);
        }
    }
    return out;
}


// A run's admissions, evictions, resumes and completions as lines "tick kind id" (+ " generated" but for admit),
// for the engine-profile scenarios, whose expectations are written that way.
inline QStringList eventStory(const pl::Workload& w, const pl::RunResult& run) {
    QStringList out;
    for (const pl::Event& e : run.ledger.events) {
        if (e.kind != pl::EventKind::Evict && e.kind != pl::EventKind::Resume && e.kind != pl::EventKind::Complete &&
            e.kind != pl::EventKind::Admit) {
            continue;
        }
        QString line = QString::number(e.tick) + " " + QString::fromStdString(std::string(pl::toString(e.kind))) + " " +
                       QString::fromStdString(w.requests[static_cast<std::size_t>(e.request)].id);
        if (e.kind != pl::EventKind::Admit) line += " " + QString::number(e.generated_tokens);
        out << line;
    }
    return out;
}

} // namespace pltest
