#include "ui/ledgerview.h"

#include "ui/bytestext.h"
#include "ui/labdocument.h"
#include "ui/labtheme.h"
#include "ui/ledgermodel.h"
#include "ui/rowtable.h"
#include "ui/victimranking.h"

#include "core/session.h"
#include "core/victim.h"

#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace plui {

namespace {

QString ticksText(std::int64_t n) { return n == 1 ? LedgerView::tr("1 tick") : LedgerView::tr("%1 ticks").arg(groupedNumber(n)); }

} // namespace

LedgerView::LedgerView(LabDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    model_ = new LedgerModel(this);
    table_ = makeRowTable(split, model_, QStringLiteral("ledgerTable"));
    table_->setAlternatingRowColors(true);
    table_->horizontalHeader()->setStretchLastSection(false);
    auto* lower = new QWidget(split);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    // The explanation scrolls rather than being cut off when the dock is short: at least four lines show, and
    // the candidates table below gives up height first.
    auto* whyScroll = new QScrollArea(lower);
    whyScroll->setWidgetResizable(true);
    whyScroll->setFrameShape(QFrame::NoFrame);
    whyScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    why_ = new QLabel(tr("Select a ledger row to see why that victim was chosen."), whyScroll);
    why_->setObjectName(QStringLiteral("whyText"));
    why_->setWordWrap(true);
    why_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    why_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    whyScroll->setWidget(why_);
    whyScroll->setMinimumHeight(why_->fontMetrics().lineSpacing() * 4 + 4);
    candidates_ = new QTableWidget(lower);
    candidates_->setObjectName(QStringLiteral("candidateTable"));
    candidates_->setColumnCount(9);
    candidates_->setHorizontalHeaderLabels({tr("rank"), tr("request"), tr("rule key"), tr("priority"),
                                            tr("arrival"), tr("context"), tr("generated"), tr("blocks"),
                                            tr("admit seq")});
    candidates_->verticalHeader()->setVisible(false);
    candidates_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Columns as wide as their contents, the rest of the row left empty: a stretched last column put its
    // right-aligned numbers a screen away from the rest of the row.
    candidates_->horizontalHeader()->setStretchLastSection(false);
    lowerLayout->addWidget(whyScroll, 1);
    lowerLayout->addWidget(candidates_, 2);
    split->addWidget(table_);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);

    // Selection, not the current index: focusing the table moves the current index without selecting, and
    // that must not move the lab.
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this]() {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        if (rows.isEmpty() || !doc_->session()) return;
        const int row = rows.first().row();
        const auto ev = model_->eventIndex(row);
        const pl::Event& e = doc_->session()->result().ledger.events[static_cast<std::size_t>(ev)];
        doc_->seek(e.tick);
        doc_->selectRequest(e.request);
        showCandidates(row);
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Session) {
            model_->setSession(doc_->session(), doc_->liveRun());
            // Columns that say nothing here are hidden: device times outside a live run, shared blocks
            // without prefix sharing.
            table_->setColumnHidden(LedgerModel::MeasuredUs, !model_->hasLive());
            table_->setColumnHidden(LedgerModel::ModelledUs, !model_->hasLive());
            table_->setColumnHidden(LedgerModel::SharedKept,
                                    !doc_->session() || !pl::sharesPrefixes(doc_->session()->workload()));
            table_->resizeColumnsToContents();
            candidates_->setRowCount(0);
            why_->setText(model_->rowCount() == 0 ? tr("No evictions in this run: the pool never ran out.")
                                                  : tr("%1 evictions. Select a row to see why that victim was chosen.")
                                                        .arg(model_->rowCount()));
        }
        if (what & (LabChangeKind::Session | LabChangeKind::Cursor)) followCursor();
    });
}

// Stepping onto a tick with an eviction highlights its ledger row and explains the choice, without selecting
// the victim in the lab (that stays the user's click); a row the user picked at this tick is kept.
void LedgerView::followCursor() {
    const pl::Session* s = doc_->session();
    if (!s) return;
    const std::int64_t tick = doc_->currentTick();
    const int row = model_->firstRowAtOrAfter(tick);
    if (row < 0 || s->result().ledger.events[static_cast<std::size_t>(model_->eventIndex(row))].tick != tick) return;
    const QModelIndexList picked = table_->selectionModel()->selectedRows();
    if (!picked.isEmpty()) {
        const auto ev = model_->eventIndex(picked.first().row());
        if (ev >= 0 && s->result().ledger.events[static_cast<std::size_t>(ev)].tick == tick) return;
    }
    {
        const QSignalBlocker quiet(table_->selectionModel());
        table_->selectRow(row);
        table_->scrollTo(model_->index(row, 0));
    }
    table_->viewport()->update();
    showCandidates(row);
}

