#include "ui/compareview.h"

#include "ui/adaptivepanes.h"

#include "ui/bytestext.h"
#include "ui/compactticker.h"
#include "ui/comparerun.h"
#include "ui/labdocument.h"
#include "ui/modecolors.h"
#include "ui/labslos.h"

#include "core/number_text.h"
#include "core/review/goodput.h"
#include "ui/qtext.h"

#include <qcustomplot.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <QFutureWatcher>
#include <QComboBox>
#include <QHBoxLayout>
#include <QSettings>
#include <QHeaderView>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace plui {

struct CompareView::Impl {
    QFutureWatcher<CompareResult> watcher;
    QCustomPlot* plots[2] = {};
    bool hasResult = false;
    bool current = false; // the result is for the workload as it is now
    QString resultNote;   // what the result says under its table (bold = best, starred rows, identical runs)
    int loadCount = -1;
    bool pending = false;            // started, its end not yet handled (the future may be done already)
    bool editedWhileRunning = false; // the workload changed after the pending comparison took its copy
    bool engines = false;            // the result shown compares the engines, not the recovery modes
    std::optional<CompareResult> last; // the result shown (redrawn when the SLOs change)
    LabSlos* slos = nullptr;
};

namespace {

// recompute orange and swap purple as in the break-even explorer (and replaying / copying on the timeline);
// red is kept for victims.
// A fifth (grey, dash-dot-dot) for the engine comparison's fifth column.
const QColor kColors[] = {modeColor(pl::Recovery::Recompute), modeColor(pl::Recovery::Swap),
                          modeColor(pl::Recovery::Adaptive), modeColor(pl::Recovery::Hybrid), QColor(0x47, 0x55, 0x69)};
const Qt::PenStyle kStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
constexpr int kCurveStyles = 5;

// What the runs are, in words: the status and the result's note.
QString whatRuns(CompareKind kind) {
    return kind == CompareKind::Engines
               ? QObject::tr("the tick model and the engine profiles (vLLM V1, SGLang, TensorRT-LLM's two)")
               : QObject::tr("four recovery modes");
}

// A tail label's text in lines no wider than `room` pixels, broken after a " · " between runs (the engines
// comparison names five: "j: trtllm-guaranteed-no-evict 387 · vllm-v1 290 · ..."); a part wider than the room
// keeps a line of its own.
QString wrapTailLabel(const QString& text, double room, const QFontMetrics& metrics) {
    const QString sep = QStringLiteral(" \u00b7 ");
    const QStringList parts = text.split(sep);
    QStringList lines;
    QString line;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString piece = parts[i] + (i + 1 < parts.size() ? QStringLiteral(" \u00b7") : QString());
        const QString joined = line.isEmpty() ? piece : line + QLatin1Char(' ') + piece;
        if (!line.isEmpty() && metrics.horizontalAdvance(joined) > room) {
            lines << line;
            line = piece;
        } else {
            line = joined;
        }
    }
    lines << line;
    return lines.join(QLatin1Char('\n'));
}

// The tail labels stacked from the top of the axis rect, each wrapped to the room left of its circle (it is
// right-aligned there) and taking its own lines' height, and the share axis stretched above 1 by just their
// height, so the curves (which stop at 1) pass under them at any plot height (hidden on a plot too short for
// them); called after each layout too. True when the range changed (the plot must be drawn again).
bool placeTailLabels(QCustomPlot* p) {
    std::vector<QCPItemText*> labels;
    for (int i = 0; i < p->itemCount(); ++i) {
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->objectName() == QLatin1String("tailLabel")) {
            labels.push_back(t);
        }
    }
    const double height = std::max(1, p->axisRect()->height());
    const QFontMetrics metrics(QFont(p->font().family(), 8));
    const double line = metrics.height();
    std::vector<double> tops;
    double labelsPx = 3;
    for (auto* label : labels) {
        const QString whole = label->property("wholeText").toString();
        const double room = p->xAxis->coordToPixel(label->position->key()) - p->axisRect()->left() - 4;
        label->setText(wrapTailLabel(whole, std::max(60.0, room), metrics));
        tops.push_back(labelsPx);
        labelsPx += line * static_cast<double>(label->text().count(QLatin1Char('\n')) + 1) + 4;
    }
    // At most half the plot goes to labels; a plot too short for them keeps only the circles (6 px above 1).
    const bool fit = labelsPx + 6 <= height / 2;
    for (std::size_t k = 0; k < labels.size(); ++k) {
        labels[k]->setVisible(fit);
        labels[k]->position->setCoords(labels[k]->position->key(), tops[k] / height);
    }
    // (top - 1) / top of the height is the room above 1 in pixels.
    const double need = (fit ? labelsPx : 0) + 6;
    const double top = 1.0 / (1.0 - std::min(0.5, need / height));
    if (std::abs(p->yAxis->range().upper - top) < 1e-9 && p->yAxis->range().lower == 0) return false;
    p->yAxis->setRange(0, top);
    return true;
}

