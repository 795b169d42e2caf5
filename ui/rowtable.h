#pragma once
// The lab's row tables (the victim ledger, the workload's requests) look and select alike: whole rows, one at a
// time, no row numbers, compact rows, the last column stretched.

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QString>
#include <QTableView>

namespace plui {

inline QTableView* makeRowTable(QWidget* parent, QAbstractItemModel* model, const QString& objectName) {
    auto* table = new QTableView(parent);
    table->setObjectName(objectName);
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

} // namespace plui