void LedgerView::selectRow(int row) {
    if (row < 0 || row >= model_->rowCount()) return;
    table_->selectRow(row);
    table_->setCurrentIndex(model_->index(row, 0));
    table_->scrollTo(model_->index(row, 0));
}

QString LedgerView::whyText() const { return why_->text(); }

// What made the engine evict (the pressure event the evict answers): who needed how many blocks with how many
// free, or which engine rule fired; said first, so a requester that evicted itself is not read as a victim of
// someone else's need.
QString LedgerView::causeText(const pl::Session& s, std::size_t evictIndex) {
    const auto& ledger = s.result().ledger;
    const pl::EvictionCause cause = pl::evictionCause(ledger, evictIndex);
    if (cause.pressure < 0) return {};
    const pl::Event& p = ledger.events[static_cast<std::size_t>(cause.pressure)];
    const pl::Event& e = ledger.events[evictIndex];
    const auto& reqs = s.workload().requests;
    const QString who = p.request >= 0 ? QString::fromStdString(reqs[static_cast<std::size_t>(p.request)].id).toHtmlEscaped()
                                       : QString();
    const QString need = p.need_blocks == 1 ? tr("1 block") : tr("%1 blocks").arg(groupedNumber(p.need_blocks));
    const QString free = p.free_blocks == 1 ? tr("1 was free") : tr("%1 were free").arg(groupedNumber(p.free_blocks));
    QString text;
    switch (p.trigger) {
    case pl::PressureTrigger::AllocationFailed:
        text = who.isEmpty() ? tr("<b>Cause:</b> %1 needed; %2 (allocation failed).").arg(need, free)
                             : tr("<b>Cause:</b> <b>%1</b> needed %2 more to run this tick; %3 (allocation failed).")
                                   .arg(who, need, free);
        if (p.request == e.request) {
            text += tr(" It was itself the candidate with the greatest key, so <b>it evicted itself</b>: no other "
                       "request's need pushed it out; its own blocks went back to the pool (others may take them in "
                       "this tick) and it waits in the queue.");
        }
        break;
    case pl::PressureTrigger::PreemptAhead:
        text = tr("<b>Cause: preempt-ahead.</b> The running requests' growth this tick plus the watermark need %1; "
                  "%2, so a victim was taken before any allocation failed.")
                   .arg(need, free);
        break;
    case pl::PressureTrigger::RetractDecode:
        text = tr("<b>Cause:</b> SGLang's retract_decode: the decode batch's next step needs %1; %2, so requests "
                  "are retracted until the rest fits.")
                   .arg(need, free);
        break;
    case pl::PressureTrigger::RequestCap:
        text = tr("<b>Cause:</b> TensorRT-LLM's request cap: <b>%1</b> fits (%2 needed; %3), but max_num_seqs "
                  "requests are already scheduled, so the last started one is paused.")
                   .arg(who, need, free);
        break;
    }
    if (cause.evictions > 1) text += tr(" This is eviction %1 of %2 for it.").arg(cause.nth).arg(cause.evictions);
    return text + QStringLiteral("<br>");
}

QString LedgerView::outcomeText(const pl::Session& s, std::size_t evictIndex) {
    const auto& events = s.result().ledger.events;
    const pl::EvictionOutcome out = pl::evictionOutcome(s.result().ledger, evictIndex);
    QString text;
    if (out.resume >= 0) {
        const pl::Event& r = events[static_cast<std::size_t>(out.resume)];
        text = tr("<br><b>Afterwards:</b> it came back at tick %1 (%2)")
                   .arg(groupedNumber(r.tick), QString::fromUtf8(pl::toString(r.mode).data()));
        if (r.cached_tokens > 0) {
            text += pl::cachesOwnBlocks(s.workload())
                        ? tr(", taking %1 tokens from the prefix cache (vLLM's enable_prefix_caching: the blocks of "
                             "its context that nobody took meanwhile)")
                              .arg(groupedNumber(r.cached_tokens))
                        : tr(", taking %1 tokens of its prefix from the prefix cache").arg(groupedNumber(r.cached_tokens));
        }
        text += r.replay_tokens > 0 ? tr(", replaying %1.").arg(groupedNumber(r.replay_tokens)) : tr(".");
        if (out.next_evict >= 0) {
            text += tr(" It was evicted again at tick %1.").arg(groupedNumber(events[static_cast<std::size_t>(out.next_evict)].tick));
        }
    } else if (out.end >= 0 && events[static_cast<std::size_t>(out.end)].kind == pl::EventKind::Censor) {
        text = tr("<br><b>Afterwards:</b> it never came back; the run ended (max_ticks) with it still waiting.");
    }
    return text;
}

