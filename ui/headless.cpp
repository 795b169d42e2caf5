#include "ui/headless.h"

#include "ui/calibrationactions.h"
#include "ui/compareview.h"
#include "ui/labtheme.h"
#include "ui/exportactions.h"
#include "ui/exporter.h"
#include "ui/labcommandline.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/receiptactions.h"
#include "ui/sweepactions.h"

#include "core/atomic_file.h"
#include "core/run_control.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QSettings>
#include <QTemporaryDir>

#include <cstdio>
#include <new>

namespace plui {

namespace {
int fail(const QString& message) {
    std::fprintf(stderr, "preemptlab: %s\n", qPrintable(message));
    return 2;
}

int runHeadlessUnguarded(const LabOptions& options, const pl::LiveBackendFactory& live);

// --bundle DIR: Export > Review Bundle without the window, the comparison run first so that the bundle has
// compare.png and summary.md its table. An earlier bundle in DIR is kept unless --replace. `failure`: why the
// run failed, where it did.
int writeBundle(MainWindow& window, const LabOptions& options, const QString& failure) {
    if (!window.document()->session()) {
        return fail(QStringLiteral("--bundle: no run to put in it: %1")
                        .arg(failure.isEmpty() ? QStringLiteral("the workload did not run") : failure));
    }
    // No file of the bundle may be one of the inputs, by any path (--replace would write over it).
    for (const QString& name : reviewBundleFileNames(window.exportActions()->bundleViews()) + reviewBundleOptionalFiles()) {
        if (const auto e = pl::outputIsAnInput(QDir(options.bundle).filePath(name).toStdString(), options.inputFiles())) {
            return fail(QStringLiteral("--bundle: %1").arg(QString::fromStdString(*e)));
        }
    }
    const QStringList there = window.exportActions()->bundleFilesIn(options.bundle);
    if (!there.isEmpty() && !options.replace) {
        return fail(QStringLiteral("--bundle: %1 already holds a review bundle's files (%2); add --replace to "
                                   "replace them, or choose another folder")
                        .arg(options.bundle, there.join(QStringLiteral(", "))));
    }
    std::fprintf(stderr, "preemptlab: running the four recovery modes for the bundle's comparison...\n");
    window.compare()->runNow();
    if (!window.compare()->isCurrent()) {
        std::fprintf(stderr, "preemptlab: note: the bundle has no comparison: %s\n",
                     qPrintable(window.compare()->statusText()));
    }
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    if (const auto e = window.exportActions()->writeBundleNow(options.bundle)) return fail(*e);
    std::fprintf(stderr, "preemptlab: wrote the review bundle %s (%s; tick %lld, window %dx%d)\n",
                 qPrintable(options.bundle),
                 qPrintable(reviewBundleFileNames(window.exportActions()->bundleViews()).join(QStringLiteral(", "))),
                 static_cast<long long>(window.document()->currentTick()), window.width(), window.height());
    return 0;
}
} // namespace

int runHeadless(const LabOptions& options, const pl::LiveBackendFactory& live) {
    // As the CLI: a failed allocation (a huge workload under `ulimit -v`) ends with exit 2 and the figures, not
    // std::terminate's abort. Every file is written atomically, so nothing half-written is left.
    try {
        return runHeadlessUnguarded(options, live);
    } catch (const std::bad_alloc&) {
        return fail(QString::fromStdString(pl::outOfMemoryMessage("headless run")));
    }
}

namespace {
int runHeadlessUnguarded(const LabOptions& options, const pl::LiveBackendFactory& live) {
    // Settings go to an empty folder that is removed afterwards: the picture depends on the command line only.
    const QTemporaryDir settingsDir;
    if (!settingsDir.isValid()) return fail(QStringLiteral("cannot make a temporary folder for settings: %1")
                                                .arg(settingsDir.errorString()));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    MainWindow window(live);
    if (const auto theme = themeFromName(options.theme)) window.setTheme(*theme);
    if (!options.calibration.isEmpty()) {
        QString error;
        if (!window.calibrationActions()->loadCalibration(options.calibration, &error)) {
            return fail(QStringLiteral("--calibration: %1").arg(error));
        }
    }
    window.document()->setRunMode(LabDocument::RunMode::Synchronous);
    QString failure; // a run that failed (too large for this machine) says so here, not in a dialog
    QObject::connect(window.document(), &LabDocument::runFailed, [&failure](const QString& m) { failure = m; });
    window.resize(options.size);
    if (!options.workload.isEmpty()) {
        QString error;
        const bool ok = options.workload.startsWith(QLatin1Char(':'))
                            ? window.document()->loadResource(options.workload, &error)
                            : window.document()->loadFile(options.workload, &error);
        if (!ok) return fail(error);
        for (const auto& [key, value] : options.overrides) {
            // Named as the CLI names it: the file, then what the flags made of it.
            if (!window.document()->setSetting(key, value, &error)) {
                return fail(QStringLiteral("%1 (after command-line overrides): %2").arg(options.workload, error));
            }
        }
        window.showFirstEviction(); // as the window opens one: then --tick, where given
        if (options.tick) {
            window.document()->seek(*options.tick);
            // A tick past the run's end is drawn at its last tick: say so, as for a size the window cannot take.
            if (*options.tick > window.document()->currentTick()) {
                std::fprintf(stderr, "preemptlab: note: --tick %lld is past the run's last tick; drawn at tick %lld\n",
                             static_cast<long long>(*options.tick),
                             static_cast<long long>(window.document()->currentTick()));
            }
        }
    }
    if (!options.receipt.isEmpty()) { // read-only, at its first eviction as the window opens it; then --tick
        QString error;
        if (!window.receiptActions()->openReceipt(options.receipt, &error)) return fail(error);
        if (options.tick) window.document()->seek(*options.tick);
    }
    if (!options.sweep.isEmpty()) {
        if (window.sweepActions()->openResult(options.sweep)) window.sweepActions()->waitForIdle();
        if (!window.sweepActions()->lastError().isEmpty()) return fail(QStringLiteral("--sweep: %1").arg(window.sweepActions()->lastError()));
    }
    window.show();
    // The first layout gives the docks their preferred widths and the window grows to hold them (at least
    // 1,064 px wide); once laid out, the docks shrink to their least widths, so the size asked for is set again.
    QApplication::processEvents();
    window.resize(options.size);
    if (!options.bundle.isEmpty()) {
        for (int i = 0; i < 3; ++i) QApplication::processEvents();
        if (const int code = writeBundle(window, options, failure)) return code;
        if (options.screenshot.isEmpty()) return 0;
    }
    QWidget* target = window.view(options.view);
    if (!target) return fail(QStringLiteral("--view: unknown view '%1'").arg(options.view));
    if (options.view.startsWith(QLatin1String("compare"))) window.compare()->runNow(); // the kind view() set
    // A single view is rendered at --size: its dock floats free of the window for the shot. The pool is the
    // window's centre, not a dock, and cannot float: it is lifted out as a window of its own for the shot (its
    // Fit fills that size) and handed back after it, for the window to own and delete.
    QWidget* lifted = nullptr;
    if (options.view == QLatin1String("pool")) {
        lifted = window.takeCentralWidget();
        lifted->resize(options.size);
        lifted->show();
    } else if (options.view != QLatin1String("window") && !options.docked) {
        if (auto* dock = qobject_cast<QDockWidget*>(target->parentWidget())) {
            dock->setFloating(true);
            dock->resize(options.size);
        }
    }
    // Let layouts settle and queued replots run before rendering.
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    // A run that failed (more events than this machine allows) would be drawn at tick -1 with a note, and the
    // script told all went well: exit 2 with the reason, as --bundle does, and write nothing.
    if (!failure.isEmpty() && options.view != QLatin1String("breakeven")) {
        if (lifted) window.setCentralWidget(lifted);
        return fail(QStringLiteral("--screenshot: no run to draw: %1").arg(failure));
    }
    // --docked: the whole window, the view's dock raised in its place in the layout.
    QWidget* drawnWidget = options.docked ? static_cast<QWidget*>(&window) : target;
    const QSize drawn = drawnWidget->size();
    const ExportError error = exportWidgetImage(drawnWidget, options.screenshot);
    if (lifted) window.setCentralWidget(lifted);
    if (error) return fail(*error);
    std::fprintf(stderr, "preemptlab: wrote %s (%s view%s, tick %lld, %dx%d)\n", qPrintable(options.screenshot),
                 qPrintable(options.view), options.docked ? " in the window" : "", static_cast<long long>(window.document()->currentTick()), drawn.width(),
                 drawn.height());
    // A view cannot be smaller than its layout allows (the whole window about 580 x 640 px): say so rather
    // than leave a picture of another size unexplained.
    if (drawn != options.size) {
        std::fprintf(stderr, "preemptlab: note: the %s view cannot be drawn at --size %dx%d (its layout needs more "
                             "room); it was drawn at %dx%d\n",
                     qPrintable(options.view), options.size.width(), options.size.height(), drawn.width(),
                     drawn.height());
    }
    return 0;
}

} // namespace

} // namespace plui
