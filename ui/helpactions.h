#pragma once
// HelpActions: the Help menu. Keyboard Shortcuts lists every menu action that has a key, read from the
// window's actions when it opens (so the list cannot drift from the code), then the gestures and the rule for
// keys a focused control keeps; About names the version, the tick model and where the docs are.

#include <QObject>
#include <QString>

class QMenu;

namespace plui {

class MainWindow;

class HelpActions : public QObject {
    Q_OBJECT
  public:
    explicit HelpActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    // The text Keyboard Shortcuts shows: "KEY<tab>what" lines.
    QString shortcutsText() const;

  private:
    MainWindow* window_;
};

} // namespace plui
