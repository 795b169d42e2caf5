#include "core/trace/workload_text.h"

#include "core/workload_io.h"

namespace pl::trace {

std::string workloadText(const Workload& w) {
    // The document without its requests (nlohmann::json keeps object keys sorted, so "requests" is last among
    // the contract's keys: config, format, name, notes, policy, requests), then one line per request, each
    // rendered as it is written: no JSON of the whole workload is held (10,000,000 generated requests took
    // 18.5 GB as one document and a copy of it).
    Workload head;
    head.name = w.name;
    head.notes = w.notes;
    head.config = w.config;
    head.policy = w.policy;
    nlohmann::json doc = fullWorkloadJson(head);
    doc.erase("requests");
    std::string text = doc.dump(2);
    text.resize(text.size() - 2); // drop "\n}"
    text += ",";
    if (w.requests.empty()) {
        return text + "\n  \"requests\": []\n}\n";
    }
    text += "\n  \"requests\": [\n";
    bool first = true;
    for (const RequestSpec& r : w.requests) {
        text += first ? "    " : ",\n    ";
        text += requestSpecJson(r).dump();
        first = false;
    }
    return text + "\n  ]\n}\n";
}

} // namespace pl::trace
