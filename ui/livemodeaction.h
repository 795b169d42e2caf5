#pragma once
// LiveModeAction: Run > Live Mode, a checkable action. At start it asks the document's live backend factory
// whether a device is usable (app/lab hands in gpu/'s, which asks CUDA). Without one the action is disabled
// and its tooltip and status tip give the reason ("built without CUDA ...", the CUDA error, or "this program
// drives no device" when it was handed none). With one, checking it makes the document's runs drive the
// device too (LabDocument::setLiveMode), and the victim ledger shows measured beside modelled microseconds.

#include <QObject>
#include <QString>

class QAction;

namespace plui {

class LabDocument;

class LiveModeAction : public QObject {
    Q_OBJECT
  public:
    LiveModeAction(LabDocument* doc, QObject* parent);
    QAction* action() const { return action_; }
    // Why live mode is unavailable ("" when a device is usable).
    QString unavailableReason() const { return why_; }

  private:
    QAction* action_;
    QString why_;
};

} // namespace plui
