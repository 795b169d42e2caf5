// The calibration (core/cost/calibration.h, calibrated_rates.h) on the CPU: least-squares fits recover known
// answers from synthetic measurements, calibration.json is read strictly, and the tick rates, per-token costs and
// break-even contexts derived from a hand calibration match the arithmetic in docs/live-mode.md.
#include "core/cost/calibrated_rates.h"
#include "core/cost/measured_curves.h"
#include "core/cost/calibration.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace pl::cost;

namespace {

// A calibration whose derived rates are known by hand: gather at 16-token blocks costs 4 us + bytes / 50 GB/s
// out and 6.5 us + bytes / 25 GB/s in; prefill from position 0 costs 130 + 0.5 T + 1e-4 T^2 us.
Calibration handCalibration() {
    Calibration c;
    c.device_name = "SYNTHETIC (test)";
    c.model = "llama-3.1-8b";
    c.kv_bytes_per_token = 131072;
    c.kv_dtype = "bf16";
    for (std::int64_t blocks : {1, 4, 16, 64}) {
        const std::int64_t bytes = blocks * 16 * 131072;
        const double b = static_cast<double>(bytes);
        c.swaps.push_back({"gather", "d2h", 16, blocks, bytes, 0, 4.0 + b / 50000.0});
        c.swaps.push_back({"gather", "h2d", 16, blocks, bytes, 0, 6.5 + b / 25000.0});
    }
    for (std::int64_t t : {512, 1024, 2048, 4096}) {
        const double T = static_cast<double>(t);
        c.prefills.push_back({t, 130.0 + 0.5 * T + 1e-4 * T * T, 0.0});
    }
    fitCalibration(c);
    return c;
}

bool writeText(const QString& path, const std::string& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text.data(), static_cast<qint64>(text.size())) ==
                                               static_cast<qint64>(text.size());
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT
  private slots:
    void linearAndQuadraticFitsRecoverKnownAnswers() {
        std::vector<double> x{1, 2, 4, 8, 16}, y;
        for (double v : x) {
            y.push_back(3.0 + 0.5 * v);
        }
        auto f = fitLinear(x, y);
        QVERIFY(f);
        QVERIFY(std::fabs(f->intercept - 3.0) < 1e-9);
        QVERIFY(std::fabs(f->slope - 0.5) < 1e-12);
        QVERIFY(std::fabs(f->r2 - 1.0) < 1e-12);
        QVERIFY(!fitLinear({1, 1}, {2, 3}));
        // A copy's fixed cost is never negative: a positive intercept stays, a negative one gives the best line
        // through the origin (sum xy / sum x^2), which is what a copy measured with noise at small sizes needs.
        auto kept = fitLinearNonNegative(x, y);
        QVERIFY(kept && std::fabs(kept->intercept - 3.0) < 1e-9 && std::fabs(kept->slope - 0.5) < 1e-12);
        const std::vector<double> bx{1, 2, 3}, by{1.5, 4.5, 6.5}; // OLS: intercept -0.667, slope 2.5
        QVERIFY(fitLinear(bx, by)->intercept < 0.0);
        auto origin = fitLinearNonNegative(bx, by);
        QVERIFY(origin);
        QCOMPARE(origin->intercept, 0.0);
        QVERIFY(std::fabs(origin->slope - (1.5 + 9.0 + 19.5) / 14.0) < 1e-12);
        QVERIFY(origin->r2 > 0.9 && origin->r2 < 1.0);
        std::vector<double> t{512, 1024, 2048, 4096, 8192}, u;
        for (double v : t) {
            u.push_back(150.0 + 0.3 * v + 2e-5 * v * v);
        }
        auto q = fitQuadratic(t, u);
        QVERIFY(q);
        QVERIFY(std::fabs(q->c0 - 150.0) < 1e-6);
        QVERIFY(std::fabs(q->c1 - 0.3) < 1e-9);
        QVERIFY(std::fabs(q->c2 - 2e-5) < 1e-13);
        QVERIFY(!fitQuadratic({1, 2, 2}, {1, 2, 3}));
    }

