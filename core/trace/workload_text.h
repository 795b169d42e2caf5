#pragma once
// workloadText: the text form of a workload document for imported and generated workloads: the top-level
// keys indented, one request per line. The same JSON as dump(2), but a 19,366-request import stays a
// 2 MB file that diffs line by line, instead of 15 lines per request (or one line per prefix block id).

#include "core/workload.h"

#include <string>

namespace pl::trace {

// fullWorkloadJson(w) as that text, written request by request (the whole document is never held as JSON).
std::string workloadText(const Workload& w);

} // namespace pl::trace
