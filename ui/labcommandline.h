#pragma once
// The lab's command line (QCommandLineParser):
//   preemptlab [WORKLOAD] [--workload FILE | --receipt FILE] [--<config or policy key> VALUE ...] [--tick N]
//              [--view NAME] [--screenshot OUT.png|svg|pdf] [--bundle DIR [--replace]] [--size WxH]
//              [--calibration FILE] [--sweep RESULT.json] [--docked] [--theme system|light|dark]
// Every `config` and `policy` key is a flag, underscores written as dashes, as in preemptlab-cli.
// With --screenshot (one view) or --bundle (the review bundle) the lab writes and exits (headless.h), from the
// defaults and the command line
// only: the user's saved settings (layout, remembered calibration, speed) are neither read nor written, so the
// same command draws the same picture on every machine. --calibration FILE loads a calibration in both modes.

#include <QList>
#include <QPair>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plui {

struct LabOptions {
    QString workload;
    QString receipt;     // --receipt FILE: a receipt opened read-only (ReceiptActions), instead of a workload
    QString calibration; // --calibration FILE
    QString sweep;       // --sweep RESULT.json: a sweep result shown in the Sweep view
    QList<QPair<QString, QString>> overrides; // (file key, value), in command-line order
    std::optional<std::int64_t> tick;
    QString view = QStringLiteral("window");
    QString screenshot;
    QString bundle;       // --bundle DIR
    bool replace = false; // --replace: --bundle may replace an earlier bundle
    bool docked = false;  // --docked: the screenshot is the window with --view's dock raised
    QString theme;        // --theme system|light|dark; empty: the saved View > Theme (the system's when headless)
    QSize size{1600, 1000};
    int exitCode = -1; // >= 0: help or version was printed, exit with it
    bool headless() const { return !screenshot.isEmpty() || !bundle.isEmpty(); }
    // The files the lab reads (--workload, --receipt, --calibration, --sweep), which no output may be (pl::outputIsAnInput).
    std::vector<std::string> inputFiles() const;
};

// Views --view accepts.
QStringList labViewNames();

// Themes --theme accepts (View > Theme's choices).
QStringList labThemeNames();

// The largest --size side, in pixels.
inline constexpr int kMaxShotSide = 8192;

bool parseLabCommandLine(const QStringList& arguments, LabOptions* out, QString* error);

// The lab prints numbers as the CLI and the receipts do, whatever the desktop's locale: a '.' decimal point
// (the C library's LC_NUMERIC, which QApplication set from the environment, back to "C", and QLocale's default
// to C for Qt's own formatting and the plots' tick labels), so a screenshot, a notes field or an exported
// summary never reads "5,24" beside a receipt's 5.24. Call right after constructing the QApplication.
void useCliNumberFormat();

// Each of `arguments` (argv, as bytes) that is not valid UTF-8, as "argument N": the lab's paths and values
// are QStrings and cannot name such a file (a --screenshot would be written under another name).
QString nonUtf8Argument(int argc, const char* const* argv);

} // namespace plui
