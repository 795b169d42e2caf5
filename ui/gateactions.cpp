#include "ui/gateactions.h"

#include "ui/backgroundjob.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"

#include "core/receipt.h"
#include "core/review/outcomes.h"
#include "core/session.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace plui {

namespace {

using GateOutcome = JobOutcome<pl::review::GateResult>;

const char* kBaselineKey = "gate/baseline";

// The dialog's fields, read into criteria; the reason (naming the field) when one does not parse.
struct GateForm {
    QLineEdit* baseline = nullptr;
    QLineEdit* ttft = nullptr;
    QLineEdit* tpot = nullptr;
    QLineEdit* goodput = nullptr;
    QLineEdit* queue = nullptr;
    QComboBox* percentile = nullptr;
    QLineEdit* preemptions = nullptr;

    std::optional<QString> read(pl::review::SloUnit unit, pl::review::GateCriteria& c) const {
        auto slo = [&](QLineEdit* field, const QString& name, std::optional<pl::review::Slo>& out) -> std::optional<QString> {
            const QString text = field->text().trimmed();
            if (text.isEmpty()) return std::nullopt;
            auto parsed = pl::review::parseSlo(text.toStdString(), unit);
            if (auto* why = std::get_if<std::string>(&parsed)) return name + QStringLiteral(": ") + QString::fromStdString(*why);
            out = std::get<pl::review::Slo>(parsed);
            return std::nullopt;
        };
        auto percent = [](QLineEdit* field, const QString& name, std::optional<std::int64_t>& out) -> std::optional<QString> {
            const QString text = field->text().trimmed();
            if (text.isEmpty()) return std::nullopt;
            out = pl::review::parsePercentBp(text.toStdString());
            if (!out) return name + QObject::tr(": a percentage with at most 2 decimals, got \"%1\"").arg(text);
            return std::nullopt;
        };
        if (auto e = slo(ttft, QObject::tr("TTFT SLO"), c.slos.ttft)) return e;
        if (auto e = slo(tpot, QObject::tr("TPOT SLO"), c.slos.tpot)) return e;
        if (auto e = percent(goodput, QObject::tr("Minimum goodput"), c.min_goodput_bp)) return e;
        if (auto e = percent(queue, QObject::tr("Queue delay regression"), c.max_queue_regression_bp)) return e;
        c.percentile = percentile->currentText().toInt();
        if (const QString text = preemptions->text().trimmed(); !text.isEmpty()) {
            bool ok = false;
            const qlonglong n = text.toLongLong(&ok);
            if (!ok || n < 0) return QObject::tr("Preemptions per request: a whole number of at least 0, got \"%1\"").arg(text);
            c.max_preemptions = n;
        }
        if (c.slos.any() && !c.min_goodput_bp) {
            return QObject::tr("Minimum goodput: the SLOs define goodput; give the share of requests that must meet them");
        }
        return std::nullopt;
    }
};

} // namespace

GateActions::GateActions(MainWindow* window)
    : QObject(window), window_(window),
      job_(new BackgroundJob(window, window->statusBar(), QStringLiteral("gateProgress"), this)) {
    connect(job_, &BackgroundJob::cancelled, this, [this]() { emit finished(false); });
}

bool GateActions::busy() const { return job_->busy(); }

void GateActions::waitForIdle() { job_->waitForIdle(); }

void GateActions::buildMenu(QMenu* menu) {
    auto* gate = menu->addAction(tr("&Gate Against a Baseline Receipt..."), this, &GateActions::askAndRun);
    gate->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    gate->setObjectName(QStringLiteral("gateAction"));
    gate->setStatusTip(tr("The run on screen as the candidate against a baseline receipt: conservation, replay, "
                          "goodput, queue delay and preemptions, as preemptlab-cli gate checks them"));
}