    void calibrationFitsSwapBandwidthAndEfficiency() {
        Calibration c;
        c.device_name = "synthetic";
        for (std::int64_t blocks : {1, 4, 16, 64}) {
            const std::int64_t bytes = blocks * 2 * 1024 * 1024;
            // per-block: 10 us fixed and 25 GB/s; gather: 4 us and 50 GB/s.
            c.swaps.push_back({"per-block", "d2h", 16, blocks, bytes, blocks * 64, 10.0 + static_cast<double>(bytes) / 25000.0});
            c.swaps.push_back({"gather", "d2h", 16, blocks, bytes, 0, 4.0 + static_cast<double>(bytes) / 50000.0});
        }
        c.swaps.push_back({"reference", "d2h", 0, 0, 1 << 30, 1, (1 << 30) / 55000.0});
        c.prefills = {{512, 1000, 0}, {1024, 2100, 0}, {2048, 4400, 0}};
        fitCalibration(c);
        QCOMPARE(c.swap_fits.size(), std::size_t{2});
        for (const SwapFit& f : c.swap_fits) {
            const bool gather = f.method == "gather";
            QVERIFY(std::fabs(f.fixed_us - (gather ? 4.0 : 10.0)) < 1e-6);
            QVERIFY(std::fabs(f.bandwidth_gbps - (gather ? 50.0 : 25.0)) < 1e-9);
        }
        QVERIFY(c.prefill_fit);
        const double eff = efficiencyVsReference(c, pl::SwapMethod::Gather, "d2h", 16);
        const double bytes = 64.0 * 2 * 1024 * 1024;
        QVERIFY(std::fabs(eff - (bytes / (4.0 + static_cast<double>(bytes) / 50000.0)) / 55000.0) < 1e-12);
        QCOMPARE(efficiencyVsReference(c, pl::SwapMethod::Gather, "h2d", 16), 0.0); // no reference that way
        QCOMPARE(datasheetBf16Tflops("NVIDIA H200"), 989.4);
        QCOMPARE(datasheetBf16Tflops("NVIDIA GeForce GTX 1080"), 0.0);
    }

    void calibrationJsonRoundTripAndErrors() {
        Calibration c;
        c.device_name = "NVIDIA H200";
        c.compute_capability = "9.0";
        c.model = "llama-3.1-8b";
        c.kv_bytes_per_token = 131072;
        c.kv_dtype = "bf16";
        c.swaps = {{"batched", "h2d", 16, 4, 8388608, 64, 200.0}, {"batched", "h2d", 16, 8, 16777216, 64, 380.0}};
        c.prefills = {{512, 900.0, 7.2e12}};
        fitCalibration(c);
        const auto j = toJson(c);
        QCOMPARE(j["format"].get<std::string>(), std::string(kCalibrationFormat));
        Calibration back;
        QVERIFY(!fromJson(j, back));
        QCOMPARE(back.device_name, c.device_name);
        QCOMPARE(back.swaps.size(), std::size_t{2});
        QCOMPARE(back.swap_fits.size(), std::size_t{1});
        QCOMPARE(back.swap_fits[0].bandwidth_gbps, c.swap_fits[0].bandwidth_gbps);
        auto broken = j;
        broken["measurements"]["swap"][1]["bytes"] = "many";
        auto e = fromJson(broken, back);
        QVERIFY(e);
        QCOMPARE(*e, std::string("/measurements/swap/1/bytes: must be an integer"));
        broken = j;
        broken["format"] = "other";
        QVERIFY(fromJson(broken, back)->find("/format") == 0);
    }

