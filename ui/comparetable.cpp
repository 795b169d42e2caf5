// CompareView's table (compareview.h): the rows of `preemptlab-cli compare` from core's RunSummary, then ITL and,
// under the lab's SLOs, goodput; the best figure of each row bold. Apart from compareview.cpp, which runs the
// comparison and draws its curves, because this is the table's own arithmetic of what to show and what is best.
#include "ui/compareview.h"

#include "ui/bytestext.h"
#include "ui/comparerun.h"
#include "ui/labslos.h"

#include "core/review/goodput.h"
#include "core/review/outcomes.h"
#include "ui/qtext.h"

#include <QTableWidget>

#include <algorithm>
#include <optional>

namespace plui {

// The table's header and the rows of `preemptlab-cli compare` (core's RunSummary), best per row bold, with
// `extraRows` more rows left for the caller; the vertical headers go to `vheaders`. Returns how many rows it
// filled; `anyPopulationDiffers` says whether some percentile row is over different numbers of requests.
int CompareView::fillSummaryRows(const CompareResult& r, int extraRows, QStringList& vheaders, bool& anyPopulationDiffers) {
    const int cols = static_cast<int>(r.entries.size());
    // The rows of `preemptlab-cli compare`, with the same numbers (core's RunSummary); bytes in binary units.
    struct Row {
        QString label;
        std::int64_t (*value)(const pl::RunSummary&);
        bool bytes;
        bool lowerIsBetter;
        // Percentile rows: how many requests the figure is over, and who they are (nullptr for totals).
        std::int64_t (*population)(const pl::RunSummary&) = nullptr;
        QString who = {};
        bool ranked = true; // false: no best to mark (fewer fallbacks is not a better mode: recompute has none)
    };
    using S = const pl::RunSummary&;
    const auto queued = [](S s) { return s.queue_ticks.count; };
    const auto firstToken = [](S s) { return s.ttft_ticks.count; };
    const auto completed = [](S s) { return s.completion_ticks.count; };
    const QString all = tr("every request (censored ones with the wait they had)");
    const QString gotToken = tr("the requests that produced a first token");
    const QString done = tr("the completed requests");
    const Row rows[] = {
        {tr("ticks"), [](S s) { return s.totals.ticks; }, false, true},
        {tr("evictions"), [](S s) { return s.totals.evictions; }, false, true},
        // Evictions that did not run as the policy asked (core's FallbackCounts, the CLI's rows).
        {tr("fallback: host full"), [](S s) { return s.fallbacks.host_full; }, false, true, nullptr, {}, false},
        {tr("fallback: prefix shrunk"), [](S s) { return s.fallbacks.hybrid_shrunk; }, false, true, nullptr, {}, false},
        {tr("fallback: no full block"), [](S s) { return s.fallbacks.nothing_to_swap; }, false, true, nullptr, {}, false},
        {tr("freed blocks"), [](S s) { return s.totals.freed_blocks; }, false, true},
        {tr("replay tokens"), [](S s) { return s.totals.replay_tokens; }, false, true},
        {tr("swap out"), [](S s) { return s.totals.swap_out_bytes; }, true, true},
        {tr("swap in"), [](S s) { return s.totals.swap_in_bytes; }, true, true},
        {tr("peak host"), [](S s) { return s.totals.peak_host_bytes; }, true, true},
        {tr("queue re-entries"), [](S s) { return s.totals.queue_reentries; }, false, true},
        {tr("completed"), [](S s) { return s.totals.completed; }, false, false},
        {tr("censored"), [](S s) { return s.totals.censored; }, false, true},
        {tr("queue delay p50 (ticks)"), [](S s) { return s.queue_ticks.p50; }, false, true, queued, all},
        {tr("queue delay p99 (ticks)"), [](S s) { return s.queue_ticks.p99; }, false, true, queued, all},
        {tr("TTFT p50 (ticks)"), [](S s) { return s.ttft_ticks.p50; }, false, true, firstToken, gotToken},
        {tr("TTFT p99 (ticks)"), [](S s) { return s.ttft_ticks.p99; }, false, true, firstToken, gotToken},
        {tr("completion p50 (ticks)"), [](S s) { return s.completion_ticks.p50; }, false, true, completed, done},
        {tr("completion p99 (ticks)"), [](S s) { return s.completion_ticks.p99; }, false, true, completed, done},
        {tr("flagged requests"), [](S s) { return s.flagged_any; }, false, true}};
    const int nRows = static_cast<int>(std::size(rows));
    // Latencies in ms where the workload gives the tick's length (the tick count in each cell's tooltip).
    const bool ms = r.tickUs > 0;
    table_->clear();
    table_->setColumnCount(cols);
    table_->setRowCount(nRows + extraRows);
    QStringList headers;
    for (const auto& e : r.entries) headers << e.label;
    table_->setHorizontalHeaderLabels(headers);
    anyPopulationDiffers = false;
    for (int i = 0; i < nRows; ++i) {
        // A percentile over no request (a mode that completed nothing) is no figure: a dash, never the best.
        auto hasValue = [&](int c) {
            return !rows[i].population || rows[i].population(r.entries[static_cast<std::size_t>(c)].summary) > 0;
        };
        std::int64_t best = 0;
        bool allEqual = true, anyValue = false, samePopulation = true;
        for (int c = 0; c < cols; ++c) {
            const auto& summary = r.entries[static_cast<std::size_t>(c)].summary;
            if (rows[i].population && rows[i].population(summary) != rows[i].population(r.entries.front().summary))
                samePopulation = false;
            if (!hasValue(c)) continue;
            const std::int64_t v = rows[i].value(summary);
            if (anyValue && v != best) allEqual = false;
            if (!anyValue || (rows[i].lowerIsBetter ? v < best : v > best)) best = v;
            anyValue = true;
        }
        const QString label = ms && rows[i].population ? QString(rows[i].label).replace(tr("(ticks)"), tr("(ms)"))
                                                        : rows[i].label;
        vheaders << (samePopulation ? label : label + QStringLiteral(" *"));
        anyPopulationDiffers = anyPopulationDiffers || !samePopulation;
        for (int c = 0; c < cols; ++c) {
            const auto& summary = r.entries[static_cast<std::size_t>(c)].summary;
            const std::int64_t v = rows[i].value(summary);
            const QString grouped = groupedNumber(v);
            const QString shown = rows[i].bytes ? bytesText(v)
                                  : ms && rows[i].population
                                      ? QString::fromStdString(pl::review::ticksAsMs(v, r.tickUs))
                                      : grouped;
            auto* item = new QTableWidgetItem(!hasValue(c) ? QStringLiteral("\u2013") : shown);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (rows[i].bytes) item->setToolTip(tr("%1 B").arg(grouped));
            if (rows[i].population) {
                const std::int64_t n = rows[i].population(summary);
                QString tip = n == 0 ? tr("none: no request got there under %1").arg(r.entries[static_cast<std::size_t>(c)].label)
                                     : tr("over %1 requests: %2").arg(groupedNumber(n), rows[i].who);
                // Percentiles over different requests: a mode that censors more drops its slowest requests.
                if (!samePopulation) tip += tr("\nthe modes' figures are over different numbers of requests");
                if (ms && hasValue(c)) tip = tr("%1 ticks; ").arg(grouped) + tip;
                item->setToolTip(tip);
            }
            // A row where every mode agrees has no best: nothing in it is bold.
            if (rows[i].ranked && hasValue(c) && v == best && !allEqual) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            table_->setItem(i, c, item);
        }
    }
    return nRows;
}

// A cell below the summary rows (ITL, goodput): right-aligned, its tooltip, bold when it is the row's best.
void CompareView::setExtraItem(int row, int c, const QString& text, const QString& tip, bool best) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setToolTip(tip);
    if (best) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
    }
    table_->setItem(row, c, item);
}

