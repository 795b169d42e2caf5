#include "ui/livemodeaction.h"

#include "ui/labdocument.h"
#include "ui/labrun.h"

#include <QAction>
#include <QMenu>

namespace plui {

LiveModeAction::LiveModeAction(LabDocument* doc, QMenu* menu, QObject* parent)
    : QObject(parent), doc_(doc), action_(new QAction(this)) {
    action_->setObjectName(QStringLiteral("liveModeAction"));
    action_->setText(tr("&Live Mode"));
    action_->setCheckable(true);
    const QString tip = tr("Also run every eviction and resume on a GPU (looked for when the Run menu opens)");
    action_->setToolTip(tip);
    action_->setStatusTip(tip);
    menu->addAction(action_);
    connect(menu, &QMenu::aboutToShow, this, &LiveModeAction::probe);
    connect(action_, &QAction::toggled, this, [this](bool on) {
        probe(); // a shortcut or a script may switch it before the menu ever opened
        if (on && !why_.isEmpty()) {
            action_->setChecked(false);
            emit unavailable(action_->toolTip());
            return;
        }
        doc_->setLiveMode(on);
    });
    // A cancelled switch puts the mode back (LabDocument::cancelRun): the check follows it.
    connect(doc, &LabDocument::changed, action_, [this]() {
        if (action_->isChecked() != doc_->liveMode()) action_->setChecked(doc_->liveMode());
    });
}

void LiveModeAction::probe() {
    if (probed_) return;
    probed_ = true;
    QString device;
    if (!liveDeviceAvailable(doc_->liveBackends(), &why_, &device)) {
        if (why_.isEmpty()) why_ = tr("no usable CUDA device");
        action_->setEnabled(false);
        const QString tip = tr("Live mode is unavailable: %1").arg(why_);
        action_->setToolTip(tip);
        action_->setStatusTip(tip);
        emit unavailable(tip);
        return;
    }
    const QString tip = tr("Also run every eviction and resume on %1: the victim ledger shows measured beside "
                           "modelled microseconds")
                            .arg(device);
    action_->setToolTip(tip);
    action_->setStatusTip(tip);
}

} // namespace plui
