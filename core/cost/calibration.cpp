#include "core/cost/calibration.h"

#include "core/json_reader.h"
#include "core/workload_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace pl::cost {

namespace {

double rSquared(const std::vector<double>& y, const std::vector<double>& fitted) {
    double mean = 0.0;
    for (double v : y) {
        mean += v;
    }
    mean /= static_cast<double>(y.size());
    double ssRes = 0.0, ssTot = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        ssRes += (y[i] - fitted[i]) * (y[i] - fitted[i]);
        ssTot += (y[i] - mean) * (y[i] - mean);
    }
    return ssTot > 0.0 ? 1.0 - ssRes / ssTot : 1.0;
}

} // namespace

std::optional<LinearFit> fitLinear(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2) {
        return std::nullopt;
    }
    const double n = static_cast<double>(x.size());
    double mx = 0.0, my = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx <= 0.0) {
        return std::nullopt;
    }
    LinearFit f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    f.n = static_cast<std::int64_t>(x.size());
    std::vector<double> fitted;
    for (double v : x) {
        fitted.push_back(f.intercept + f.slope * v);
    }
    f.r2 = rSquared(y, fitted);
    return f;
}

std::optional<LinearFit> fitLinearNonNegative(const std::vector<double>& x, const std::vector<double>& y) {
    auto f = fitLinear(x, y);
    if (!f || f->intercept >= 0.0) {
        return f;
    }
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    if (sxx <= 0.0) {
        return std::nullopt;
    }
    f->intercept = 0.0;
    f->slope = sxy / sxx;
    std::vector<double> fitted;
    for (double v : x) {
        fitted.push_back(f->slope * v);
    }
    f->r2 = rSquared(y, fitted);
    return f;
}

std::optional<QuadraticFit> fitQuadratic(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || std::set<double>(x.begin(), x.end()).size() < 3) {
        return std::nullopt;
    }
    // Scale x to O(1) so the normal equations stay well conditioned, then solve 3x3 by Gaussian elimination.
    double scale = 0.0;
    for (double v : x) {
        scale = std::max(scale, std::fabs(v));
    }
    double a[3][4] = {};
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double t = x[i] / scale;
        const double p[3] = {1.0, t, t * t};
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                a[r][c] += p[r] * p[c];
            }
            a[r][3] += p[r] * y[i];
        }
    }
    for (int col = 0; col < 3; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 3; ++r) {
            if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) {
                pivot = r;
            }
        }
        if (std::fabs(a[pivot][col]) < 1e-300) {
            return std::nullopt;
        }
        for (int c = 0; c < 4; ++c) {
            std::swap(a[col][c], a[pivot][c]);
        }
        for (int r = 0; r < 3; ++r) {
            if (r != col) {
                const double f = a[r][col] / a[col][col];
                for (int c = col; c < 4; ++c) {
                    a[r][c] -= f * a[col][c];
                }
            }
        }
    }
    QuadraticFit q;
    q.c0 = a[0][3] / a[0][0];
    q.c1 = a[1][3] / a[1][1] / scale;
    q.c2 = a[2][3] / a[2][2] / (scale * scale);
    q.n = static_cast<std::int64_t>(x.size());
    std::vector<double> fitted;
    for (double v : x) {
        fitted.push_back(q.c0 + q.c1 * v + q.c2 * v * v);
    }
    q.r2 = rSquared(y, fitted);
    return q;
}

void fitCalibration(Calibration& c) {
    std::map<std::tuple<std::string, std::string, std::int64_t>, std::pair<std::vector<double>, std::vector<double>>>
        groups;
    for (const SwapSample& s : c.swaps) {
        auto& g = groups[{s.method, s.direction, s.block_size}];
        g.first.push_back(static_cast<double>(s.bytes));
        g.second.push_back(s.us);
    }
    c.swap_fits.clear();
    for (const auto& [key, xy] : groups) {
        auto f = fitLinearNonNegative(xy.first, xy.second);
        if (!f || f->slope <= 0.0) {
            continue;
        }
        SwapFit sf;
        std::tie(sf.method, sf.direction, sf.block_size) = key;
        sf.fixed_us = f->intercept;
        sf.bandwidth_gbps = 1.0 / f->slope / 1e3; // slope is us per byte; 1 byte/us = 1e-3 GB/s
        sf.r2 = f->r2;
        c.swap_fits.push_back(sf);
    }
    std::vector<double> tx, ty;
    for (const PrefillSample& p : c.prefills) {
        tx.push_back(static_cast<double>(p.tokens));
        ty.push_back(p.us);
    }
    c.prefill_fit = fitQuadratic(tx, ty);
}

