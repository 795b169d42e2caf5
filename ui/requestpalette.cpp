#include "ui/requestpalette.h"

namespace plui {

QColor RequestPalette::color(int request) {
    if (request < 0) return freeColor();
    // Golden-ratio hue walk with two saturation/value tiers so 1,000s of requests stay distinguishable nearby.
    const double h = static_cast<double>(request) * 0.618033988749895;
    // Hues are kept off red (0.92..0.08): red is reserved for victims and the preempted state.
    const double hue = 0.08 + 0.84 * (h - static_cast<double>(static_cast<long long>(h)));
    const int tier = (request / 7) % 3;
    const double sat = tier == 0 ? 0.55 : (tier == 1 ? 0.70 : 0.42);
    const double val = tier == 0 ? 0.92 : (tier == 1 ? 0.78 : 0.86);
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(sat), static_cast<float>(val));
}

Qt::BrushStyle RequestPalette::pattern(int request) {
    static constexpr Qt::BrushStyle kStyles[] = {Qt::SolidPattern,  Qt::BDiagPattern, Qt::HorPattern,
                                                 Qt::FDiagPattern,  Qt::VerPattern,   Qt::CrossPattern};
    if (request < 0) return Qt::NoBrush;
    return kStyles[static_cast<unsigned>(request) % 6u];
}

QString RequestPalette::label(int request) {
    return request < 0 ? QString() : QString::number(request, 36);
}

} // namespace plui
