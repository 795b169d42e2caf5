#include "ui/fileactions.h"

#include "ui/generatordialog.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/traceimportactions.h"

#include "core/atomic_file.h"
#include "core/workload_io.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QUndoStack>
#include <QMenu>
#include <QSettings>

namespace plui {

namespace {
constexpr int kMaxRecent = 10;
const QString kRecentKey = QStringLiteral("files/recent");
} // namespace

FileActions::FileActions(MainWindow* window)
    : QObject(window), window_(window), imports_(new TraceImportActions(window)) {}

QList<FileActions::Sample> FileActions::bundledSamples() {
    QList<Sample> out;
    const QDir dir(QStringLiteral(":/samples"));
    for (const QString& f : dir.entryList({QStringLiteral("*.workload.json")}, QDir::Files, QDir::Name)) {
        Sample s;
        s.path = dir.filePath(f);
        s.name = f.chopped(static_cast<qsizetype>(QStringLiteral(".workload.json").size()));
        QFile file(s.path);
        if (file.open(QIODevice::ReadOnly)) {
            const QByteArray bytes = file.readAll();
            auto parsed = pl::parseWorkload(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                            s.path.toStdString());
            if (auto* w = std::get_if<pl::Workload>(&parsed)) s.notes = QString::fromStdString(w->notes);
            else s.notes = QString::fromStdString(std::get<pl::InputError>(parsed).message());
        }
        out << s;
    }
    return out;
}

void FileActions::buildMenu(QMenu* menu) {
    auto* open = menu->addAction(tr("&Open Workload..."), this, &FileActions::openDialog);
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = menu->addMenu(tr("Open &Recent"));
    auto* samples = menu->addMenu(tr("&Samples"));
    samples->setToolTipsVisible(true);
    menu->setToolTipsVisible(true); // a disabled Apply Calibration says why
    const auto list = bundledSamples();
    for (const Sample& s : list) {
        auto* a = samples->addAction(s.name);
        a->setToolTip(s.notes);
        a->setStatusTip(s.notes);
        connect(a, &QAction::triggered, this, [this, path = s.path]() { window_->openPath(path); });
    }
    if (list.isEmpty()) samples->addAction(tr("(no samples bundled)"))->setEnabled(false);
    auto* gen = menu->addAction(tr("&Generate Workload..."), this, [this]() {
        if (!window_->confirmDiscardEdits()) return;
        GeneratorDialog dialog(window_);
        if (dialog.exec() != QDialog::Accepted) return;
        QString error;
        auto w = dialog.generate(&error);
        if (!w || !window_->document()->setWorkload(std::move(*w), tr("generated (unsaved)"), &error)) {
            window_->reportError(tr("Cannot generate"), error);
        }
    });
    gen->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    imports_->addTo(menu);
    // Explicit keys: the platform's Save, SaveAs and Quit are empty on some (Windows, offscreen).
    auto* save = menu->addAction(tr("&Save Workload"), this, [this]() { this->save(); });
    save_ = save;
    save->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    save->setObjectName(QStringLiteral("saveAction"));
    auto* saveAsAction = menu->addAction(tr("Save Workload &As..."), this, [this]() { saveAs(); });
    saveAsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    menu->addSeparator();
    auto* quit = menu->addAction(tr("&Quit"), window_, &QWidget::close);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    rebuildRecentMenu();
}

QStringList FileActions::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void FileActions::addRecent(const QString& path) {
    if (path.startsWith(QLatin1Char(':'))) return; // resources are in the Samples menu already
    QStringList list = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
    rebuildRecentMenu();
}

void FileActions::removeRecent(const QString& path) {
    QStringList list = recentFiles();
    if (list.removeAll(QFileInfo(path).absoluteFilePath()) == 0) return;
    // An empty list would be stored as "@Invalid()": no list is no key.
    if (list.isEmpty()) QSettings().remove(kRecentKey);
    else QSettings().setValue(kRecentKey, list);
    rebuildRecentMenu();
}

void FileActions::rebuildRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    const QStringList list = recentFiles();
    for (const QString& path : list) {
        auto* a = recentMenu_->addAction(QFileInfo(path).fileName());
        a->setToolTip(path);
        a->setStatusTip(path);
        connect(a, &QAction::triggered, this, [this, path]() { window_->openPath(path); });
    }
    if (list.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
}

void FileActions::openDialog() {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open workload"), QString(),
                                                      tr("Workloads (*.workload.json *.json);;All files (*)"));
    if (!path.isEmpty()) window_->openPath(path);
}

QString FileActions::saveTarget() const {
    const LabDocument* doc = window_->document();
    // Generated, imported, a receipt's copy: never saved. A receipt shown read-only is not a workload file.
    if (!doc->hasWorkload() || !doc->onDisk() || doc->readOnly()) return {};
    const QString& source = doc->sourceName();
    if (source.startsWith(QLatin1Char(':'))) return {}; // a bundled sample, compiled in
    const QFileInfo info(source);
    return info.isFile() && info.isWritable() ? source : QString();
}

bool FileActions::save() {
    if (!window_->document()->hasWorkload()) return false;
    const QString target = saveTarget();
    return target.isEmpty() ? saveAs() : writeTo(target);
}

bool FileActions::saveAs() {
    LabDocument* doc = window_->document();
    if (!doc->hasWorkload()) return false;
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save workload"), QString(),
                                                      tr("Workloads (*.workload.json)"));
    if (path.isEmpty()) return false;
    return writeTo(path);
}

bool FileActions::writeTo(const QString& path) {
    LabDocument* doc = window_->document();
    const std::string text = pl::fullWorkloadJson(doc->workload()).dump(2) + "\n";
    if (auto e = pl::writeFileAtomically(path.toStdString(), text)) {
        window_->reportError(tr("Save failed"), QString::fromStdString(*e));
        return false;
    }
    doc->markSaved(path);
    addRecent(path);
    return true;
}

} // namespace plui