double efficiencyVsReference(const Calibration& c, SwapMethod method, const std::string& direction,
                             std::int64_t blockSize) {
    const SwapSample* best = nullptr;
    const SwapSample* ref = nullptr;
    for (const SwapSample& s : c.swaps) {
        if (s.direction != direction) {
            continue;
        }
        if (s.method == "reference" && (!ref || s.bytes > ref->bytes)) {
            ref = &s;
        }
        if (s.method == toString(method) && s.block_size == blockSize && (!best || s.bytes > best->bytes)) {
            best = &s;
        }
    }
    if (!best || !ref || best->us <= 0.0 || ref->us <= 0.0) {
        return 0.0;
    }
    const double bw = static_cast<double>(best->bytes) / best->us;
    const double refBw = static_cast<double>(ref->bytes) / ref->us;
    return bw / refBw;
}

std::vector<std::string> targetReport(const Calibration& c) {
    constexpr std::int64_t kBlock = 16;
    constexpr double kSwapShare = 0.85, kPrefillShare = 0.40;
    constexpr std::int64_t kPrefillTokens = 4096;
    const auto percent = [](double share) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
        return std::string(buf);
    };
    std::vector<std::string> lines;
    for (const char* dir : {"d2h", "h2d"}) {
        std::string head = std::string("target swap ") + dir + " at 16-token blocks: ";
        std::string shares;
        bool judged = false, met = false;
        for (const SwapMethod method : {SwapMethod::Gather, SwapMethod::Batched, SwapMethod::PerBlock}) {
            const double share = efficiencyVsReference(c, method, dir, kBlock);
            if (share <= 0.0) {
                continue; // not measured (or no reference copy)
            }
            shares += (shares.empty() ? "" : ", ") + std::string(toString(method)) + " " + percent(share);
            if (method != SwapMethod::PerBlock) {
                judged = true;
                met = met || share >= kSwapShare;
            }
        }
        if (!judged) {
            lines.push_back(head + "not measured (needs gather or batched at 16-token blocks and the reference copy)");
            continue;
        }
        lines.push_back(head + shares + " of the reference copy (gather or batched needs >= 85%): " +
                        (met ? "met" : "not met"));
    }
    bool anyPrefill = false;
    for (const PrefillSample& p : c.prefills) {
        if (p.tokens < kPrefillTokens || p.us <= 0.0) {
            continue;
        }
        anyPrefill = true;
        const double tflops = p.flops / p.us / 1e6;
        char buf[160];
        if (c.peak_bf16_tflops <= 0.0) {
            std::snprintf(buf, sizeof buf,
                          "target prefill %lld tokens: %.1f TFLOP/s: not judged (no datasheet BF16 peak for this device)",
                          static_cast<long long>(p.tokens), tflops);
        } else {
            const double share = tflops / c.peak_bf16_tflops;
            std::snprintf(buf, sizeof buf, "target prefill %lld tokens: %s of %.1f TFLOP/s dense BF16 (needs >= 40%%): %s",
                          static_cast<long long>(p.tokens), percent(share).c_str(), c.peak_bf16_tflops,
                          share >= kPrefillShare ? "met" : "not met");
        }
        lines.emplace_back(buf);
    }
    if (!anyPrefill) {
        lines.push_back("target prefill 4096 tokens and more: not measured");
    }
    return lines;
}

double datasheetBf16Tflops(const std::string& name) {
    auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
    if (has("H200")) {
        return 989.4; // H200 SXM: 1,979 TFLOPS with sparsity
    }
    if (has("H100")) {
        return has("PCIe") ? 756.0 : 989.4;
    }
    if (has("A100")) {
        return 312.0;
    }
    return 0.0;
}

nlohmann::json toJson(const Calibration& c) {
    using nlohmann::json;
    json swaps = json::array();
    for (const SwapSample& s : c.swaps) {
        swaps.push_back({{"method", s.method}, {"direction", s.direction}, {"block_size", s.block_size},
                         {"blocks", s.blocks}, {"bytes", s.bytes}, {"copies", s.copies}, {"us", s.us}});
    }
    json prefills = json::array();
    for (const PrefillSample& p : c.prefills) {
        prefills.push_back({{"tokens", p.tokens}, {"us", p.us}, {"flops", p.flops},
                            {"tflops", p.us > 0 ? p.flops / p.us / 1e6 : 0.0}});
    }
    json swapFits = json::array();
    for (const SwapFit& f : c.swap_fits) {
        swapFits.push_back({{"method", f.method}, {"direction", f.direction}, {"block_size", f.block_size},
                            {"fixed_us", f.fixed_us}, {"bandwidth_gbps", f.bandwidth_gbps}, {"r2", f.r2}});
    }
    json fits = {{"swap", swapFits}};
    if (c.prefill_fit) {
        fits["prefill"] = {{"c0_us", c.prefill_fit->c0}, {"c1_us_per_token", c.prefill_fit->c1},
                           {"c2_us_per_token2", c.prefill_fit->c2}, {"r2", c.prefill_fit->r2}};
    }
    return json{{"format", kCalibrationFormat},
                {"device", {{"name", c.device_name}, {"compute_capability", c.compute_capability},
                            {"driver_version", c.driver_version}, {"runtime_version", c.runtime_version},
                            {"peak_bf16_tflops_datasheet", c.peak_bf16_tflops}}},
                {"model", {{"name", c.model}, {"kv_bytes_per_token", c.kv_bytes_per_token},
                           {"kv_dtype", c.kv_dtype}}},
                {"measurements", {{"swap", swaps}, {"prefill", prefills}, {"gemm_tflops", c.gemm_tflops}}},
                {"fits", fits}};
}

