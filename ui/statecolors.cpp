#include "ui/statecolors.h"

#include "ui/requestpalette.h"

#include <QObject>
#include <QString>

namespace plui {

QColor stateColor(LaneState s) {
    switch (s) {
    case LaneState::Waiting: return QColor(0x9c, 0xa3, 0xaf);
    case LaneState::Prefill: return QColor(0x60, 0xa5, 0xfa);
    case LaneState::Decode: return QColor(0x1d, 0x4e, 0xd8);
    case LaneState::Preempted: return QColor(0xdc, 0x26, 0x26);
    case LaneState::SwappedOut: return QColor(0xca, 0x8a, 0x04); // yellow: apart from replaying's orange
    case LaneState::Copying: return QColor(0x93, 0x33, 0xea);
    case LaneState::Replaying: return QColor(0xf9, 0x73, 0x16);
    case LaneState::Done: return QColor(0x05, 0x96, 0x69);
    case LaneState::Censored: return QColor(0x11, 0x18, 0x27);
    }
    return Qt::gray;
}

Qt::BrushStyle statePattern(LaneState s) {
    switch (s) {
    case LaneState::Waiting: return Qt::Dense5Pattern;
    case LaneState::Preempted: return Qt::BDiagPattern;
    case LaneState::SwappedOut: return Qt::FDiagPattern;
    case LaneState::Copying: return Qt::DiagCrossPattern;
    default: return Qt::SolidPattern;
    }
}

QString stateLegendHtml() {
    QString html;
    for (int i = 0; i < kLaneStateCount; ++i) {
        const auto s = static_cast<LaneState>(i);
        html += QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
                    .arg(stateColor(s).name(), QString::fromUtf8(toString(s).data(),
                                                                 static_cast<qsizetype>(toString(s).size())));
    }
    // Symbol and words unbreakable, so a narrow legend never leaves a triangle at the end of a line.
    // The triangle in the markers' amber (black-edged on the plot), the cross in their black; the lane frames
    // (a victim's red, a requester's dashed violet) in short words: the timeline's dock may be narrow.
    html += QStringLiteral("<span style='color:#f59e0b'>&#9650;</span>&nbsp;excessive&nbsp;wait&nbsp;&nbsp; "
                           "&#10006;&nbsp;repeated&nbsp;preemption&nbsp;&nbsp; "
                           "<span style='color:#dc2626'>&#9633;</span>&nbsp;victim&nbsp;this&nbsp;tick&nbsp;&nbsp; "
                           "<span style='color:%1'>&#9633;</span>&nbsp;requester")
                .arg(RequestPalette::requesterColor().name());
    return html;
}

QString hybridLegendHtml(long long swapPercent, bool pool) {
    const QString head = QObject::tr("<b>hybrid split (%1%)</b>: ").arg(swapPercent);
    if (pool) {
        return head + QObject::tr("the victim's first %1% of full blocks are swapped out (dashed frame, then freed "
                                  "&#9585;) and copied back when it resumes; the rest are freed at once and "
                                  "recomputed. Fewer are swapped when the host is short; none (all recomputed) "
                                  "when the host has no room or the victim no full block.")
                          .arg(swapPercent);
    }
    return head + QObject::tr("a victim's lane goes copying (its first %1% of full blocks out), swapped out, "
                              "copying (back in), then replaying (the rest, recomputed); one with no full block "
                              "to swap is preempted and replays it all.")
                      .arg(swapPercent);
}

} // namespace plui
