#pragma once
// LabSlos: the lab's latency objectives for goodput (issue 26), outside the rollout gate: a TTFT and a TPOT
// objective, set in the Distributions view's fields and read by that view, the Compare view's goodput row and
// the review bundle's summary.md. Kept in QSettings ("slo/..."), not in the workload: they do not change the run
// or its receipt, and a reviewer's objectives hold across the workloads reviewed. Two pairs are kept: one in ms,
// used for workloads that give config.tick_us, and one in ticks for those that do not (an objective in ms means
// nothing without the tick's length; core refuses it, as the CLI does). Parsing and goodput are core's
// (pl::review::parseSlo, pl::review::goodput: censored requests count as misses).

#include "core/review/goodput.h"

#include <QObject>
#include <QString>

#include <cstdint>

namespace plui {

enum class SloKind { Ttft, Tpot };

class LabSlos : public QObject {
    Q_OBJECT
  public:
    explicit LabSlos(QObject* parent = nullptr); // reads the settings
    // The objectives that apply to a run whose workload has `tickUs` (config.tick_us; 0: none): the ms pair, or
    // the ticks pair.
    pl::review::Slos forTick(std::int64_t tickUs) const;
    // One objective as its field shows it ("500", "12.5"; empty when not set), in ms (`ms`) or in ticks.
    QString text(bool ms, SloKind kind) const;
    // Sets one objective from what was typed (empty: none). False, with the field and core's reason in `error`,
    // when it does not parse; nothing changes then. `changed` follows a change.
    bool setText(bool ms, SloKind kind, const QString& text, QString* error);

  signals:
    void changed();

  private:
    pl::review::Slos ms_, ticks_;
};

// "TTFT <= 500 ms, TPOT <= 50 ms" (core's sloText).
QString slosText(const pl::review::Slos& slos);
// "87.10% (27 of 31; 1 censored, counted as a miss), 1.67 req/s": core's figures.
QString goodputText(const pl::review::Goodput& g);

} // namespace plui
