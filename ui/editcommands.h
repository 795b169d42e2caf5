#pragma once
// Undo commands for workload edits. Each stores the workload before and after the edit and changes data only
// through LabDocument::applyEditedWorkload, so every view hears about it. Edits of the same setting in a row
// (a slider being dragged) merge into one undo step while they come less than kMergeWindowMs apart; two
// separate changes of one setting, with a pause between them, stay two steps.

#include "core/workload.h"

#include <QString>
#include <QUndoCommand>

#include <chrono>

namespace plui {

class LabDocument;

class ChangeWorkload : public QUndoCommand {
  public:
    ChangeWorkload(LabDocument* doc, pl::Workload before, pl::Workload after, const QString& text,
                   int mergeId = -1, QString mergeKey = {});
    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;
    const pl::Workload& before() const { return before_; }
    const pl::Workload& after() const { return after_; }

  private:
    LabDocument* doc_;
    pl::Workload before_;
    pl::Workload after_;
    int mergeId_;
    QString mergeKey_;
    // The gap that decides a merge runs from the end of this step's last redo (its run, on the UI thread for
    // a small workload, done) to the next edit's creation, so a slow run does not split a drag.
    std::chrono::steady_clock::time_point created_;
    std::chrono::steady_clock::time_point redone_;
};

inline constexpr qint64 kMergeWindowMs = 800;

// Merge ids (QUndoCommand::id): edits of one setting merge; request edits do not.
inline constexpr int kChangeSettingId = 1001;

} // namespace plui
