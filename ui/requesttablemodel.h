#pragma once
// RequestTableModel: the workload's requests as an editable table. An edit becomes an undoable document
// edit (LabDocument::setRequest), validated by core first; a refused edit reports the reason.

#include <QAbstractTableModel>

namespace plui {

class LabDocument;

class RequestTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Id, Arrival, Prompt, Output, MaxOutput, Priority, Tenant, Status, Count };
    explicit RequestTableModel(LabDocument* doc, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  signals:
    void editRejected(const QString& reason);

  private:
    LabDocument* doc_;
};

} // namespace plui
