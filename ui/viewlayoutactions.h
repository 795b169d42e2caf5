#pragma once
// ViewLayoutActions: View > Maximise View (Ctrl+Shift+Return) and Pop Out View (Ctrl+Shift+U) for the lab's docks.
// Maximise fills the window with the active dock (the one holding the focus, or whose tab was last raised):
// the pool and the other docks hide; the same action (Ctrl+Shift+Return again) brings the layout back
// exactly as it was (QMainWindow::saveState before, restoreState after). Pop Out floats the active dock as a
// window of its own, or docks it back; a floating dock is part of the window state saved at close.

#include <QByteArray>
#include <QDockWidget>
#include <QObject>
#include <QPointer>

class QAction;
class QMenu;
class QWidget;

namespace plui {

class MainWindow;

class ViewLayoutActions : public QObject {
    Q_OBJECT
  public:
    explicit ViewLayoutActions(MainWindow* window);
    void buildMenu(QMenu* viewMenu);
    // The dock the actions act on: the one holding the focus, or the last raised; nullptr before any.
    QDockWidget* activeDock() const { return active_; }
    void setActiveDock(QDockWidget* dock);
    void maximise(QDockWidget* dock);
    void restoreLayout(); // undoes maximise; nothing when none is maximised
    QDockWidget* maximised() const { return maximised_; }
    void popOut(QDockWidget* dock); // floats it, or docks a floating one back
    QAction* maximiseAction() const { return maximise_; }
    QAction* popOutAction() const { return popOut_; }

  private:
    void focusMoved(QWidget* now);
    void updateActions();
    MainWindow* window_;
    QAction* maximise_ = nullptr;
    QAction* popOut_ = nullptr;
    QPointer<QDockWidget> active_;
    QPointer<QDockWidget> maximised_;
    QByteArray before_; // the window state before maximise
};

} // namespace plui
