#include "ui/adaptivepanes.h"

#include <QResizeEvent>
#include <QStackedLayout>
#include <QTabWidget>

namespace plui {

AdaptivePanes::AdaptivePanes(QList<Pane> panes, Arranger arrangeWide, QSize roomy, QWidget* parent)
    : QWidget(parent), panes_(std::move(panes)), arrangeWide_(std::move(arrangeWide)), roomy_(roomy) {
    stack_ = new QStackedLayout(this);
    stack_->setContentsMargins(0, 0, 0, 0);
    wide_ = new QWidget(this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("paneTabs"));
    tabs_->setDocumentMode(true);
    stack_->addWidget(wide_);
    stack_->addWidget(tabs_);
    arrange(false);
}

void AdaptivePanes::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const QSize s = event->size();
    arrange(s.width() < roomy_.width() || s.height() < roomy_.height());
}

void AdaptivePanes::arrange(bool tabbed) {
    if (arranged_ && tabbed == tabbed_) return;
    arranged_ = true;
    tabbed_ = tabbed;
    if (tabbed) {
        delete wide_->layout(); // the widgets stay; addTab takes them
        for (const Pane& p : panes_) tabs_->addTab(p.widget, p.title);
        tabs_->setCurrentIndex(lastTab_); // the tab the user had when the view last had room
        stack_->setCurrentWidget(tabs_);
        return;
    }
    if (tabs_->currentIndex() >= 0) lastTab_ = tabs_->currentIndex();
    while (tabs_->count() > 0) tabs_->removeTab(0);
    QList<QWidget*> widgets;
    for (const Pane& p : panes_) widgets << p.widget;
    arrangeWide_(wide_, widgets); // the layout reparents them onto wide_
    for (QWidget* w : widgets) w->setVisible(true);
    stack_->setCurrentWidget(wide_);
}

} // namespace plui
