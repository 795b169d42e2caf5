#pragma once
// Shared helpers for the ui suites: the bundled samples and synthetic workloads of a given size.

#include "tests/core/engine_fixtures.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "core/trace/generator.h"
#include "core/workload_io.h"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <set>

namespace uitest {

// A suite's settings go to a folder of this process's own, under the suite's name, emptied first: no user's
// layout, recent files or calibration reaches a test, no test's reaches the user, and two runs of a suite at
// once (a build's tests beside a sanitizer build's) do not overwrite each other's. Call it before any QSettings.
inline void isolateSettings(const QString& suite) {
    QStandardPaths::setTestModeEnabled(true);
    static QTemporaryDir folder; // removed when the process ends
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, folder.path());
    QApplication::setOrganizationName(QStringLiteral("PreemptLabTest"));
    QApplication::setApplicationName(suite);
    QSettings().clear();
}

// A lab window at 1400x900, shown, running synchronously, with `file` open (none when empty) and its events
// processed.
inline std::unique_ptr<plui::MainWindow> openWindow(const QString& file) {
    auto w = std::make_unique<plui::MainWindow>();
    w->document()->setRunMode(plui::LabDocument::RunMode::Synchronous);
    w->resize(1400, 900);
    w->show();
    if (!file.isEmpty() && !w->openPath(file)) qFatal("cannot open %s", qPrintable(file));
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    return w;
}

inline QStringList sampleFiles() {
    QStringList out;
    for (const std::string& path : pltest::sampleFiles()) {
        out << QString::fromStdString(path);
    }
    return out;
}

inline pl::Workload loadSample(const QString& path) { return pltest::loadSampleFile(path.toStdString()); }

// Opens `path` in `doc` with runs on the calling thread (a test reads the session at once); false, with the
// document's error printed, when it cannot: QVERIFY(uitest::openSample(doc, path)).
[[nodiscard]] inline bool openSample(plui::LabDocument& doc, const QString& path) {
    doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
    QString error;
    if (doc.loadFile(path, &error)) return true;
    qWarning("cannot open %s: %s", qPrintable(path), qPrintable(error));
    return false;
}

// A workload with `blocks` device blocks and `requests` requests under pressure (core's generator, fixed seed).
inline pl::Workload syntheticWorkload(std::int64_t blocks, std::int64_t requests, std::uint64_t seed = 7) {
    pl::trace::GeneratorParams p;
    p.seed = seed;
    p.count = requests;
    p.name = "synthetic";
    p.config.capacity_blocks = blocks;
    p.config.block_size_tokens = 16;
    // Enough load to keep the pool full most of the time without runs of many thousands of ticks.
    p.rate_per_tick = static_cast<double>(blocks) / 400.0;
    p.prompt_median = 256;
    p.output_median = 96;
    p.prompt_max = 2048;
    p.output_max = 512;
    p.config.prefill_tokens_per_tick = std::max<std::int64_t>(512, blocks * 4);
    p.config.max_ticks = 20000;
    p.policy.recovery = pl::Recovery::Adaptive;
    auto r = pl::trace::generateWorkload(p);
    if (auto* e = std::get_if<pl::InputError>(&r)) qFatal("%s", e->message().c_str());
    return std::get<pl::Workload>(std::move(r));
}

// A render is "broken" when it is one flat colour or nearly so.
inline int distinctColours(const QImage& img, int cap = 64) {
    std::set<QRgb> seen;
    const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); y += 2) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); x += 2) {
            seen.insert(line[x]);
            if (static_cast<int>(seen.size()) >= cap) return cap;
        }
    }
    return static_cast<int>(seen.size());
}

} // namespace uitest
