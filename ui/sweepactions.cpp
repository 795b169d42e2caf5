#include "ui/sweepactions.h"

#include "ui/backgroundjob.h"
#include "ui/labdocument.h"
#include "ui/labslos.h"
#include "ui/mainwindow.h"
#include "ui/sweepview.h"

#include "core/atomic_file.h"
#include "core/cost/sweep_read.h"
#include "core/cost/sweep_shards.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>

namespace plui {

namespace {

using SweepOutcome = JobOutcome<pl::cost::SweepResult>;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A word for a shell command line: quoted when it holds anything but the plainest characters.
QString shellWord(const QString& w) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=,+@%-]+$"));
    if (plain.match(w).hasMatch()) return w;
    QString q = w;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

// The keys a sweep may vary: every config and policy key but the recovery mode (the modes are what it compares).
QStringList sweepKeys() {
    QStringList keys;
    for (const auto& list : {pl::configKeys(), pl::policyKeys()}) {
        for (const auto key : list) {
            if (key != "recovery") keys << QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()));
        }
    }
    return keys;
}

// A first range for `key` around the workload's value: half to one and a half times it in about ten steps
// for a whole number, the value alone otherwise.
QString defaultValues(const LabDocument* doc, const QString& key) {
    const QString now = doc->settingValue(key);
    bool whole = false;
    const qlonglong v = now.toLongLong(&whole);
    if (!whole || v < 2) return now;
    const qlonglong lo = std::max<qlonglong>(1, v / 2);
    const qlonglong hi = v + v / 2;
    const qlonglong step = std::max<qlonglong>(1, (hi - lo) / 10);
    return QStringLiteral("%1:%2:%3").arg(lo).arg(hi).arg(step);
}

struct AxisRow {
    QComboBox* key = nullptr;
    QLineEdit* values = nullptr;
};

} // namespace

SweepActions::SweepActions(MainWindow* window, SweepView* view)
    : QObject(window), window_(window), view_(view),
      job_(new BackgroundJob(window, window->statusBar(), QStringLiteral("sweepProgress"), this)) {
    connect(job_, &BackgroundJob::cancelled, this, [this]() { emit finished(false); });
    connect(view_, &SweepView::runRequested, this, &SweepActions::askAndRun);
    connect(view_, &SweepView::openRequested, this, &SweepActions::askAndOpen);
    connect(view_, &SweepView::shardPlanRequested, this, &SweepActions::askShardPlan);
    connect(view_, &SweepView::pointActivated, this, [this](std::size_t index) { openPoint(index); });
}

bool SweepActions::busy() const { return job_->busy(); }
void SweepActions::waitForIdle() { job_->waitForIdle(); }
void SweepActions::cancel() { job_->cancel(); }

void SweepActions::buildMenu(QMenu* menu) {
    sweep_ = menu->addAction(tr("S&weep..."), this, &SweepActions::askAndRun);
    sweep_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    sweep_->setObjectName(QStringLiteral("sweepAction"));
    sweep_->setStatusTip(tr("Every recovery mode over one or two settings of the open workload: where the winner "
                            "flips (the crossover map), as preemptlab-cli sweep computes it"));
    auto* open = menu->addAction(tr("Open Sweep &Result..."), this, &SweepActions::askAndOpen);
    open->setObjectName(QStringLiteral("openSweepAction"));
    open->setStatusTip(tr("Show a sweep written by preemptlab-cli sweep --out F.json or sweep-merge --out F.json"));
    auto* plan = menu->addAction(tr("Export Shard &Plan..."), this, &SweepActions::askShardPlan);
    plan->setObjectName(QStringLiteral("shardPlanAction"));
    plan->setStatusTip(tr("The shown sweep split into shards for a Slurm job array, with the two commands to submit it"));
}

bool SweepActions::fail(const QString& title, const QString& message) {
    error_ = message;
    window_->reportError(title, message);
    return false;
}

