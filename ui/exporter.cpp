#include "ui/exporter.h"

#include "ui/labdocument.h"
#include "ui/labslos.h"
#include "ui/ledgermodel.h"
#include "ui/plotswidget.h"
#include "ui/sweepview.h"

#include "core/atomic_file.h"
#include "core/compare_report.h"
#include "core/cost/sweep.h"
#include "core/cost/sweep_output.h"
#include "core/receipt.h"
#include "core/review/goodput.h"
#include "core/review/outcomes.h"
#include "core/review/report.h"
#include "core/session.h"
#include "core/timeline.h"
#include "ui/qtext.h"
#include "ui/bytestext.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>

namespace plui {

namespace {

ExportError writeBytes(const QString& path, std::string_view bytes) {
    if (auto e = pl::writeFileAtomically(path.toStdString(), bytes)) return QString::fromStdString(*e);
    return std::nullopt;
}

// Vector output for plots (QCustomPlot draws itself onto any painter), widget rendering for the rest.
void paintWidget(QWidget* w, QCPPainter& painter) {
    if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
        plot->toPainter(&painter, w->width(), w->height());
        return;
    }
    w->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
}

// A bundle with the comparison's picture has its file too.
const QString kCompareJson = QStringLiteral("compare.json");

bool hasCompareView(const QList<QPair<QString, QWidget*>>& views) {
    return std::any_of(views.begin(), views.end(), [](const auto& v) { return v.first == QLatin1String("compare"); });
}

const QString kSweepJson = QStringLiteral("sweep.json");

// The Sweep view among the bundle's views, when it shows a result (the crossover map), else null.
const SweepView* sweepViewOf(const QList<QPair<QString, QWidget*>>& views) {
    for (const auto& [stem, widget] : views) {
        if (stem != QLatin1String("sweep")) continue;
        const auto* view = qobject_cast<const SweepView*>(widget);
        return view && view->result() ? view : nullptr;
    }
    return nullptr;
}

// summary.md's section on the crossover map: what was swept, and where the recommendation flips.
QString sweepMarkdown(const SweepView& view) {
    const pl::cost::SweepResult& r = *view.result();
    QStringList axes;
    for (const auto& a : r.spec.axes) axes << QStringLiteral("`%1`").arg(QString::fromStdString(a.key));
    std::size_t flips = 0;
    for (const auto& p : r.points) flips += p.flip_axes.empty() ? 0 : 1;
    return QStringLiteral("\n## Crossover map\n\n%1 `sweep.png` draws it and `sweep.json` holds it (the bytes "
                          "`preemptlab-cli sweep ... --out sweep.json` writes for the same grid): %2 points over %3, "
                          "metric `%4`; the winner changes from the point before it along some axis at %5 of them.\n")
        .arg(view.caption(), groupedNumber(static_cast<std::int64_t>(r.points.size())), axes.join(QStringLiteral(" x ")),
             QString::fromUtf8(pl::cost::toString(r.spec.metric).data()), groupedNumber(static_cast<std::int64_t>(flips)));
}

} // namespace

std::string receiptTextOf(const LabDocument& doc) {
    const pl::Session* s = doc.session();
    return s ? pl::receiptText(s->workload(), s->result()) : std::string();
}

std::string timelineTextOf(const LabDocument& doc) {
    const pl::Session* s = doc.session();
    return s ? pl::timelineText(s->workload(), s->result(), s->series(), pl::tickLengthOf(s->workload()))
             : std::string();
}

ExportError exportReceipt(const LabDocument& doc, const QString& path) {
    if (!doc.session()) return path + QStringLiteral(": no run to write a receipt for");
    return writeBytes(path, receiptTextOf(doc));
}

ExportError exportLedgerCsv(const LedgerModel& ledger, const QString& path) {
    return writeBytes(path, ledger.csv());
}

