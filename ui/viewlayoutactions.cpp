#include "ui/viewlayoutactions.h"

#include "ui/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMenu>
#include <QStatusBar>

namespace plui {

ViewLayoutActions::ViewLayoutActions(MainWindow* window) : QObject(window), window_(window) {
    maximise_ = new QAction(tr("&Maximise View"), this);
    maximise_->setObjectName(QStringLiteral("maximiseViewAction"));
    maximise_->setCheckable(true);
    // Ctrl+Shift+Return: F11 is the desktop's full screen, Ctrl+Shift+F shows the flagged requests only.
    maximise_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    maximise_->setStatusTip(tr("Fill the window with the view that has the focus; again to bring the layout back"));
    connect(maximise_, &QAction::triggered, this, [this](bool on) {
        if (!on) {
            restoreLayout();
        } else if (active_) {
            maximise(active_);
        } else {
            maximise_->setChecked(false);
            window_->statusBar()->showMessage(tr("Click in a view first: Maximise View fills the window with it"), 5000);
        }
    });
    popOut_ = new QAction(tr("&Pop Out View"), this);
    popOut_->setObjectName(QStringLiteral("popOutViewAction"));
    popOut_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U)); // "undock"
    popOut_->setStatusTip(tr("Float the view that has the focus as a window of its own, or dock it back"));
    connect(popOut_, &QAction::triggered, this, [this]() {
        if (active_) {
            popOut(active_);
        } else {
            window_->statusBar()->showMessage(tr("Click in a view first: Pop Out View floats it"), 5000);
        }
    });
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) { focusMoved(now); });
    for (auto* dock : window_->findChildren<QDockWidget*>()) {
        // A tab clicked raises its dock without moving the focus into it.
        connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
            if (visible && !dock->isFloating() && !maximised_) setActiveDock(dock);
        });
    }
    updateActions();
}

void ViewLayoutActions::buildMenu(QMenu* viewMenu) {
    viewMenu->addAction(maximise_);
    viewMenu->addAction(popOut_);
}

void ViewLayoutActions::focusMoved(QWidget* now) {
    for (QWidget* w = now; w; w = w->parentWidget()) {
        if (auto* dock = qobject_cast<QDockWidget*>(w)) {
            if (dock->window() == window_ || dock->isFloating()) setActiveDock(dock);
            return;
        }
    }
}

void ViewLayoutActions::setActiveDock(QDockWidget* dock) {
    active_ = dock;
    updateActions();
}

void ViewLayoutActions::updateActions() {
    const QString name = active_ ? active_->windowTitle() : QString();
    maximise_->setText(maximised_ ? tr("&Maximise View (%1; again to restore)").arg(maximised_->windowTitle())
                                  : name.isEmpty() ? tr("&Maximise View") : tr("&Maximise View (%1)").arg(name));
    maximise_->setChecked(maximised_ != nullptr);
    popOut_->setText(!active_ ? tr("&Pop Out View")
                              : active_->isFloating() ? tr("Dock %1 Back").arg(name) : tr("&Pop Out View (%1)").arg(name));
}

void ViewLayoutActions::maximise(QDockWidget* dock) {
    if (!dock) return;
    if (maximised_) restoreLayout();
    before_ = window_->saveState();
    maximised_ = dock;
    if (dock->isFloating()) dock->setFloating(false);
    for (auto* other : window_->findChildren<QDockWidget*>()) {
        if (other != dock) other->hide();
    }
    if (QWidget* centre = window_->centralWidget()) centre->hide(); // the docks' areas take its room
    dock->show();
    dock->raise();
    dock->widget()->setFocus(Qt::OtherFocusReason);
    updateActions();
}

void ViewLayoutActions::restoreLayout() {
    if (!maximised_) return;
    QDockWidget* dock = maximised_;
    maximised_ = nullptr;
    if (QWidget* centre = window_->centralWidget()) centre->show();
    window_->restoreState(before_);
    before_.clear();
    active_ = dock;
    updateActions();
}

void ViewLayoutActions::popOut(QDockWidget* dock) {
    if (!dock) return;
    if (maximised_) restoreLayout();
    dock->setFloating(!dock->isFloating());
    dock->show();
    dock->raise();
    dock->activateWindow();
    setActiveDock(dock);
}

} // namespace plui