namespace {

// Strict reading: every member of a known object is checked, unknown members are refused (a misspelt key is
// an error, never ignored), and the first problem is reported as "JSON pointer: reason".
struct Reader {
    std::optional<std::string> error;

    void fail(const std::string& path, const std::string& reason) {
        if (!error) {
            error = path + ": " + reason;
        }
    }
    bool object(const nlohmann::json& v, const std::string& path, std::initializer_list<const char*> keys) {
        if (error) {
            return false;
        }
        if (!v.is_object()) {
            fail(path.empty() ? "/" : path, "must be an object");
            return false;
        }
        for (const auto& item : v.items()) {
            const std::string& key = item.key(); // a named variable: clang 14 cannot capture a structured binding
            if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) == keys.end()) {
                fail(path + "/" + key, "unknown member");
                return false;
            }
        }
        return true;
    }
    const nlohmann::json* member(const nlohmann::json& obj, const std::string& path, const char* key) {
        if (error) {
            return nullptr;
        }
        if (!obj.contains(key)) {
            fail(path + "/" + key, "missing");
            return nullptr;
        }
        return &obj.at(key);
    }
    void text(const nlohmann::json& obj, const std::string& path, const char* key, std::string& out,
              std::initializer_list<const char*> allowed = {}) {
        const auto* v = member(obj, path, key);
        if (!v) {
            return;
        }
        if (!v->is_string()) {
            return fail(path + "/" + key, "must be a string");
        }
        out = v->get<std::string>();
        if (allowed.size() > 0 &&
            std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return out == a; }) == allowed.end()) {
            std::string list;
            for (const char* a : allowed) {
                list += (list.empty() ? "" : ", ") + std::string(a);
            }
            fail(path + "/" + key, "must be one of " + list + ", got \"" + out + "\"");
        }
    }
    template <typename T>
    void integer(const nlohmann::json& obj, const std::string& path, const char* key, T& out, std::int64_t min) {
        const auto* v = member(obj, path, key);
        if (!v) {
            return;
        }
        if (!v->is_number_integer()) {
            return fail(path + "/" + key, "must be an integer");
        }
        const auto max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
        const bool inRange = v->is_number_unsigned() ? v->get<std::uint64_t>() <= max &&
                                                           v->get<std::uint64_t>() >= static_cast<std::uint64_t>(min)
                                                     : v->get<std::int64_t>() >= min;
        if (!inRange) {
            return fail(path + "/" + key, "must be an integer from " + std::to_string(min) + " to " +
                                              std::to_string(max) + ", got " + v->dump());
        }
        out = v->get<T>();
    }
    // A finite number; `positive`: above 0, else at least 0.
    void number(const nlohmann::json& obj, const std::string& path, const char* key, double& out, bool positive) {
        const auto* v = member(obj, path, key);
        if (!v) {
            return;
        }
        if (!v->is_number()) {
            return fail(path + "/" + key, "must be a number");
        }
        const double d = v->get<double>();
        if (!std::isfinite(d) || (positive ? d <= 0.0 : d < 0.0)) {
            return fail(path + "/" + key, std::string("must be a finite number ") + (positive ? "above 0" : "of at least 0") +
                                              ", got " + v->dump());
        }
        out = d;
    }
    const nlohmann::json* array(const nlohmann::json& obj, const std::string& path, const char* key) {
        const auto* v = member(obj, path, key);
        if (v && !v->is_array()) {
            fail(path + "/" + key, "must be an array");
            return nullptr;
        }
        return v;
    }
};

void readSwap(Reader& r, const nlohmann::json& v, const std::string& p, SwapSample& s) {
    if (!r.object(v, p, {"method", "direction", "block_size", "blocks", "bytes", "copies", "us"})) {
        return;
    }
    r.text(v, p, "method", s.method, {"per-block", "batched", "gather", "reference"});
    r.text(v, p, "direction", s.direction, {"d2h", "h2d"});
    r.integer(v, p, "block_size", s.block_size, 0);
    r.integer(v, p, "blocks", s.blocks, 0);
    r.integer(v, p, "bytes", s.bytes, 1);
    r.integer(v, p, "copies", s.copies, 0);
    r.number(v, p, "us", s.us, true);
    if (!r.error && s.method != "reference" && s.block_size < 1) {
        r.fail(p + "/block_size", "must be at least 1 for a " + s.method + " swap (0 only for the reference copy)");
    }
}

