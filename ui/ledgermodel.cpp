#include "ui/ledgermodel.h"

#include "ui/bytestext.h"
#include "core/engine.h"
#include "core/ledger_csv.h"
#include "core/session.h"
#include "ui/qtext.h"

#include <QBrush>
#include <QFont>

#include <algorithm>
#include <utility>

namespace plui {

namespace {
} // namespace

QString fallbackText(int fallback) { return qsv(pl::fallbackWords(static_cast<pl::Fallback>(fallback))); }

LedgerModel::LedgerModel(QObject* parent) : QAbstractTableModel(parent) {}

void LedgerModel::setSession(const pl::Session* session, const pl::RunResult* live) {
    beginResetModel();
    session_ = session;
    liveRun_ = session ? live : nullptr;
    rows_.clear();
    bytesBack_.clear();
    live_.clear();
    if (session_) {
        const auto& events = session_->result().ledger.events;
        pl::LedgerRows rows = pl::ledgerRows(events); // core's rows, as the CSV has them
        rows_.assign(rows.events.begin(), rows.events.end());
        bytesBack_ = std::move(rows.swap_in_bytes);
        if (live) fillLive(*live, events);
    }
    endResetModel();
}

void LedgerModel::fillLive(const pl::RunResult& live, const std::vector<pl::Event>& events) {
    const std::vector<std::size_t> rowEvents(rows_.begin(), rows_.end());
    std::vector<pl::LiveRowSums> sums = pl::liveRowSums(events, rowEvents, live.live);
    live_.assign(rows_.size(), LiveCell{});
    for (std::size_t r = 0; r < sums.size(); ++r) {
        LiveCell& c = live_[r];
        c.sums = std::move(sums[r]);
        for (const std::size_t i : c.sums.annotations) {
            const pl::LiveAnnotation& a = live.live[i];
            if (!c.detail.isEmpty()) c.detail += QLatin1Char('\n');
            c.detail += tr("%1, %2 tokens: %3 \u00b5s measured, %4 \u00b5s modelled%5")
                            .arg(QString::fromStdString(a.kind)).arg(a.tokens).arg(a.measured_us, 0, 'f', 1)
                            .arg(a.modelled_us, 0, 'f', 1)
                            .arg(a.ok ? QString() : tr(" (failed: %1)").arg(QString::fromStdString(a.error)));
        }
    }
}

QString LedgerModel::liveText(int row, bool measured) const {
    if (live_.empty()) return QStringLiteral("-");
    const pl::LiveRowSums& c = live_[static_cast<std::size_t>(row)].sums;
    if (!c.any) return QStringLiteral("-");
    if (!c.ok) return tr("failed");
    const double us = measured ? c.measured_us : c.modelled_us;
    // modelled_us is 0 when the backend was given no calibration: there is no model figure to show.
    if (!measured && us == 0.0) return QStringLiteral("-");
    return QString::number(us, 'f', 1);
}

int LedgerModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LedgerModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Count; }

std::int64_t LedgerModel::eventIndex(int row) const {
    return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[static_cast<std::size_t>(row)] : -1;
}

int LedgerModel::rowForEvent(std::int64_t eventIndex) const {
    auto it = std::lower_bound(rows_.begin(), rows_.end(), eventIndex);
    return it != rows_.end() && *it == eventIndex ? static_cast<int>(it - rows_.begin()) : -1;
}

int LedgerModel::firstRowAtOrAfter(std::int64_t tick) const {
    if (!session_) return -1;
    const auto& events = session_->result().ledger.events;
    auto it = std::lower_bound(rows_.begin(), rows_.end(), tick, [&](std::int64_t ev, std::int64_t t) {
        return events[static_cast<std::size_t>(ev)].tick < t;
    });
    return it == rows_.end() ? -1 : static_cast<int>(it - rows_.begin());
}

QString LedgerModel::cellText(int row, int column) const {
    const pl::Event& e = session_->result().ledger.events[static_cast<std::size_t>(rows_[static_cast<std::size_t>(row)])];
    switch (column) {
    case Tick: return QString::number(e.tick);
    case Victim: return QString::fromStdString(session_->workload().requests[static_cast<std::size_t>(e.request)].id);
    case Mode: {
        QString m = qsv(pl::toString(e.mode));
        if (e.fallback != pl::Fallback::None) m += QStringLiteral(" (fallback: %1)").arg(fallbackText(static_cast<int>(e.fallback)));
        return m;
    }
    case Freed: return QString::number(e.freed_blocks);
    case SharedKept: return QString::number(e.shared_blocks);
    case Replay: return QString::number(e.replay_tokens);
    case BytesOut: return QString::number(e.swap_out_bytes);
    case BytesBack: return QString::number(bytesBack_[static_cast<std::size_t>(row)]);
    case EstRecompute: return QString::number(e.est_recompute_ticks);
    case EstSwap: return QString::number(e.est_swap_ticks);
    case QueuePos: return QString::number(e.queue_position);
    case MeasuredUs: return liveText(row, true);
    case ModelledUs: return liveText(row, false);
    default: return {};
    }
}

