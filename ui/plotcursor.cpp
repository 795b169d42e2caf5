#include "ui/plotcursor.h"

#include <qcustomplot.h>

namespace plui {

PlotCursor::PlotCursor(QCustomPlot* plot, double width) : plot_(plot) {
    plot->addLayer(layerName(), plot->layer(QStringLiteral("overlay")), QCustomPlot::limBelow);
    plot->layer(layerName())->setMode(QCPLayer::lmBuffered);
    halo_ = new QCPItemStraightLine(plot);
    line_ = new QCPItemStraightLine(plot);
    halo_->setLayer(layerName());
    line_->setLayer(layerName());
    halo_->setPen(QPen(QColor(255, 255, 255, 200), width + 2.5));
    // Long dashes, darker and wider than any dashed series (the queue's grey line): never taken for data.
    QPen pen(QColor(0x11, 0x18, 0x27), width, Qt::CustomDashLine);
    pen.setDashPattern({5, 2.5});
    line_->setPen(pen);
    for (QCPItemStraightLine* l : {halo_, line_}) l->setSelectable(false);
    moveTo(0);
}

void PlotCursor::moveTo(double x) {
    for (QCPItemStraightLine* l : {halo_, line_}) {
        l->point1->setCoords(x, 0);
        l->point2->setCoords(x, 1);
    }
}

void PlotCursor::setVisible(bool visible) {
    halo_->setVisible(visible);
    line_->setVisible(visible);
}

void PlotCursor::replotLayer() { plot_->layer(layerName())->replot(); }

} // namespace plui