void SweepActions::askAndRun() {
    LabDocument* doc = window_->document();
    if (!doc->hasWorkload()) {
        fail(tr("Sweep"), tr("Open a workload first: a sweep runs the open workload at every point of its grid."));
        return;
    }
    QDialog dialog(window_);
    dialog.setWindowTitle(tr("Sweep"));
    dialog.setObjectName(QStringLiteral("sweepDialog"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* intro = new QLabel(tr("Runs every chosen recovery mode at every point of the grid (one or two settings) "
                                "and names the winner of each point by the metric, as <tt>preemptlab-cli sweep</tt> "
                                "does. Values: LO:HI:STEP (whole numbers, bytes as 1G) or V1,V2,..."),
                             &dialog);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    layout->addLayout(form);
    const QStringList keys = sweepKeys();
    auto axisRow = [&](const QString& name, const QString& key) {
        AxisRow row;
        auto* box = new QWidget(&dialog);
        auto* h = new QHBoxLayout(box);
        h->setContentsMargins(0, 0, 0, 0);
        row.key = new QComboBox(box);
        row.key->setObjectName(name + QStringLiteral("Key"));
        row.key->addItems(keys);
        row.key->setCurrentText(key);
        row.values = new QLineEdit(defaultValues(doc, key), box);
        row.values->setObjectName(name + QStringLiteral("Values"));
        row.values->setPlaceholderText(tr("LO:HI:STEP or V1,V2,..."));
        row.values->setMinimumWidth(row.values->fontMetrics().horizontalAdvance(QStringLiteral("1048576:4194304:524288")) + 16);
        h->addWidget(row.key);
        h->addWidget(row.values, 1);
        connect(row.key, &QComboBox::currentTextChanged, &dialog,
                [row, doc](const QString& k) { row.values->setText(defaultValues(doc, k)); });
        return std::pair{row, box};
    };
    auto [first, firstBox] = axisRow(QStringLiteral("sweepAxis1"), QStringLiteral("capacity_blocks"));
    form->addRow(tr("Axis"), firstBox);
    auto* second = new QCheckBox(tr("Second axis (a heat map)"), &dialog);
    second->setObjectName(QStringLiteral("sweepSecondAxis"));
    auto [two, twoBox] = axisRow(QStringLiteral("sweepAxis2"), QStringLiteral("transfer_bytes_per_tick"));
    twoBox->setEnabled(false);
    connect(second, &QCheckBox::toggled, twoBox, &QWidget::setEnabled);
    form->addRow(second, twoBox);
    auto* modesBox = new QWidget(&dialog);
    auto* modesRow = new QHBoxLayout(modesBox);
    modesRow->setContentsMargins(0, 0, 0, 0);
    std::vector<std::pair<pl::Recovery, QCheckBox*>> modes;
    for (auto m : {pl::Recovery::Recompute, pl::Recovery::Swap, pl::Recovery::Adaptive, pl::Recovery::Hybrid}) {
        auto* check = new QCheckBox(QString::fromUtf8(pl::toString(m).data()), modesBox);
        check->setChecked(true);
        modesRow->addWidget(check);
        modes.emplace_back(m, check);
    }
    form->addRow(tr("Modes"), modesBox);
    auto* metric = new QComboBox(&dialog);
    metric->setObjectName(QStringLiteral("sweepMetric"));
    metric->addItems(qs(pl::cost::sweepMetricNames()).split(QStringLiteral(", ")));
    form->addRow(tr("Metric (lower wins)"), metric);
    auto* problem = new QLabel(&dialog);
    problem->setObjectName(QStringLiteral("sweepProblem"));
    problem->setStyleSheet(QStringLiteral("color: #b91c1c"));
    problem->setWordWrap(true);
    layout->addWidget(problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run the Sweep"));
    layout->addWidget(buttons);
    SweepRequest request;
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&, first = first, two = two]() {
        request = {};
        request.vary << first.key->currentText() + QLatin1Char('=') + first.values->text().trimmed();
        if (second->isChecked()) request.vary << two.key->currentText() + QLatin1Char('=') + two.values->text().trimmed();
        for (const auto& [m, check] : modes) {
            if (check->isChecked()) request.modes.push_back(m);
        }
        request.metric = *pl::cost::parseSweepMetric(metric->currentText().toStdString());
        if (request.modes.empty()) {
            problem->setText(tr("Modes: choose at least one"));
            return;
        }
        for (const QString& v : request.vary) {
            const auto axis = pl::cost::parseSweepAxis(v.toStdString());
            if (const auto* e = std::get_if<pl::InputError>(&axis)) {
                problem->setText(qs(e->message()));
                return;
            }
        }
        dialog.accept();
    });
    if (dialog.exec() != QDialog::Accepted) return;
    runSweep(request);
}

bool SweepActions::runSweep(const SweepRequest& request) {
    const LabDocument* doc = window_->document();
    if (!doc->hasWorkload()) return fail(tr("Sweep"), tr("Open a workload first"));
    if (job_->busy()) return fail(tr("Sweep"), tr("A sweep is running; cancel it first"));
    pl::cost::SweepSpec spec;
    std::size_t points = 1;
    for (const QString& v : request.vary) {
        auto axis = pl::cost::parseSweepAxis(v.toStdString());
        if (auto* e = std::get_if<pl::InputError>(&axis)) return fail(tr("Sweep"), qs(e->message()));
        auto& a = std::get<pl::cost::SweepAxis>(axis);
        for (const auto& earlier : spec.axes) {
            if (earlier.key == a.key) return fail(tr("Sweep"), tr("--vary %1: varied twice").arg(qs(a.key)));
        }
        points *= a.values.size();
        spec.axes.push_back(std::move(a));
    }
    if (spec.axes.empty() || spec.axes.size() > 2) return fail(tr("Sweep"), tr("--vary: the view sweeps one or two axes"));
    spec.modes = request.modes;
    spec.metric = request.metric;
    spec.threads = request.threads;
    // slo-misses ranks by the lab's SLOs (the Distributions view's fields: ms with tick_us, else ticks).
    if (spec.metric == pl::cost::SweepMetric::SloMisses) {
        spec.slos = window_->slos()->forTick(doc->workload().config.tick_us);
        if (!spec.slos.any()) {
            return fail(tr("Sweep"), tr("slo-misses ranks the modes by the requests that miss the lab's SLOs: set a "
                                        "TTFT or TPOT SLO in the Distributions view first"));
        }
    }
    auto workload = std::make_shared<const pl::Workload>(doc->workload());
    const QString file = doc->onDisk() ? doc->sourceName() : QString();
    const int steps = static_cast<int>(std::min<std::size_t>(points, 1'000'000));
    return job_->start(
        {tr("Sweeping %1 points...").arg(points), tr("Stopping the sweep..."), tr("Sweep cancelled"), steps},
        [workload, spec](const std::atomic<bool>* stop, std::atomic<int>* done) {
            return catchingOutcome<pl::cost::SweepResult>(QObject::tr("the sweep could not be run"), [&](SweepOutcome& out) {
                auto r = pl::cost::runSweep(*workload, spec,
                                            [done](std::size_t d, std::size_t) { *done = static_cast<int>(d); }, stop);
                if (auto* e = std::get_if<pl::InputError>(&r)) {
                    out.error = qs(e->message());
                } else {
                    out.value = std::get<pl::cost::SweepResult>(std::move(r));
                }
            });
        },
        [this, workload, file, vary = request.vary](SweepOutcome outcome) {
            if (!outcome.value) {
                fail(tr("Sweep not run"), outcome.error);
                emit finished(false);
                return;
            }
            base_ = *workload;
            workloadFile_ = file;
            vary_ = vary;
            error_.clear();
            view_->setResult(std::move(*outcome.value), tr("the open workload"));
            window_->view(QStringLiteral("sweep"));
            emit finished(true);
        });
}

void SweepActions::askAndOpen() {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Sweep Result"), {},
                                                      tr("Sweep results (*.json);;All files (*)"));
    if (!path.isEmpty()) openResult(path);
}

