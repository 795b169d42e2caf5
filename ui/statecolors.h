#pragma once
// Colours and fill patterns for lane states (timeline, legend), distinct from the per-request colours.

#include "ui/timelinemodel.h"

#include <QBrush>
#include <QColor>

namespace plui {

QColor stateColor(LaneState s);
// Queue states are hatched so lanes read without colour.
Qt::BrushStyle statePattern(LaneState s);
// An HTML legend line: a swatch and the name of every state.
QString stateLegendHtml();
// What a hybrid eviction shows, for the legends of a workload whose policy is recovery: hybrid (core's
// Engine::evict, docs/contracts.md): a block-aligned prefix, `swapPercent` of the victim's full blocks, is
// copied out and back in; the rest is freed at once and replayed. `pool`: in the pool's marks, else in the
// timeline's states.
QString hybridLegendHtml(long long swapPercent, bool pool);

} // namespace plui
