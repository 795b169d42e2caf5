#pragma once
// LiveModeAction: Run > Live Mode, a checkable action. The first time the Run menu opens (or the action is
// switched), it asks the document's live backend factory whether a device is usable (app/lab hands in gpu/'s,
// which loads the CUDA module and asks CUDA), so starting the lab maps no CUDA library. Without a device the
// action is disabled and its tooltip and status tip give the reason in gpu/'s words (gpu/no_device.h: "no NVIDIA
// GPU found (cudaGetDeviceCount: ...)", "built without CUDA ...", the module that could not be loaded, or "this
// program drives no device" when it was handed none), and `unavailable` hands it to the status bar. With one,
// checking it makes the document's runs drive the device too (LabDocument::setLiveMode), and the victim ledger
// shows measured beside modelled microseconds.

#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace plui {

class LabDocument;

class LiveModeAction : public QObject {
    Q_OBJECT
  public:
    // Adds the action to `menu` and probes when the menu is about to show.
    LiveModeAction(LabDocument* doc, QMenu* menu, QObject* parent);
    QAction* action() const { return action_; }
    // Asks for a device once (later calls do nothing).
    void probe();
    // Why live mode is unavailable ("" when a device is usable, or before the probe).
    QString unavailableReason() const { return why_; }

  signals:
    // The probe found no usable device, or the action was switched on without one: the sentence to show.
    void unavailable(const QString& text);

  private:
    LabDocument* doc_;
    QAction* action_;
    QString why_;
    bool probed_ = false;
};

} // namespace plui
