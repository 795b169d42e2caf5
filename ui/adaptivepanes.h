#pragma once
// AdaptivePanes: a view's panes side by side where the view has room for them, as tabs where it does not (a
// dock sharing the window's bottom row at 1280x800 is about 600x280 px: the Compare view's table and two CDFs
// side by side there cut the table's columns off and pressed the plots' tick labels into each other). The
// panes are the caller's widgets; they move between the two arrangements and keep their state.

#include <QList>
#include <QSize>
#include <QString>
#include <QWidget>

#include <functional>

class QStackedLayout;
class QTabWidget;

namespace plui {

class AdaptivePanes : public QWidget {
    Q_OBJECT
  public:
    struct Pane {
        QWidget* widget;
        QString title; // its tab's title
    };
    // `arrangeWide` lays the panes out on `host` (giving it a layout) when the view is at least `roomy`.
    using Arranger = std::function<void(QWidget* host, const QList<QWidget*>& panes)>;
    AdaptivePanes(QList<Pane> panes, Arranger arrangeWide, QSize roomy, QWidget* parent = nullptr);
    bool tabbed() const { return tabbed_; }
    QTabWidget* tabs() const { return tabs_; }

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void arrange(bool tabbed);
    QList<Pane> panes_;
    Arranger arrangeWide_;
    QSize roomy_;
    QStackedLayout* stack_;
    QWidget* wide_;
    QTabWidget* tabs_;
    bool tabbed_ = false;
    bool arranged_ = false;
    int lastTab_ = 0;
};

} // namespace plui