namespace {
QString whatIf(const std::string& words) {
    return words.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(words).toHtmlEscaped());
}
} // namespace

void LedgerView::showCandidates(int row) {
    const pl::Session* s = doc_->session();
    const auto ev = model_->eventIndex(row);
    if (!s || ev < 0) return;
    const auto& ledger = s->result().ledger;
    const pl::Event& e = ledger.events[static_cast<std::size_t>(ev)];
    const auto ranked = rankedCandidates(*s, ev);
    const auto& reqs = s->workload().requests;
    const QString victim = QString::fromStdString(reqs[static_cast<std::size_t>(e.request)].id);
    // Under an engine profile the engine's own rule comes first, in its words.
    const QString engineRule = QString::fromStdString(pl::engineVictimRule(s->workload().policy));
    why_->setText(causeText(*s, static_cast<std::size_t>(ev)) +
                  (engineRule.isEmpty() ? QString() : QStringLiteral("<b>%1.</b> ").arg(engineRule.toHtmlEscaped())) +
                  tr("<b>Why %1?</b> Rule <b>%2</b> takes the candidate with the greatest key %3. "
                     "Pool before the eviction: %4 of %5 blocks occupied; %6 candidates%10. Estimates: recompute %7, "
                     "swap %8; mode used: %9.")
                      .arg(victim.toHtmlEscaped(),
                           QString::fromUtf8(pl::toString(s->workload().policy.victim_rule).data()),
                           victimKeyDescription(*s))
                      .arg(groupedNumber(e.occupied_blocks), groupedNumber(e.capacity_blocks),
                           groupedNumber(e.candidates_total))
                      .arg(ticksText(e.est_recompute_ticks), ticksText(e.est_swap_ticks))
                      .arg(QString::fromUtf8(pl::toString(e.mode).data()) +
                           whatIf(pl::engineRecoveryWhatIf(s->workload().policy, e.mode)))
                      .arg(static_cast<std::int64_t>(ranked.size()) < e.candidates_total
                               ? tr(" (the %1 with the greatest keys shown, as the receipt lists them; a run of at "
                                    "most %2 requests keeps them all)")
                                     .arg(groupedNumber(static_cast<std::int64_t>(ranked.size())),
                                          groupedNumber(static_cast<std::int64_t>(pl::kWholeCandidateListRequests)))
                               : QString()) +
                  outcomeText(*s, static_cast<std::size_t>(ev)));
    candidates_->setRowCount(static_cast<int>(ranked.size()));
    for (int i = 0; i < static_cast<int>(ranked.size()); ++i) {
        const pl::Candidate& c = ranked[static_cast<std::size_t>(i)].candidate;
        const QStringList cells{groupedNumber(i + 1),
                                QString::fromStdString(reqs[static_cast<std::size_t>(c.request)].id),
                                ranked[static_cast<std::size_t>(i)].key,
                                groupedNumber(c.priority),
                                groupedNumber(c.arrival_tick),
                                groupedNumber(c.context_tokens),
                                groupedNumber(c.generated_tokens),
                                groupedNumber(c.blocks),
                                groupedNumber(c.admit_seq)};
        for (int col = 0; col < cells.size(); ++col) {
            auto* item = new QTableWidgetItem(cells[col]);
            if (col != 1 && col != 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter); // counts
            if (c.request == e.request) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                item->setBackground(chosenRowTint(QGuiApplication::palette())); // pale red, deep red when dark
            }
            candidates_->setItem(i, col, item);
        }
    }
    candidates_->resizeColumnsToContents();
}

} // namespace plui
