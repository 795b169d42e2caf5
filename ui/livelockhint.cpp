#include "ui/livelockhint.h"

#include "ui/bytestext.h"
#include "ui/labbanner.h"
#include "ui/labdocument.h"

#include "core/livelock.h"
#include "core/session.h"

#include <QAction>
#include <QLabel>
#include <QStatusBar>

namespace plui {

LivelockHint::LivelockHint(LabDocument* doc, LabBanner* banner, QStatusBar* statusBar, QObject* parent)
    : QObject(parent), doc_(doc), banner_(banner), status_(new QLabel(statusBar)), goTo_(new QAction(this)) {
    status_->setObjectName(QStringLiteral("livelockStatus"));
    status_->setStyleSheet(QStringLiteral("color: #b91c1c; font-weight: bold"));
    status_->hide();
    statusBar->addPermanentWidget(status_);
    goTo_->setObjectName(QStringLiteral("goToLivelock"));
    connect(goTo_, &QAction::triggered, this, [this]() {
        if (fromTick_ >= 0) doc_->seek(fromTick_);
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & (LabChangeKind::Session | LabChangeKind::Workload)) update();
    });
}

void LivelockHint::update() {
    const pl::Session* session = doc_->sessionShowsWorkload() ? doc_->session() : nullptr;
    std::optional<pl::Livelock> found;
    if (session) found = pl::findLivelock(session->workload(), session->result());
    if (!found) {
        sentence_.clear();
        fromTick_ = -1;
        banner_->clearRow(LabBanner::Row::Livelock);
        status_->hide();
        return;
    }
    sentence_ = QString::fromStdString(pl::livelockSentence(session->workload(), *found));
    fromTick_ = found->lastAdvance + 1;
    goTo_->setText(tr("Go to tick %1").arg(groupedNumber(fromTick_)));
    goTo_->setToolTip(tr("The first tick in which nothing finished or advanced"));
    banner_->setRow(LabBanner::Row::Livelock, sentence_, {goTo_}, true);
    status_->setText(tr("Livelock from tick %1").arg(groupedNumber(fromTick_)));
    status_->setToolTip(sentence_);
    status_->show();
}

} // namespace plui
