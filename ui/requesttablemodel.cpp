#include "ui/requesttablemodel.h"

#include "ui/bytestext.h"
#include "ui/labdocument.h"

#include "core/session.h"

namespace plui {

RequestTableModel::RequestTableModel(LabDocument* doc, QObject* parent) : QAbstractTableModel(parent), doc_(doc) {
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & (LabChangeKind::Workload | LabChangeKind::Session)) {
            beginResetModel();
            endResetModel();
        }
    });
}

int RequestTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !doc_->hasWorkload() ? 0 : static_cast<int>(doc_->workload().requests.size());
}

int RequestTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Count; }

QVariant RequestTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (role == Qt::TextAlignmentRole) {
        // Counts line up on their last digit; names and the outcome read from the left.
        const bool number = index.column() != Id && index.column() != Tenant && index.column() != Status;
        return QVariant::fromValue<int>(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    const auto& r = doc_->workload().requests[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Id: return QString::fromStdString(r.id);
    case Arrival: return QVariant::fromValue<qlonglong>(r.arrival_tick);
    case Prompt: return QVariant::fromValue<qlonglong>(r.prompt_tokens);
    case Output: return QVariant::fromValue<qlonglong>(r.output_tokens);
    case MaxOutput: return QVariant::fromValue<qlonglong>(r.max_output_tokens);
    case Priority: return QVariant::fromValue<qlonglong>(r.priority);
    case Tenant: return QString::fromStdString(r.tenant);
    case Status: {
        const pl::Session* s = doc_->session();
        if (!s || static_cast<std::size_t>(index.row()) >= s->result().records.size()) return {};
        const auto& rec = s->result().records[static_cast<std::size_t>(index.row())];
        QString text = rec.completed ? tr("done at %1").arg(groupedNumber(rec.completion_tick)) : tr("censored");
        if (rec.preemptions > 0) {
            text += rec.preemptions == 1 ? tr(", 1 preemption") : tr(", %1 preemptions").arg(groupedNumber(rec.preemptions));
        }
        if (rec.excessive_wait) text += QStringLiteral(" \u25b2");
        if (rec.repeated_preemption) text += QStringLiteral(" \u2716");
        return text;
    }
    default: return {};
    }
}

bool RequestTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole) return false;
    pl::RequestSpec spec = doc_->workload().requests[static_cast<std::size_t>(index.row())];
    bool ok = true;
    const qlonglong n = value.toLongLong(&ok);
    switch (index.column()) {
    case Id: spec.id = value.toString().toStdString(); ok = true; break;
    case Arrival: spec.arrival_tick = n; break;
    case Prompt: spec.prompt_tokens = n; break;
    case Output: spec.output_tokens = n; break;
    case MaxOutput: spec.max_output_tokens = n; break;
    case Priority: spec.priority = n; break;
    case Tenant: spec.tenant = value.toString().toStdString(); ok = true; break;
    default: return false;
    }
    if (!ok) {
        emit editRejected(tr("'%1' is not a whole number").arg(value.toString()));
        return false;
    }
    QString error;
    if (!doc_->setRequest(index.row(), spec, &error)) {
        emit editRejected(error);
        return false;
    }
    return true;
}

Qt::ItemFlags RequestTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    // A receipt shown read-only: its cells do not open an editor (File > Edit a Copy).
    if (index.isValid() && index.column() != Status && !doc_->readOnly()) f |= Qt::ItemIsEditable;
    return f;
}

QVariant RequestTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"id",       "arrival (tick)", "prompt (tokens)", "output (tokens)",
                                  "max output (tokens)", "priority", "tenant", "outcome"};
    return section >= 0 && section < Count ? tr(names[section]) : QVariant();
}

} // namespace plui
