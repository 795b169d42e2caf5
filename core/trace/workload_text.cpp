#include "workload_text.h"

namespace pl::trace {

std::string workloadText(const nlohmann::json& doc) {
    // nlohmann::json keeps object keys sorted, so "requests" is last among the contract's keys
    // (config, format, name, notes, policy, requests); anything else falls back to the plain indented dump.
    if (!doc.is_object() || !doc.contains("requests") || !doc["requests"].is_array() ||
        doc.items().begin() == doc.items().end() || std::prev(doc.end()).key() != "requests") {
        return doc.dump(2) + "\n";
    }
    nlohmann::json head = doc;
    head.erase("requests");
    std::string text = head.empty() ? std::string("{\n}") : head.dump(2);
    text.resize(text.size() - 2); // drop "\n}"
    text += head.empty() ? "" : ",";
    const auto& requests = doc["requests"];
    if (requests.empty()) {
        return text + "\n  \"requests\": []\n}\n";
    }
    text += "\n  \"requests\": [\n";
    bool first = true;
    for (const auto& r : requests) {
        text += first ? "    " : ",\n    ";
        text += r.dump();
        first = false;
    }
    return text + "\n  ]\n}\n";
}

} // namespace pl::trace
