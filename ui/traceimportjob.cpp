#include "ui/traceimportjob.h"

#include "core/cost/tick_rates.h"
#include "core/workload_io.h"

#include <QFileInfo>
#include <QStringList>

#include <exception>

namespace plui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// value / 10^digits as exact decimal text without trailing zeros ("600", "0.25").
QString decimal(std::int64_t value, int digits) {
    std::int64_t scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    QString text = QString::number(value / scale);
    const std::int64_t frac = value % scale;
    if (frac != 0) {
        QString f = QString::number(frac).rightJustified(digits, QLatin1Char('0'));
        while (f.endsWith(QLatin1Char('0'))) f.chop(1);
        text += QLatin1Char('.') + f;
    }
    return text;
}

// Shell-safe enough for a note: quote anything that is not a plain word.
QString quoted(const QString& s) {
    static const QString plain = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,");
    for (const QChar c : s) {
        if (!plain.contains(c)) return QLatin1Char('\'') + QString(s).replace(QStringLiteral("'"), QStringLiteral("'\\''")) + QLatin1Char('\'');
    }
    return s.isEmpty() ? QStringLiteral("''") : s;
}

} // namespace

pl::trace::TraceFormat guessTraceFormat(const QString& path) {
    return path.endsWith(QStringLiteral(".jsonl"), Qt::CaseInsensitive) ? pl::trace::TraceFormat::Mooncake
                                                                        : pl::trace::TraceFormat::Azure;
}

QString importCommandLine(const TraceImportJob& job) {
    const auto& o = job.options;
    QStringList args{QStringLiteral("preemptlab-cli import-trace --format"),
                     QString::fromLatin1(pl::trace::toString(job.format).data(),
                                         static_cast<qsizetype>(pl::trace::toString(job.format).size())),
                     quoted(job.path), QStringLiteral("--tick-ms"), decimal(o.tick_us, 3)};
    if (o.start_us != 0) args << QStringLiteral("--start") << decimal(o.start_us, 6);
    if (o.duration_us) args << QStringLiteral("--duration") << decimal(*o.duration_us, 6);
    if (o.limit) args << QStringLiteral("--limit") << QString::number(*o.limit);
    if (o.rate_scale != pl::trace::Rational{1, 1}) {
        // num/den is reduced from a decimal with at most 6 fraction digits, so this is exact.
        args << QStringLiteral("--rate-scale") << decimal(o.rate_scale.num * (1'000'000 / o.rate_scale.den), 6);
    }
    if (o.max_output_tokens) args << QStringLiteral("--max-output-tokens") << QString::number(*o.max_output_tokens);
    if (o.skip_oversized) args << QStringLiteral("--skip-oversized");
    if (o.spread == pl::trace::ImportOptions::Spread::Auto) args << QStringLiteral("--spread auto");
    if (o.spread == pl::trace::ImportOptions::Spread::Fixed) args << QStringLiteral("--spread") << decimal(o.spread_window_us, 3);
    if (o.spread != pl::trace::ImportOptions::Spread::Off) args << QStringLiteral("--seed") << QString::number(o.seed);
    if (!o.prefix_blocks) args << QStringLiteral("--prefix-blocks off");
    if (!o.name.empty()) args << QStringLiteral("--name") << quoted(qs(o.name));
    if (!o.id_prefix.empty()) args << QStringLiteral("--id-prefix") << quoted(qs(o.id_prefix));
    if (!job.model.isEmpty()) args << QStringLiteral("--model") << quoted(job.model);
    if (!job.gpu.isEmpty()) args << QStringLiteral("--gpu") << quoted(job.gpu);
    if (job.block_size_tokens > 0) args << QStringLiteral("--block-size-tokens") << QString::number(job.block_size_tokens);
    if (job.capacity_blocks > 0) args << QStringLiteral("--capacity-blocks") << QString::number(job.capacity_blocks);
    if (job.host_capacity_bytes > 0) {
        args << QStringLiteral("--host-capacity-bytes") << QString::number(job.host_capacity_bytes);
    }
    return args.join(QLatin1Char(' '));
}

TraceImportOutcome runTraceImport(const TraceImportJob& job, const std::atomic<bool>* stop) {
    // Each step reads the flag as it goes; between the steps it is read once more (a Cancel during a step's
    // last stretch).
    const pl::StopCheck stopCheck(stop, 1);
    return catchingOutcome<pl::trace::ImportResult>(job.path, [&](TraceImportOutcome& out) {
        pl::Workload base;
        if (!job.model.isEmpty() || !job.gpu.isEmpty()) {
            const std::string model = job.model.toStdString(), gpu = job.gpu.toStdString();
            const auto name = [](const std::string& s) {
                return s.empty() ? std::nullopt : std::optional<std::string_view>(s); // empty: the default preset
            };
            const auto rates = pl::cost::presetTickRates(name(model), name(gpu), static_cast<double>(job.options.tick_us));
            if (const auto* e = std::get_if<pl::cost::CostInputError>(&rates)) {
                out.error = job.path + QStringLiteral(": %1: %2").arg(qs(e->field), qs(e->reason));
                return;
            }
            pl::cost::applyTickRates(std::get<pl::cost::TickRates>(rates), base.config);
        }
        if (job.block_size_tokens > 0) base.config.block_size_tokens = job.block_size_tokens;
        if (job.capacity_blocks > 0) base.config.capacity_blocks = job.capacity_blocks;
        if (job.host_capacity_bytes > 0) base.config.host_capacity_bytes = job.host_capacity_bytes;
        auto rows = pl::trace::loadTraceFile(job.path.toStdString(), job.format, stop);
        if (auto* e = std::get_if<pl::InputError>(&rows)) {
            out.error = qs(e->message());
            return;
        }
        stopCheck.now();
        auto imported = pl::trace::importTrace(std::get<pl::trace::TraceRows>(rows), job.options, base.config,
                                               base.policy, stop);
        if (auto* e = std::get_if<pl::InputError>(&imported)) {
            // Option errors name the option, not the file: say which file they were applied to.
            out.error = e->file.empty() ? job.path + QStringLiteral(": ") +
                                              (e->path.empty() ? QString() : qs(e->path) + QStringLiteral(": ")) +
                                              qs(e->reason)
                                        : qs(e->message());
            return;
        }
        auto& result = std::get<pl::trace::ImportResult>(imported);
        if (result.workload.requests.empty()) {
            out.error = QStringLiteral("%1: the slice holds no requests (%2 rows in the time window)")
                            .arg(job.path).arg(result.report.rows_in_window);
            return;
        }
        result.workload.notes += " Lab import; the same slice: " + importCommandLine(job).toStdString();
        stopCheck.now();
        if (auto e = pl::validateWorkload(result.workload, {}, stop)) {
            out.error = job.path + QStringLiteral(": the resulting workload is invalid: ") + qs(e->message());
            return;
        }
        stopCheck.now();
        out.value = std::move(result);
    });
}

} // namespace plui