    void calibrationReaderIsStrict() {
        const auto good = toJson(handCalibration());
        Calibration back;
        QVERIFY(!fromJson(good, back));
        const struct {
            const char* pointer;
            nlohmann::json value;
            const char* expected;
        } cases[] = {
            {"/measurements/swap/3/us", -1.0, "/measurements/swap/3/us: must be a finite number above 0, got -1.0"},
            {"/measurements/swap/0/method", "memcpy",
             "/measurements/swap/0/method: must be one of per-block, batched, gather, reference, got \"memcpy\""},
            {"/measurements/swap/1/direction", "d2d",
             "/measurements/swap/1/direction: must be one of d2h, h2d, got \"d2d\""},
            {"/measurements/swap/2/bytes", 0, "/measurements/swap/2/bytes: must be an integer from 1 to "
                                              "9223372036854775807, got 0"},
            {"/measurements/swap/2/block_size", 0,
             "/measurements/swap/2/block_size: must be at least 1 for a gather swap (0 only for the reference copy)"},
            {"/measurements/prefill/1/tokens", 2.5, "/measurements/prefill/1/tokens: must be an integer"},
            {"/model/kv_bytes_per_token", -4, "/model/kv_bytes_per_token: must be an integer from 1 to "
                                              "9223372036854775807, got -4"},
            {"/device/colour", "blue", "/device/colour: unknown member"},
            {"/fits/swap", "none", "/fits/swap: must be an array"},
            {"/measurements", nlohmann::json::array(), "/measurements: must be an object"},
        };
        for (const auto& c : cases) {
            auto broken = good;
            broken[nlohmann::json::json_pointer(c.pointer)] = c.value;
            const auto e = fromJson(broken, back);
            QVERIFY2(e, c.pointer);
            QCOMPARE(QString::fromStdString(*e), QString::fromLatin1(c.expected));
        }
        auto missing = good;
        missing["measurements"].erase("prefill");
        QCOMPARE(QString::fromStdString(*fromJson(missing, back)), QStringLiteral("/measurements/prefill: missing"));
        QCOMPARE(QString::fromStdString(*fromJson(nlohmann::json::array(), back)), QStringLiteral("/: must be an object"));
    }

    void calibrationFileErrorsNameTheFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string missing = dir.filePath(QStringLiteral("absent.json")).toStdString();
        auto r = loadCalibrationFile(missing);
        QVERIFY(std::holds_alternative<std::string>(r));
        QCOMPARE(std::get<std::string>(r), missing + ": cannot open: No such file or directory");
        r = loadCalibrationFile(dir.path().toStdString());
        QCOMPARE(std::get<std::string>(r), dir.path().toStdString() + ": is a folder, not a calibration file");
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        const std::string badName = bad.toStdString();
        auto refused = [&](const std::string& text) {
            if (!writeText(bad, text)) return std::string("(not written)");
            auto loaded = loadCalibrationFile(badName);
            return std::holds_alternative<std::string>(loaded) ? std::get<std::string>(loaded) : std::string("(loaded)");
        };
        QVERIFY2(refused("{\"format\": ").rfind(badName + ": line 1, column 12: invalid JSON", 0) == 0,
                 refused("{\"format\": ").c_str());
        QCOMPARE(refused("\n"),
                 badName + ": the file is empty (a preemptlab.calibration.v1 JSON document was expected)");
        // The strict reader's refusals: a number past a double (nlohmann's own parse threw out_of_range and the
        // CLI aborted), a NUL byte (it ended the input there), a duplicate key (the last one won).
        auto over = toJson(handCalibration());
        over["measurements"]["prefill"][0]["us"] = 12345.0;
        std::string overText = over.dump();
        overText.replace(overText.find("12345.0"), 7, "1e999");
        QVERIFY2(refused(overText).rfind(badName + ": line 1, column ", 0) == 0, refused(overText).c_str());
        const std::string nul = refused(std::string("{}\0garbage", 10));
        QVERIFY2(nul == badName + ": line 1, column 3: invalid JSON: a NUL byte (JSON text holds none)", nul.c_str());
        QVERIFY2(refused("{\"format\": 1, \"format\": 2}").find("/format") != std::string::npos,
                 refused("{\"format\": 1, \"format\": 2}").c_str());
        auto j = toJson(handCalibration());
        j["measurements"]["prefill"][0]["us"] = 0;
        QVERIFY(writeText(bad, j.dump()));
        r = loadCalibrationFile(bad.toStdString());
        QCOMPARE(QString::fromStdString(std::get<std::string>(r)),
                 bad + QStringLiteral(": /measurements/prefill/0/us: must be a finite number above 0, got 0"));
        // The committed example says it is synthetic, and its fits are the formulas it was made from.
        r = loadCalibrationFile(PREEMPTLAB_SOURCE_DIR "/samples/synthetic.calibration.json");
        if (const auto* e = std::get_if<std::string>(&r)) QFAIL(e->c_str());
        const Calibration& c = std::get<Calibration>(r);
        QVERIFY(c.device_name.rfind("SYNTHETIC - not a measurement", 0) == 0);
        const auto gather = swapFitsOf(c, pl::SwapMethod::Gather, 8);
        QVERIFY(gather);
        QVERIFY(std::fabs(gather->first.fixed_us - 5.0) < 1e-6 && std::fabs(gather->first.bandwidth_gbps - 51.2) < 1e-9);
        QVERIFY(std::fabs(gather->second.fixed_us - 6.0) < 1e-6 && std::fabs(gather->second.bandwidth_gbps - 25.6) < 1e-9);
        QVERIFY(std::fabs(c.prefill_fit->c1 - 30.0) < 1e-6 && std::fabs(c.prefill_fit->c2 - 0.0005) < 1e-12);
    }

    void ratesFromAHandCalibration() {
        const Calibration c = handCalibration();
        RatesRequest q;
        q.block_size_tokens = 16;
        q.kv_bytes_per_token = 1000;
        q.context_tokens = 1000;
        q.tick_us = 7000.0;
        const auto result = deriveRates(c, q);
        QVERIFY(std::holds_alternative<CalibratedRates>(result));
        const auto& r = std::get<CalibratedRates>(result);
        // By hand: C = 1000 x 1000 B; out 4 + 1e6 / 5e4 = 24 us; in 6.5 + 1e6 / 2.5e4 = 46.5 us;
        // floor(7000 x 2e6 / 70.5) = floor(198,581,560.28). Replay p(1000) = 130 + 500 + 100 = 730 us;
        // floor(7000 x 1000 / 730) = floor(9589.04).
        QCOMPARE(r.swap_bytes, 1e6);
        QVERIFY(std::fabs(r.swap_out_us - 24.0) < 1e-6);
        QVERIFY(std::fabs(r.swap_in_us - 46.5) < 1e-6);
        QCOMPARE(r.transfer_bytes_per_tick, std::int64_t{198581560});
        QVERIFY(std::fabs(r.replay_us - 730.0) < 1e-6);
        QCOMPARE(r.prefill_tokens_per_tick, std::int64_t{9589});
        QVERIFY(std::fabs(r.effective_gbps - 2e6 / 70.5 / 1e3) < 1e-9);
        // 1000 tokens x 1000 B is inside the measured copy sizes? No: the smallest copy was 2 MiB; both
        // directions say so, and the KV size differs from the model's.
        QCOMPARE(r.notes.size(), std::size_t{3});
        QVERIFY(r.notes[0].find("gather d2h is extrapolated") == 0);
        QVERIFY(r.notes[2].find("prefill was measured on llama-3.1-8b (131072 B") == 0);
        const std::string text = describeRates(c, q, r);
        QVERIFY(text.find("transfer_bytes_per_tick = 198581560 = floor(tick x 2 x bytes / (out + in))\n") !=
                std::string::npos);
        QVERIFY(text.find("prefill_tokens_per_tick = 9589 = floor(tick x L / replay)\n") != std::string::npos);
        QVERIFY(text.find("d2h 4.000 us + bytes / 50.000 GB/s") != std::string::npos);
        QVERIFY(text.find("note: prefill was measured") != std::string::npos);
        // Deterministic: the same inputs give the same rates and text.
        QCOMPARE(describeRates(c, q, std::get<CalibratedRates>(deriveRates(c, q))), text);
        // Inside the measured range, with the model's own KV size, there is nothing to note.
        q.kv_bytes_per_token = 131072;
        q.context_tokens = 512;
        QVERIFY(std::get<CalibratedRates>(deriveRates(c, q)).notes.empty());
    }

    // calibrateMachine, the path the CLI and the lab share: a machine's block size and KV bytes per token priced
    // as deriveRates prices them, the two rates written into a copy of the machine and nothing else changed.
    void calibrateMachineWritesTheRatesIntoTheMachine() {
        const Calibration c = handCalibration();
        pl::Config machine;
        machine.block_size_tokens = 16;
        machine.kv_bytes_per_token = 1000;
        machine.capacity_blocks = 123;
        const auto result = calibrateMachine(c, machine, 7000.0, 1000);
        QVERIFY(std::holds_alternative<CalibratedMachine>(result));
        const auto& m = std::get<CalibratedMachine>(result);
        QCOMPARE(m.request.block_size_tokens, std::int64_t{16});
        QCOMPARE(m.request.kv_bytes_per_token, std::int64_t{1000});
        QCOMPARE(m.request.context_tokens, std::int64_t{1000});
        QVERIFY(m.request.method == pl::SwapMethod::Gather);
        QCOMPARE(m.rates.transfer_bytes_per_tick, std::int64_t{198581560}); // as ratesFromAHandCalibration
        QCOMPARE(m.rates.prefill_tokens_per_tick, std::int64_t{9589});
        pl::Config expected = machine;
        expected.transfer_bytes_per_tick = 198581560;
        expected.prefill_tokens_per_tick = 9589;
        expected.tick_us = 7000; // the rates' tick is the machine's tick length
        QVERIFY(m.config == expected);
        // A tick of a fraction of a microsecond is no config.tick_us: it stays as it was.
        QCOMPARE(std::get<CalibratedMachine>(calibrateMachine(c, machine, 7000.5, 1000)).config.tick_us, std::int64_t{0});
        // Errors are deriveRates' own, naming the field.
        // (An unknown method name is the CLI's --swap-method error now: core takes pl::SwapMethod.)
        QVERIFY(!pl::parseSwapMethod("memcpy"));
        QVERIFY(pl::parseSwapMethod("per-block") == pl::SwapMethod::PerBlock);
        const auto unmeasured = calibrateMachine(c, machine, 7000.0, 1000, pl::SwapMethod::PerBlock); // no per-block fit
        QVERIFY(std::holds_alternative<RatesError>(unmeasured));
        QCOMPARE(std::get<RatesError>(unmeasured).field, std::string("block_size_tokens"));
        QCOMPARE(std::get<RatesError>(calibrateMachine(c, machine, 0.0, 1000)).field, std::string("tick"));
    }

    void ratesRefuseWhatTheyCannotPrice() {
        const Calibration c = handCalibration();
        RatesRequest q{16, 1000, 1000, 7000.0, pl::SwapMethod::Gather};
        auto fieldOf = [&](RatesRequest r) {
            const auto out = deriveRates(c, r);
            return std::holds_alternative<RatesError>(out) ? std::get<RatesError>(out) : RatesError{};
        };
        RatesRequest other = q;
        other.block_size_tokens = 32;
        const RatesError e = fieldOf(other);
        QCOMPARE(e.field, std::string("block_size_tokens"));
        QVERIFY2(e.reason.find("it has: gather at 16") != std::string::npos, e.reason.c_str());
        other = q;
        other.method = pl::SwapMethod::Batched;
        QCOMPARE(fieldOf(other).field, std::string("block_size_tokens"));
        other = q;
        other.tick_us = 1e-6; // a picosecond moves no byte
        QCOMPARE(fieldOf(other).field, std::string("tick"));
        other.tick_us = 0.0;
        QCOMPARE(fieldOf(other).field, std::string("tick"));
        other = q;
        other.context_tokens = 0;
        QCOMPARE(fieldOf(other).field, std::string("context"));
        Calibration noPrefill = c;
        noPrefill.prefill_fit.reset();
        QCOMPARE(std::get<RatesError>(deriveRates(noPrefill, q)).field, std::string("prefill"));
    }

    void measuredBreakevenIsWhereTheCurvesMeet() {
        const Calibration c = handCalibration();
        // With 20,000 B per token: swap round trip per token 10.5 / L + 20000 x (1/50 + 1/25) / 1e3 = 10.5 / L + 1.2,
        // replay per token 130 / L + 0.5 + 1e-4 L. Equal where 1e-4 L^2 - 0.7 L + 119.5 = 0:
        // L = (0.7 -+ sqrt(0.4422)) / 2e-4 = 175.094 and 6824.906.
        const auto roots = measuredBreakevenContexts(c, pl::SwapMethod::Gather, 16, 20000);
        QCOMPARE(roots.size(), std::size_t{2});
        QVERIFY(std::fabs(roots[0] - 175.0939863) < 1e-4);
        QVERIFY(std::fabs(roots[1] - 6824.9060137) < 1e-4);
        for (double L : roots) {
            const double swap = *measuredSwapUsPerToken(c, pl::SwapMethod::Gather, 16, 20000, L);
            const double rec = *measuredRecomputeUsPerToken(c, L);
            QVERIFY(std::fabs(swap - rec) < 1e-6 * swap);
        }
        // Between them the replay is cheaper (at 1,000 tokens 0.73 vs 1.2105 us per token), outside swap is.
        QVERIFY(std::fabs(*measuredRecomputeUsPerToken(c, 1000) - 0.73) < 1e-9);
        QVERIFY(std::fabs(*measuredSwapUsPerToken(c, pl::SwapMethod::Gather, 16, 20000, 1000) - 1.2105) < 1e-9);
        // With the model's own 1,000 B per token swap is cheaper at every length: no crossover.
        QVERIFY(measuredBreakevenContexts(c, pl::SwapMethod::Gather, 16, 1000).empty());
        QVERIFY(measuredBreakevenContexts(c, pl::SwapMethod::PerBlock, 16, 1000).empty()); // no such fit
        QVERIFY(!measuredSwapUsPerToken(c, pl::SwapMethod::PerBlock, 16, 1000, 100));
    }

    // The break-even explorer's measured curves come from core (measuredCurves); on the hand calibration every
    // figure is known: 131,072 B per token, so the swap round trip costs 10.5 / L + 131072 x (1/50 + 1/25) / 1e3 =
    // 10.5 / L + 7.86432 us per token over the measured copies (16 to 1,024 tokens), the replay 130 / L + 0.5 +
    // 1e-4 L over the measured prefills (512 to 4,096 tokens).
    void measuredCurvesAreWhatTheExplorerDraws() {
        const Calibration c = handCalibration();
        const MeasuredCurves m = measuredCurves(c, 32); // 32-token blocks were not measured: 16 is drawn
        QCOMPARE(m.block_size, std::int64_t{16});
        QVERIFY(m.method == pl::SwapMethod::Gather);
        const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-6 * std::max(1.0, std::fabs(b)); };
        QCOMPARE(m.swap_us_per_token.x.size(), std::size_t{49});
        QVERIFY(near(m.swap_us_per_token.x.front(), 16.0) && near(m.swap_us_per_token.x.back(), 1024.0));
        QVERIFY(near(m.swap_us_per_token.y.front(), 10.5 / 16 + 7.86432));
        QVERIFY(near(m.swap_us_per_token.y.back(), 10.5 / 1024 + 7.86432));
        QCOMPARE(m.recompute_us_per_token.x.size(), std::size_t{49});
        QVERIFY(near(m.recompute_us_per_token.x.front(), 512.0) && near(m.recompute_us_per_token.x.back(), 4096.0));
        QVERIFY(near(m.recompute_us_per_token.y.back(), 130.0 / 4096 + 0.5 + 0.4096));
        QCOMPARE(m.breakevens, measuredBreakevenContexts(c, pl::SwapMethod::Gather, 16, 131072));
        QCOMPARE(m.swaps.size(), std::size_t{2}); // gather d2h and h2d: no other method was measured
        QCOMPARE(m.swaps[0].direction, std::string("d2h"));
        QCOMPARE(m.swaps[0].points.x.size(), std::size_t{4});
        QVERIFY(near(m.swaps[0].fit.y.front(), 4.0 + 2097152.0 / 50000.0));  // 1 block of 16 tokens out
        QVERIFY(near(m.swaps[1].fit.y.back(), 6.5 + 134217728.0 / 25000.0)); // 64 blocks in
        QCOMPARE(m.prefill_points.x.size(), std::size_t{4});
        QCOMPARE(m.prefill_fit.x.size(), std::size_t{33});
        QVERIFY(near(m.prefill_fit.y.front(), 130.0 + 256.0 + 26.2144));
        // The wanted block size when it was measured; none at all without swap fits.
        QCOMPARE(measuredCurves(c, 16).block_size, std::int64_t{16});
        Calibration noSwaps = c;
        noSwaps.swaps.clear();
        noSwaps.swap_fits.clear();
        const MeasuredCurves none = measuredCurves(noSwaps, 16);
        QCOMPARE(none.block_size, std::int64_t{-1});
        QVERIFY(none.swaps.empty() && none.swap_us_per_token.x.empty() && none.breakevens.empty());
        QCOMPARE(none.recompute_us_per_token.x.size(), std::size_t{49});
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "test_calibration.moc"
