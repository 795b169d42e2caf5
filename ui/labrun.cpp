#include "ui/labrun.h"

#include "core/live_backend.h"
#include "core/run_control.h"
#include "core/session.h"

namespace plui {

namespace {
// A factory without functions: the program offers no live mode (the lab's main always hands in gpu/'s).
const char* const kNoLiveMode = "this program drives no device";
} // namespace

LabRun computeLabRun(const pl::Workload& workload, const pl::LiveBackendFactory* live,
                     const pl::cost::Calibration* calibration, const std::atomic<bool>* stop) {
    if (!live) {
        LabRun run;
        run.session = std::make_shared<pl::Session>(workload, pl::memoryBounded(stop));
        return run;
    }
    std::string error;
    std::unique_ptr<pl::LiveBackend> backend;
    if (live->offered()) {
        backend = live->make(workload, calibration, &error);
    } else {
        error = kNoLiveMode;
    }
    if (!backend) {
        LabRun run;
        run.session = std::make_shared<pl::Session>(workload, pl::memoryBounded(stop));
        run.liveError = QStringLiteral("live mode: ") + QString::fromStdString(error);
        return run;
    }
    return computeLabRun(workload, backend.get(), stop);
}

LabRun computeLabRun(const pl::Workload& workload, pl::LiveBackend* backend, const std::atomic<bool>* stop) {
    LabRun run;
    run.session = std::make_shared<pl::Session>(workload, backend, pl::memoryBounded(stop));
    const pl::RunResult& result = run.session->result();
    if (!result.live_error.empty()) {
        run.liveError = QStringLiteral("live mode on %1: %2")
                            .arg(QString::fromStdString(result.live_device), QString::fromStdString(result.live_error));
    }
    for (const auto& a : result.live) {
        if (!a.ok && run.liveError.isEmpty()) {
            run.liveError = QStringLiteral("live mode: the %1 of event %2 failed: %3")
                                .arg(QString::fromStdString(a.kind)).arg(a.seq).arg(QString::fromStdString(a.error));
        }
    }
    // The measurements are the session's own run: share its lifetime instead of running the workload again.
    run.live = std::shared_ptr<const pl::RunResult>(run.session, &result);
    return run;
}

bool liveDeviceAvailable(const pl::LiveBackendFactory& live, QString* why, QString* deviceName) {
    std::string error;
    std::optional<std::string> device;
    if (live.offered()) {
        device = live.probe(&error);
    } else {
        error = kNoLiveMode;
    }
    if (!device) {
        if (why) *why = QString::fromStdString(error);
        return false;
    }
    if (deviceName) *deviceName = QString::fromStdString(*device);
    return true;
}

} // namespace plui