std::optional<QByteArray> renderWidget(QWidget* widget, const QString& format, QString* error) {
    // The running plots scroll in a short dock: their picture is all four, whole.
    if (auto* plots = qobject_cast<PlotsWidget*>(widget)) widget = plots->content();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QSize size = widget->size().expandedTo(QSize(1, 1));
    if (format == QLatin1String("png")) {
        QPixmap pix;
        if (auto* plot = qobject_cast<QCustomPlot*>(widget)) pix = plot->toPixmap(size.width(), size.height());
        else pix = widget->grab();
        if (pix.isNull() || !pix.save(&buffer, "PNG")) {
            if (error) *error = QStringLiteral("the PNG could not be encoded");
            return std::nullopt;
        }
    } else if (format == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(widget->windowTitle().isEmpty() ? QStringLiteral("PreemptLab") : widget->windowTitle());
        QCPPainter painter;
        if (!painter.begin(&gen)) {
            if (error) *error = QStringLiteral("the SVG could not be started");
            return std::nullopt;
        }
        paintWidget(widget, painter);
        painter.end();
    } else if (format == QLatin1String("pdf")) {
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("PreemptLab"));
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(size.width(), size.height()) * 72.0 / 96.0, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QCPPainter painter;
        if (!painter.begin(&pdf)) {
            if (error) *error = QStringLiteral("the PDF could not be started");
            return std::nullopt;
        }
        paintWidget(widget, painter);
        painter.end();
    } else {
        if (error) *error = QStringLiteral("unknown image format '%1' (use .png, .svg or .pdf)").arg(format);
        return std::nullopt;
    }
    return bytes;
}

ExportError exportWidgetImage(QWidget* widget, const QString& path) {
    const QString format = QFileInfo(path).suffix().toLower();
    QString error;
    auto bytes = renderWidget(widget, format, &error);
    if (!bytes) return path + QStringLiteral(": ") + error;
    return writeBytes(path, std::string_view(bytes->constData(), static_cast<std::size_t>(bytes->size())));
}

namespace {

// The run's latency figures (core's review::latencyFigures: nearest rank, censored requests counted) in ms where
// the workload gives config.tick_us, else in ticks, and its goodput under the lab's SLOs (LabSlos, read from
// the settings it keeps them in; core's review::goodput, censored requests as misses).
QString latencyMarkdown(const pl::Session& s) {
    const pl::review::RunOutcomes run = pl::review::outcomesFromRun(s.workload(), s.result());
    const pl::review::LatencyFigures f = pl::review::latencyFigures(run);
    const std::int64_t tickUs = run.tick_us;
    QString md = QStringLiteral("\n## Latency\n\n");
    md += tickUs > 0 ? QStringLiteral("In ms (1 tick = %1 us); nearest-rank percentiles.\n\n").arg(tickUs)
                     : QStringLiteral("In ticks (the workload gives no `tick_us`); nearest-rank percentiles.\n\n");
    md += QStringLiteral("| figure | over | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|\n");
    struct Line {
        QString name;
        const pl::Percentiles* p;
        bool x100;
        QString over;
    };
    const Line lines[] = {{QStringLiteral("queue delay"), &f.queue_ticks, false, QStringLiteral("requests")},
                          {QStringLiteral("TTFT"), &f.ttft_ticks, false, QStringLiteral("requests")},
                          {QStringLiteral("TPOT"), &f.tpot_ticks_x100, true, QStringLiteral("requests")},
                          {QStringLiteral("ITL"), &f.itl_ticks, false, QStringLiteral("gaps")},
                          {QStringLiteral("completion"), &f.completion_ticks, false, QStringLiteral("requests")}};
    for (const Line& l : lines) {
        auto fig = [&](std::int64_t v) {
            if (l.p->count == 0) return QStringLiteral("-");
            if (tickUs > 0) return QString::fromStdString(l.x100 ? pl::review::ticksX100AsMs(v, tickUs)
                                                                 : pl::review::ticksAsMs(v, tickUs));
            return l.x100 ? QString::number(static_cast<double>(v) / 100.0, 'f', 2) : groupedNumber(v);
        };
        md += QStringLiteral("| %1 | %2 %3 | %4 | %5 | %6 | %7 |\n")
                  .arg(l.name, groupedNumber(l.p->count), l.over, fig(l.p->p50), fig(l.p->p90), fig(l.p->p99),
                       fig(l.p->max));
    }
    const pl::review::Slos slos = LabSlos().forTick(tickUs);
    md += QStringLiteral("\n%1 requests, %2 censored (counted in queue delay and TTFT where they have them; TPOT and "
                         "completion are over completed requests).\n")
              .arg(groupedNumber(f.requests), groupedNumber(f.censored));
    md += slos.any() ? QStringLiteral("\nGoodput (%1): %2.\n")
                           .arg(slosText(slos), goodputText(pl::review::goodput(run, slos)))
                     : QStringLiteral("\nGoodput: no SLO set (the Distributions view's TTFT and TPOT fields).\n");
    return md;
}

} // namespace