void fillCdf(QCustomPlot* p, const CompareResult& r, bool completion) {
    p->clearGraphs();
    const double msPerTick = r.tickUs > 0 ? static_cast<double>(r.tickUs) / 1000.0 : 1.0;
    const QString unit = r.tickUs > 0 ? QObject::tr("ms") : QObject::tr("ticks");
    p->xAxis->setLabel(completion ? QObject::tr("completion (%1 after arrival), CDF").arg(unit)
                                  : QObject::tr("queue delay (%1), CDF").arg(unit));
    struct Tail {
        double x = 0;                              // its largest value over the modes
        std::map<double, QStringList, std::greater<>> modesAt; // the modes whose tail it is, by their value
    };
    std::map<QString, Tail> tails; // the request at each mode's tail
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        std::vector<double> v = completion ? r.entries[i].dist.completion : r.entries[i].dist.queueDelay;
        for (double& x : v) x *= msPerTick; // ms where the workload gives tick_us, else ticks (x 1)
        std::sort(v.begin(), v.end());
        QVector<double> x, y;
        for (std::size_t k = 0; k < v.size(); ++k) {
            x << v[k];
            y << static_cast<double>(k + 1) / static_cast<double>(v.size());
        }
        auto* g = p->addGraph();
        // A mode with no request in this distribution draws no curve: its legend entry says why.
        g->setName(v.empty() ? (completion ? QObject::tr("%1 (none completed)") : QObject::tr("%1 (none queued)"))
                                   .arg(r.entries[i].label)
                             : r.entries[i].label);
        g->setPen(QPen(kColors[i % kCurveStyles], 2, kStyles[i % kCurveStyles]));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(x, y, true);
        if (!v.empty()) {
            // The tail: a marker on the last request, so a lone starving request stands out.
            auto* tail = p->addGraph();
            tail->removeFromLegend();
            tail->setLineStyle(QCPGraph::lsNone);
            tail->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kColors[i % kCurveStyles], 2), Qt::white, 8));
            tail->setData(QVector<double>{v.back()}, QVector<double>{1.0}, true);
            const QString& id = completion ? r.entries[i].slowestCompletion : r.entries[i].longestQueue;
            if (!id.isEmpty()) {
                Tail& t = tails[id];
                t.x = std::max(t.x, v.back());
                t.modesAt[v.back()] << r.entries[i].label;
            }
        }
    }
    // Name the request at the tail, once per request (modes often share it), with the modes it ends: above the
    // curves (which stop at 1), so no label covers a step.
    p->clearItems();
    for (const auto& [id, t] : tails) {
        auto* label = new QCPItemText(p);
        label->setObjectName(QStringLiteral("tailLabel"));
        // Left of its circle's column, pointing down at it: the request, its modes and how long it took. Its
        // height is placed in pixels (placeTailLabels), the key in ticks.
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(t.x, 0);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
        // Each mode with its own value, largest first ("q02: recompute 3,030 · hybrid 2,988 · swap, adaptive
        // 2,844 ticks"): the circles sit at different ticks and colour alone should not tell them apart.
        QStringList parts;
        qsizetype modes = 0;
        for (const auto& [x, names] : t.modesAt) {
            parts << QStringLiteral("%1 %2").arg(names.join(QStringLiteral(", ")), groupedNumber(std::llround(x)));
            modes += names.size();
        }
        if (t.modesAt.size() == 1) {
            const QStringList& names = t.modesAt.begin()->second;
            const QString who = modes == static_cast<qsizetype>(r.entries.size()) && modes > 1 ? QObject::tr("every mode")
                                                                                             : names.join(QStringLiteral(", "));
            label->setText(QObject::tr("%1 (%2), %3 %4 \u2198").arg(id, who, groupedNumber(std::llround(t.x)), unit));
        } else {
            label->setText(QObject::tr("%1: %2 %3 \u2198").arg(id, parts.join(QStringLiteral(" \u00b7 ")), unit));
        }
        label->setProperty("wholeText", label->text()); // placeTailLabels wraps it to the plot as it is
        label->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
        label->setFont(QFont(p->font().family(), 8));
        label->setColor(QColor(0x37, 0x41, 0x51));
        label->setBrush(QColor(255, 255, 255, 200)); // over a grid line, not over a curve (they stop below)
    }
    p->rescaleAxes();
    // Room for the tail markers: a little past the largest value. The share axis is labelled 0 to 1 only.
    p->xAxis->setRangeUpper(p->xAxis->range().upper + std::max(1.0, p->xAxis->range().size() * 0.03));
    placeTailLabels(p);
    fitLegend(p); // its entries came with the result: wrap them to the plot as it is now
    p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace

// The bar (what to compare, Run, Cancel, progress) and the status line under it.
void CompareView::createBar(QVBoxLayout* layout) {
    auto* bar = new QHBoxLayout;
    run_ = new QPushButton(this);
    run_->setObjectName(QStringLiteral("compareButton"));
    // What to set side by side: the recovery modes, or the engines (`compare --engines`). Kept across restarts.
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("compareKind"));
    kind_->addItem(tr("Recovery modes"));
    kind_->addItem(tr("Engines"));
    kind_->setToolTip(tr("Recovery modes: recompute, swap, adaptive and hybrid under this policy. Engines: the tick "
                         "model and how vLLM V1, SGLang and TensorRT-LLM (max-utilization, guaranteed-no-evict) "
                         "would schedule this traffic (docs/engines.md)."));
    kind_->setCurrentIndex(QSettings().value(QStringLiteral("compare/kind")).toString() == QLatin1String("engines") ? 1 : 0);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setValue(0);
    const auto showKind = [this] {
        const CompareKind k = kind();
        run_->setText(k == CompareKind::Engines ? tr("Compare the engines")
                                                : tr("Compare recompute / swap / adaptive / hybrid"));
        progress_->setRange(0, compareRunCount(k));
        progress_->setFormat(tr("%v of %1 runs").arg(compareRunCount(k)));
    };
    showKind();
    connect(kind_, &QComboBox::currentIndexChanged, this, [this, showKind] {
        QSettings().setValue(QStringLiteral("compare/kind"),
                             kind() == CompareKind::Engines ? QStringLiteral("engines") : QStringLiteral("modes"));
        showKind();
        if (d->hasResult) status_->setText(tr("Run the comparison to see %1.").arg(whatRuns(kind())));
    });
    status_ = new QLabel(this);
    status_->setWordWrap(true); // a long status never sets the dock's (and so the window's) least width
    bar->addWidget(kind_);
    bar->addWidget(run_);
    bar->addWidget(cancel_);
    bar->addWidget(progress_, 1);
    layout->addLayout(bar);
    layout->addWidget(status_);
}