QVariant LedgerModel::data(const QModelIndex& index, int role) const {
    if (!session_ || !index.isValid()) return {};
    const int row = index.row();
    const int col = index.column();
    if (role == Qt::DisplayRole && (col == BytesOut || col == BytesBack)) {
        return bytesText(cellText(row, col).toLongLong()); // the CSV keeps bytes
    }
    if (role == Qt::ToolTipRole && (col == BytesOut || col == BytesBack)) return tr("%1 B").arg(cellText(row, col));
    if (role == Qt::ToolTipRole && col == SharedKept) {
        return tr("blocks of the victim's context that other requests also hold (shared prefix): not freed when it "
                  "lets go of them (at the eviction; a swapped part when its copy lands)");
    }
    // Counts grouped by thousands on screen, as in every view (the CSV keeps them plain).
    if (role == Qt::DisplayRole && col != Victim && col != Mode && col != MeasuredUs && col != ModelledUs) {
        return groupedNumber(cellText(row, col).toLongLong());
    }
    if (role == Qt::DisplayRole) return cellText(row, col);
    if (role == Qt::ToolTipRole && (col == MeasuredUs || col == ModelledUs)) {
        if (live_.empty()) return tr("Not a live run: switch on Run > Live Mode on a machine with a CUDA device");
        const LiveCell& c = live_[static_cast<std::size_t>(row)];
        return c.sums.any ? c.detail : tr("No device call for this eviction");
    }
    if (role == Qt::TextAlignmentRole && col != Victim && col != Mode) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if ((role == Qt::FontRole || role == Qt::ForegroundRole || role == Qt::ToolTipRole) &&
        (col == EstRecompute || col == EstSwap)) {
        const pl::Event& e = session_->result().ledger.events[static_cast<std::size_t>(rows_[static_cast<std::size_t>(row)])];
        const std::int64_t mine = col == EstRecompute ? e.est_recompute_ticks : e.est_swap_ticks;
        const std::int64_t other = col == EstRecompute ? e.est_swap_ticks : e.est_recompute_ticks;
        const bool dearer = mine > other;
        if (role == Qt::ToolTipRole) {
            // Which estimate is lower says nothing of what ran (a recompute policy recomputes the dearer
            // way too): the tooltip says both.
            const bool recompute = col == EstRecompute;
            const bool ran = e.mode == pl::Recovery::Hybrid ||
                             (recompute ? e.mode == pl::Recovery::Recompute : e.mode == pl::Recovery::Swap);
            const QString way = recompute ? tr("recompute") : tr("swap");
            const QString rank = mine == other ? tr("the same as the other estimate")
                                               : (dearer ? tr("the dearer estimate") : tr("the lower estimate"));
            return tr("%1 ticks to bring the victim back by %2: %3; %4")
                .arg(mine)
                .arg(way, rank, ran ? tr("the way it came back (mode %1)").arg(qsv(pl::toString(e.mode)))
                                    : tr("not the way it came back (mode %1)").arg(qsv(pl::toString(e.mode))));
        }
        if (role == Qt::ForegroundRole) return dearer ? QBrush(Qt::gray) : QVariant();
        QFont f;
        f.setBold(!dearer && mine != other);
        return f;
    }
    return {};
}

QVariant LedgerModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && (section == EstRecompute || section == EstSwap)) {
        return tr("The engine's estimate, at the eviction, of the ticks to bring the victim back by %1; the lower "
                  "of the two is bold, the dearer grey (whichever the mode used)")
            .arg(section == EstRecompute ? tr("recomputing its context") : tr("swapping its blocks out and in"));
    }
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    // Short headers on two lines, so a laptop-width ledger shows both estimates (on one line "est. recompute"
    // made its column of one-digit figures 90 px wide); the tooltip has the rest.
    static const char* names[] = {"tick", "victim", "mode", "est.\nrecompute", "est.\nswap",
                                  "freed\nblocks", "shared,\nkept", "replay\ntokens", "bytes\nout", "bytes\nback",
                                  "queue\npos.", "measured\n\u00b5s", "modelled\n\u00b5s"};
    static_assert(std::size(names) == Count);
    return section >= 0 && section < Count ? tr(names[section]) : QVariant();
}

std::string LedgerModel::csv() const {
    // Core writes the CSV (pl::ledgerCsv: the same bytes as `preemptlab-cli run --ledger-csv`).
    if (!session_) return pl::ledgerCsv(pl::Workload{}, {}, {});
    return pl::ledgerCsv(session_->workload(), session_->result().ledger.events,
                         liveRun_ != nullptr ? liveRun_->live : std::vector<pl::LiveAnnotation>{});
}

} // namespace plui
