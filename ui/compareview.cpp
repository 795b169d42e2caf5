#include "compareview.h"

#include "comparerun.h"
#include "labdocument.h"

#include <qcustomplot.h>

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
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
    int loadCount = -1;
};

namespace {

const QColor kColors[] = {QColor(0xdc, 0x26, 0x26), QColor(0x93, 0x33, 0xea), QColor(0x1d, 0x4e, 0xd8),
                          QColor(0x05, 0x96, 0x69)};
const Qt::PenStyle kStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};

QString name(pl::Recovery r) {
    const auto s = pl::toString(r);
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

void fillCdf(QCustomPlot* p, const CompareResult& r, bool completion) {
    p->clearGraphs();
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        std::vector<double> v = completion ? r.entries[i].dist.completion : r.entries[i].dist.queueDelay;
        std::sort(v.begin(), v.end());
        QVector<double> x, y;
        for (std::size_t k = 0; k < v.size(); ++k) {
            x << v[k];
            y << static_cast<double>(k + 1) / static_cast<double>(v.size());
        }
        auto* g = p->addGraph();
        g->setName(name(r.entries[i].recovery));
        g->setPen(QPen(kColors[i % 4], 2, kStyles[i % 4]));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(x, y, true);
    }
    p->rescaleAxes();
    p->yAxis->setRange(0, 1.02);
    p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace

CompareView::CompareView(LabDocument* doc, QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    run_ = new QPushButton(tr("Compare recompute / swap / adaptive / hybrid"), this);
    run_->setObjectName(QStringLiteral("compareButton"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 4);
    progress_->setValue(0);
    progress_->setFormat(tr("%v of 4 runs"));
    status_ = new QLabel(this);
    bar->addWidget(run_);
    bar->addWidget(cancel_);
    bar->addWidget(progress_, 1);
    layout->addLayout(bar);
    layout->addWidget(status_);
    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("compareTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    auto* row = new QHBoxLayout;
    row->addWidget(table_, 4);
    auto* plots = new QVBoxLayout;
    const QString titles[] = {tr("completion (ticks after arrival), CDF"), tr("queue delay (ticks), CDF")};
    for (int i = 0; i < 2; ++i) {
        auto* p = new QCustomPlot(this);
        p->setObjectName(i == 0 ? QStringLiteral("compareCompletion") : QStringLiteral("compareQueue"));
        p->setMinimumSize(200, 90);
        p->xAxis->setLabel(titles[i]);
        p->yAxis->setLabel(tr("share of requests"));
        p->legend->setVisible(true);
        QFont lf = p->font();
        lf.setPointSize(7);
        p->legend->setFont(lf);
        p->legend->setBrush(QColor(255, 255, 255, 170));
        p->legend->setRowSpacing(-3);
        p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
        d->plots[i] = p;
        plots->addWidget(p, 1);
    }
    row->addLayout(plots, 5);
    layout->addLayout(row, 1);
    // Who was flagged can be a long list: it scrolls instead of squeezing the plots.
    auto* flaggedScroll = new QScrollArea(this);
    flaggedScroll->setWidgetResizable(true);
    flaggedScroll->setMaximumHeight(90);
    flaggedScroll->setFrameShape(QFrame::StyledPanel);
    flagged_ = new QLabel(flaggedScroll);
    flagged_->setWordWrap(true);
    flagged_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    flagged_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    flaggedScroll->setWidget(flagged_);
    layout->addWidget(flaggedScroll);

    connect(run_, &QPushButton::clicked, this, &CompareView::start);
    connect(cancel_, &QPushButton::clicked, this, &CompareView::cancel);
    connect(&d->watcher, &QFutureWatcher<CompareResult>::progressValueChanged, progress_, &QProgressBar::setValue);
    connect(&d->watcher, &QFutureWatcher<CompareResult>::finished, this, [this]() {
        run_->setEnabled(true);
        cancel_->setEnabled(false);
        if (d->watcher.isCanceled() || d->watcher.future().resultCount() == 0) {
            status_->setText(tr("Cancelled."));
        } else {
            show(d->watcher.result());
        }
        emit finished();
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if ((what & LabChangeKind::Workload) && d->hasResult) {
            status_->setText(tr("The workload changed since this comparison: run it again."));
        }
    });
    status_->setText(tr("One click runs the open workload under all four recovery modes, off the UI thread."));
}

CompareView::~CompareView() {
    d->watcher.cancel();
    d->watcher.waitForFinished();
}

QCustomPlot* CompareView::plot(int i) const { return i >= 0 && i < 2 ? d->plots[i] : nullptr; }

bool CompareView::running() const { return d->watcher.isRunning(); }

bool CompareView::hasResult() const { return d->hasResult; }

void CompareView::start() {
    if (!doc_->hasWorkload() || running()) return;
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(0);
    status_->setText(tr("Running four recovery modes..."));
    d->watcher.setFuture(startCompare(doc_->workload()));
}

void CompareView::runNow() {
    if (!doc_->hasWorkload()) return;
    show(runCompareNow(doc_->workload()));
    progress_->setValue(4);
}

void CompareView::cancel() { d->watcher.cancel(); }

void CompareView::show(const CompareResult& r) {
    d->hasResult = true;
    const int cols = static_cast<int>(r.entries.size());
    struct Row {
        QString label;
        std::int64_t pl::Totals::*field;
        bool lowerIsBetter;
    };
    const Row rows[] = {{tr("ticks"), &pl::Totals::ticks, true},
                        {tr("evictions"), &pl::Totals::evictions, true},
                        {tr("replay tokens"), &pl::Totals::replay_tokens, true},
                        {tr("swap-out bytes"), &pl::Totals::swap_out_bytes, true},
                        {tr("swap-in bytes"), &pl::Totals::swap_in_bytes, true},
                        {tr("peak host bytes"), &pl::Totals::peak_host_bytes, true},
                        {tr("queue re-entries"), &pl::Totals::queue_reentries, true},
                        {tr("completed"), &pl::Totals::completed, false},
                        {tr("censored"), &pl::Totals::censored, true}};
    const int nTotals = static_cast<int>(std::size(rows));
    table_->clear();
    table_->setColumnCount(cols);
    table_->setRowCount(nTotals + 3);
    QStringList headers;
    for (const auto& e : r.entries) headers << name(e.recovery);
    table_->setHorizontalHeaderLabels(headers);
    QStringList vheaders;
    for (int i = 0; i < nTotals; ++i) {
        vheaders << rows[i].label;
        std::int64_t best = 0;
        for (int c = 0; c < cols; ++c) {
            const std::int64_t v = r.entries[static_cast<std::size_t>(c)].totals.*(rows[i].field);
            if (c == 0 || (rows[i].lowerIsBetter ? v < best : v > best)) best = v;
        }
        for (int c = 0; c < cols; ++c) {
            const std::int64_t v = r.entries[static_cast<std::size_t>(c)].totals.*(rows[i].field);
            auto* item = new QTableWidgetItem(QString::number(v));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (v == best) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            table_->setItem(i, c, item);
        }
    }
    vheaders << tr("completion p50 / p90") << tr("queue delay p50 / p90") << tr("flagged requests");
    for (int c = 0; c < cols; ++c) {
        const auto& e = r.entries[static_cast<std::size_t>(c)];
        table_->setItem(nTotals, c, new QTableWidgetItem(QStringLiteral("%1 / %2")
                                                             .arg(percentile(e.dist.completion, 50), 0, 'f', 0)
                                                             .arg(percentile(e.dist.completion, 90), 0, 'f', 0)));
        table_->setItem(nTotals + 1, c, new QTableWidgetItem(QStringLiteral("%1 / %2")
                                                                 .arg(percentile(e.dist.queueDelay, 50), 0, 'f', 0)
                                                                 .arg(percentile(e.dist.queueDelay, 90), 0, 'f', 0)));
        table_->setItem(nTotals + 2, c, new QTableWidgetItem(QString::number(e.flagged.size())));
    }
    table_->setVerticalHeaderLabels(vheaders);
    fillCdf(d->plots[0], r, true);
    fillCdf(d->plots[1], r, false);
    QString flagged;
    for (const auto& e : r.entries) {
        QStringList items(e.flagged.begin(), e.flagged.end());
        if (items.size() > 12) {
            const auto more = items.size() - 12;
            items = items.mid(0, 12);
            items << tr("and %1 more").arg(more);
        }
        flagged += QStringLiteral("<b>%1</b>: %2<br>")
                       .arg(name(e.recovery), items.isEmpty() ? tr("none flagged") : items.join(QStringLiteral("; ")).toHtmlEscaped());
    }
    flagged_->setText(flagged);
    status_->setText(tr("Same workload, four recovery modes; bold = best in the row."));
}

} // namespace plui