void readPrefill(Reader& r, const nlohmann::json& v, const std::string& p, PrefillSample& s) {
    if (!r.object(v, p, {"tokens", "us", "flops", "tflops"})) {
        return;
    }
    r.integer(v, p, "tokens", s.tokens, 1);
    r.number(v, p, "us", s.us, true);
    r.number(v, p, "flops", s.flops, false);
    double tflops = 0.0; // derived from us and flops when written; only its type is checked
    if (v.contains("tflops")) {
        r.number(v, p, "tflops", tflops, false);
    }
}

} // namespace

std::optional<std::string> fromJson(const nlohmann::json& j, Calibration& out) {
    Calibration c;
    Reader r;
    // Another of the project's files (a workload, a receipt) is named as such, not by its first unknown key.
    if (j.is_object() && j.contains("format") && j["format"].is_string() && j["format"] != kCalibrationFormat) {
        return "/format: expected \"" + std::string(kCalibrationFormat) + "\", got \"" +
               printable(j["format"].get<std::string>(), 80) + "\" (not a calibration file)";
    }
    if (!r.object(j, "", {"format", "device", "model", "measurements", "fits"})) {
        return r.error;
    }
    std::string format;
    r.text(j, "", "format", format);
    if (!r.error && format != kCalibrationFormat) {
        return "/format: expected \"" + std::string(kCalibrationFormat) + "\", got \"" + printable(format, 80) +
               "\"";
    }
    if (const auto* d = r.member(j, "", "device");
        d && r.object(*d, "/device", {"name", "compute_capability", "driver_version", "runtime_version",
                                      "peak_bf16_tflops_datasheet"})) {
        r.text(*d, "/device", "name", c.device_name);
        r.text(*d, "/device", "compute_capability", c.compute_capability);
        r.integer(*d, "/device", "driver_version", c.driver_version, 0);
        r.integer(*d, "/device", "runtime_version", c.runtime_version, 0);
        r.number(*d, "/device", "peak_bf16_tflops_datasheet", c.peak_bf16_tflops, false);
    }
    if (const auto* m = r.member(j, "", "model"); m && r.object(*m, "/model", {"name", "kv_bytes_per_token", "kv_dtype"})) {
        r.text(*m, "/model", "name", c.model);
        r.integer(*m, "/model", "kv_bytes_per_token", c.kv_bytes_per_token, 1);
        r.text(*m, "/model", "kv_dtype", c.kv_dtype, {"bf16", "fp8"});
    }
    if (const auto* meas = r.member(j, "", "measurements");
        meas && r.object(*meas, "/measurements", {"swap", "prefill", "gemm_tflops"})) {
        r.number(*meas, "/measurements", "gemm_tflops", c.gemm_tflops, false);
        if (const auto* a = r.array(*meas, "/measurements", "swap")) {
            for (std::size_t i = 0; i < a->size() && !r.error; ++i) {
                SwapSample s;
                readSwap(r, (*a)[i], "/measurements/swap/" + std::to_string(i), s);
                c.swaps.push_back(s);
            }
        }
        if (const auto* a = r.array(*meas, "/measurements", "prefill")) {
            for (std::size_t i = 0; i < a->size() && !r.error; ++i) {
                PrefillSample s;
                readPrefill(r, (*a)[i], "/measurements/prefill/" + std::to_string(i), s);
                c.prefills.push_back(s);
            }
        }
    }
    // The fits are recomputed from the raw measurements, so a hand-edited fit cannot disagree with them; only
    // the shape of the member is checked.
    if (const auto* f = r.member(j, "", "fits"); f && r.object(*f, "/fits", {"swap", "prefill"})) {
        r.array(*f, "/fits", "swap");
    }
    if (r.error) {
        return r.error;
    }
    fitCalibration(c);
    out = std::move(c);
    return std::nullopt;
}

std::variant<Calibration, std::string> loadCalibrationFile(const std::string& path) {
    // The project's reader: a size cap, a folder named as such, no NUL, duplicate keys refused, numbers past a
    // double refused with their line and column (nlohmann's own parser throws out_of_range on 1e999).
    auto text = readTextFile(path, std::int64_t{64} << 20, "calibration file");
    if (auto* e = std::get_if<InputError>(&text)) {
        return e->message();
    }
    auto doc = parseJsonStrict(std::get<std::string>(text), path, kCalibrationFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        return e->message();
    }
    Calibration c;
    if (auto e = fromJson(std::get<nlohmann::json>(doc), c)) {
        return path + ": " + *e;
    }
    return c;
}

} // namespace pl::cost
