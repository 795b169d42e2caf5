#include "ui/editcommands.h"

#include "ui/labdocument.h"

namespace plui {

ChangeWorkload::ChangeWorkload(LabDocument* doc, pl::Workload before, pl::Workload after, const QString& text,
                               int mergeId, QString mergeKey)
    : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)), mergeId_(mergeId),
      mergeKey_(std::move(mergeKey)), created_(std::chrono::steady_clock::now()), redone_(created_) {}

void ChangeWorkload::undo() { doc_->applyEditedWorkload(before_); }

void ChangeWorkload::redo() {
    doc_->applyEditedWorkload(after_);
    redone_ = std::chrono::steady_clock::now();
}

bool ChangeWorkload::mergeWith(const QUndoCommand* other) {
    const auto* o = dynamic_cast<const ChangeWorkload*>(other);
    if (o == nullptr || o->mergeId_ != mergeId_ || o->mergeKey_ != mergeKey_ ||
        o->created_ - redone_ > std::chrono::milliseconds(kMergeWindowMs)) {
        return false;
    }
    after_ = o->after_;
    redone_ = o->redone_;
    setText(o->text());
    return true;
}

} // namespace plui
