#include "ui/hostpoolbar.h"

#include "ui/bytestext.h"
#include "ui/statecolors.h"

#include <QPainter>

namespace plui {

HostPoolBar::HostPoolBar(QWidget* parent) : QWidget(parent) {}

void HostPoolBar::setUsage(std::int64_t usedBytes, std::int64_t capacityBytes) {
    used_ = usedBytes;
    capacity_ = capacityBytes;
    setToolTip(tr("Host pool: %1 of %2 in use").arg(bytesText(used_), bytesText(capacity_)));
    update();
}


void HostPoolBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm(font());
    const int textH = fm.height();
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, 0, width(), textH), Qt::AlignHCenter, tr("host pool"));
    const QRect bar(width() / 2 - 16, textH + 4, 32, std::max(20, height() - 4 * textH - 14));
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(QColor(0xf4, 0xf5, 0xf7));
    p.drawRect(bar);
    if (capacity_ > 0 && used_ > 0) {
        const double frac = std::min(1.0, static_cast<double>(used_) / static_cast<double>(capacity_));
        const int h = std::max(1, static_cast<int>(frac * bar.height()));
        const QRect fill(bar.left() + 1, bar.bottom() - h + 1, bar.width() - 1, h - 1);
        p.fillRect(fill, stateColor(LaneState::SwappedOut)); // the colour of swapped-out lanes
        p.fillRect(fill, QBrush(QColor(255, 255, 255, 120), Qt::FDiagPattern));
    }
    p.setPen(palette().color(QPalette::WindowText));
    if (capacity_ == 0 && used_ == 0) {
        // No workload, or one with host_capacity_bytes 0 (every swap falls back to recompute): "0 B of 0 B, 0%
        // used" said nothing.
        p.drawText(QRect(0, bar.bottom() + 4, width(), 2 * textH), Qt::AlignHCenter, tr("no host\nmemory"));
        return;
    }
    const double pct = capacity_ > 0 ? static_cast<double>(used_) * 100.0 / static_cast<double>(capacity_) : 0.0;
    p.drawText(QRect(0, bar.bottom() + 4, width(), textH), Qt::AlignHCenter, bytesText(used_));
    p.drawText(QRect(0, bar.bottom() + 4 + textH, width(), textH), Qt::AlignHCenter,
               tr("of %1").arg(bytesText(capacity_)));
    p.drawText(QRect(0, bar.bottom() + 4 + 2 * textH, width(), textH), Qt::AlignHCenter, tr("%1% used").arg(pct, 0, 'f', pct > 0 && pct < 10 ? 1 : 0));
}

} // namespace plui
