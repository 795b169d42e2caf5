#include "ui/labtheme.h"

#include <qcustomplot.h>

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>

namespace plui {

namespace {

const QString kThemeKey = QStringLiteral("view/theme");
LabTheme g_current = LabTheme::System;   // one application, one theme: the palette is the application's too
std::optional<QPalette> g_systemPalette; // the desktop's, from before the first applyTheme

// A grey, black or white (little saturation; the slate greys of the notes, 0x374151, are 49 of 255), as the
// plots use for ink and paper.
bool neutral(const QColor& c) { return c.isValid() && c.alpha() > 0 && c.hslSaturation() < 64; }

// A neutral colour as the palette would draw it: dark ink becomes the palette's text, light paper its base
// (the alpha kept); a colour with a hue is kept.
// In a light palette every colour stays as the code chose it.
QColor adapt(const QColor& original, const QPalette& palette) {
    if (!neutral(original) || !isDark(palette)) return original;
    QColor c = original.lightness() < 128 ? palette.color(QPalette::Text) : palette.color(QPalette::Base);
    c.setAlpha(original.alpha());
    return c;
}

// The colour an item was made with, remembered on first styling so that a theme switched back restores it.
QColor original(QObject* item, const char* key, const QColor& now) {
    const QVariant v = item->property(key);
    if (v.isValid()) return v.value<QColor>();
    item->setProperty(key, now);
    return now;
}

QPen adaptPen(QObject* item, const char* key, QPen pen, const QPalette& palette) {
    pen.setColor(adapt(original(item, key, pen.color()), palette));
    return pen;
}

class PaletteFollower : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::PaletteChange) static_cast<QCustomPlot*>(watched)->replot(QCustomPlot::rpQueuedReplot);
        return false;
    }
};

} // namespace

QString themeName(LabTheme theme) {
    switch (theme) {
    case LabTheme::System: return QStringLiteral("system");
    case LabTheme::Light: return QStringLiteral("light");
    case LabTheme::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

std::optional<LabTheme> themeFromName(const QString& name) {
    for (LabTheme t : {LabTheme::System, LabTheme::Light, LabTheme::Dark}) {
        if (themeName(t) == name) return t;
    }
    return std::nullopt;
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9c, 0xa3, 0xaf));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x38, 0x3d));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Midlight, QColor(0x3f, 0x42, 0x47));
    p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5e));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3b, 0x82, 0xf6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x60, 0xa5, 0xfa));
    p.setColor(QPalette::LinkVisited, QColor(0xa7, 0x8b, 0xfa));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        p.setColor(QPalette::Disabled, role, QColor(0x7c, 0x80, 0x87));
    }
    return p;
}

void applyTheme(LabTheme theme) {
    if (!g_systemPalette) g_systemPalette = QApplication::palette();
    g_current = theme;
    switch (theme) {
    case LabTheme::System: QApplication::setPalette(*g_systemPalette); break;
    case LabTheme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
    case LabTheme::Dark: QApplication::setPalette(darkPalette()); break;
    }
}

LabTheme currentTheme() { return g_current; }

LabTheme savedTheme() { return themeFromName(QSettings().value(kThemeKey).toString()).value_or(LabTheme::System); }

void saveTheme(LabTheme theme) { QSettings().setValue(kThemeKey, themeName(theme)); }

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

void stylePlot(QCustomPlot* plot, const QPalette& palette) {
    const QColor text = palette.color(QPalette::Text);
    const QColor base = palette.color(QPalette::Base);
    QColor grid = palette.color(QPalette::Mid);
    grid.setAlpha(isDark(palette) ? 150 : 110);
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(Qt::NoBrush);
        for (QCPAxis* axis : rect->axes()) {
            for (QPen pen : {axis->basePen()}) {
                pen.setColor(text);
                axis->setBasePen(pen);
                axis->setTickPen(pen);
                axis->setSubTickPen(pen);
            }
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            QPen g = axis->grid()->pen();
            g.setColor(grid);
            axis->grid()->setPen(g);
            QPen sub = axis->grid()->subGridPen();
            sub.setColor(grid.lighter(isDark(palette) ? 80 : 110));
            axis->grid()->setSubGridPen(sub);
            QPen zero = axis->grid()->zeroLinePen();
            if (zero.style() != Qt::NoPen) {
                zero.setColor(grid);
                axis->grid()->setZeroLinePen(zero);
            }
        }
    }
    QCPLegend* legend = plot->legend;
    legend->setTextColor(text);
    legend->setSelectedTextColor(text);
    if (legend->brush().style() != Qt::NoBrush) legend->setBrush(QBrush(base));
    if (legend->borderPen().style() != Qt::NoPen) legend->setBorderPen(QPen(palette.color(QPalette::Mid)));
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (auto* item = legend->item(i)) item->setTextColor(text);
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        if (auto* t = qobject_cast<QCPItemText*>(item)) {
            t->setColor(adapt(original(t, "themeColor", t->color()), palette));
            QBrush b = t->brush();
            if (b.style() != Qt::NoBrush) {
                b.setColor(adapt(original(t, "themeBrush", b.color()), palette));
                t->setBrush(b);
            }
        } else if (auto* line = qobject_cast<QCPItemStraightLine*>(item)) {
            line->setPen(adaptPen(line, "themePen", line->pen(), palette));
        } else if (auto* l = qobject_cast<QCPItemLine*>(item)) {
            l->setPen(adaptPen(l, "themePen", l->pen(), palette));
        }
    }
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        g->setPen(adaptPen(g, "themeLinePen", g->pen(), palette)); // a black or grey line (waiting, capacity)
        QCPScatterStyle s = g->scatterStyle();
        if (s.isNone()) continue;
        // Markers: their outline and fill in ink and paper where they were black or white (the timeline's
        // crosses, the CDFs' hollow tail circles).
        s.setPen(adaptPen(g, "themeScatterPen", s.pen(), palette));
        QBrush b = s.brush();
        if (b.style() != Qt::NoBrush) {
            b.setColor(adapt(original(g, "themeScatterBrush", b.color()), palette));
            s.setBrush(b);
        }
        g->setScatterStyle(s);
    }
}

void followPalette(QCustomPlot* plot) {
    stylePlot(plot, plot->palette());
    // Before every replot: the views add graphs, markers and notes with each result, in the colours they chose.
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { stylePlot(plot, plot->palette()); });
    plot->installEventFilter(new PaletteFollower(plot));
}

void followPaletteInPlots(QObject* root) {
    for (auto* plot : root->findChildren<QCustomPlot*>()) followPalette(plot);
}

QColor chosenRowTint(const QPalette& palette) {
    return isDark(palette) ? QColor(0x5b, 0x1f, 0x24) : QColor(0xfe, 0xe2, 0xe2);
}

void addThemeMenu(QMenu* viewMenu, QObject* owner) {
    QMenu* menu = viewMenu->addMenu(QObject::tr("T&heme"));
    menu->setObjectName(QStringLiteral("themeMenu"));
    auto* group = new QActionGroup(owner);
    const QString labels[] = {QObject::tr("&System"), QObject::tr("&Light"), QObject::tr("&Dark")};
    int i = 0;
    for (LabTheme t : {LabTheme::System, LabTheme::Light, LabTheme::Dark}) {
        QAction* a = menu->addAction(labels[i++]);
        a->setObjectName(QStringLiteral("theme_") + themeName(t));
        a->setCheckable(true);
        a->setChecked(t == currentTheme());
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, owner, [t]() {
            applyTheme(t);
            saveTheme(t);
        });
    }
}

} // namespace plui
