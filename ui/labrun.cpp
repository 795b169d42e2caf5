#include "labrun.h"

#include "device_api.h"
#include "live_backend.h"
#include "session.h"

namespace plui {

LabRun computeLabRun(const pl::Workload& workload, bool live) {
    LabRun run;
    run.session = std::make_shared<pl::Session>(workload);
    if (!live) return run;
    std::string error;
    auto backend = pl::gpu::makeLiveBackend(workload, &error);
    if (!backend) {
        run.liveError = QStringLiteral("live mode: ") + QString::fromStdString(error);
        return run;
    }
    auto result = std::make_shared<pl::RunResult>(pl::runWorkload(workload, backend.get()));
    if (!result->live_error.empty()) {
        run.liveError = QStringLiteral("live mode on %1: %2")
                            .arg(QString::fromStdString(result->live_device), QString::fromStdString(result->live_error));
    }
    for (const auto& a : result->live) {
        if (!a.ok && run.liveError.isEmpty()) {
            run.liveError = QStringLiteral("live mode: the %1 of event %2 failed: %3")
                                .arg(QString::fromStdString(a.kind)).arg(a.seq).arg(QString::fromStdString(a.error));
        }
    }
    run.live = std::move(result);
    return run;
}

bool liveDeviceAvailable(QString* why, QString* deviceName) {
    std::string error;
    const auto device = pl::gpu::probeDevice(&error);
    if (!device) {
        if (why) *why = QString::fromStdString(error);
        return false;
    }
    if (deviceName) *deviceName = QString::fromStdString(device->name);
    return true;
}

} // namespace plui