bool SweepActions::openResult(const QString& path) {
    if (job_->busy()) return fail(tr("Open Sweep Result"), tr("A sweep is running; cancel it first"));
    return job_->start(
        {tr("Reading %1...").arg(QFileInfo(path).fileName()), tr("Stopping..."), tr("Reading cancelled")},
        [file = path.toStdString()](const std::atomic<bool>* stop) {
            return catchingOutcome<pl::cost::SweepResult>(QObject::tr("the sweep result could not be read"), [&](SweepOutcome& out) {
                auto r = pl::cost::loadSweepResultFile(file, stop);
                if (auto* e = std::get_if<pl::InputError>(&r)) {
                    out.error = qs(e->message());
                } else {
                    out.value = std::get<pl::cost::SweepResult>(std::move(r));
                }
            });
        },
        [this, path](SweepOutcome outcome) {
            if (!outcome.value) {
                fail(tr("Cannot open sweep result"), outcome.error);
                emit finished(false);
                return;
            }
            base_.reset();
            workloadFile_.clear();
            vary_.clear();
            error_.clear();
            view_->setResult(std::move(*outcome.value), QFileInfo(path).fileName());
            window_->view(QStringLiteral("sweep"));
            emit finished(true);
        });
}

const pl::Workload* SweepActions::baseWorkload(QString* why) const {
    if (base_) return &*base_;
    const LabDocument* doc = window_->document();
    const auto& r = view_->result();
    if (!doc->hasWorkload()) {
        *why = tr("open the sweep's workload (%1) first: the result file holds the figures, not the workload")
                   .arg(r ? qs(r->workload_name) : QString());
        return nullptr;
    }
    if (r && doc->workload().name != r->workload_name) {
        *why = tr("the open workload is \"%1\", the sweep's is \"%2\": open the sweep's workload first")
                   .arg(qs(doc->workload().name), qs(r->workload_name));
        return nullptr;
    }
    return &doc->workload();
}

