#include "ui/calibrationactions.h"

#include "ui/labdocument.h"
#include "ui/mainwindow.h"

#include "core/cost/calibration.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include <variant>

namespace plui {

namespace {
const QString kFileKey = QStringLiteral("calibration/file");
const QString kTickKey = QStringLiteral("calibration/tickMs");
constexpr double kDefaultTickMs = 10.0;
} // namespace

CalibrationActions::CalibrationActions(MainWindow* window) : QObject(window), window_(window) {
    load_ = new QAction(tr("Load &Calibration..."), this);
    load_->setObjectName(QStringLiteral("loadCalibrationAction"));
    load_->setStatusTip(tr("Read a calibration.json (preemptlab-cli calibrate): measured swap and prefill curves "
                           "for the break-even explorer and live mode, and rates for the workload"));
    connect(load_, &QAction::triggered, this, &CalibrationActions::loadDialog);
    apply_ = new QAction(tr("&Apply Calibration to Workload..."), this);
    apply_->setObjectName(QStringLiteral("applyCalibrationAction"));
    apply_->setStatusTip(tr("Derive transfer_bytes_per_tick and prefill_tokens_per_tick from the calibration "
                            "(an undoable edit)"));
    connect(apply_, &QAction::triggered, this, &CalibrationActions::applyDialog);
    connect(window_->document(), &LabDocument::changed, this, [this](LabChange what) {
        if (what & (LabChangeKind::Workload | LabChangeKind::Calibration)) updateEnabled();
    });
    // The file of the last session comes back; if it has gone or changed for the worse, say so quietly.
    const QString remembered = QSettings().value(kFileKey).toString();
    if (!remembered.isEmpty()) {
        QString error;
        if (!loadCalibration(remembered, &error)) {
            window_->statusBar()->showMessage(tr("The last calibration was not loaded: %1").arg(error), 10000);
        }
    }
    updateEnabled();
}

void CalibrationActions::addTo(QMenu* menu, QAction* before) {
    menu->insertAction(before, load_);
    menu->insertAction(before, apply_);
}

double CalibrationActions::rememberedTickMs() const {
    bool ok = false;
    const double v = QSettings().value(kTickKey, kDefaultTickMs).toDouble(&ok);
    return ok && v > 0.0 ? v : kDefaultTickMs;
}

bool CalibrationActions::loadCalibration(const QString& path, QString* error) {
    auto loaded = pl::cost::loadCalibrationFile(path.toStdString());
    if (const auto* e = std::get_if<std::string>(&loaded)) {
        if (error) *error = QString::fromStdString(*e);
        return false;
    }
    const auto& c = std::get<pl::cost::Calibration>(loaded);
    const QString device = QString::fromStdString(c.device_name);
    window_->document()->setCalibration(std::move(std::get<pl::cost::Calibration>(loaded)), path);
    QSettings().setValue(kFileKey, path);
    window_->statusBar()->showMessage(tr("Calibration %1 (%2) loaded").arg(QFileInfo(path).fileName(), device), 5000);
    return true;
}

bool CalibrationActions::applyToWorkload(double tickMs, QString* error) {
    QString report;
    if (!window_->document()->applyCalibration(tickMs, &report, error)) return false;
    QSettings().setValue(kTickKey, tickMs);
    report_ = report;
    const QStringList lines = report.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList rates;
    for (const QString& l : lines) {
        if (l.contains(QLatin1String("_per_tick = "))) rates << l.trimmed().section(QLatin1Char(' '), 0, 2);
    }
    window_->statusBar()->showMessage(tr("Calibration applied: %1").arg(rates.join(QStringLiteral(", "))), 10000);
    return true;
}

void CalibrationActions::loadDialog() {
    const QString start = QSettings().value(kFileKey).toString();
    const QString path = QFileDialog::getOpenFileName(window_, tr("Load calibration"), start,
                                                      tr("Calibrations (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!loadCalibration(path, &error)) {
        window_->reportError(tr("Cannot load calibration"), error);
        return;
    }
    if (window_->document()->hasWorkload()) applyDialog();
}

void CalibrationActions::applyDialog() {
    if (!window_->document()->hasWorkload() || !window_->document()->calibration()) return;
    bool ok = false;
    const double tickMs = QInputDialog::getDouble(window_, tr("Apply calibration"),
                                                  tr("Length of one tick (ms); rates are priced at the workload's "
                                                     "mean context with gather swaps:"),
                                                  rememberedTickMs(), 1e-6, 1e6, 4, &ok);
    if (!ok) return;
    QString error;
    if (!applyToWorkload(tickMs, &error)) window_->reportError(tr("Cannot apply calibration"), error);
}

void CalibrationActions::updateEnabled() {
    const bool workload = window_->document()->hasWorkload();
    const bool calibration = window_->document()->calibration() != nullptr;
    apply_->setEnabled(workload && calibration);
    apply_->setToolTip(workload && calibration ? QString()
                       : calibration           ? tr("Open a workload first")
                                               : tr("Load a calibration first (File > Load Calibration)"));
}

} // namespace plui
