#pragma once
// LabRun: what one run of the lab produces, computed off the GUI thread when the workload is large. The
// simulated pl::Session always; in live mode the Session's one full run also drives a real device through the
// backend a pl::LiveBackendFactory makes (app/lab hands in gpu/'s), so the workload runs once and `live` is that
// same run's RunResult, whose
// RunResult::live annotations (measured and modelled microseconds per device call, keyed by event seq) the
// victim ledger shows. Measurements never feed back into the simulation.

#include <QString>

#include <atomic>
#include <memory>

namespace pl {
class LiveBackend;
struct LiveBackendFactory;
class Session;
struct RunResult;
struct Workload;
namespace cost {
struct Calibration;
}
} // namespace pl

namespace plui {

struct LabRun {
    std::shared_ptr<pl::Session> session;
    std::shared_ptr<const pl::RunResult> live; // the session's own result, in live mode with a backend only
    QString liveError;                         // live mode asked for, but no backend or a device call failed
};

// Throws what pl::Session throws; live-mode failures land in liveError instead. `live` null: a simulated run;
// else a live run on the backend it makes, with `calibration` (may be null), which then fills each measurement's
// modelled microseconds. Setting `stop` (from any thread) ends the run early with pl::RunCancelled
// (core/run_control.h).
LabRun computeLabRun(const pl::Workload& workload, const pl::LiveBackendFactory* live,
                     const pl::cost::Calibration* calibration = nullptr, const std::atomic<bool>* stop = nullptr);
// The same with a given backend (tests drive it with a scripted one): one run, attached to the backend.
LabRun computeLabRun(const pl::Workload& workload, pl::LiveBackend* backend, const std::atomic<bool>* stop = nullptr);

// Whether live mode can be switched on with `live`, and if not why (its probe's text: gpu/'s says "built without
// CUDA" in a build without CUDA). On success `deviceName` names the device.
bool liveDeviceAvailable(const pl::LiveBackendFactory& live, QString* why, QString* deviceName);

} // namespace plui
