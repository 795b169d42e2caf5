#include "ui/workloadpanel.h"

#include "ui/labdocument.h"
#include "ui/requesttablemodel.h"
#include "ui/rowtable.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace plui {

WorkloadPanel::WorkloadPanel(LabDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    notes_ = new QLabel(this);
    notes_->setObjectName(QStringLiteral("workloadNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b91c1c"));
    error_->hide();
    model_ = new RequestTableModel(doc_, this);
    table_ = makeRowTable(this, model_, QStringLiteral("requestTable"));
    layout->addWidget(notes_);
    layout->addWidget(error_);
    layout->addWidget(table_, 1);
    connect(model_, &RequestTableModel::editRejected, this, [this](const QString& why) {
        error_->setText(tr("Edit refused: %1").arg(why));
        error_->show();
    });
    // Selection, not the current index (focus moves the current index without selecting).
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this]() {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (!syncing_ && !rows.isEmpty()) doc_->selectRequest(rows.first().row());
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Workload) {
            error_->hide();
            if (!doc_->hasWorkload()) {
                notes_->setText(tr("No workload open."));
            } else {
                const auto& w = doc_->workload();
                notes_->setText(tr("<b>%1</b> (%2 requests)<br>%3")
                                    .arg(QString::fromStdString(w.name).toHtmlEscaped())
                                    .arg(w.requests.size())
                                    .arg(QString::fromStdString(w.notes).toHtmlEscaped()));
            }
            table_->resizeColumnsToContents();
        }
        if (what & LabChangeKind::Selection) {
            syncing_ = true;
            const int sel = doc_->selectedRequest();
            if (sel >= 0) {
                table_->selectRow(sel);
                table_->scrollTo(model_->index(sel, 0));
            } else {
                table_->clearSelection();
            }
            syncing_ = false;
        }
    });
    notes_->setText(tr("No workload open."));
}

} // namespace plui
