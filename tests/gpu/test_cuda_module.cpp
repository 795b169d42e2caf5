// The CUDA module is loaded only by what uses a device (issue 21: every `preemptlab-cli` call, `--help` included,
// mapped the CUDA runtime, cuBLAS and cuBLASLt, about 217 MB resident, and could not start under `ulimit -v`).
// The programs need no CUDA library at start; a command that asks for a device loads the module and reports
// CUDA's own reason when there is no device, or names the module's path when it cannot be loaded. The CUDA parts
// skip, saying so, in a build without CUDA.
#include "tests/cli_runner.h"
#include "gpu/device_api.h"
#include "gpu/no_device.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QtTest>

namespace {

const QString kCli = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli");
const QString kLab = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kModule = QStringLiteral(PREEMPTLAB_BINARY_DIR "/lib/libpreemptlab-cuda.so");

QString quoted(const QString& s) { return QLatin1Char('\'') + s + QLatin1Char('\''); }

// `program args...` with `env` added to the environment; exit code -1 when it crashed or hung.
pltest::CliRun runWith(const QString& program, const QStringList& args, const QStringList& env = {}) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) {
        e.insert(kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1));
    }
    p.setProcessEnvironment(e);
    p.start(program, args);
    const bool finished = p.waitForFinished(120000);
    pltest::CliRun r;
    r.code = finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// The shared libraries a program names as NEEDED (readelf -d), one per line.
QByteArray neededLibraries(const QString& program) {
    const auto r = runWith(QStringLiteral("readelf"), {QStringLiteral("-d"), program});
    QByteArray needed;
    for (const QByteArray& line : r.out.split('\n')) {
        if (line.contains("(NEEDED)")) needed += line + '\n';
    }
    return needed;
}

bool mapsCuda(const QByteArray& maps) {
    return maps.contains("libcudart") || maps.contains("libcublas") || maps.contains("libpreemptlab-cuda");
}

