// preemptlab: the Qt lab. Wiring only: the command line, the headless screenshot path and the window all
// live in ui/ (labcommandline.h, headless.h, mainwindow.h); live mode's device comes from gpu/ and is handed
// to the lab here (pl::gpu::liveBackendFactory), so ui/ never depends on gpu/.
#include "ui/headless.h"
#include "ui/labcommandline.h"
#include "ui/mainwindow.h"

#include "gpu/device_api.h"
#include "core/live_backend.h"
#include "core/model.h"
#include "core/run_control.h"

#include <QApplication>
#include <QMessageBox>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (const QString bad = plui::nonUtf8Argument(argc, argv); !bad.isEmpty()) {
        std::fprintf(stderr, "preemptlab: %s is not valid UTF-8: the lab takes paths and values in UTF-8 (the CLI "
                             "takes any bytes)\n", qPrintable(bad));
        return 2;
    }
    // A --screenshot or --bundle run, --help and --version need no display: use the offscreen platform unless the caller
    // chose one (so they work over ssh and in scripts).
    for (int i = 1; i < argc; ++i) {
        const bool headless = std::strncmp(argv[i], "--screenshot", 12) == 0 ||
                              std::strncmp(argv[i], "--bundle", 8) == 0 || std::strcmp(argv[i], "--help") == 0 ||
                              std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help-all") == 0 ||
                              std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0;
        if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
        }
    }
    QApplication app(argc, argv);
    plui::useCliNumberFormat();
    QApplication::setOrganizationName(QStringLiteral("PreemptLab"));
    QApplication::setApplicationName(QStringLiteral("preemptlab"));
    QApplication::setApplicationVersion(
        QString::fromUtf8(pl::kEngineVersion.data(), static_cast<qsizetype>(pl::kEngineVersion.size())));

    plui::LabOptions options;
    QString error;
    if (!plui::parseLabCommandLine(QApplication::arguments(), &options, &error)) {
        std::fprintf(stderr, "preemptlab: %s\n", qPrintable(error));
        return 2;
    }
    if (options.exitCode >= 0) {
        return options.exitCode; // --help / --version were printed
    }
    if (const std::string problem = pl::eventBudgetProblem(); !problem.empty()) {
        std::fprintf(stderr, "preemptlab: %s\n", problem.c_str());
        // Started from a desktop, nobody reads stderr: say it in a box too.
        if (!options.headless()) {
            QMessageBox::critical(nullptr, QStringLiteral("PreemptLab"), QString::fromStdString(problem));
        }
        return 2;
    }
    const pl::LiveBackendFactory live = pl::gpu::liveBackendFactory();
    if (options.headless()) {
        return plui::runHeadless(options, live);
    }
    plui::MainWindow window(live);
    window.show();
    window.applyStartupOptions(options);
    return QApplication::exec();
}
