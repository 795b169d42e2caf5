#include "ui/distributiontable.h"

#include "core/review/goodput.h"

#include <QObject>

namespace plui {
namespace {

const pl::Percentiles& metricOf(const pl::review::LatencyFigures& f, DistMetric m) {
    switch (m) {
    case DistMetric::Queue: return f.queue_ticks;
    case DistMetric::Ttft: return f.ttft_ticks;
    case DistMetric::Tpot: return f.tpot_ticks_x100; // ticks x 100 (core's integer TPOT)
    case DistMetric::Itl: return f.itl_ticks;
    case DistMetric::Completion: return f.completion_ticks;
    }
    return f.queue_ticks;
}

} // namespace

QString metricKey(DistMetric m) {
    switch (m) {
    case DistMetric::Queue: return QStringLiteral("queue");
    case DistMetric::Ttft: return QStringLiteral("ttft");
    case DistMetric::Tpot: return QStringLiteral("tpot");
    case DistMetric::Itl: return QStringLiteral("itl");
    case DistMetric::Completion: return QStringLiteral("completion");
    }
    return {};
}

QString groupingKey(DistGrouping g) {
    switch (g) {
    case DistGrouping::PromptBucket: return QStringLiteral("prompt_tokens");
    case DistGrouping::OutputBucket: return QStringLiteral("output_tokens");
    case DistGrouping::Priority: return QStringLiteral("priority");
    case DistGrouping::Tenant: return QStringLiteral("tenant");
    case DistGrouping::Preemptions: return QStringLiteral("preemptions");
    }
    return {};
}

QString metricTitle(DistMetric m) {
    switch (m) {
    case DistMetric::Queue: return QObject::tr("Queue delay");
    case DistMetric::Ttft: return QObject::tr("TTFT");
    case DistMetric::Tpot: return QObject::tr("TPOT");
    case DistMetric::Itl: return QObject::tr("ITL (inter-token gaps)");
    case DistMetric::Completion: return QObject::tr("Completion");
    }
    return {};
}

QString groupingTitle(DistGrouping g) {
    switch (g) {
    case DistGrouping::PromptBucket: return QObject::tr("Prompt bucket");
    case DistGrouping::OutputBucket: return QObject::tr("Output bucket");
    case DistGrouping::Priority: return QObject::tr("Priority");
    case DistGrouping::Tenant: return QObject::tr("Tenant");
    case DistGrouping::Preemptions: return QObject::tr("Preemption count");
    }
    return {};
}

DistMetric metricFromKey(const QString& key, DistMetric fallback) {
    for (DistMetric m : kDistMetrics) {
        if (metricKey(m) == key) return m;
    }
    return fallback;
}

DistGrouping groupingFromKey(const QString& key, DistGrouping fallback) {
    for (DistGrouping g : kDistGroupings) {
        if (groupingKey(g) == key) return g;
    }
    return fallback;
}

double shownValue(std::int64_t ticks, bool x100, std::int64_t tickUs) {
    const double t = x100 ? static_cast<double>(ticks) / 100.0 : static_cast<double>(ticks);
    return tickUs > 0 ? t * static_cast<double>(tickUs) / 1000.0 : t;
}

DistributionTable distributionTable(const pl::review::Report& report, DistMetric metric, DistGrouping grouping) {
    DistributionTable t;
    t.metric = metric;
    t.grouping = grouping;
    t.tickUs = report.tick_us;
    const bool x100 = metric == DistMetric::Tpot;
    t.unit = report.tick_us > 0 ? QObject::tr("ms") : (x100 ? QObject::tr("ticks/token") : QObject::tr("ticks"));
    const std::string dimension = groupingKey(grouping).toStdString();
    for (const pl::review::ReportGroup& g : report.groups) {
        if (g.dimension == "all") {
            t.requests = g.figures.requests;
            t.censored = g.figures.censored;
        }
        if (g.dimension != dimension) continue;
        DistributionRow row;
        row.key = QString::fromStdString(g.key);
        row.requests = g.figures.requests;
        row.censored = g.figures.censored;
        row.ticks = metricOf(g.figures, metric);
        row.values = row.ticks.count;
        row.p50 = shownValue(row.ticks.p50, x100, report.tick_us);
        row.p90 = shownValue(row.ticks.p90, x100, report.tick_us);
        row.p99 = shownValue(row.ticks.p99, x100, report.tick_us);
        row.max = shownValue(row.ticks.max, x100, report.tick_us);
        row.goodput = g.goodput;
        t.rows.push_back(std::move(row));
    }
    return t;
}

} // namespace plui
