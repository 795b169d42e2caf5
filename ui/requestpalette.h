#pragma once
// RequestPalette: how a request is told apart in every view. A colour (golden-ratio hue walk, so neighbours
// differ) plus a fill pattern and a short label, so the pool and the timeline read without colour too.

#include <QBrush>
#include <QColor>
#include <QString>

#include <cstdint>

namespace plui {

struct RequestPalette {
    static QColor color(int request);
    // Patterns cycle through a few Qt brush styles; solid for every 6th so most cells stay calm.
    static Qt::BrushStyle pattern(int request);
    // A short label: the request's index in base 36 (drawn when a cell is large enough).
    static QString label(int request);
    static QColor freeColor() { return QColor(0xf4, 0xf5, 0xf7); }
    static QColor victimColor() { return QColor(0xdc, 0x26, 0x26); }
    static QColor inFlightColor() { return QColor(0x1d, 0x4e, 0xd8); }
    // The requester of this tick's eviction (the request whose need caused it): a dark violet frame and corner,
    // darker than any owner's fill (values 0.78 and up), apart from the victim's red and the copy's blue.
    static QColor requesterColor() { return QColor(0x4c, 0x1d, 0x95); }
    // A free block that still caches a prefix id (a later request with that prefix can attach it).
    static QColor cachedFreeColor() { return QColor(0xe8, 0xe0, 0xc0); }
    static QColor sharedMarkColor() { return QColor(0x11, 0x18, 0x27); }
    // Values of the victim mask (LabDocument::victimBlockMask, drawn by the pool grid): a victim's block, still
    // held or freed (red, crossed), or one already handed on to another request in the same tick (a dotted red
    // frame only: that request is no victim).
    static constexpr std::uint8_t kVictimBlock = 1;
    static constexpr std::uint8_t kVictimBlockReused = 2;
    // A block freed now because its victim's swap-out landed (the eviction was ticks ago): a red frame and a
    // single light diagonal, not the cross of an eviction in this tick.
    static constexpr std::uint8_t kVictimBlockLanded = 3;
    // A shared prefix block the victim let go that other requests still hold (nothing freed): a red corner at
    // the top left, the cell otherwise as its holder's.
    static constexpr std::uint8_t kVictimBlockKept = 4;
};

} // namespace plui
