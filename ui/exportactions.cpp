#include "exportactions.h"

#include "exporter.h"
#include "labcommandline.h"
#include "ledgerview.h"
#include "mainwindow.h"

#include <QFileDialog>
#include <QMenu>
#include <QStatusBar>

namespace plui {

ExportActions::ExportActions(MainWindow* window) : QObject(window), window_(window) {}

void ExportActions::buildMenu(QMenu* menu) {
    auto* receipt = menu->addAction(tr("&Receipt..."), this, &ExportActions::exportReceipt);
    receipt->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    auto* csv = menu->addAction(tr("&Ledger as CSV..."), this, &ExportActions::exportCsv);
    csv->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    auto* shots = menu->addMenu(tr("&Screenshot"));
    for (const QString& name : labViewNames()) {
        auto* a = shots->addAction(name == QLatin1String("window") ? tr("Whole window...") : tr("%1 view...").arg(name),
                                   this, [this, name]() { exportView(name); });
        // Ctrl+Shift+P ("picture"): Ctrl+Shift+S is Save As.
        if (name == QLatin1String("window")) a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    }
    auto* bundle = menu->addAction(tr("Review &Bundle..."), this, &ExportActions::exportBundle);
    bundle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    needRun_ = {receipt, csv, bundle};
    menu->setToolTipsVisible(true); // a disabled export says why
    setRunShown(false);
}

void ExportActions::setRunShown(bool shown) {
    for (QAction* a : needRun_) {
        a->setEnabled(shown);
        a->setToolTip(shown ? QString() : tr("There is no run to export yet: open a workload and let it run"));
    }
}

QList<QPair<QString, QWidget*>> ExportActions::bundleViews() const {
    return {{QStringLiteral("window"), window_},
            {QStringLiteral("pool"), window_->view(QStringLiteral("pool"))},
            {QStringLiteral("timeline"), window_->view(QStringLiteral("timeline"))},
            {QStringLiteral("ledger"), window_->view(QStringLiteral("ledger"))},
            {QStringLiteral("plots"), window_->view(QStringLiteral("plots"))}};
}

void ExportActions::done(const std::optional<QString>& error, const QString& what) {
    if (error) {
        window_->reportError(tr("Export failed"), *error);
    } else {
        window_->statusBar()->showMessage(tr("Wrote %1").arg(what), 5000);
    }
}

void ExportActions::exportReceipt() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export receipt"), QStringLiteral("receipt.json"),
                                                      tr("Receipts (*.json)"));
    if (!path.isEmpty()) done(plui::exportReceipt(*window_->document(), path), path);
}

void ExportActions::exportCsv() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export ledger"), QStringLiteral("ledger.csv"),
                                                      tr("CSV (*.csv)"));
    if (!path.isEmpty()) done(exportLedgerCsv(*window_->ledger()->model(), path), path);
}

void ExportActions::exportView(const QString& name) {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export %1").arg(name), name + QStringLiteral(".png"),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    QWidget* w = window_->view(name);
    if (w) done(exportWidgetImage(w, path), path);
}

void ExportActions::exportBundle() {
    const QString dir = QFileDialog::getExistingDirectory(window_, tr("Folder for the review bundle"));
    if (dir.isEmpty()) return;
    done(exportReviewBundle(*window_->document(), *window_->ledger()->model(), bundleViews(), dir), dir);
}

} // namespace plui