bool SweepActions::openPoint(std::size_t index) {
    const auto& r = view_->result();
    if (!r || index >= r->points.size()) return false;
    QString why;
    const pl::Workload* base = baseWorkload(&why);
    if (!base) return fail(tr("Open sweep point"), why);
    const auto& p = r->points[index];
    auto made = pl::cost::sweepPointWorkload(*base, r->spec.axes, p.values);
    if (auto* e = std::get_if<pl::InputError>(&made)) return fail(tr("Open sweep point"), qs(e->message()));
    pl::Workload w = std::get<pl::Workload>(std::move(made));
    // The run shown is the winner's (the first mode of a tie).
    const std::string winner = p.winner.substr(0, p.winner.find('='));
    if (auto mode = pl::parseRecovery(winner)) w.policy.recovery = *mode;
    QStringList at;
    for (std::size_t a = 0; a < r->spec.axes.size(); ++a) at << qs(r->spec.axes[a].key) + QLatin1Char('=') + qs(p.values[a]);
    at << QStringLiteral("recovery=") + qs(winner);
    QString error;
    if (!window_->document()->replaceWorkload(std::move(w), tr("Open sweep point %1").arg(at.join(QStringLiteral(", "))), &error)) {
        return fail(tr("Open sweep point"), error);
    }
    error_.clear();
    window_->statusBar()->showMessage(tr("Opened the sweep's point %1 (Undo returns)").arg(at.join(QStringLiteral(", "))), 10000);
    return true;
}

