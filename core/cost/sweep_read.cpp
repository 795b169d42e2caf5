#include "core/cost/sweep_read.h"

#include "core/cost/json_fields.h"
#include "core/workload_io.h"

#include <algorithm>
#include <charconv>

namespace pl::cost {

namespace {

using nlohmann::json;
using jsonfield::arrayAt;
using jsonfield::intAt;
using jsonfield::objectAt;
using jsonfield::problem;
using jsonfield::stringAt;

// A figure sweepJson prints with six decimals ("12.500000"), as a string.
double fixedAt(const json& obj, const std::string& path, const char* key) {
    const std::string text = stringAt(obj, path, key);
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
        problem(path + "/" + key, "not a number with six decimals (\"" + text + "\")");
    }
    return v;
}

bool boolAt(const json& obj, const std::string& path, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        problem(path + "/" + key, "missing");
    }
    if (!it->is_boolean()) {
        problem(path + "/" + key, "not true or false");
    }
    return it->get<bool>();
}

// A winner is one mode of the sweep, or several joined by '=' in the sweep's mode order.
bool isWinner(const std::string& winner, const std::vector<Recovery>& modes) {
    std::size_t start = 0;
    std::size_t lastMode = 0;
    bool any = false;
    while (start <= winner.size()) {
        const auto eq = winner.find('=', start);
        const std::string name = winner.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
        const auto mode = parseRecovery(name);
        const auto at = mode ? std::find(modes.begin(), modes.end(), *mode) : modes.end();
        if (at == modes.end()) {
            return false;
        }
        const auto k = static_cast<std::size_t>(at - modes.begin());
        if (any && k <= lastMode) {
            return false;
        }
        lastMode = k;
        any = true;
        if (eq == std::string::npos) {
            break;
        }
        start = eq + 1;
    }
    return any;
}

SweepPoint readPoint(const json& pj, std::size_t i, const SweepSpec& spec) {
    const std::string path = "/points/" + std::to_string(i);
    if (!pj.is_object()) {
        problem(path, "not an object");
    }
    if (static_cast<std::uint64_t>(intAt(pj, path, "index")) != i) {
        problem(path + "/index", "is not " + std::to_string(i) + " (points are in grid order)");
    }
    SweepPoint p;
    // The grid's values at this index (row-major, the last axis fastest), which the file's must match.
    p.values.resize(spec.axes.size());
    std::size_t rest = i;
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
        p.values[a] = spec.axes[a].values[rest % spec.axes[a].values.size()];
        rest /= spec.axes[a].values.size();
    }
    const json& values = objectAt(pj, path, "values");
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        const std::string& key = spec.axes[a].key;
        const std::string got = stringAt(values, path + "/values", key.c_str());
        if (got != p.values[a]) {
            problem(path + "/values/" + key, "is " + got + ", but the grid has " + p.values[a] + " at point " +
                                                 std::to_string(i));
        }
    }
    p.input_hash = stringAt(pj, path, "input_hash");
    const json& results = objectAt(pj, path, "results");
    for (const auto mode : spec.modes) {
        const std::string name(toString(mode));
        const json& rj = objectAt(results, path + "/results", name.c_str());
        const std::string rp = path + "/results/" + name;
        ModeResult r;
        r.mode = mode;
        r.input_hash = p.input_hash;
        jsonfield::readModeFigures(rj, rp, r, fixedAt);
        r.goodput = jsonfield::readResultGoodput(rj, rp, spec);
        if (r.goodput) {
            fixedAt(rj.at("goodput"), rp + "/goodput", "percent"); // written for people; the counts are read
        }
        p.results.push_back(r);
    }
    if (results.size() != spec.modes.size()) {
        problem(path + "/results", "holds " + std::to_string(results.size()) + " modes, the sweep has " +
                                       std::to_string(spec.modes.size()));
    }
    p.winner = stringAt(pj, path, "winner");
    if (!isWinner(p.winner, spec.modes)) {
        problem(path + "/winner", "'" + p.winner + "' is not a mode of the sweep (or modes joined by '=')");
    }
    p.flip = boolAt(pj, path, "flip");
    p.margin = fixedAt(pj, path, "margin");
    const json& flipAxes = arrayAt(pj, path, "flip_axes");
    for (std::size_t f = 0; f < flipAxes.size(); ++f) {
        const std::string fp = path + "/flip_axes/" + std::to_string(f);
        const auto at = flipAxes[f].is_string()
                            ? std::find_if(spec.axes.begin(), spec.axes.end(),
                                           [&](const SweepAxis& ax) { return ax.key == flipAxes[f].get<std::string>(); })
                            : spec.axes.end();
        if (at == spec.axes.end()) {
            problem(fp, "not a key of /vary");
        }
        p.flip_axes.push_back(static_cast<std::size_t>(at - spec.axes.begin()));
    }
    return p;
}

} // namespace

std::variant<SweepResult, InputError> parseSweepResult(std::string_view text, const std::string& file) {
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        return InputError{file, "byte " + std::to_string(e.byte), "not JSON (a truncated or damaged sweep file?)"};
    }
    try {
        if (!doc.is_object()) {
            problem("", "not a JSON object");
        }
        const std::string format = stringAt(doc, "", "format");
        if (format != kSweepResultFormat) {
            const std::string hint = format.rfind("preemptlab.sweep-shard.", 0) == 0
                                         ? " (a shard: merge the shards with preemptlab-cli sweep-merge first)"
                                         : "";
            problem("/format", "'" + format + "' is not " + std::string(kSweepResultFormat) + hint);
        }
        SweepResult r;
        r.workload_name = stringAt(doc, "", "workload");
        std::size_t total = 0;
        r.spec = jsonfield::readSweepSpec(doc, "", total);
        const json& points = arrayAt(doc, "", "points");
        if (points.size() != total) {
            problem("/points", "holds " + std::to_string(points.size()) + " points, the grid has " +
                                   std::to_string(total));
        }
        r.points.reserve(total);
        for (std::size_t i = 0; i < total; ++i) {
            r.points.push_back(readPoint(points[i], i, r.spec));
        }
        return r;
    } catch (const jsonfield::Problem& e) {
        return InputError{file, e.path, e.reason};
    } catch (const json::exception& e) {
        return InputError{file, "", std::string("unreadable: ") + e.what()};
    }
}

std::variant<SweepResult, InputError> loadSweepResultFile(const std::string& path, const std::atomic<bool>* stop) {
    auto text = readTextFile(path, std::int64_t{4} << 30, "sweep result file", stop);
    if (auto* err = std::get_if<InputError>(&text)) {
        return *err;
    }
    return parseSweepResult(std::get<std::string>(text), path);
}

} // namespace pl::cost