// The summary pane (the table with its Copy action, then the host-full note) and the flagged list; returned as
// the first two panes.
QList<AdaptivePanes::Pane> CompareView::createSummaryPanes() {
    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("compareTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    // Ctrl+C (and the context menu) copy the whole table, tab-separated: a cell at a time was all Qt offered.
    auto* copy = new QAction(tr("Copy Table"), table_);
    copy->setObjectName(QStringLiteral("copyCompareTable"));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        if (const QString tsv = tabSeparated(); !tsv.isEmpty()) QGuiApplication::clipboard()->setText(tsv);
    });
    table_->addAction(copy);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    // The table as wide as its columns (every mode readable), the plots the rest.
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
    // The summary pane: the table, then the host-full note.
    auto* summary = new QWidget(this);
    summary->setObjectName(QStringLiteral("compareSummary"));
    auto* left = new QVBoxLayout(summary);
    left->setContentsMargins(0, 0, 0, 0);
    left->addWidget(table_, 0);
    // Under the table: a mode that never swapped because host memory was full ran recompute's run; its column
    // would otherwise read as "swap = recompute" (pl::hostFullNote, the note the CLI prints under its table).
    fallbackNote_ = new QLabel(this);
    fallbackNote_->setObjectName(QStringLiteral("compareFallbackNote"));
    fallbackNote_->setWordWrap(true);
    fallbackNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fallbackNote_->setStyleSheet(QStringLiteral("color: #92400e;"));
    fallbackNote_->setVisible(false);
    left->addWidget(fallbackNote_, 0);
    // Who was flagged can be a long list: under the table it takes the column's height
    // left (which had a screen of empty grey below the rows) and scrolls; a tab of its own when tabbed.
    auto* flaggedScroll = new QScrollArea(this);
    flaggedScroll->setWidgetResizable(true);
    flaggedScroll->setMinimumHeight(fontMetrics().lineSpacing() * 3 + 6);
    flaggedScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    flaggedScroll->setFrameShape(QFrame::StyledPanel);
    flagged_ = new QLabel(flaggedScroll);
    flagged_->setWordWrap(true);
    flagged_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    flagged_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    flaggedScroll->setWidget(flagged_);
    left->addStretch(0);
    return {{summary, tr("Table")}, {flaggedScroll, tr("Flagged")}};
}

// The two CDFs, and the panes side by side where the view has room, in tabs where it has not.
void CompareView::createPanes(QVBoxLayout* layout) {
    QList<AdaptivePanes::Pane> panes = createSummaryPanes();
    const QString titles[] = {tr("completion (ticks after arrival), CDF"), tr("queue delay (ticks), CDF")};
    const QString tabTitles[] = {tr("Completion CDF"), tr("Queue delay CDF")};
    for (int i = 0; i < 2; ++i) {
        auto* p = new QCustomPlot(this);
        p->setObjectName(i == 0 ? QStringLiteral("compareCompletion") : QStringLiteral("compareQueue"));
        p->setMinimumSize(200, 90);
        p->xAxis->setLabel(titles[i]);
        p->yAxis->setLabel(tr("share of requests"));
        // Shares from 0 to 1 only: the room above 1 holds the tail labels.
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int k = 0; k <= 5; ++k) ticker->addTick(k * 0.2, k == 0 ? QStringLiteral("0") : k == 5 ? QStringLiteral("1") : QStringLiteral("0.%1").arg(k * 2));
        p->yAxis->setTicker(ticker);
        connect(p, &QCustomPlot::afterLayout, p, [p] {
            if (placeTailLabels(p)) p->replot(QCustomPlot::rpQueuedReplot);
        });
        legendBelow(p);
        d->plots[i] = p;
        panes << AdaptivePanes::Pane{p, tabTitles[i]};
    }
    // Side by side (the table, the two CDFs stacked beside it) from 900x460 px: a view of its own, a maximised
    // or floating dock, the review bundle's compare.png. Smaller (the dock in the window's bottom row, about
    // 600x280 px at 1280x800), one pane at a time in tabs, each with the whole width.
    panes_ = new AdaptivePanes(
        panes,
        [](QWidget* host, const QList<QWidget*>& w) {
            auto* row = new QHBoxLayout(host);
            row->setContentsMargins(0, 0, 0, 0);
            auto* column = new QVBoxLayout;
            column->addWidget(w[0], 0);
            column->addWidget(w[1], 1);
            row->addLayout(column, 0);
            auto* plots = new QVBoxLayout;
            plots->addWidget(w[2], 1);
            plots->addWidget(w[3], 1);
            row->addLayout(plots, 1);
        },
        QSize(900, 460), this);
    panes_->setObjectName(QStringLiteral("comparePanes"));
    layout->addWidget(panes_, 1);

}

