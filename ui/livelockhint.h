#pragma once
// LivelockHint: says so when the run on screen stopped making progress (core's pl::findLivelock on its
// ledger): a row in the banner above the pool with the sentence core writes (from which tick nothing finished
// or advanced, and why) and a button to go to that tick, and a red note at the right of the status bar. Both
// go when a run without a livelock replaces it.

#include <QObject>
#include <QString>

#include <cstdint>

class QAction;
class QLabel;
class QStatusBar;

namespace plui {

class LabBanner;
class LabDocument;

class LivelockHint : public QObject {
    Q_OBJECT
  public:
    LivelockHint(LabDocument* doc, LabBanner* banner, QStatusBar* statusBar, QObject* parent);
    // The sentence shown, empty when the run on screen has no livelock.
    const QString& sentence() const { return sentence_; }
    // The first tick without progress (-1 when none).
    std::int64_t fromTick() const { return fromTick_; }
    QLabel* statusLabel() const { return status_; }

  private:
    void update();
    LabDocument* doc_;
    LabBanner* banner_;
    QLabel* status_;
    QAction* goTo_;
    QString sentence_;
    std::int64_t fromTick_ = -1;
};

} // namespace plui