void GateActions::askAndRun() {
    const LabDocument* doc = window_->document();
    if (!doc->session()) {
        window_->reportError(tr("Gate"), tr("Open a workload first: the run on screen is the gate's candidate."));
        return;
    }
    const std::int64_t tickUs = doc->session()->workload().config.tick_us;
    const pl::review::SloUnit unit = tickUs > 0 ? pl::review::SloUnit::Micros : pl::review::SloUnit::Ticks;
    const QString unitText = tickUs > 0 ? tr("ms") : tr("ticks");

    QDialog dialog(window_);
    dialog.setWindowTitle(tr("Gate Against a Baseline Receipt"));
    dialog.setObjectName(QStringLiteral("gateDialog"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* intro = new QLabel(tr("The run on screen is the candidate. Both receipts must pass the conservation oracle "
                                "and replay identically; the other criteria apply where given (empty: not checked)."),
                             &dialog);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    layout->addLayout(form);
    GateForm f;
    auto* pick = new QWidget(&dialog);
    auto* pickRow = new QHBoxLayout(pick);
    pickRow->setContentsMargins(0, 0, 0, 0);
    f.baseline = new QLineEdit(QSettings().value(QLatin1String(kBaselineKey)).toString(), pick);
    f.baseline->setObjectName(QStringLiteral("gateBaseline"));
    auto* browse = new QPushButton(tr("Browse..."), pick);
    pickRow->addWidget(f.baseline, 1);
    pickRow->addWidget(browse);
    connect(browse, &QPushButton::clicked, &dialog, [&]() {
        const QString file = QFileDialog::getOpenFileName(&dialog, tr("Baseline receipt"), f.baseline->text(),
                                                          tr("Receipts (*.json);;All files (*)"));
        if (!file.isEmpty()) f.baseline->setText(file);
    });
    form->addRow(tr("Baseline receipt"), pick);
    auto field = [&](const QString& name, const QString& placeholder) {
        auto* edit = new QLineEdit(&dialog);
        edit->setObjectName(name);
        edit->setPlaceholderText(placeholder);
        return edit;
    };
    f.ttft = field(QStringLiteral("gateTtft"), tr("at most, in %1").arg(unitText));
    f.tpot = field(QStringLiteral("gateTpot"), tr("at most, in %1 per token").arg(unitText));
    f.goodput = field(QStringLiteral("gateGoodput"), tr("%, of all requests (censored ones miss)"));
    f.queue = field(QStringLiteral("gateQueue"), tr("% above the baseline's"));
    f.preemptions = field(QStringLiteral("gatePreemptions"), tr("of any one request"));
    f.percentile = new QComboBox(&dialog);
    f.percentile->addItems({QStringLiteral("50"), QStringLiteral("90"), QStringLiteral("99")});
    f.percentile->setCurrentText(QStringLiteral("90"));
    form->addRow(tr("TTFT SLO (%1)").arg(unitText), f.ttft);
    form->addRow(tr("TPOT SLO (%1)").arg(unitText), f.tpot);
    form->addRow(tr("Minimum goodput (%)"), f.goodput);
    form->addRow(tr("Queue delay regression (%)"), f.queue);
    form->addRow(tr("Queue delay percentile"), f.percentile);
    form->addRow(tr("Preemptions per request"), f.preemptions);
    auto* problem = new QLabel(&dialog);
    problem->setObjectName(QStringLiteral("gateProblem"));
    problem->setStyleSheet(QStringLiteral("color: #b91c1c"));
    problem->setWordWrap(true);
    layout->addWidget(problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run the Gate"));
    layout->addWidget(buttons);
    pl::review::GateCriteria criteria;
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&]() {
        criteria = {};
        if (f.baseline->text().trimmed().isEmpty()) {
            problem->setText(tr("Baseline receipt: choose the receipt to compare against"));
        } else if (auto why = f.read(unit, criteria)) {
            problem->setText(*why);
        } else {
            dialog.accept();
        }
    });
    if (dialog.exec() != QDialog::Accepted) return;
    QSettings().setValue(QLatin1String(kBaselineKey), f.baseline->text().trimmed());
    runGate(f.baseline->text().trimmed(), criteria);
}

bool GateActions::runGate(const QString& baselineFile, const pl::review::GateCriteria& criteria) {
    // The worker holds the run it judges: a newer run replacing it on screen meanwhile does not change it.
    const std::shared_ptr<const pl::Session> session = window_->document()->sharedSession();
    if (!session || job_->busy()) return false;
    const QString name = QFileInfo(baselineFile).fileName();
    return job_->start(
        {tr("Gating the run against %1...").arg(name), tr("Stopping the gate..."), tr("Gate cancelled")},
        [session, baseline = baselineFile.toStdString(), criteria](const std::atomic<bool>* stop) {
            return catchingOutcome<pl::review::GateResult>(QObject::tr("the gate could not be run"), [&](GateOutcome& out) {
                nlohmann::json base;
                if (auto read = pl::review::outcomesFromReceiptFile(baseline, &base);
                    auto* e = std::get_if<pl::InputError>(&read)) {
                    out.error = QString::fromStdString(e->message());
                    return;
                }
                const nlohmann::json candidate =
                    nlohmann::json::parse(pl::receiptText(session->workload(), session->result(), stop));
                auto gate = pl::review::runGate(base, baseline, candidate, "the run on screen", criteria);
                if (auto* e = std::get_if<pl::InputError>(&gate)) {
                    out.error = QString::fromStdString(e->message());
                } else {
                    out.value = std::get<pl::review::GateResult>(std::move(gate));
                }
            });
        },
        [this, session](GateOutcome outcome) {
            if (!outcome.value) {
                result_.reset();
                error_ = outcome.error;
                window_->reportError(tr("Gate not run"), error_);
                emit finished(false);
                return;
            }
            result_ = std::move(*outcome.value);
            error_.clear();
            window_->document()->setGateMarkdown(session, markdown(*result_));
            show(*result_);
            emit finished(result_->passed());
        });
}

QString GateActions::markdown(const pl::review::GateResult& result) {
    QString md = QStringLiteral("| criterion | baseline | candidate | threshold | verdict |\n|---|---|---|---|---|\n");
    int failed = 0;
    for (const auto& r : result.rows) {
        failed += r.passed ? 0 : 1;
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n")
                  .arg(QString::fromStdString(r.criterion), QString::fromStdString(r.baseline),
                       QString::fromStdString(r.candidate), QString::fromStdString(r.threshold),
                       r.passed ? QStringLiteral("pass") : QStringLiteral("**FAIL**"));
    }
    md += failed == 0 ? tr("\n**Gate: PASS** (%1 criteria).\n").arg(result.rows.size())
                      : tr("\n**Gate: FAIL** (%1 of %2 criteria failed).\n").arg(failed).arg(result.rows.size());
    return md;
}

void GateActions::show(const pl::review::GateResult& result) {
    const bool passed = result.passed();
    window_->statusBar()->showMessage(passed ? tr("Gate: PASS") : tr("Gate: FAIL"), 10000);
    auto* box = new QDialog(window_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("gateResult"));
    box->setWindowTitle(passed ? tr("Gate: PASS") : tr("Gate: FAIL"));
    auto* layout = new QVBoxLayout(box);
    int failed = 0;
    for (const auto& r : result.rows) failed += r.passed ? 0 : 1;
    auto* verdict = new QLabel(passed ? tr("<b>PASS</b>: every one of the %1 criteria holds.").arg(result.rows.size())
                                      : tr("<b style=\"color:#b91c1c\">FAIL</b>: %1 of %2 criteria failed.")
                                            .arg(failed)
                                            .arg(result.rows.size()),
                               box);
    layout->addWidget(verdict);
    // Core's rows, one criterion a line: what `preemptlab-cli gate` prints as its table.
    auto* table = new QTableWidget(static_cast<int>(result.rows.size()), 5, box);
    table->setObjectName(QStringLiteral("gateTable"));
    // The verdict second, so it stays in sight however wide the figures are.
    table->setHorizontalHeaderLabels({tr("criterion"), tr("verdict"), tr("baseline"), tr("candidate"), tr("threshold")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    for (int i = 0; i < static_cast<int>(result.rows.size()); ++i) {
        const auto& r = result.rows[static_cast<std::size_t>(i)];
        const QStringList cells{QString::fromStdString(r.criterion), r.passed ? tr("pass") : tr("FAIL"),
                                QString::fromStdString(r.baseline), QString::fromStdString(r.candidate),
                                QString::fromStdString(r.threshold)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(cells[c]);
            if (c == 1 && !r.passed) {
                item->setForeground(QColor(0xb9, 0x1c, 0x1c));
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            table->setItem(i, c, item);
        }
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    int width = table->verticalHeader()->width() + 4;
    for (int c = 0; c < table->columnCount(); ++c) width += table->columnWidth(c);
    int height = table->horizontalHeader()->height() + 4;
    for (int r = 0; r < table->rowCount(); ++r) height += table->rowHeight(r);
    table->setMinimumSize(std::min(width, 1500), height);
    layout->addWidget(table);
    auto* note = new QLabel(tr("The review bundle (Export) carries this table while this run is on screen; "
                               "preemptlab-cli gate gives the same verdict for the two receipts."),
                            box);
    note->setWordWrap(true);
    layout->addWidget(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, box);
    connect(buttons, &QDialogButtonBox::rejected, box, &QDialog::close);
    layout->addWidget(buttons);
    box->show();
}

} // namespace plui
