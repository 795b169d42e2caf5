// Device checks of live mode through the same entry points as `preemptlab-cli gpu-selftest`. Without a
// usable device each test skips with the CUDA error text (or "built without CUDA").
#include "gpu/device_api.h"

#include <QtTest>

#include <sstream>

class TestGpuDevice : public QObject {
    Q_OBJECT
  private slots:
    void probeReportsWhyNot() {
        std::string error;
        const auto info = pl::gpu::probeDevice(&error);
        if (!info) {
            QVERIFY2(!error.empty(), "probeDevice must say why no device is usable");
            QSKIP(("no usable CUDA device: " + error).c_str());
        }
        QVERIFY(!info->name.empty());
        QVERIFY(info->total_bytes > 0);
        QVERIFY(info->sm_count > 0);
    }

    void selftestPasses() {
        std::string error;
        if (!pl::gpu::probeDevice(&error)) {
            // Without a device the selftest must refuse with exit code 3 and the same reason.
            std::ostringstream log;
            std::string why;
            QCOMPARE(pl::gpu::runSelftest({}, log, &why), 3);
            QVERIFY(!why.empty());
            QSKIP(("no usable CUDA device: " + error).c_str());
        }
        std::ostringstream log;
        pl::gpu::SelftestOptions options;
        options.cycles = 200;
        const int rc = pl::gpu::runSelftest(options, log, &error);
        QVERIFY2(rc == 0, (log.str() + error).c_str());
    }
};

QTEST_GUILESS_MAIN(TestGpuDevice)
#include "test_gpu_device.moc"
