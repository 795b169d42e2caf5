#pragma once
// The recovery modes' colours, shared by the Compare view's curves and the Sweep view's lines and heat map:
// recompute orange and swap purple as in the break-even explorer, adaptive blue, hybrid green (red is kept for
// victims).

#include "core/workload.h"

#include <QColor>

namespace plui {

inline QColor modeColor(pl::Recovery mode) {
    switch (mode) {
    case pl::Recovery::Recompute: return {0xf9, 0x73, 0x16};
    case pl::Recovery::Swap: return {0x93, 0x33, 0xea};
    case pl::Recovery::Adaptive: return {0x1d, 0x4e, 0xd8};
    case pl::Recovery::Hybrid: return {0x05, 0x96, 0x69};
    }
    return {0x47, 0x55, 0x69};
}

// Neither a mode nor a tie of modes: neutral grey.
inline QColor unknownModeColor() { return {0x9c, 0xa3, 0xaf}; }

} // namespace plui
