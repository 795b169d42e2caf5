#pragma once
// LedgerModel: the victim ledger as a table, one row per evict event: tick, victim, mode (and fallback),
// freed blocks, replay tokens, bytes out and back, both estimates (the lower one bold, the loser grey and
// struck out) and the queue position it re-entered at; in live mode, the device time measured for the
// eviction's calls beside the cost model's (RunResult::live, "-" when not live). Also writes the rows as CSV
// (the simulated columns; a live run's CSV appends
// measured_us, bytes_moved, tokens_computed, modelled_us and device_error per eviction).

#include "core/ledger_csv.h"

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace pl {
class Session;
struct Event;
struct RunResult;
} // namespace pl

namespace plui {

class LedgerModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // The decision first (who, how, both estimates), then what it moved. SharedKept (prefix workloads) and the
    // live columns are hidden by the view where they say nothing.
    enum Column { Tick, Victim, Mode, EstRecompute, EstSwap, Freed, SharedKept, Replay, BytesOut, BytesBack, QueuePos,
                  MeasuredUs, ModelledUs, Count };
    explicit LedgerModel(QObject* parent = nullptr);

    // `live`: the live run of the same workload (LabDocument::liveRun), or nullptr.
    void setSession(const pl::Session* session, const pl::RunResult* live = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // The evict event shown in `row` (index into the ledger's events), or -1.
    std::int64_t eventIndex(int row) const;
    int rowForEvent(std::int64_t eventIndex) const;
    int firstRowAtOrAfter(std::int64_t tick) const;
    // RFC 4180 CSV of every row, with a header line. The simulated columns never change; in a live run five
    // columns follow (sums over the eviction's device calls, as in the table; empty where there was no call,
    // modelled_us empty without a calibration).
    std::string csv() const;
    bool hasLive() const { return !live_.empty(); }
    // A cell as the CSV writes it: counts plain, bytes exact (the table groups and scales them).
    QString cellText(int row, int column) const;

  private:
    void fillLive(const pl::RunResult& live, const std::vector<pl::Event>& events);
    QString liveText(int row, bool measured) const;
    const pl::Session* session_ = nullptr;
    const pl::RunResult* liveRun_ = nullptr; // the live run beside the session (its annotations), or null
    std::vector<std::int64_t> rows_;      // event indices of evict events
    std::vector<std::int64_t> bytesBack_; // per row: swap_in_bytes of the copy that brought it back
    struct LiveCell {
        pl::LiveRowSums sums; // core's, as the ledger CSV has them
        QString detail;       // one line per device call, for the tooltip
    };
    std::vector<LiveCell> live_; // per row, empty when not live
};

QString fallbackText(int fallback);

} // namespace plui