QString SweepActions::submitCommands(int shards) const {
    const auto& r = view_->result();
    if (!r) return {};
    QStringList args{QStringLiteral("scripts/slurm/submit-sweep.sh"), QStringLiteral("--shards"), QString::number(shards),
                     QStringLiteral("--cpus"), QStringLiteral("4"), QStringLiteral("--out"), QStringLiteral("sweep.csv"),
                     QStringLiteral("--")};
    args << shellWord(workloadFile_.isEmpty() ? qs(r->workload_name) + QStringLiteral(".workload.json") : workloadFile_);
    for (std::size_t a = 0; a < r->spec.axes.size(); ++a) {
        QString vary = a < static_cast<std::size_t>(vary_.size()) ? vary_[static_cast<qsizetype>(a)] : QString();
        if (vary.isEmpty()) {
            QStringList values;
            for (const auto& v : r->spec.axes[a].values) values << qs(v);
            vary = qs(r->spec.axes[a].key) + QLatin1Char('=') + values.join(QLatin1Char(','));
        }
        args << QStringLiteral("--vary") << shellWord(vary);
    }
    QStringList modes;
    for (auto m : r->spec.modes) modes << QString::fromUtf8(pl::toString(m).data());
    args << QStringLiteral("--modes") << modes.join(QLatin1Char(',')) << QStringLiteral("--metric")
         << QString::fromUtf8(pl::cost::toString(r->spec.metric).data());
    // The sweep's SLOs, as the CLI takes them (an ms SLO is whole microseconds, written exactly: "12.5").
    for (const auto& [slo, name] : {std::pair{&r->spec.slos.ttft, "ttft"}, std::pair{&r->spec.slos.tpot, "tpot"}}) {
        if (!slo->has_value()) continue;
        const std::int64_t v = (*slo)->value;
        if ((*slo)->unit == pl::review::SloUnit::Ticks) {
            args << QStringLiteral("--slo-%1-ticks").arg(QLatin1String(name)) << QString::number(v);
            continue;
        }
        QString ms = QString::number(v / 1000);
        if (v % 1000 != 0) {
            QString frac = QString::number(v % 1000).rightJustified(3, QLatin1Char('0'));
            while (frac.endsWith(QLatin1Char('0'))) frac.chop(1);
            ms += QLatin1Char('.') + frac;
        }
        args << QStringLiteral("--slo-%1-ms").arg(QLatin1String(name)) << ms;
    }
    return args.join(QLatin1Char(' ')) + QStringLiteral("\nsqueue --me\n");
}

void SweepActions::askShardPlan() {
    if (!view_->result()) {
        fail(tr("Export Shard Plan"), tr("Run a sweep or open a sweep result first"));
        return;
    }
    bool ok = false;
    const int shards = QInputDialog::getInt(window_, tr("Export Shard Plan"), tr("Shards (Slurm array tasks):"), 4, 1,
                                            100000, 1, &ok);
    if (!ok) return;
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export Shard Plan"), QStringLiteral("sweep-plan.json"),
                                                      tr("Shard plans (*.json)"));
    if (path.isEmpty()) return;
    if (exportShardPlan(path, shards)) {
        QMessageBox::information(window_, tr("Shard plan written"),
                                 tr("%1 and its commands. On a Slurm login node:\n\n%2").arg(path, submitCommands(shards)));
    }
}

bool SweepActions::exportShardPlan(const QString& path, int shards) {
    const auto& r = view_->result();
    if (!r) return fail(tr("Export Shard Plan"), tr("Run a sweep or open a sweep result first"));
    if (!path.endsWith(QStringLiteral(".json"))) return fail(tr("Export Shard Plan"), tr("%1: must end in .json").arg(path));
    QString why;
    const pl::Workload* base = baseWorkload(&why);
    if (!base) return fail(tr("Export Shard Plan"), why);
    pl::cost::SweepSpec spec = r->spec;
    auto plan = pl::cost::sweepShardPlan(*base, spec, static_cast<std::size_t>(std::max(1, shards)));
    if (auto* e = std::get_if<pl::InputError>(&plan)) return fail(tr("Export Shard Plan"), qs(e->message()));
    const std::string planText = std::get<nlohmann::json>(plan).dump(2) + "\n";
    const QString commandsPath = path.chopped(5) + QStringLiteral("-submit.txt");
    const std::string commands =
        "# The sweep of " + r->workload_name + " in " + std::to_string(shards) +
        " shards (plan: " + QFileInfo(path).fileName().toStdString() +
        "). On a Slurm login node, with preemptlab-cli on PATH and this folder on a file system the nodes share\n"
        "# (docs/sweep-shards.md); the array, then the merge once every shard succeeded:\n" +
        submitCommands(shards).toStdString();
    if (auto err = pl::writeFilesAtomically(std::vector<std::pair<std::string, std::string>>{
            {path.toStdString(), planText}, {commandsPath.toStdString(), commands}})) {
        return fail(tr("Export Shard Plan"), qs(*err));
    }
    error_.clear();
    window_->statusBar()->showMessage(tr("Wrote %1 and %2").arg(path, commandsPath), 10000);
    return true;
}

} // namespace plui