// The job's progress and end, and the document's edits while it runs or after it.
void CompareView::connectJob() {
    connect(run_, &QPushButton::clicked, this, &CompareView::start);
    connect(cancel_, &QPushButton::clicked, this, &CompareView::cancel);
    connect(&d->watcher, &QFutureWatcher<CompareResult>::progressValueChanged, progress_, &QProgressBar::setValue);
    connect(&d->watcher, &QFutureWatcher<CompareResult>::finished, this, [this]() {
        run_->setEnabled(true);
        cancel_->setEnabled(false);
        d->pending = false;
        if (d->watcher.isCanceled() || d->watcher.future().resultCount() == 0) {
            status_->setText(tr("Cancelled."));
        } else {
            const CompareResult result = d->watcher.result();
            show(result);
            if (d->editedWhileRunning && result.error.isEmpty()) {
                d->current = false;
                status_->setText(tr("This comparison ran on the workload as it was before your last change: "
                                    "run it again."));
            }
        }
        emit runningChanged(false);
        emit finished();
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (!(what & LabChangeKind::Workload)) return;
        d->current = false;
        if (d->pending) {
            d->editedWhileRunning = true;
        } else if (d->hasResult) {
            status_->setText(tr("The workload changed since this comparison: run it again."));
        }
    });
}

CompareView::CompareView(LabDocument* doc, QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    createBar(layout);
    createPanes(layout);
    connectJob();
    status_->setText(tr("One click runs the open workload under %1, off the UI thread.").arg(whatRuns(kind())));
}

void CompareView::setSlos(LabSlos* slos) {
    d->slos = slos;
    connect(slos, &LabSlos::changed, this, [this]() {
        // The same result with its goodput row redrawn; whether it is current, and what the status says, stay.
        if (!d->last || !d->last->error.isEmpty()) return;
        const bool current = d->current;
        const QString status = status_->text();
        show(*d->last);
        d->current = current;
        status_->setText(status);
    });
}

CompareKind CompareView::kind() const {
    return kind_->currentIndex() == 1 ? CompareKind::Engines : CompareKind::Modes;
}

void CompareView::setKind(CompareKind k) { kind_->setCurrentIndex(k == CompareKind::Engines ? 1 : 0); }

CompareView::~CompareView() {
    d->watcher.cancel();
    d->watcher.waitForFinished();
}

QCustomPlot* CompareView::plot(int i) const { return i >= 0 && i < 2 ? d->plots[i] : nullptr; }

bool CompareView::running() const { return d->watcher.isRunning(); }

bool CompareView::hasResult() const { return d->hasResult; }

bool CompareView::isCurrent() const { return d->current; }

bool CompareView::showsEngines() const { return d->hasResult && d->engines; }

QList<QStringList> CompareView::cells(bool markBest) const {
    QList<QStringList> rows;
    QStringList header = {QString()};
    for (int c = 0; c < table_->columnCount(); ++c) header << table_->horizontalHeaderItem(c)->text();
    rows << header;
    for (int i = 0; i < table_->rowCount(); ++i) {
        QStringList row = {table_->verticalHeaderItem(i)->text()};
        for (int c = 0; c < table_->columnCount(); ++c) {
            const QTableWidgetItem* item = table_->item(i, c);
            const QString text = item ? item->text() : QString();
            row << (markBest && item && item->font().bold() ? QStringLiteral("**%1**").arg(text) : text);
        }
        rows << row;
    }
    return rows;
}

QString CompareView::markdown() const {
    if (!d->current) return {};
    const QList<QStringList> rows = cells(true);
    // "*" marks a row over different requests per mode: escaped, or markdown reads it as emphasis.
    auto escaped = [](QString label) {
        return label.endsWith(QLatin1Char('*')) ? label.chopped(1) + QStringLiteral("\\*") : label;
    };
    QString md;
    for (int r = 0; r < rows.size(); ++r) {
        QStringList row = rows[r];
        row[0] = escaped(row[0]);
        md += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
        if (r == 0) md += QStringLiteral("|---|") + QStringLiteral("---:|").repeated(row.size() - 1) + QLatin1Char('\n');
    }
    // The result's own note, not the status line (which a later run's progress or Cancel replaces).
    md += QLatin1Char('\n') + QString(d->resultNote).replace(QLatin1Char('*'), QStringLiteral("\\*")) + QLatin1Char('\n');
    for (const QString& line : fallbackNote_->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        md += QStringLiteral("\n> %1\n").arg(line);
    }
    return md;
}

void CompareView::addTableAction(QAction* action) { table_->addAction(action); }

