// StopCheck: the one cooperative stop of long work (runs, trace imports, reading a workload file). A set flag is
// seen at the first check after it is set and nowhere else; reading a workload, with its file read, JSON parse,
// request conversion and validation, ends with pl::Cancelled under a set flag and reads the same workload as
// without a flag under a clear one (the CLI gives none). No timing: the flag is set before the work starts.
#include "core/engine.h"
#include "core/json_reader.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/stop_check.h"
#include "core/trace/generator.h"
#include "core/workload_io.h"
#include "core/workload_rules.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

using namespace pl;

class TestStopCheck : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void aCheckIsDueEveryNSteps();
    void aSetFlagStopsAtTheNextCheckOnly();
    void readingAWorkloadStops();
    void aClearFlagReadsTheSameWorkload();
    void aStoppedReadLeavesNoFileOpen();
    void aReceiptStops();

  private:
    QTemporaryDir dir_;
    std::string path_;   // a workload of kRequests requests
    std::string text_;   // its text
    Workload workload_;  // as read without a flag
    static constexpr int kRequests = 3 * kRequestsPerStopCheck;
};

namespace {

int openFiles() {
    int n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

} // namespace

void TestStopCheck::initTestCase() {
    QVERIFY(dir_.isValid());
    trace::GeneratorParams p;
    p.seed = 5;
    p.count = kRequests;
    p.name = "stoppable";
    p.prefix_groups = 4;
    p.prefix_tokens = 256;
    p.prefix_share_percent = 50;
    auto generated = trace::generateWorkload(p);
    QVERIFY(std::holds_alternative<Workload>(generated));
    text_ = fullWorkloadJson(std::get<Workload>(generated)).dump(2);
    // Over a MiB, so reading the file itself reaches a check, and over a check's worth of JSON values.
    QVERIFY2(text_.size() > (std::size_t{1} << 20), qPrintable(QString::number(text_.size())));
    path_ = dir_.filePath(QStringLiteral("w.workload.json")).toStdString();
    std::ofstream(path_) << text_;
    auto loaded = loadWorkloadFile(path_);
    QVERIFY(std::holds_alternative<Workload>(loaded));
    workload_ = std::get<Workload>(std::move(loaded));
    QCOMPARE(workload_.requests.size(), std::size_t(kRequests));
}

void TestStopCheck::aCheckIsDueEveryNSteps() {
    StopCheck check(nullptr, 3);
    QString dues;
    for (int i = 1; i <= 7; ++i) dues += check.due() ? QLatin1Char('x') : QLatin1Char('.');
    QCOMPARE(dues, QStringLiteral("..x..x."));
    QVERIFY(!check.stopRequested());
    for (int i = 0; i < 100; ++i) check.step(); // no flag: never stops
    check.now();
}

void TestStopCheck::aSetFlagStopsAtTheNextCheckOnly() {
    std::atomic<bool> flag{false};
    StopCheck check(&flag, 4);
    check.step();
    flag = true;
    QVERIFY(check.stopRequested());
    check.step(); // the 2nd and 3rd steps are not checks
    check.step();
    QVERIFY_THROWS_EXCEPTION(Cancelled, check.step()); // the 4th is
    QVERIFY_THROWS_EXCEPTION(Cancelled, check.now());
    flag = false;
    for (int i = 0; i < 8; ++i) check.step();
}

void TestStopCheck::readingAWorkloadStops() {
    const std::atomic<bool> set{true};
    QVERIFY_THROWS_EXCEPTION(Cancelled, loadWorkloadFile(path_, {}, &set));
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)readTextFile(path_, Caps{}.max_file_bytes, "workload file", &set));
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)parseJsonStrict(text_, "w.json", "preemptlab.workload.v1", {}, &set));
    QVERIFY_THROWS_EXCEPTION(Cancelled, parseWorkload(text_, "w.json", {}, &set));
    const auto doc = nlohmann::json::parse(text_);
    QVERIFY_THROWS_EXCEPTION(Cancelled, workloadFromJson(doc, "w.json", {}, &set));
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)validateWorkload(workload_, {}, &set));
    // A document smaller than one check's worth is read whole: the granularity is the contract.
    const std::string small = R"({"format":"preemptlab.workload.v1","name":"s","requests":[]})";
    QVERIFY(std::holds_alternative<Workload>(parseWorkload(small, "s.json", {}, &set)));
}

void TestStopCheck::aClearFlagReadsTheSameWorkload() {
    const std::atomic<bool> clear{false};
    auto loaded = loadWorkloadFile(path_, {}, &clear);
    QVERIFY(std::holds_alternative<Workload>(loaded));
    QCOMPARE(fullWorkloadJson(std::get<Workload>(loaded)).dump(), fullWorkloadJson(workload_).dump());
    QVERIFY(!validateWorkload(workload_, {}, &clear));
    // An invalid workload is still refused by name under a clear flag.
    Workload bad = workload_;
    bad.requests[kRequests - 1].prompt_tokens = 0;
    const auto error = validateWorkload(bad, {}, &clear);
    QVERIFY(error);
    QVERIFY2(error->path == "/requests/" + std::to_string(kRequests - 1) + "/prompt_tokens",
             error->path.c_str());
}

void TestStopCheck::aStoppedReadLeavesNoFileOpen() {
    const std::atomic<bool> set{true};
    const int before = openFiles();
    for (int i = 0; i < 20; ++i) {
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)readTextFile(path_, Caps{}.max_file_bytes, "workload file", &set));
    }
    QCOMPARE(openFiles(), before);
}

// The lab's export: a set flag ends the receipt's text with Cancelled; a clear one makes the same bytes.
void TestStopCheck::aReceiptStops() {
    Workload w = workload_;
    // A short run: arrivals squeezed into 2,000-odd ticks, in the same order; the receipt's requests alone are
    // three checks' worth.
    for (auto& r : w.requests) {
        r.arrival_tick /= 32;
    }
    w.config.max_ticks = w.requests.back().arrival_tick + 100;
    const RunResult run = runWorkload(w);
    const std::atomic<bool> set{true};
    const std::atomic<bool> clear{false};
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)receiptText(w, run, &set));
    const std::string text = receiptText(w, run, &clear);
    QCOMPARE(text, receiptText(w, run));
    // The oracle alone: stops with a flag, and passes without one; its records (over a check's worth) stop it
    // too, with no event to check before them.
    nlohmann::json parsed = nlohmann::json::parse(text);
    QVERIFY(parsed["requests"].size() > 4096);
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)checkReceipt(parsed, &set));
    QVERIFY(checkReceipt(parsed, &clear).passed);
    parsed["events"] = nlohmann::json::array();
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)checkReceipt(parsed, &set));
    QVERIFY(!checkReceipt(parsed, &clear).passed); // read to the end: requests that never ended
}

QTEST_GUILESS_MAIN(TestStopCheck)
#include "test_stop_check.moc"