QByteArray ownMaps() {
    QFile f(QStringLiteral("/proc/self/maps"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCudaModule : public QObject {
    Q_OBJECT
  private slots:
    // Before: exit 127, "libcublasLt.so.13: failed to map segment from shared object".
    void cliStartsUnderASmallAddressSpace() {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("AddressSanitizer maps terabytes of shadow memory, which ulimit -v forbids: the CLI cannot start there");
#endif
        const auto help = runWith(QStringLiteral("sh"),
                                  {QStringLiteral("-c"), QStringLiteral("ulimit -v 400000 && exec %1 --help").arg(quoted(kCli))});
        QVERIFY2(help.code == 0 && help.out.contains("usage"), (help.out + help.err).constData());
        const auto validate = runWith(
            QStringLiteral("sh"),
            {QStringLiteral("-c"), QStringLiteral("ulimit -v 400000 && exec %1 validate %2").arg(quoted(kCli), quoted(kSeed))});
        QVERIFY2(validate.code == 0 && validate.out.contains("valid"), (validate.out + validate.err).constData());
    }

    // Neither program links a CUDA library (before: libcudart and libcublas were NEEDED by both).
    void programsNeedNoCudaLibrary() {
        if (runWith(QStringLiteral("readelf"), {QStringLiteral("--version")}).code != 0) {
            QSKIP("readelf (binutils) is not installed");
        }
        for (const QString& program : {kCli, kLab}) {
            if (!QFileInfo::exists(program)) continue; // the lab is built only with PREEMPTLAB_GUI
            const QByteArray needed = neededLibraries(program);
            QVERIFY2(needed.contains("libc.so"), qPrintable(program + QStringLiteral(": no NEEDED entries read")));
            QVERIFY2(!needed.contains("libcudart") && !needed.contains("libcublas"),
                     qPrintable(program + QStringLiteral(" needs:\n") + QString::fromLatin1(needed)));
        }
    }

    // This suite links the device API itself: nothing of CUDA is mapped until a call asks for a device.
    void theModuleIsLoadedOnFirstUse() {
        QVERIFY2(!mapsCuda(ownMaps()), "a CUDA library was mapped before any device call");
        if (!pl::gpu::builtWithCuda()) {
            QVERIFY(!mapsCuda(ownMaps()));
            QSKIP("built without CUDA: there is no module to load");
        }
        QVERIFY(!mapsCuda(ownMaps()));
        std::string why;
        const bool device = pl::gpu::probeDevice(&why).has_value();
        QVERIFY2(device || why.find("could not be loaded") == std::string::npos, why.c_str());
        const QByteArray maps = ownMaps();
        QVERIFY2(maps.contains("libpreemptlab-cuda.so") && maps.contains("libcudart"), "the module was not mapped");
    }

    // gpu-info goes through the module: a device's name, or exit 3 with the CUDA runtime's reason.
    void gpuInfoAnswersThroughTheModule() {
        if (!pl::gpu::builtWithCuda()) QSKIP("built without CUDA: gpu-info says so (test_cli_usage)");
        QVERIFY2(QFileInfo::exists(kModule), qPrintable(kModule + QStringLiteral(" was not built")));
        const auto r = pltest::runCli({QStringLiteral("gpu-info")});
        if (r.code == 0) {
            QVERIFY2(r.out.startsWith("device 0: "), r.out.constData());
            return;
        }
        QCOMPARE(r.code, 3);
        // Every reason from the runtime starts with the call that failed ("cudaGetDeviceCount: cudaError...").
        QVERIFY2((r.err.contains("preemptlab-cli gpu-info: no NVIDIA GPU found (cudaGetDeviceCount: cuda") ||
                  r.err.contains("preemptlab-cli gpu-info: no usable CUDA device: cuda")) &&
                     !r.err.contains("could not be loaded"),
                 r.err.constData());
    }

    // Without a GPU (no device, no driver: this build machine), every device command says it in one sentence,
    // the probe's real answer in gpu/no_device.h's words: "no NVIDIA GPU found (cudaGetDeviceCount: ...)".
    void noGpuIsSaidTheSameWayByEveryCommand() {
        if (!pl::gpu::builtWithCuda()) QSKIP("built without CUDA: the commands say that instead (test_cli_usage)");
        std::string why;
        if (pl::gpu::probeDevice(&why)) QSKIP("this machine has a usable GPU");
        const QByteArray sentence = QByteArray::fromStdString(pl::gpu::noDeviceText(why));
        if (why.rfind("cudaGetDeviceCount: ", 0) == 0) {
            QVERIFY2(sentence.startsWith("no NVIDIA GPU found (cudaGetDeviceCount: cuda") && sentence.endsWith(")"),
                     sentence.constData());
        }
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("c.json"));
        const QList<QPair<QStringList, QByteArray>> commands{
            {{QStringLiteral("gpu-info")}, "preemptlab-cli gpu-info: "},
            {{QStringLiteral("gpu-selftest")}, "preemptlab-cli gpu-selftest: "},
            {{QStringLiteral("calibrate"), QStringLiteral("--out"), out}, "preemptlab-cli calibrate: "},
            {{QStringLiteral("run"), kSeed, QStringLiteral("--live")}, "preemptlab-cli: run --live: "}};
        for (const auto& [args, prefix] : commands) {
            const auto r = runWith(kCli, args);
            QCOMPARE(r.code, 3);
            QVERIFY2(r.err.contains(prefix + sentence + "\n"), r.err.constData());
        }
    }

    // A module that is not there: every device command exits 3 naming the path; other commands are untouched.
    void aMissingModuleIsNamed() {
        if (!pl::gpu::builtWithCuda()) QSKIP("built without CUDA: no module is looked for");
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("nowhere/libpreemptlab-cuda.so"));
        const QStringList env{QStringLiteral("PREEMPTLAB_CUDA_MODULE=") + missing};
        const QByteArray expected = "live mode's CUDA module could not be loaded: " + missing.toUtf8() + ": ";
        const QString out = dir.filePath(QStringLiteral("c.json"));
        const QList<QStringList> commands{{QStringLiteral("gpu-info")},
                                          {QStringLiteral("gpu-selftest")},
                                          {QStringLiteral("calibrate"), QStringLiteral("--out"), out},
                                          {QStringLiteral("run"), kSeed, QStringLiteral("--live")}};
        for (const QStringList& args : commands) {
            const auto r = runWith(kCli, args, env);
            QCOMPARE(r.code, 3);
            QVERIFY2(r.err.contains("no usable CUDA device: " + expected), r.err.constData());
        }
        QVERIFY(!QFileInfo::exists(out));
        const auto validate = runWith(kCli, {QStringLiteral("validate"), kSeed}, env);
        QCOMPARE(validate.code, 0);
    }

    // A module of another build (its table's version differs) is refused by name, not called.
    void aModuleOfAnotherBuildIsRefused() {
        if (!pl::gpu::builtWithCuda()) QSKIP("built without CUDA: no module is looked for");
        const QString other = QStringLiteral(PREEMPTLAB_BINARY_DIR "/lib/libtest_other_cuda_module.so");
        QVERIFY2(QFileInfo::exists(other), qPrintable(other));
        const auto r = runWith(kCli, {QStringLiteral("gpu-info")}, {QStringLiteral("PREEMPTLAB_CUDA_MODULE=") + other});
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains(other.toUtf8() + ": a module of another build (table version 0, this program needs"),
                 r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCudaModule)
#include "test_cuda_module.moc"
