#include "ui/poolview.h"

#include "ui/blockgridwidget.h"
#include "ui/bytestext.h"
#include "ui/hostpoolbar.h"
#include "ui/labdocument.h"
#include "ui/requestpalette.h"
#include "ui/statecolors.h"

#include "core/session.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace plui {

PoolView::PoolView(LabDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setFocusPolicy(Qt::ClickFocus); // a click here takes the keys back from a focused slider or table
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Fit the whole pool in view"));
    auto* zoomOut = new QToolButton(this);
    zoomOut->setText(QStringLiteral("\u2212"));
    zoomOut->setToolTip(tr("Smaller cells (Ctrl+wheel)"));
    auto* zoomIn = new QToolButton(this);
    zoomIn->setText(QStringLiteral("+"));
    zoomIn->setToolTip(tr("Larger cells (Ctrl+wheel)"));
    figures_ = new QLabel(this);
    figures_->setObjectName(QStringLiteral("poolFigures"));
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The figures line grows with prefix sharing and victims: it wraps rather than widening the centre and
    // squeezing the docks beside it on a 1280-pixel screen.
    figures_->setWordWrap(true);
    figures_->setMinimumWidth(1);
    bar->addWidget(fit);
    bar->addWidget(zoomOut);
    bar->addWidget(zoomIn);
    bar->addWidget(figures_, 1);
    outer->addLayout(bar);

    auto* row = new QHBoxLayout;
    grid_ = new BlockGridWidget(this);
    scroll_ = new QScrollArea(this);
    scroll_->setWidget(grid_);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    host_ = new HostPoolBar(this);
    row->addWidget(scroll_, 1);
    row->addWidget(host_);
    outer->addLayout(row, 1);
    legend_ = new QLabel(this);
    legend_->setWordWrap(true);
    setLegend(false);
    outer->addWidget(legend_);

    connect(fit, &QToolButton::clicked, this, [this]() { grid_->setCellSize(0); });
    connect(zoomIn, &QToolButton::clicked, this, [this]() {
        const int c = grid_->effectiveCellSize();
        grid_->setCellSize(std::max(c + 1, c * 3 / 2));
    });
    connect(zoomOut, &QToolButton::clicked, this, [this]() {
        const int c = grid_->effectiveCellSize();
        grid_->setCellSize(std::max(1, c * 2 / 3));
    });
    connect(grid_, &BlockGridWidget::requestClicked, doc_, &LabDocument::selectRequest);
    grid_->setOwnerDetail([this](int request) { return ownerDetail(request); });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Selection) grid_->setSelectedRequest(doc_->selectedRequest());
        if (what & (LabChangeKind::Session | LabChangeKind::Cursor | LabChangeKind::Workload)) refresh();
    });
    refresh();
}

void PoolView::setBanner(QWidget* banner) {
    if (auto* outer = qobject_cast<QVBoxLayout*>(layout())) outer->insertWidget(0, banner);
}

QString PoolView::legendText() const { return legend_->text(); }

// The prefix-sharing marks are explained only where the workload shares prefixes.
// Each entry is one unbreakable run (its symbol never wraps away from its words); lines break between entries.
void PoolView::setLegend(bool prefixSharing, long long hybridPercent) {
    const auto entry = [](const QString& symbol, const QString& words) {
        // Non-breaking spaces and hyphens: "swap-out" wrapped after its hyphen.
        return symbol + QStringLiteral("&nbsp;") +
               QString(words).replace(QLatin1Char(' '), QStringLiteral("&nbsp;")).replace(QLatin1Char('-'), QChar(0x2011)) +
               QStringLiteral("&nbsp;&nbsp; ");
    };
    QString text = entry(QStringLiteral("<span style='color:#9ca3af'>&#9633;</span>"), tr("free")) +
                   entry(QStringLiteral("<span style='color:#1d4ed8'>&#9633;</span>"), tr("dashed frame: copy in flight")) +
                   entry(QStringLiteral("<span style='color:#dc2626'>&#9746;</span>"), tr("victim this tick")) +
                   entry(QStringLiteral("<span style='color:#dc2626'>&#9585;</span>"), tr("swap-out landed: freed")) +
                   entry(QStringLiteral("<span style='color:#dc2626'>&#9633;</span>"),
                         tr("dotted red frame: the victim's block, already handed on")) +
                   entry(QStringLiteral("<span style='color:%1'>&#9698;</span>").arg(RequestPalette::requesterColor().name()),
                         tr("violet corner: requester, whose need evicted"));
    if (prefixSharing) {
        text += entry(QStringLiteral("<span style='color:#e8e0c0'>&#9632;</span>"), tr("free, prefix still cached")) +
                entry(QStringLiteral("&#9699;"), tr("shared prefix block")) +
                entry(QStringLiteral("<span style='color:#dc2626'>&#9700;</span>"),
                      tr("red corner: shared, the victim let go, others keep it"));
    }
    text += entry(QString(), tr("colour + pattern + label: owning request"));
    if (hybridPercent >= 0) text += QStringLiteral("<br>") + hybridLegendHtml(hybridPercent, true);
    legend_->setText(text);
}

// A block's owner at the cursor, for its tooltip: what it is doing, its context and the blocks it holds.
QString PoolView::ownerDetail(int request) const {
    const pl::Session* s = doc_->session();
    if (!s || request < 0 || static_cast<std::size_t>(request) >= s->workload().requests.size()) return {};
    const pl::RequestState& r = s->cursor().requests()[static_cast<std::size_t>(request)];
    const pl::RequestSpec& spec = s->workload().requests[static_cast<std::size_t>(request)];
    const std::string_view phase = pl::toString(r.phase);
    return tr("%1; context %2 tokens (prompt %3 + %4 generated); %5 blocks on the device")
        .arg(QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size())),
             groupedNumber(spec.prompt_tokens + r.generated_tokens), groupedNumber(spec.prompt_tokens),
             groupedNumber(r.generated_tokens), groupedNumber(r.blocks));
}

