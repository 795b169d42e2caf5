#pragma once
// TransportBar: step back and forward, play/pause with a speed slider, previous/next pressure event, first
// and last tick, and a scrub slider over the run. The actions carry the keyboard shortcuts (also in the
// View > Transport menu of the main window): plain keys (arrows, Home, End, PageUp/Down, Space) that belong to
// the window, except where the focused control uses the key itself (controlKeepsKey).

#include <QToolBar>

class QAction;
class QLabel;
class QSlider;
class QTimer;
class QWidget;

namespace plui {

// Whether `focus`, a focused control, uses the plain key `key` itself and keeps it from the transport's
// shortcuts: a slider its arrows, Home, End and pages; a button or check box Space; a table, list, combo box,
// spin box or text field all of them, and a spin box or text field Esc (Cancel Run's key) too. The pool, the
// timeline and the plots leave every key to the transport; clicking the pool or the timeline focuses it.
bool controlKeepsKey(const QWidget* focus, int key);

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
