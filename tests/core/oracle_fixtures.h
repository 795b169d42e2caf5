#pragma once
// Shared by the suites that mutate receipts and expect the conservation oracle to object.

#include "core/oracle.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace pltest {

// The oracle's violations, one per line (for QVERIFY2 messages).
inline QString joined(const pl::OracleReport& report) {
    QStringList lines;
    for (const auto& v : report.violations) {
        lines << QString::fromStdString(v);
    }
    return lines.join('\n');
}

// An edit of a parsed receipt that a data-driven test applies before running the oracle.
using Mutation = std::function<void(nlohmann::json&)>;

// A value as one line of JSON with every object's keys in reverse byte order: the same document, written in a
// way the oracle's line reader leaves to nlohmann_json (core/oracle_value.h).
inline std::string reversedKeys(const nlohmann::json& j) {
    std::string out;
    if (j.is_object()) {
        out += '{';
        for (auto it = j.rbegin(); it != j.rend(); ++it) {
            out += out.size() > 1 ? "," : "";
            out += nlohmann::json(it.key()).dump();
            out += ':';
            out += reversedKeys(it.value());
        }
        out += '}';
    } else if (j.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < j.size(); ++i) {
            out += i > 0 ? "," : "";
            out += reversedKeys(j[i]);
        }
        out += ']';
    } else {
        out = j.dump();
    }
    return out;
}

// The oracle fed each event and record of `r` as a line of text (OracleStream::eventLine and recordLine, as
// receiptText feeds it): written as nlohmann_json writes it (keys sorted: read without a document), or with
// reversedKeys (parsed by nlohmann_json). Its report must be checkReceipt's. Null where the stream does not
// apply (no events array, no workload or policy object).
inline std::optional<pl::OracleReport> fedAsLines(const nlohmann::json& r, bool sortedKeys) {
    const auto events = r.find("events");
    if (!r.is_object() || events == r.end() || !events->is_array()) {
        return std::nullopt;
    }
    const auto w = r.find("workload");
    const auto p = r.find("policy");
    if (w == r.end() || !w->is_object() || p == r.end() || !p->is_object()) {
        return std::nullopt;
    }
    const auto line = [sortedKeys](const nlohmann::json& j) { return sortedKeys ? j.dump() : reversedKeys(j); };
    pl::OracleStream oracle;
    nlohmann::json doc = *w;
    doc["policy"] = *p;
    oracle.begin(pl::workloadFromJson(doc, "receipt"));
    for (const auto& e : *events) oracle.eventLine(line(e));
    nlohmann::json rest = r;
    rest["events"] = nlohmann::json::array();
    if (const auto records = r.find("requests"); records != r.end() && records->is_array()) {
        for (const auto& record : *records) oracle.recordLine(line(record));
        rest["requests"] = nlohmann::json::array();
    }
    return oracle.end(rest);
}

} // namespace pltest

Q_DECLARE_METATYPE(pltest::Mutation)