// ITL p50 and p99 from row `first` on (every gap between output tokens, pooled: core's figures, as
// `preemptlab-cli compare` prints them); lower is better.
void CompareView::fillItlRows(const CompareResult& r, int first, QStringList& vheaders) {
    const int cols = static_cast<int>(r.entries.size());
    const bool ms = r.tickUs > 0;
    const QString itlUnit = ms ? tr("ms") : tr("ticks");
    for (int k = 0; k < 2; ++k) {
        const bool p99 = k == 1;
        auto value = [&](int c) {
            const pl::Percentiles& p = r.entries[static_cast<std::size_t>(c)].itl_ticks;
            return p99 ? p.p99 : p.p50;
        };
        std::optional<std::int64_t> best;
        bool allEqual = true;
        for (int c = 0; c < cols; ++c) {
            if (r.entries[static_cast<std::size_t>(c)].itl_ticks.count == 0) continue;
            if (best && value(c) != *best) allEqual = false;
            if (!best || value(c) < *best) best = value(c);
        }
        vheaders << (p99 ? tr("ITL p99 (%1)") : tr("ITL p50 (%1)")).arg(itlUnit);
        for (int c = 0; c < cols; ++c) {
            const pl::Percentiles& p = r.entries[static_cast<std::size_t>(c)].itl_ticks;
            const std::int64_t v = value(c);
            const QString text = p.count == 0 ? QStringLiteral("\u2013")
                                 : ms         ? QString::fromStdString(pl::review::ticksAsMs(v, r.tickUs))
                                              : groupedNumber(v);
            setExtraItem(first + k, c, text,
                      tr("%1 ticks; over %2 gaps between output tokens").arg(groupedNumber(v), groupedNumber(p.count)),
                      p.count > 0 && !allEqual && v == best);
        }
    }
}

// With the lab's SLOs, goodput in row `row` (the share of all requests that completed within every SLO;
// censored requests count as misses); higher is better.
void CompareView::fillGoodputRow(const CompareResult& r, const pl::review::Slos& slos, int row, QStringList& vheaders) {
    const int cols = static_cast<int>(r.entries.size());
    std::vector<pl::review::Goodput> goodputs;
    for (const auto& e : r.entries) goodputs.push_back(pl::review::goodput(e.outcomes, slos));
    std::int64_t best = 0;
    bool allEqual = true;
    for (const auto& g : goodputs) {
        if (g.good != goodputs.front().good) allEqual = false;
        best = std::max(best, g.good); // every mode has the same requests: compare the good counts
    }
    vheaders << tr("goodput (%1)").arg(slosText(slos));
    for (int c = 0; c < cols; ++c) {
        const pl::review::Goodput& g = goodputs[static_cast<std::size_t>(c)];
        setExtraItem(row, c,
                  tr("%1% (%2/%3)").arg(QString::number(g.percent(), 'f', 2), groupedNumber(g.good),
                                        groupedNumber(g.requests)),
                  goodputText(g), !allEqual && g.good == best);
    }
}

} // namespace plui
