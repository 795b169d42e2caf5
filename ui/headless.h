#pragma once
// Headless rendering for scripts and reviews: open the workload, apply the overrides, move to the tick, write
// the review bundle (--bundle) and/or render one view to PNG/SVG/PDF (--screenshot), and return the exit code
// (0 done, 2 bad input or output; the reason on stderr). Works under QT_QPA_PLATFORM=offscreen.

namespace pl {
struct LiveBackendFactory;
}

namespace plui {

struct LabOptions;

// `live` goes to the window (MainWindow's constructor) as the lab's own would.
int runHeadless(const LabOptions& options, const pl::LiveBackendFactory& live);

} // namespace plui
