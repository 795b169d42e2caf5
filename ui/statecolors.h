#pragma once
// Colours and fill patterns for lane states (timeline, legend), distinct from the per-request colours.

#include "timelinemodel.h"

#include <QBrush>
#include <QColor>

namespace plui {

QColor stateColor(LaneState s);
// Queue states are hatched so lanes read without colour.
Qt::BrushStyle statePattern(LaneState s);
// An HTML legend line: a swatch and the name of every state.
QString stateLegendHtml();

} // namespace plui
