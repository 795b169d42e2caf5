#include "livemodeaction.h"

#include "labdocument.h"
#include "labrun.h"

#include <QAction>

namespace plui {

LiveModeAction::LiveModeAction(LabDocument* doc, QObject* parent) : QObject(parent), action_(new QAction(this)) {
    action_->setObjectName(QStringLiteral("liveModeAction"));
    action_->setText(tr("&Live Mode"));
    action_->setCheckable(true);
    QString device;
    if (!liveDeviceAvailable(doc->liveBackends(), &why_, &device)) {
        if (why_.isEmpty()) why_ = tr("no usable CUDA device");
        action_->setEnabled(false);
        const QString tip = tr("Live mode is unavailable: %1").arg(why_);
        action_->setToolTip(tip);
        action_->setStatusTip(tip);
        return;
    }
    const QString tip = tr("Also run every eviction and resume on %1: the victim ledger shows measured beside "
                           "modelled microseconds")
                            .arg(device);
    action_->setToolTip(tip);
    action_->setStatusTip(tip);
    connect(action_, &QAction::toggled, doc, &LabDocument::setLiveMode);
    // A cancelled switch puts the mode back (LabDocument::cancelRun): the check follows it.
    connect(doc, &LabDocument::changed, action_, [this, doc]() {
        if (action_->isChecked() != doc->liveMode()) action_->setChecked(doc->liveMode());
    });
}

} // namespace plui
