#include "ui/labcommandline.h"

#include "core/atomic_file.h"
#include "core/number_text.h"
#include "core/utf8.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"
#include "core/workload_rules.h"
#include "ui/qtext.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include <clocale>
#include <cstdio>

namespace plui {

QStringList labViewNames() {
    return {QStringLiteral("window"),  QStringLiteral("pool"),     QStringLiteral("timeline"),
            QStringLiteral("ledger"),  QStringLiteral("plots"),    QStringLiteral("distributions"), QStringLiteral("compare"),
            QStringLiteral("compare-engines"),
            QStringLiteral("breakeven"), QStringLiteral("policy"), QStringLiteral("workload"),
            QStringLiteral("sweep")};
}

QStringList labThemeNames() {
    return {QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")};
}

bool parseLabCommandLine(const QStringList& arguments, LabOptions* out, QString* error) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "PreemptLab: step a KV-cache scheduler tick by tick and watch preemption (recompute vs swap)."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("workload"), QStringLiteral("A preemptlab.workload.v1 file to open."),
                                 QStringLiteral("[WORKLOAD]"));
    const QCommandLineOption workload(QStringLiteral("workload"), QStringLiteral("Workload file to open."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption tick(QStringLiteral("tick"), QStringLiteral("Move the cursor to tick N (-1: before the first tick; past the last: the last)."), QStringLiteral("N"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("View to render with --screenshot: %1.").arg(labViewNames().join(QStringLiteral(", "))),
                                  QStringLiteral("NAME"), QStringLiteral("window"));
    const QCommandLineOption shot(QStringLiteral("screenshot"),
                                  QStringLiteral("Render the view to OUT (.png, .svg or .pdf) and exit."),
                                  QStringLiteral("OUT"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (each side at most 8192)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption calibration(
        QStringLiteral("calibration"),
        QStringLiteral("Load a calibration.json (preemptlab-cli calibrate), as File > Load Calibration does."),
        QStringLiteral("FILE"));
    const QCommandLineOption sweep(
        QStringLiteral("sweep"),
        QStringLiteral("Show a sweep result (preemptlab-cli sweep --out F.json or sweep-merge --out F.json) in the "
                       "Sweep view, as Review > Open Sweep Result does (with --screenshot: --view sweep)."),
        QStringLiteral("FILE"));
    const QCommandLineOption bundle(
        QStringLiteral("bundle"),
        QStringLiteral("Write the review bundle into DIR and exit, as Export > Review Bundle does: receipt.json, "
                       "ledger.csv, the window at --size with the cursor at --tick and its views as PNGs, "
                       "compare.png (the four recovery modes, run first) and summary.md. A folder holding an "
                       "earlier bundle is refused unless --replace."),
        QStringLiteral("DIR"));
    const QCommandLineOption replace(QStringLiteral("replace"),
                                     QStringLiteral("Let --bundle replace an earlier bundle in DIR."));
    const QCommandLineOption receipt(QStringLiteral("receipt"),
                                     QStringLiteral("A receipt to open read-only: its workload and policy, the run, "
                                                    "and whether it verifies (File > Open Receipt)."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption docked(
        QStringLiteral("docked"),
        QStringLiteral("With --screenshot and a --view other than window or pool: draw the whole window at --size "
                       "in its default layout with that view's dock raised, rather than the view alone."));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QStringLiteral("Colours for this run: system, light or dark (View > Theme; with "
                                                  "--screenshot the saved choice is not read)."),
                                   QStringLiteral("NAME"));
    parser.addOptions({workload, receipt, tick, view, shot, size, calibration, sweep, bundle, replace, docked, theme});
    QList<QPair<QString, QCommandLineOption>> keyOptions;
    auto addKeys = [&](const std::vector<std::string_view>& keys, const QString& what) {
        for (auto k : keys) {
            const QString key = qsv(k);
            const QString flag = QString::fromStdString(pl::settingFlag(k)).mid(2); // without the "--"
            // "Override config capacity_blocks (blocks): Blocks in the device pool; ..."
            const pl::SettingHelp keyHelp = pl::settingHelp(k);
            const QString unit = keyHelp.unit.empty() ? QString()
                                                   : QStringLiteral(" (%1)").arg(qsv(keyHelp.unit));
            QCommandLineOption o(flag,
                                 QStringLiteral("Override %1 %2%3: %4%5").arg(what, key, unit,
                                     qsv(keyHelp.meaning),
                                     pl::isByteKey(k) ? QStringLiteral(" ") + QString::fromLatin1(pl::kByteUnitsHint)
                                                      : QString()),
                                 QStringLiteral("V"));
            parser.addOption(o);
            keyOptions.append({key, o});
        }
    };
    addKeys(pl::policyKeys(), QStringLiteral("policy"));
    addKeys(pl::configKeys(), QStringLiteral("config"));
    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return false;
    }
    if (parser.isSet(help)) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        out->exitCode = 0;
        return true;
    }
    if (parser.isSet(version)) {
        std::printf("preemptlab %s (%s)\n", std::string(pl::kEngineVersion).c_str(),
                    std::string(pl::kTickModel).c_str());
        out->exitCode = 0;
        return true;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        *error = QStringLiteral("only one workload file can be given (got %1)").arg(positional.join(QStringLiteral(", ")));
        return false;
    }
    out->workload = parser.isSet(workload) ? parser.value(workload) : positional.value(0);
    out->receipt = parser.value(receipt);
    if (!out->receipt.isEmpty() && !out->workload.isEmpty()) {
        *error = QStringLiteral("--receipt opens its own workload: give --receipt FILE or a workload, not both");
        return false;
    }
    out->calibration = parser.value(calibration);
    out->sweep = parser.value(sweep);
    // Overrides keep their command-line order (a later flag wins).
    for (const QString& arg : arguments) {
        for (const auto& [key, option] : keyOptions) {
            const QString flag = QStringLiteral("--") + option.names().constFirst();
            if (arg == flag || arg.startsWith(flag + QLatin1Char('='))) {
                // QCommandLineParser keeps every value; take them in order as they are met.
                const QStringList values = parser.values(option);
                const int seen = static_cast<int>(std::count_if(out->overrides.begin(), out->overrides.end(),
                                                                [&](const auto& p) { return p.first == key; }));
                if (seen < values.size()) out->overrides.append({key, values[seen]});
            }
        }
    }
    if (!out->receipt.isEmpty() && !out->overrides.isEmpty()) {
        *error = QStringLiteral("--receipt is read-only: it takes no setting flags");
        return false;
    }
    if (parser.isSet(tick)) {
        bool ok = false;
        const qlonglong t = parser.value(tick).toLongLong(&ok);
        if (!ok || t < -1) {
            *error = QStringLiteral("--tick: '%1' is not a tick (an integer >= -1)").arg(parser.value(tick));
            return false;
        }
        out->tick = t;
    }
    out->view = parser.value(view);
    if (!labViewNames().contains(out->view)) {
        *error = QStringLiteral("--view: unknown view '%1' (one of %2)").arg(out->view, labViewNames().join(QStringLiteral(", ")));
        return false;
    }
    out->screenshot = parser.value(shot);
    out->bundle = parser.value(bundle);
    out->docked = parser.isSet(docked);
    if (out->docked && (out->screenshot.isEmpty() || out->view == QLatin1String("window") ||
                        out->view == QLatin1String("pool"))) {
        *error = QStringLiteral("--docked is for --screenshot of a docked view (not window or pool), got --view %1%2")
                     .arg(out->view, out->screenshot.isEmpty() ? QStringLiteral(" without --screenshot") : QString());
        return false;
    }
    if (parser.isSet(theme)) {
        out->theme = parser.value(theme);
        if (!labThemeNames().contains(out->theme)) {
            *error = QStringLiteral("--theme: unknown theme '%1' (one of %2)")
                         .arg(out->theme, labThemeNames().join(QStringLiteral(", ")));
            return false;
        }
    }
    // An empty value (a script's unset $OUT) ran the window unseen, offscreen, and never ended.
    for (const auto& [option, value] : {std::pair{&shot, out->screenshot}, std::pair{&bundle, out->bundle}}) {
        if (parser.isSet(*option) && value.isEmpty()) {
            *error = QStringLiteral("--%1 needs a %2, got an empty value")
                         .arg(option->names().constFirst(), option == &shot ? QStringLiteral("file name") : QStringLiteral("folder"));
            return false;
        }
    }
    out->replace = parser.isSet(replace);
    if (out->replace && out->bundle.isEmpty()) {
        *error = QStringLiteral("--replace is for --bundle DIR (a screenshot file is always replaced)");
        return false;
    }
    if (!out->bundle.isEmpty() && out->workload.isEmpty()) {
        *error = QStringLiteral("--bundle needs a workload (--workload FILE)");
        return false;
    }
    static const QRegularExpression sizeRe(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
    const auto m = sizeRe.match(parser.value(size));
    if (!m.hasMatch()) {
        *error = QStringLiteral("--size: '%1' is not WIDTHxHEIGHT").arg(parser.value(size));
        return false;
    }
    out->size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    // An image of 8192x8192 is 256 MiB in memory; 99999x99999 went past 4.8 GB before it failed.
    if (out->size.width() > kMaxShotSide || out->size.height() > kMaxShotSide) {
        *error = QStringLiteral("--size: %1 is larger than %2x%2").arg(parser.value(size)).arg(kMaxShotSide);
        return false;
    }
    if (!out->screenshot.isEmpty() && out->workload.isEmpty() && out->receipt.isEmpty() && out->view != QLatin1String("breakeven") &&
        !(out->view == QLatin1String("sweep") && !out->sweep.isEmpty())) {
        *error = QStringLiteral("--screenshot needs a workload (--workload FILE)");
        return false;
    }
    if (!out->screenshot.isEmpty()) {
        // Said before the run: a folder read as "unknown image format ''" after it.
        const QFileInfo shotFile(out->screenshot);
        const QString suffix = shotFile.suffix().toLower();
        if (shotFile.isDir()) {
            *error = QStringLiteral("--screenshot: '%1' is a folder; name an image file in it ending in .png, .svg "
                                    "or .pdf").arg(out->screenshot);
            return false;
        }
        if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") && suffix != QLatin1String("pdf")) {
            *error = QStringLiteral("--screenshot: '%1' does not end in .png, .svg or .pdf (the suffix picks the "
                                    "image format)").arg(out->screenshot);
            return false;
        }
        // As the CLI refuses output = input: by any path to the same file (a link, a relative path).
        if (const auto e = pl::outputIsAnInput(out->screenshot.toStdString(), out->inputFiles())) {
            *error = QStringLiteral("--screenshot: %1").arg(QString::fromStdString(*e));
            return false;
        }
    }
    return true;
}

std::vector<std::string> LabOptions::inputFiles() const {
    std::vector<std::string> files;
    for (const QString& f : {workload, receipt, calibration, sweep}) {
        if (!f.isEmpty() && !f.startsWith(QLatin1Char(':'))) files.push_back(f.toStdString()); // ':' a resource
    }
    return files;
}

void useCliNumberFormat() {
    std::setlocale(LC_NUMERIC, "C");
    QLocale::setDefault(QLocale::c());
}

QString nonUtf8Argument(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        if (!pl::isValidUtf8(argv[i])) return QStringLiteral("argument %1").arg(i);
    }
    return {};
}

} // namespace plui
