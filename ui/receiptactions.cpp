#include "ui/receiptactions.h"

#include "ui/labbanner.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"

#include "core/verify.h"
#include "core/workload_io.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>

namespace plui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// What the replay said, in a phrase: "verifies (1,234 events, byte for byte)" or the first difference.
QString verdictPhrase(const pl::VerifyOutcome& v) {
    QString phrase = v.identical ? ReceiptActions::tr("verifies (its replay is the same receipt, byte for byte)")
                                 : ReceiptActions::tr("does not verify: first difference at %1").arg(qs(v.first_difference));
    if (!v.conservation_passed) {
        phrase += ReceiptActions::tr("; conservation check failed: %1").arg(qs(v.first_violation));
    }
    return phrase;
}

} // namespace

ReceiptActions::ReceiptActions(MainWindow* window, LabBanner* banner)
    : QObject(window), window_(window), banner_(banner), editCopy_(new QAction(tr("&Edit a Copy"), this)) {
    editCopy_->setObjectName(QStringLiteral("editCopyAction"));
    editCopy_->setToolTip(tr("Make the receipt's workload an ordinary unsaved workload that can be edited"));
    editCopy_->setEnabled(false);
    connect(editCopy_, &QAction::triggered, this, [this]() { window_->document()->editCopy(); });
    connect(window_->document(), &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Workload) showBanner();
    });
}

void ReceiptActions::addTo(QMenu* menu, QAction* before) {
    auto* open = new QAction(tr("Open Re&ceipt..."), menu);
    open->setObjectName(QStringLiteral("openReceiptAction"));
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(open, &QAction::triggered, this, &ReceiptActions::openDialog);
    menu->insertAction(before, open);
    menu->insertAction(before, editCopy_);
}

bool ReceiptActions::isReceiptPath(const QString& path) {
    return path.endsWith(QLatin1String(".receipt.json"), Qt::CaseInsensitive);
}

void ReceiptActions::openDialog() {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open receipt (read-only)"), QString(),
                                                      tr("Receipts (*.receipt.json *.json);;All files (*)"));
    if (!path.isEmpty()) openReceipt(path);
}

bool ReceiptActions::openReceipt(const QString& path, QString* error) {
    const auto fail = [&](const QString& message) {
        if (error) *error = message;
        window_->reportError(tr("Cannot open receipt"), message);
        return false;
    };
    if (window_->readingFile()) return fail(tr("%1: not opened, another file is still being read").arg(path));
    if (!window_->confirmDiscardEdits()) {
        if (error) *error = tr("%1: not opened, the edits were kept").arg(path);
        return false;
    }
    const std::string file = path.toStdString();
    auto text = pl::readTextFile(file, pl::Caps{}.max_file_bytes, "receipt");
    if (auto* e = std::get_if<pl::InputError>(&text)) return fail(qs(e->message()));
    const std::string& bytes = std::get<std::string>(text);
    auto workload = pl::receiptWorkload(bytes, file);
    if (auto* e = std::get_if<pl::InputError>(&workload)) return fail(qs(e->message()));
    auto verified = pl::verifyReceiptText(bytes, file);
    if (auto* e = std::get_if<pl::InputError>(&verified)) return fail(qs(e->message()));
    const QString note = tr("Receipt %1 (read-only): %2")
                             .arg(QFileInfo(path).fileName(), verdictPhrase(std::get<pl::VerifyOutcome>(verified)));
    QString loadError;
    if (!window_->document()->setWorkload(std::get<pl::Workload>(std::move(workload)), path, &loadError, true, note)) {
        return fail(loadError);
    }
    window_->statusBar()->showMessage(note, 10000);
    window_->showFirstEviction();
    return true;
}

QString ReceiptActions::verdict() const { return window_->document()->readOnlyNote(); }

void ReceiptActions::showBanner() {
    const LabDocument* doc = window_->document();
    editCopy_->setEnabled(doc->readOnly());
    if (doc->readOnly()) banner_->setRow(LabBanner::Row::Receipt, doc->readOnlyNote(), {editCopy_});
    else banner_->clearRow(LabBanner::Row::Receipt);
}

} // namespace plui
