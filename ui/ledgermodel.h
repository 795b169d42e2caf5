#pragma once
// LedgerModel: the victim ledger as a table, one row per evict event: tick, victim, mode (and fallback),
// freed blocks, replay tokens, bytes out and back, both estimates (the lower one bold, the loser grey and
// struck out) and the queue position it re-entered at. Also writes the same rows as CSV.

#include <QAbstractTableModel>

#include <cstdint>
#include <string>
#include <vector>

namespace pl {
class Session;
struct Event;
}

namespace plui {

class LedgerModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Tick, Victim, Mode, Freed, Replay, BytesOut, BytesBack, EstRecompute, EstSwap, QueuePos, Count };
    explicit LedgerModel(QObject* parent = nullptr);

    void setSession(const pl::Session* session);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // The evict event shown in `row` (index into the ledger's events), or -1.
    std::int64_t eventIndex(int row) const;
    int rowForEvent(std::int64_t eventIndex) const;
    int firstRowAtOrAfter(std::int64_t tick) const;
    // RFC 4180 CSV of every row, with a header line.
    std::string csv() const;

  private:
    QString cellText(int row, int column) const;
    const pl::Session* session_ = nullptr;
    std::vector<std::int64_t> rows_;      // event indices of evict events
    std::vector<std::int64_t> bytesBack_; // per row: swap_in_bytes of the copy that brought it back
};

QString fallbackText(int fallback);

} // namespace plui
