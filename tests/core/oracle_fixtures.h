#pragma once
// Shared by the suites that mutate receipts and expect the conservation oracle to object.

#include "oracle.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>

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

} // namespace pltest

Q_DECLARE_METATYPE(pltest::Mutation)
