#pragma once
// Review > Gate Against a Baseline Receipt... (issue 26): the run on screen is the candidate, a receipt file the
// baseline, held to the criteria a reviewer names (core's pl::review::runGate, the same verdict as
// `preemptlab-cli gate BASELINE CANDIDATE`). The candidate's receipt is made and both are checked on a worker
// (BackgroundJob: progress, Cancel); the verdict is shown as core's table and kept in the document, so the
// review bundle's summary.md carries it while that run is on screen.

#include "core/review/gate.h"

#include <QObject>
#include <QString>

#include <optional>

class QMenu;

namespace plui {

class BackgroundJob;
class MainWindow;

class GateActions : public QObject {
    Q_OBJECT
  public:
    explicit GateActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    // What the menu entry does once the dialog is accepted: the shown run against `baselineFile` under
    // `criteria`, on the worker. False when there is no run or a gate is still being made.
    bool runGate(const QString& baselineFile, const pl::review::GateCriteria& criteria);
    bool busy() const;
    void waitForIdle();
    // The last verdict, or why there is none ("FILE: /path: reason"); empty before the first gate.
    const std::optional<pl::review::GateResult>& lastResult() const { return result_; }
    const QString& lastError() const { return error_; }
    // A gate result as a Markdown table (criterion, baseline, candidate, threshold, verdict) and its verdict line.
    static QString markdown(const pl::review::GateResult& result);

  signals:
    // Once per gate that started, when it has ended (passed: every criterion held; false on an error too).
    void finished(bool passed);

  private:
    void askAndRun();
    void show(const pl::review::GateResult& result);
    MainWindow* window_;
    BackgroundJob* job_;
    std::optional<pl::review::GateResult> result_;
    QString error_;
};

} // namespace plui