QString reviewSummaryMarkdown(const LabDocument& doc, const QStringList& imageFiles, const QString& compareMarkdown) {
    const pl::Session* s = doc.session();
    if (!s) return {};
    const pl::Workload& w = s->workload();
    const pl::Totals& t = s->result().totals;
    const pl::ReceiptHashes h = pl::receiptHashes(w, s->result());
    QString md;
    md += QStringLiteral("# PreemptLab review: %1\n\n").arg(QString::fromStdString(w.name));
    // Every line of the notes quoted: a line of its own ("# ...") would otherwise be markdown of the summary's.
    if (!w.notes.empty()) {
        for (const QString& line : QString::fromStdString(w.notes).split(QLatin1Char('\n'))) md += QStringLiteral("> %1\n").arg(line);
        md += QLatin1Char('\n');
    }
    md += QStringLiteral("Source: `%1`. %2 requests, %3 device blocks of %4 tokens, host pool %5.\n\n")
              .arg(doc.sourceName(), groupedNumber(static_cast<std::int64_t>(w.requests.size())),
                   groupedNumber(w.config.capacity_blocks), groupedNumber(w.config.block_size_tokens),
                   bytesText(w.config.host_capacity_bytes));
    md += QStringLiteral("Policy: recovery `%1`, victim rule `%2`, resume guard `%3`, watermark %4, preempt-ahead %5.\n\n")
              .arg(qsv(pl::toString(w.policy.recovery)), qsv(pl::toString(w.policy.victim_rule)),
                   qsv(pl::toString(w.policy.resume_guard)))
              .arg(w.policy.watermark_blocks)
              .arg(w.policy.preempt_ahead ? QStringLiteral("on") : QStringLiteral("off"));
    md += QStringLiteral("| total | value |\n|---|---:|\n");
    const QList<QPair<QString, std::int64_t>> rows = {
        {QStringLiteral("ticks"), t.ticks},           {QStringLiteral("pressure events"), t.pressure_events},
        {QStringLiteral("evictions"), t.evictions},   {QStringLiteral("freed blocks"), t.freed_blocks},
        {QStringLiteral("replay tokens"), t.replay_tokens}, {QStringLiteral("swap-out bytes"), t.swap_out_bytes},
        {QStringLiteral("swap-in bytes"), t.swap_in_bytes}, {QStringLiteral("peak host bytes"), t.peak_host_bytes},
        {QStringLiteral("completed"), t.completed},   {QStringLiteral("censored"), t.censored},
        {QStringLiteral("queue re-entries"), t.queue_reentries}};
    for (const auto& r : rows) {
        // Bytes also in binary units: "5,079,040 (4.8 MiB)".
        const bool bytes = r.first.endsWith(QLatin1String("bytes")) && r.second >= 1024;
        md += QStringLiteral("| %1 | %2%3 |\n")
                  .arg(r.first, groupedNumber(r.second),
                       bytes ? QStringLiteral(" (%1)").arg(bytesText(r.second)) : QString());
    }
    md += latencyMarkdown(*s);
    if (!compareMarkdown.isEmpty()) {
        md += QStringLiteral("\n## Recovery modes compared\n\nThe same workload and policy under each recovery "
                             "mode (`preemptlab-cli compare` prints the same figures; `compare.json` holds them "
                             "as `preemptlab-cli compare --out compare.json` writes them).\n\n") +
              compareMarkdown;
    }
    if (const QString gate = doc.gateMarkdown(); !gate.isEmpty()) {
        md += QStringLiteral("\n## Rollout gate\n\nThis run as the candidate against a baseline receipt (Review > Gate; "
                             "`preemptlab-cli gate BASELINE receipt.json` gives the same verdict).\n\n") +
              gate;
    }
    // The first kSummaryFlaggedIds in workload order; a large trace flags thousands.
    QStringList flagged;
    std::int64_t nFlagged = 0, waits = 0, preempted = 0;
    for (const pl::RequestRecord& r : s->result().records) {
        if (!r.excessive_wait && !r.repeated_preemption) continue;
        ++nFlagged;
        waits += r.excessive_wait ? 1 : 0;
        preempted += r.repeated_preemption ? 1 : 0;
        if (flagged.size() >= kSummaryFlaggedIds) continue;
        QStringList why;
        if (r.excessive_wait) why << QStringLiteral("excessive wait (%1 ticks queued)").arg(groupedNumber(r.queue_ticks));
        if (r.repeated_preemption) why << QStringLiteral("repeated preemption (%1)").arg(r.preemptions);
        flagged << QStringLiteral("- `%1`: %2").arg(QString::fromStdString(w.requests[static_cast<std::size_t>(r.request)].id),
                                                   why.join(QStringLiteral(", ")));
    }
    md += QStringLiteral("\n## Flagged requests\n\n");
    if (nFlagged == 0) {
        md += QStringLiteral("None.\n");
    } else {
        md += QStringLiteral("%1 of %2 requests: %3 for excessive wait, %4 for repeated preemption.\n\n%5\n")
                  .arg(groupedNumber(nFlagged), groupedNumber(static_cast<std::int64_t>(w.requests.size())),
                       groupedNumber(waits), groupedNumber(preempted), flagged.join(QLatin1Char('\n')));
        if (nFlagged > flagged.size()) {
            md += QStringLiteral("- ... and %1 more (receipt.json lists each request's `flags`)\n")
                      .arg(groupedNumber(nFlagged - flagged.size()));
        }
    }
    md += QStringLiteral("\n## Hashes\n\n- input `%1`\n- policy `%2`\n- events `%3`\n")
              .arg(QString::fromStdString(h.input_hash), QString::fromStdString(h.policy_hash),
                   QString::fromStdString(h.event_hash));
    md += QStringLiteral("\nReplay with `preemptlab-cli verify receipt.json`. The ledger is in `ledger.csv`; the timeline, "
                         "for https://ui.perfetto.dev, in `trace.json`; queue delay, TTFT, TPOT, ITL and completion "
                         "by prompt bucket, output bucket, priority, tenant and preemptions (p50/p90/p99, censored "
                         "requests counted) in `distributions.csv`, the bytes `preemptlab-cli report receipt.json "
                         "--csv` prints.\n");
    if (!imageFiles.isEmpty()) {
        md += QStringLiteral("\n## Views (cursor at tick %1)\n\n").arg(s->currentTick());
        for (const QString& f : imageFiles) md += QStringLiteral("![%1](%1)\n\n").arg(f);
    }
    md += QStringLiteral("Ticks, rates and bytes are the model's declared arithmetic, not measured latency.\n");
    return md;
}

