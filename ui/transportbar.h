#pragma once
// TransportBar: step back and forward, play/pause with a speed slider, previous/next pressure event, first
// and last tick, and a scrub slider over the run. The actions carry the keyboard shortcuts (also in the
// View > Transport menu of the main window).

#include <QToolBar>

class QAction;
class QLabel;
class QSlider;
class QTimer;

namespace plui {

class LabDocument;

class TransportBar : public QToolBar {
    Q_OBJECT
  public:
    explicit TransportBar(LabDocument* doc, QWidget* parent = nullptr);
    QList<QAction*> transportActions() const;
    QSlider* scrubber() const { return scrub_; }
    QSlider* speedSlider() const { return speed_; }
    QAction* playAction() const { return play_; }
    bool playing() const;
    int ticksPerSecond() const;

  private:
    void refresh();
    void setPlaying(bool on);
    LabDocument* doc_;
    QAction* first_;
    QAction* prevPressure_;
    QAction* back_;
    QAction* play_;
    QAction* forward_;
    QAction* nextPressure_;
    QAction* last_;
    QSlider* scrub_;
    QSlider* speed_;
    QLabel* tickLabel_;
    QLabel* speedLabel_;
    QTimer* timer_;
    bool updating_ = false;
};

} // namespace plui