// Who needed the blocks (violet frame): a requester that evicted itself is said to have, so the pool is not
// read as another request taking its blocks.
QString PoolView::requesterText(const pl::Session& s) const {
    const auto& requesters = doc_->requestersAtCursor();
    const auto& self = doc_->selfEvictedAtCursor();
    if (requesters.empty()) {
        // Evicted here with no one request's need behind it (preempt-ahead, retract-decode); a tick with only a
        // swap-out landing has no eviction to have a requester.
        const auto& landed = doc_->victimsLandedAtCursor();
        const bool evictedHere = std::find(landed.begin(), landed.end(), std::uint8_t{0}) != landed.end();
        return evictedHere ? tr("; no requester: an engine rule evicted ahead of need (the \"why\" panel says which)")
                           : QString();
    }
    QStringList parts;
    for (const std::int32_t r : requesters) {
        const QString id = QString::fromStdString(s.workload().requests[static_cast<std::size_t>(r)].id);
        parts << (std::find(self.begin(), self.end(), r) != self.end()
                      ? tr("%1, which evicted itself (its own need, not another request's)").arg(id)
                      : id);
    }
    return tr("; requester (violet): %1").arg(parts.join(QStringLiteral(", ")));
}

void PoolView::refresh() {
    const pl::Session* s = doc_->session();
    if (!s) {
        grid_->setPool({}, {}, {});
        grid_->setSharing({}, {});
        grid_->setRequesters({});
        host_->setUsage(0, doc_->hasWorkload() ? doc_->workload().config.host_capacity_bytes : 0);
        figures_->setText(doc_->busy() ? tr("running...") : tr("no workload"));
        return;
    }
    const pl::Engine& e = s->cursor();
    const std::int64_t cap = s->workload().config.capacity_blocks;
    if (grid_->blockCount() != static_cast<int>(cap)) {
        QStringList names;
        names.reserve(static_cast<qsizetype>(s->workload().requests.size()));
        for (const auto& r : s->workload().requests) names << QString::fromStdString(r.id);
        grid_->setRequestNames(names);
    }
    grid_->setPool(static_cast<int>(cap), e.blockOwners(), e.blockInFlight(), doc_->victimBlockMask(),
                   doc_->victimBlockOwners());
    grid_->setRequesters(doc_->requestersAtCursor());
    if (e.prefixSharing()) {
        grid_->setSharing(e.blockRefCount(), e.blockPrefixId());
    } else {
        grid_->setSharing({}, {});
    }
    const pl::Policy& policy = s->workload().policy;
    setLegend(e.prefixSharing(), policy.recovery == pl::Recovery::Hybrid ? policy.hybrid_swap_percent : -1);
    host_->setUsage(e.hostBytes(), s->workload().config.host_capacity_bytes);
    const std::int64_t used = cap - e.freeBlocks();
    std::int64_t inFlight = 0;
    for (auto f : e.blockInFlight()) inFlight += f;
    QString text = tr("tick %1 / %2: %3 of %4 blocks used (%5%), %6 in flight, %7 waiting")
                       .arg(groupedNumber(s->currentTick()), groupedNumber(s->lastTick()), groupedNumber(used),
                            groupedNumber(cap))
                       .arg(cap > 0 ? used * 100 / cap : 0)
                       .arg(groupedNumber(inFlight), groupedNumber(e.waitingCount()));
    if (e.prefixSharing()) {
        std::int64_t shared = 0;
        std::int64_t cached = 0;
        const auto refs = e.blockRefCount();
        const auto ids = e.blockPrefixId();
        for (std::size_t b = 0; b < refs.size(); ++b) {
            shared += refs[b] >= 2 ? 1 : 0;
            cached += refs[b] == 0 && ids[b] >= 0 ? 1 : 0;
        }
        text += tr("; %1 shared, %2 free but cached").arg(groupedNumber(shared), groupedNumber(cached));
    }
    const auto& victims = doc_->victimsAtCursor();
    if (!victims.empty()) {
        QStringList ids;
        const auto& landed = doc_->victimsLandedAtCursor();
        const auto& evictedAt = doc_->victimsEvictedAtCursor();
        const auto owners = e.blockOwners();
        for (std::size_t i = 0; i < victims.size(); ++i) {
            QString id = QString::fromStdString(s->workload().requests[static_cast<std::size_t>(victims[i])].id);
            if (i < landed.size() && landed[i]) {
                // A swap-out that lands now belongs to an eviction ticks ago (the ledger's row is at that tick);
                // a victim holding blocks again resumed in this same tick and is copying back in.
                const bool back = std::find(owners.begin(), owners.end(), victims[i]) != owners.end();
                id += (back ? tr(" (its swap-out landed; evicted at tick %1; swapping back in)")
                            : tr(" (its swap-out landed; evicted at tick %1)"))
                          .arg(groupedNumber(evictedAt[i]));
            }
            ids << id;
        }
        const auto& mask = doc_->victimBlockMask();
        const auto reused = std::count(mask.begin(), mask.end(), RequestPalette::kVictimBlockReused);
        text += tr("; victim: %1").arg(ids.join(QStringLiteral(", ")));
        if (reused > 0) text += tr(" (%1 of its blocks already handed on)").arg(reused);
        if (const auto kept = doc_->victimSharedKeptAtCursor(); kept > 0) {
            text += tr("; %1 shared prefix blocks it let go stay with their other holders (red corner)").arg(groupedNumber(kept));
        }
        text += requesterText(*s);
    }
    figures_->setText(text);
}

} // namespace plui
