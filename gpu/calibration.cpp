#include "calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace pl::gpu {

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
        auto f = fitLinear(xy.first, xy.second);
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

double efficiencyVsReference(const Calibration& c, const std::string& method, const std::string& direction,
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
        if (s.method == method && s.block_size == blockSize && (!best || s.bytes > best->bytes)) {
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

struct Reader {
    std::optional<std::string> error;
    template <typename T>
    void get(const nlohmann::json& obj, const std::string& path, const char* key, T& out) {
        if (error) {
            return;
        }
        if (!obj.is_object() || !obj.contains(key)) {
            error = path + "/" + key + ": missing";
            return;
        }
        const auto& v = obj.at(key);
        if constexpr (std::is_same_v<T, std::string>) {
            if (!v.is_string()) {
                error = path + "/" + key + ": must be a string";
                return;
            }
        } else if constexpr (std::is_integral_v<T>) {
            if (!v.is_number_integer()) {
                error = path + "/" + key + ": must be an integer";
                return;
            }
        } else {
            if (!v.is_number()) {
                error = path + "/" + key + ": must be a number";
                return;
            }
        }
        out = v.get<T>();
    }
    const nlohmann::json* array(const nlohmann::json& obj, const std::string& path, const char* key) {
        if (error) {
            return nullptr;
        }
        if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_array()) {
            error = path + "/" + key + ": must be an array";
            return nullptr;
        }
        return &obj.at(key);
    }
};

} // namespace

std::optional<std::string> fromJson(const nlohmann::json& j, Calibration& out) {
    Calibration c;
    Reader r;
    std::string format;
    r.get(j, "", "format", format);
    if (!r.error && format != kCalibrationFormat) {
        return "/format: expected \"" + std::string(kCalibrationFormat) + "\", got \"" + format + "\"";
    }
    if (!r.error && (!j.contains("device") || !j.contains("model") || !j.contains("measurements") ||
                     !j.contains("fits"))) {
        return "/: needs device, model, measurements and fits";
    }
    if (r.error) {
        return r.error;
    }
    const auto& d = j.at("device");
    r.get(d, "/device", "name", c.device_name);
    r.get(d, "/device", "compute_capability", c.compute_capability);
    r.get(d, "/device", "driver_version", c.driver_version);
    r.get(d, "/device", "runtime_version", c.runtime_version);
    r.get(d, "/device", "peak_bf16_tflops_datasheet", c.peak_bf16_tflops);
    const auto& m = j.at("model");
    r.get(m, "/model", "name", c.model);
    r.get(m, "/model", "kv_bytes_per_token", c.kv_bytes_per_token);
    r.get(m, "/model", "kv_dtype", c.kv_dtype);
    const auto& meas = j.at("measurements");
    r.get(meas, "/measurements", "gemm_tflops", c.gemm_tflops);
    if (const auto* a = r.array(meas, "/measurements", "swap")) {
        for (std::size_t i = 0; i < a->size(); ++i) {
            const std::string p = "/measurements/swap/" + std::to_string(i);
            SwapSample s;
            r.get((*a)[i], p, "method", s.method);
            r.get((*a)[i], p, "direction", s.direction);
            r.get((*a)[i], p, "block_size", s.block_size);
            r.get((*a)[i], p, "blocks", s.blocks);
            r.get((*a)[i], p, "bytes", s.bytes);
            r.get((*a)[i], p, "copies", s.copies);
            r.get((*a)[i], p, "us", s.us);
            c.swaps.push_back(s);
        }
    }
    if (const auto* a = r.array(meas, "/measurements", "prefill")) {
        for (std::size_t i = 0; i < a->size(); ++i) {
            const std::string p = "/measurements/prefill/" + std::to_string(i);
            PrefillSample s;
            r.get((*a)[i], p, "tokens", s.tokens);
            r.get((*a)[i], p, "us", s.us);
            r.get((*a)[i], p, "flops", s.flops);
            c.prefills.push_back(s);
        }
    }
    if (r.error) {
        return r.error;
    }
    // The fits are recomputed from the raw measurements, so a hand-edited fit cannot disagree with them.
    fitCalibration(c);
    out = std::move(c);
    return std::nullopt;
}

} // namespace pl::gpu