std::string distributionsCsvOf(const LabDocument& doc) {
    const pl::Session* s = doc.session();
    if (!s) return {};
    return pl::review::reportCsvText(
        pl::review::buildReport(pl::review::outcomesFromRun(s->workload(), s->result()), pl::review::ReportOptions{}));
}

QStringList reviewBundleFileNames(const QList<QPair<QString, QWidget*>>& views) {
    QStringList names = {QStringLiteral("receipt.json"), QStringLiteral("ledger.csv"), QStringLiteral("trace.json"),
                         QStringLiteral("distributions.csv")};
    for (const auto& view : views) names << view.first + QStringLiteral(".png");
    if (hasCompareView(views)) names << kCompareJson;
    if (sweepViewOf(views)) names << kSweepJson;
    names << QStringLiteral("summary.md");
    return names;
}

QStringList reviewBundleOptionalFiles() {
    return {QStringLiteral("compare.png"), kCompareJson, QStringLiteral("sweep.png"), kSweepJson};
}

std::string comparisonText(const pl::Workload& workload, bool csv, const std::atomic<bool>* stop,
                           std::atomic<int>* modesDone) {
    return pl::compareFileText(workload, pl::compareRuns(workload, pl::memoryBounded(stop), false, modesDone), csv);
}

ExportError exportReviewBundle(const LabDocument& doc, const LedgerModel& ledger,
                               const QList<QPair<QString, QWidget*>>& views, const QString& folder,
                               const std::string* receipt, const QString& compareMarkdown,
                               const std::string* compareJson, const std::string* trace) {
    if (!doc.session()) return folder + QStringLiteral(": no run to export");
    if (!QDir().mkpath(folder)) return folder + QStringLiteral(": cannot create the folder");
    const QDir dir(folder);
    // Everything is made first and written together (pl::writeFilesAtomically): a failure anywhere, a picture
    // that cannot be encoded or a full disk, leaves every file of an earlier bundle as it was. The receipt is
    // written from where it is (hundreds of MB for a large run), not copied.
    // The comparison's runs before the receipt is held beside them.
    const bool comparison = hasCompareView(views);
    std::string madeCompare;
    if (comparison && !compareJson) {
        try {
            madeCompare = comparisonText(doc.session()->workload(), false);
        } catch (const std::exception& e) {
            return dir.filePath(kCompareJson) + QStringLiteral(": ") + QString::fromUtf8(e.what());
        }
    }
    const std::string made = receipt ? std::string() : receiptTextOf(doc);
    const std::string csv = ledger.csv();
    const std::string madeTrace = trace ? std::string() : timelineTextOf(doc);
    const std::string distributions = distributionsCsvOf(doc);
    const SweepView* sweep = sweepViewOf(views);
    const std::string sweepText = sweep ? pl::cost::sweepJson(*sweep->result()).dump(2) + "\n" : std::string();
    // A view in a dock tabbed behind another (compare behind the running plots) is parked off the window at
    // the size it last had (or none): it is drawn at the window's size instead (render() lays a widget out for
    // its new size first) and given its old size back, so nothing on screen moves.
    QStringList images;
    std::vector<QByteArray> pngs;
    for (const auto& [stem, widget] : views) {
        if (stem == QLatin1String("sweep") && !sweep) continue; // no crossover map to draw
        const QSize old = widget->size();
        QWidget* host = widget->parentWidget();
        const bool parked = host && widget->visibleRegion().isEmpty();
        // Its host (the dock) grows by as much too: a view whose panes rearrange for the bigger size (Compare's
        // tabs become side-by-side panes) asks its host's layout again, which would lay it back at the dock's size.
        const QSize oldHost = host ? host->size() : QSize();
        if (parked) {
            const QSize grow = widget->window()->size() - old;
            host->resize(oldHost + grow.expandedTo(QSize(0, 0)));
            widget->resize(widget->window()->size());
        }
        const QString name = stem + QStringLiteral(".png");
        QString error;
        auto bytes = renderWidget(widget, QStringLiteral("png"), &error);
        if (parked) {
            host->resize(oldHost);
            widget->resize(old);
        }
        if (!bytes) return dir.filePath(name) + QStringLiteral(": ") + error;
        images << name;
        pngs.push_back(std::move(*bytes));
    }
    const QByteArray md = (reviewSummaryMarkdown(doc, images, compareMarkdown) + (sweep ? sweepMarkdown(*sweep) : QString())).toUtf8();
    auto view = [](const QByteArray& b) { return std::string_view(b.constData(), static_cast<std::size_t>(b.size())); };
    auto path = [&](const QString& name) { return dir.filePath(name).toStdString(); };
    std::vector<std::pair<std::string, std::string_view>> files = {
        {path(QStringLiteral("receipt.json")), receipt ? std::string_view(*receipt) : std::string_view(made)},
        {path(QStringLiteral("ledger.csv")), csv},
        {path(QStringLiteral("trace.json")), trace ? std::string_view(*trace) : std::string_view(madeTrace)},
        {path(QStringLiteral("distributions.csv")), distributions}};
    for (std::size_t i = 0; i < pngs.size(); ++i) files.emplace_back(path(images[static_cast<qsizetype>(i)]), view(pngs[i]));
    if (comparison) files.emplace_back(path(kCompareJson), compareJson ? std::string_view(*compareJson) : madeCompare);
    if (sweep) files.emplace_back(path(kSweepJson), sweepText);
    files.emplace_back(path(QStringLiteral("summary.md")), view(md));
    if (auto e = pl::writeFilesAtomically(files)) return QString::fromStdString(*e);
    for (const QString& name : reviewBundleOptionalFiles()) {
        const bool written =
            images.contains(name) || (comparison && name == kCompareJson) || (sweep && name == kSweepJson);
        if (!written && QFileInfo::exists(dir.filePath(name)) && !QFile::remove(dir.filePath(name))) {
            return dir.filePath(name) + QStringLiteral(": an earlier bundle's file could not be removed");
        }
    }
    return std::nullopt;
}

} // namespace plui
