#pragma once
// LiveModeAction: Run > Live Mode, a checkable action. At start it asks gpu/ whether a CUDA device is usable
// (pl::gpu::probeDevice). Without one the action is disabled and its tooltip and status tip give the reason
// ("built without CUDA ...", or the CUDA error). With one, checking it makes the document's runs drive the
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