QString CompareView::tabSeparated() const {
    if (!d->hasResult) return {};
    QString tsv;
    for (const QStringList& row : cells(false)) tsv += row.join(QLatin1Char('\t')) + QLatin1Char('\n');
    return tsv;
}

QString CompareView::statusText() const { return status_->text(); }

QString CompareView::fallbackNoteText() const { return fallbackNote_->text(); }

void CompareView::start() {
    if (!doc_->hasWorkload() || running()) return;
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(0);
    status_->setText(tr("Running %1...").arg(whatRuns(kind())));
    d->editedWhileRunning = false;
    d->pending = true;
    d->watcher.setFuture(startCompare(doc_->workload(), kind()));
    emit runningChanged(true);
}

void CompareView::runNow() {
    if (!doc_->hasWorkload()) return;
    show(runCompareNow(doc_->workload(), kind()));
    progress_->setValue(compareRunCount(kind()));
}

void CompareView::cancel() { d->watcher.cancel(); }

// Who was flagged under each column, the first 12 named.
void CompareView::fillFlagged(const CompareResult& r) {
    QString flagged;
    for (const auto& e : r.entries) {
        QStringList items(e.flagged.begin(), e.flagged.end());
        if (items.size() > 12) {
            const auto more = items.size() - 12;
            items = items.mid(0, 12);
            items << tr("and %1 more").arg(more);
        }
        flagged += QStringLiteral("<b>%1</b>: %2<br>")
                       .arg(e.label, items.isEmpty() ? tr("none flagged") : items.join(QStringLiteral("; ")).toHtmlEscaped());
    }
    flagged_->setText(flagged);
}

// The status line under the table: what ran, the bold and star conventions, and the columns that ran alike.
QString CompareView::resultNoteOf(const CompareResult& r, bool anyPopulationDiffers) const {
    // Modes that ran event for event alike draw one curve over the other: say so, or one seems missing.
    QStringList same;
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        for (std::size_t j = i + 1; j < r.entries.size(); ++j) {
            if (r.entries[i].event_hash == r.entries[j].event_hash) {
                same << tr("%1 = %2").arg(r.entries[j].label, r.entries[i].label);
            }
        }
    }
    return tr("Same workload, %1; bold = best in the row (none where all agree).").arg(whatRuns(r.kind)) +
                    (r.kind == CompareKind::Engines
                         ? tr(" Each engine runs recompute with its own victim rule and no preempt-ahead (docs/engines.md).")
                         : QString()) +
                     (anyPopulationDiffers ? tr(" * The modes' percentiles are over different numbers of requests "
                                                "(censored ones drop out of TTFT and completion; hover for the count).")
                                           : QString()) +
                     (same.isEmpty() ? QString()
                                     : tr(" Identical runs (same event hash, their curves coincide): %1.")
                                           .arg(same.join(QStringLiteral(", "))));

} // namespace plui
void CompareView::show(const CompareResult& r) {
    if (!r.error.isEmpty()) {
        status_->setText(tr("Compare stopped: %1").arg(r.error));
        d->current = false;
        return;
    }
    d->hasResult = true;
    d->current = true;
    d->engines = r.kind == CompareKind::Engines;
    d->last = r;
    const pl::review::Slos slos = d->slos ? d->slos->forTick(r.tickUs) : pl::review::Slos{};
    QStringList vheaders;
    bool anyPopulationDiffers = false;
    const int nRows = fillSummaryRows(r, 2 + (slos.any() ? 1 : 0), vheaders, anyPopulationDiffers); // + ITL, goodput
    fillItlRows(r, nRows, vheaders);
    if (slos.any()) fillGoodputRow(r, slos, nRows + 2, vheaders);
    table_->setVerticalHeaderLabels(vheaders);
    QStringList notes;
    for (const auto& e : r.entries) {
        if (!e.fallbackNote.isEmpty()) notes << e.fallbackNote;
    }
    fallbackNote_->setText(notes.join(QLatin1Char('\n')));
    fallbackNote_->setVisible(!notes.isEmpty());
    fillCdf(d->plots[0], r, true);
    fillCdf(d->plots[1], r, false);
    fillFlagged(r);
    d->resultNote = resultNoteOf(r, anyPopulationDiffers);
    status_->setText(d->resultNote);
}

} // namespace plui
