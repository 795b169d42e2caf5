#pragma once
// Exporter: everything the lab writes. Each file is written atomically through core's writeFileAtomically
// (a complete file or none); errors come back as "PATH: reason".
//   receipt  byte-identical to `preemptlab-cli run` for the same workload and policy (core's receiptText)
//   ledger   CSV, one row per eviction
//   images   any widget as PNG, SVG or PDF (chosen by the file suffix); plots are drawn as vectors
//   bundle   a folder with the receipt, the ledger, screenshots, the comparison where current and a short
//            markdown summary

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <atomic>
#include <optional>
#include <string>

class QWidget;

namespace pl {
struct Workload;
}

namespace plui {

class LabDocument;
class LedgerModel;

using ExportError = std::optional<QString>;

ExportError exportReceipt(const LabDocument& doc, const QString& path);
ExportError exportLedgerCsv(const LedgerModel& ledger, const QString& path);
// Suffix decides the format: .png, .svg or .pdf. Anything else is refused.
ExportError exportWidgetImage(QWidget* widget, const QString& path);
// The image bytes without writing (tests, bundle).
std::optional<QByteArray> renderWidget(QWidget* widget, const QString& format, QString* error);
std::string receiptTextOf(const LabDocument& doc);
// `compareMarkdown`: the compare view's table (CompareView::markdown), or empty where it has no result for
// this workload. At most kSummaryFlaggedIds flagged requests are listed, with the count of all.
QString reviewSummaryMarkdown(const LabDocument& doc, const QStringList& imageFiles,
                              const QString& compareMarkdown = {});
inline constexpr int kSummaryFlaggedIds = 20;
// The files a review bundle writes, in order: receipt.json, ledger.csv, each view's STEM.png, compare.json
// (with the compare view), summary.md.
QStringList reviewBundleFileNames(const QList<QPair<QString, QWidget*>>& views);
// Files a bundle holds only sometimes (compare.png and compare.json, where the comparison is current): an
// earlier bundle's copy is removed when a bundle without it replaces that bundle, so nothing of another run
// stays beside it.
QStringList reviewBundleOptionalFiles();
// The comparison file of `workload` (JSON, or with `csv` CSV), as `preemptlab-cli compare --out FILE` writes
// it: the four runs and their receipts, memory-bounded (seconds for a large run; the lab makes it on a worker).
// Throws what they throw: RunTooLarge, pl::Cancelled once `stop` is set. `modesDone` counts the modes done.
std::string comparisonText(const pl::Workload& workload, bool csv, const std::atomic<bool>* stop = nullptr,
                           std::atomic<int>* modesDone = nullptr);
// views: (file stem, widget) pairs, each written as STEM.png; a view in a dock tabbed behind another (not on
// screen) is drawn at the window's size. `receipt`: the run's receipt text when already made (receiptTextOf;
// the lab makes it on a worker), else it is made here. With a view named "compare", compare.json goes in too:
// `compareJson` when already made (comparisonText), else made here. `trace.json` is the run's timeline for
// Perfetto: `trace` when already made (timelineTextOf), else made here.
ExportError exportReviewBundle(const LabDocument& doc, const LedgerModel& ledger,
                               const QList<QPair<QString, QWidget*>>& views, const QString& folder,
                               const std::string* receipt = nullptr, const QString& compareMarkdown = {},
                               const std::string* compareJson = nullptr, const std::string* trace = nullptr);
// The shown run's latency distributions by bucket (core's pl::review report, CSV: what `preemptlab-cli report
// RECEIPT --csv` prints for its receipt), empty without a run.
std::string distributionsCsvOf(const LabDocument& doc);
// The shown run's timeline (core's pl::timelineText: Chrome trace JSON), empty without a run.
std::string timelineTextOf(const LabDocument& doc);

} // namespace plui
