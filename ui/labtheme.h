#pragma once
// The lab's theme (View > Theme, --theme): System (the desktop's palette), Light (the style's standard one) or
// Dark (darkPalette()), applied to the whole application and kept in QSettings ("view/theme"). QCustomPlot
// draws in fixed colours of its own (white background, black axes); followPalette() makes a plot take them
// from its palette, now and whenever the palette changes, as do its markers and notes in neutral greys.

#include <QPalette>
#include <QString>
#include <QStringList>

#include <optional>

class QActionGroup;
class QCustomPlot;
class QMenu;
class QObject;

namespace plui {

enum class LabTheme { System, Light, Dark };

QString themeName(LabTheme theme); // "system", "light", "dark" (--theme's words)
std::optional<LabTheme> themeFromName(const QString& name);
QPalette darkPalette();
// Sets the application's palette (System: the one the application had before the first call).
void applyTheme(LabTheme theme);
LabTheme currentTheme();
LabTheme savedTheme(); // QSettings "view/theme"; System when unset or unknown
void saveTheme(LabTheme theme);
// True when `palette` is a dark one (its window darker than its text).
bool isDark(const QPalette& palette);
// Styles `plot` from `palette`: background, axes, ticks, labels, grid, legend, and the neutral (grey, black or
// white) pens and brushes of its items and scatter markers; the colours of the data keep their hue.
void stylePlot(QCustomPlot* plot, const QPalette& palette);
// stylePlot now and on every palette change of `plot` (the application's theme switched).
void followPalette(QCustomPlot* plot);
// followPalette for every plot under `root`.
void followPaletteInPlots(QObject* root);
// The ledger's and tables' highlight tint for the candidate that was chosen: a pale red, a deep one when dark.
QColor chosenRowTint(const QPalette& palette);
// View > Theme: System, Light, Dark as a radio group; a choice applies at once and is saved.
void addThemeMenu(QMenu* viewMenu, QObject* owner);

} // namespace plui
