#pragma once
// LabChange: the one typed change announcement of LabDocument. Views look at the flags they care about
// instead of connecting to a dozen ad-hoc signals (the pattern of Tiled's ChangeEvent).

#include <QFlags>

namespace plui {

enum class LabChangeKind {
    Workload = 0x01,  // the workload was replaced or edited (requests, config, policy)
    Session = 0x02,   // a new full run is available (ledger, series, records)
    Cursor = 0x04,    // the cursor moved to another tick
    Selection = 0x08, // the selected request changed
    Busy = 0x10,      // a background run started or finished
    Calibration = 0x20, // a calibration.json was loaded or dropped (break-even curves, live modelled µs)
};
Q_DECLARE_FLAGS(LabChange, LabChangeKind)
Q_DECLARE_OPERATORS_FOR_FLAGS(LabChange)

} // namespace plui
