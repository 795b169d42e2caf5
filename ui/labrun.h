#pragma once
// LabRun: what one run of the lab produces, computed off the GUI thread when the workload is large. The
// simulated pl::Session always; in live mode also a second run of the same workload driving a real device
// through pl::gpu::makeLiveBackend, whose RunResult::live annotations (measured and modelled microseconds per
// device call, keyed by event seq) the victim ledger shows. The simulation is deterministic, so both runs
// have the same events and seqs; measurements never feed back into it.

#include <QString>

#include <memory>

namespace pl {
class Session;
struct RunResult;
struct Workload;
} // namespace pl

namespace plui {

struct LabRun {
    std::shared_ptr<pl::Session> session;
    std::shared_ptr<const pl::RunResult> live; // live mode with a usable device only
    QString liveError;                         // live mode asked for, but no backend or a device call failed
};

// Throws what pl::Session throws; live-mode failures land in liveError instead.
LabRun computeLabRun(const pl::Workload& workload, bool live);

// Whether live mode can be switched on, and if not why (pl::gpu::probeDevice's text, "built without CUDA"
// in a build without CUDA). On success `deviceName` names the device.
bool liveDeviceAvailable(QString* why, QString* deviceName);

} // namespace plui
