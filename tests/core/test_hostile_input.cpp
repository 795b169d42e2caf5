// Hostile input and limits (docs/reliability.md): regressions for the bugs the fuzzers found, and the caps
// enforced before allocation, measured in bounded time and memory.
#include "core/trace/trace_rows.h"
#include "core/verify.h"
#include "core/workload_io.h"
#include "tests/core/workload_io_fixtures.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace pl;

namespace {

const std::string kHeader = R"({"format": "preemptlab.workload.v1", "name": "many", "requests": [)";

std::string request(std::size_t i) {
    std::string r = i == 0 ? "{" : ",{";
    r += R"("id": "r)";
    r += std::to_string(i);
    r += R"(", "arrival_tick": 0, "prompt_tokens": 1, "output_tokens": 1})";
    return r;
}

std::string workloadWith(std::size_t n) {
    std::string text = kHeader;
    for (std::size_t i = 0; i < n; ++i) {
        text += request(i);
    }
    return text + "]}";
}

// Requests with 64-token prompts (4 full blocks of the default 16 tokens), request i with counts[i] prefix ids.
std::string workloadWithPrefixes(const std::vector<int>& counts) {
    std::string text = R"({"format": "preemptlab.workload.v1", "name": "prefixes", "requests": [)";
    for (std::size_t i = 0; i < counts.size(); ++i) {
        text += i == 0 ? "{" : ",{";
        text += R"("id": "r)" + std::to_string(i) + R"(", "arrival_tick": 0, "prompt_tokens": 64, "output_tokens": 1, )";
        text += R"("prefix_blocks": [)";
        for (int b = 0; b < counts[i]; ++b) {
            text += (b == 0 ? "" : ", ") + std::to_string(b);
        }
        text += "]}";
    }
    return text + "]}";
}

long peakRssKiB() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// Parses a 64 GiB document (reserved address space, MAP_NORESERVE, only its first pages written) that starts
// with `head`, as the reader would see a huge file; reports the time taken and the peak RSS growth. Nothing
// when the address space cannot be reserved.
struct HugeParse {
    Result<Workload> parsed;
    qint64 ms = 0;
    long grownKiB = 0;
};
std::optional<HugeParse> parseHugeDocument(const std::string& head, const Caps& caps) {
    const std::size_t size = std::size_t{64} << 30;
    void* region = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) {
        return std::nullopt;
    }
    std::memcpy(region, head.data(), head.size());
    const long rssBefore = peakRssKiB();
    QElapsedTimer timer;
    timer.start();
    HugeParse out{parseWorkload(std::string_view(static_cast<const char*>(region), size), "huge.json", caps)};
    out.ms = timer.elapsed();
    out.grownKiB = peakRssKiB() - rssBefore;
    ::munmap(region, size);
    return out;
}


// The reader must refuse the 64 GiB document that starts with `head` at its first element over a cap: the
// error names `path` and says `reason`, quickly and without touching the rest (the last test's statement:
// a skip when the address space cannot be reserved).
void expectRefusedEarly(const std::string& head, const Caps& caps, const std::string& path, const std::string& reason) {
    const auto huge = parseHugeDocument(head, caps);
    if (!huge) {
        QSKIP("cannot reserve 64 GiB of address space here");
    }
    const auto& [parsed, ms, grownKiB] = *huge;
    QVERIFY(std::holds_alternative<InputError>(parsed));
    const InputError& e = std::get<InputError>(parsed);
    QCOMPARE(e.path, path);
    QVERIFY2(e.reason.find(reason) != std::string::npos, e.reason.c_str());
    qInfo("refused a 64 GiB document after %lld ms; peak RSS grew by %ld KiB", static_cast<long long>(ms), grownKiB);
    QVERIFY2(ms < 20'000, "took too long");
    QVERIFY2(grownKiB < 1024 * 1024, "used more than 1 GiB");
}

} // namespace

class TestHostileInput : public QObject {
    Q_OBJECT
  private slots:
    void endlessInputStopsAtTheCap(); // first: the peak RSS it measures is the process's
    void mooncakeNumberBeyondDoubleIsAnError();
    void mooncakeDeepNestingIsRefused();
    void mooncakeDuplicateKeyIsRefused();
    void verifyNumberBeyondDoubleIsAnError();
    void verifyReportsLineAndColumn();
    void requestCapBoundary();
    void duplicateIdsAmongMany();
    void prefixBlockCapBoundary();
    void prefixBlockCapStopsReadingA64GiBDocument();
    void prefixBlockCapInMemory();
    void defaultCaps();
    void requestCapStopsReadingA64GiBDocument();
    void hugeFileRefusedBySize();
    void notesAreCapped();
};

// Found by fuzz_trace: nlohmann::json::parse throws out_of_range (not parse_error) for 1e999; the reader only
// caught parse_error, so `import-trace` died with std::terminate.
void TestHostileInput::mooncakeNumberBeyondDoubleIsAnError() {
    const std::string text = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n"
                             "{\"timestamp\": 1e999, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n";
    const auto rows = trace::readMooncakeJsonl(text, "t.jsonl");
    QVERIFY(std::holds_alternative<InputError>(rows));
    const InputError& e = std::get<InputError>(rows);
    QCOMPARE(e.file, std::string("t.jsonl"));
    QCOMPARE(e.path, std::string("line 2, column 15"));
    QVERIFY2(e.reason.find("number overflow") != std::string::npos, e.reason.c_str());
}

// Issue 21: a row whose hash_ids nests 100,000 arrays overflowed the stack (SIGSEGV) in import-trace and
// generate --lengths-from; rows now go through the strict reader, which caps nesting as workloads do.
void TestHostileInput::mooncakeDeepNestingIsRefused() {
    const std::size_t depth = 100'000;
    const std::string row = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": " +
                            std::string(depth, '[') + std::string(depth, ']') + "}";
    const auto rows = trace::readMooncakeJsonl(
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n" + row + "\n", "deep.jsonl");
    QVERIFY(std::holds_alternative<InputError>(rows));
    const InputError& e = std::get<InputError>(rows);
    QCOMPARE(e.file, std::string("deep.jsonl"));
    QCOMPARE(e.path, std::string("line 2, column 58")); // the "hash_ids" key
    QVERIFY2(e.reason.find("nesting deeper than 256 levels") != std::string::npos, e.reason.c_str());
    QVERIFY2(e.reason.rfind("/hash_ids/0/0", 0) == 0, e.reason.c_str());
}

// Issue 21: a row with a key twice was read with the last value winning; every other reader refuses it.
void TestHostileInput::mooncakeDuplicateKeyIsRefused() {
    const std::string text =
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"output_length\": 9, \"hash_ids\": [1]}\n";
    const auto rows = trace::readMooncakeJsonl(text, "dup.jsonl");
    QVERIFY(std::holds_alternative<InputError>(rows));
    const InputError& e = std::get<InputError>(rows);
    QCOMPARE(e.path, std::string("line 1, column 58")); // the second "output_length"
    QVERIFY2(e.reason.find("/output_length: duplicate key \"output_length\"") != std::string::npos, e.reason.c_str());
}

// Same exception in `verify`: verifyReceiptText used nlohmann::json::parse and caught parse_error only.
void TestHostileInput::verifyNumberBeyondDoubleIsAnError() {
    const auto outcome = verifyReceiptText("{\"format\": \"preemptlab.receipt.v1\", \"x\": -1e999}", "r.json");
    QVERIFY(std::holds_alternative<InputError>(outcome));
    const InputError& e = std::get<InputError>(outcome);
    QCOMPARE(e.file, std::string("r.json"));
    QVERIFY2(e.path.rfind("line 1, column ", 0) == 0, e.path.c_str());
    QVERIFY2(e.reason.find("number overflow") != std::string::npos, e.reason.c_str());
}

void TestHostileInput::verifyReportsLineAndColumn() {
    const auto outcome = verifyReceiptText("{\n  \"format\": \"preemptlab.receipt.v1\",\n  \"format\": 2\n}", "r.json");
    QVERIFY(std::holds_alternative<InputError>(outcome));
    const InputError& e = std::get<InputError>(outcome);
    QCOMPARE(e.path, std::string("/format"));
    QVERIFY2(e.reason.find("duplicate key") != std::string::npos, e.reason.c_str());
}

void TestHostileInput::requestCapBoundary() {
    Caps caps;
    caps.max_requests = 3;
    QVERIFY(std::holds_alternative<Workload>(pltest::workloadio::parseBothWays(workloadWith(3), "w.json", caps)));
    const auto over = pltest::workloadio::parseBothWays(workloadWith(4), "w.json", caps);
    QVERIFY(std::holds_alternative<InputError>(over));
    const InputError& e = std::get<InputError>(over);
    QCOMPARE(e.path, std::string("/requests"));
    QVERIFY2(e.reason.find("at least 4 requests exceed the cap of 3; reading stopped at element 3") !=
                 std::string::npos,
             e.reason.c_str());
}

// Prefix block ids count over the whole workload while reading; the error names the array that passed the cap.
// Among many ids, the first duplicate in request order is named with where its id was first used, in memory
// and in a file (whose paths are the file's order, before normalisation).
void TestHostileInput::duplicateIdsAmongMany() {
    const std::string text = workloadWith(20000);
    auto parsed = pltest::workloadio::parseBothWays(text, "many.json");
    QVERIFY(std::holds_alternative<Workload>(parsed));
    Workload w = std::get<Workload>(std::move(parsed));
    QVERIFY(!validateWorkload(w));
    Workload bad = w;
    bad.requests[18000].id = bad.requests[12000].id; // a pair whose second use comes later
    bad.requests[15000].id = bad.requests[7000].id;
    const auto e = validateWorkload(bad);
    QVERIFY(e.has_value());
    QCOMPARE(e->message(), "/requests/15000/id: duplicate id \"" + w.requests[7000].id +
                               "\" (first used at /requests/7000)");
    std::string dup = text;
    const auto replace = [&dup](const std::string& from, const std::string& to) {
        const auto p = dup.find(from);
        QVERIFY(p != std::string::npos);
        dup.replace(p, from.size(), to);
    };
    replace(R"("id": "r15000")", R"("id": "r7000")");
    replace(R"("id": "r19999")", R"("id": "r3")");
    const auto fromFile = pltest::workloadio::parseBothWays(dup, "many.json");
    QVERIFY(std::holds_alternative<InputError>(fromFile));
    QCOMPARE(std::get<InputError>(fromFile).message(),
             std::string("many.json: /requests/15000/id: duplicate id \"r7000\" (first used at /requests/7000)"));
}

void TestHostileInput::prefixBlockCapBoundary() {
    Caps caps;
    caps.max_prefix_blocks = 5;
    QVERIFY(std::holds_alternative<Workload>(pltest::workloadio::parseBothWays(workloadWithPrefixes({3, 0, 2}), "w.json", caps)));
    const auto over = pltest::workloadio::parseBothWays(workloadWithPrefixes({3, 0, 3}), "w.json", caps);
    QVERIFY(std::holds_alternative<InputError>(over));
    const InputError& e = std::get<InputError>(over);
    QCOMPARE(e.file, std::string("w.json"));
    QCOMPARE(e.path, std::string("/requests/2/prefix_blocks"));
    QVERIFY2(e.reason.find("at least 6 prefix block ids in the document exceed the cap of 5; reading stopped at "
                           "element 2") != std::string::npos,
             e.reason.c_str());
    // Other arrays named prefix_blocks (not at /requests/N/) are not counted: here an unknown key's, refused later.
    const std::string stray = R"({"format": "preemptlab.workload.v1", "name": "x", "prefix_blocks": [1, 2, 3, 4, 5, 6],
                                 "requests": [{"id": "a", "arrival_tick": 0, "prompt_tokens": 1, "output_tokens": 1}]})";
    const auto unknown = pltest::workloadio::parseBothWays(stray, "w.json", caps);
    QVERIFY(std::holds_alternative<InputError>(unknown));
    QVERIFY2(std::get<InputError>(unknown).reason.find("unknown key") != std::string::npos,
             std::get<InputError>(unknown).reason.c_str());
}

// A 64 GiB document whose one request claims billions of prefix block ids: reading stops at the cap's first
// id over it (past it lie NUL bytes, which would be a syntax error).
void TestHostileInput::prefixBlockCapStopsReadingA64GiBDocument() {
    Caps caps;
    caps.max_prefix_blocks = 1'000'000;
    caps.max_file_bytes = std::int64_t{1} << 40;
    std::string head = R"({"format": "preemptlab.workload.v1", "name": "many", "requests": [{"id": "a", )"
                       R"("arrival_tick": 0, "prompt_tokens": 1000000000, "output_tokens": 1, "prefix_blocks": [0)";
    for (std::int64_t i = 0; i <= caps.max_prefix_blocks; ++i) {
        head += ", 7";
    }
    expectRefusedEarly(head, caps, "/requests/0/prefix_blocks",
                       "at least 1000001 prefix block ids in the document exceed the cap of 1000000");
}

// A workload built in memory (importer, lab) is held to the same cap by validateWorkload, and a DOM read
// elsewhere by workloadFromJson.
void TestHostileInput::prefixBlockCapInMemory() {
    auto parsed = pltest::workloadio::parseBothWays(workloadWithPrefixes({4, 4, 4}), "w.json");
    QVERIFY(std::holds_alternative<Workload>(parsed));
    const Workload& w = std::get<Workload>(parsed);
    Caps caps;
    caps.max_prefix_blocks = 12;
    QVERIFY(!validateWorkload(w, caps));
    caps.max_prefix_blocks = 11;
    const auto e = validateWorkload(w, caps);
    QVERIFY(e.has_value());
    QCOMPARE(e->path, std::string("/requests/2/prefix_blocks"));
    QVERIFY2(e->reason.find("hold 12 ids up to here, over the cap of 11") != std::string::npos, e->reason.c_str());
    const auto fromDom = workloadFromJson(nlohmann::json::parse(workloadWithPrefixes({4, 4, 4})), "w.json", caps);
    QVERIFY(std::holds_alternative<InputError>(fromDom));
    QCOMPARE(std::get<InputError>(fromDom).path, std::string("/requests/2/prefix_blocks"));
    QCOMPARE(std::get<InputError>(fromDom).file, std::string("w.json"));
}

// The contract's caps (docs/contracts.md): these numbers are promised to users.
void TestHostileInput::defaultCaps() {
    const Caps caps;
    QCOMPARE(caps.max_requests, std::int64_t{10'000'000});
    QCOMPARE(caps.max_prefix_blocks, std::int64_t{100'000'000});
    QCOMPARE(caps.max_file_bytes, std::int64_t{2} << 30);
    QCOMPARE(caps.max_notes_bytes, std::int64_t{1} << 20);
}

// Issue 21: a 1.9 GiB notes string took 5.9 GB (copied from the document into the workload and on). Notes are
// capped at 1 MiB, checked before the copy, in a file and in memory (the lab's editor, the generators).
void TestHostileInput::notesAreCapped() {
    Caps caps;
    std::string text = R"({"format": "preemptlab.workload.v1", "name": "n", "notes": ")";
    text += std::string((std::size_t{1} << 20) + 1, 'a');
    text += R"(", "requests": [{"id": "a", "arrival_tick": 0, "prompt_tokens": 1, "output_tokens": 1}]})";
    const auto over = pltest::workloadio::parseBothWays(text, "notes.json", caps);
    QVERIFY(std::holds_alternative<InputError>(over));
    QCOMPARE(std::get<InputError>(over).message(),
             std::string("notes.json: /notes: holds 1048577 bytes, over the cap of 1048576 bytes (1 MiB) for free text"));
    caps.max_notes_bytes = std::int64_t{1} << 21;
    const auto under = pltest::workloadio::parseBothWays(text, "notes.json", caps);
    QVERIFY(std::holds_alternative<Workload>(under));
    QVERIFY(validateWorkload(std::get<Workload>(under), caps) == std::nullopt);
    QCOMPARE(validateWorkload(std::get<Workload>(under), Caps{})->path, std::string("/notes"));
}

// A 64 GiB document (virtual memory, never touched past its first pages) that starts like a 10^9-request
// workload: the reader must stop at the first request over the cap. Had it read on, it would reach the NUL
// bytes and report a syntax error instead, after touching gigabytes.
void TestHostileInput::requestCapStopsReadingA64GiBDocument() {
    Caps caps;
    caps.max_requests = 100'000;
    caps.max_file_bytes = std::int64_t{1} << 40;
    std::string head = kHeader;
    for (std::size_t i = 0; i <= static_cast<std::size_t>(caps.max_requests) + 1; ++i) {
        head += request(i);
    }
    expectRefusedEarly(head, caps, "/requests", "at least 100001 requests exceed the cap of 100000");
}

// A file as large as 10^9 minimal requests (about 64 GB; a sparse file here) is refused from its size alone.
void TestHostileInput::hugeFileRefusedBySize() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("billion.workload.json").toStdString();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    QVERIFY(fd >= 0);
    const std::string start = kHeader + request(0);
    QVERIFY(::write(fd, start.data(), start.size()) == static_cast<ssize_t>(start.size()));
    const bool sparse = ::ftruncate(fd, std::int64_t{64} << 30) == 0;
    ::close(fd);
    if (!sparse) {
        QSKIP("this file system cannot hold a sparse 64 GiB file");
    }
    QElapsedTimer timer;
    timer.start();
    const auto loaded = loadWorkloadFile(path);
    QVERIFY(timer.elapsed() < 1000);
    QVERIFY(std::holds_alternative<InputError>(loaded));
    const InputError& e = std::get<InputError>(loaded);
    QCOMPARE(e.file, path);
    QVERIFY2(e.reason.find("68719476736 bytes, over the cap of 2147483648 bytes") != std::string::npos,
             e.reason.c_str());
}

// Issue 21: `validate /dev/zero` took 4.25 GB before the 2 GiB cap refused it (one string, doubled past the cap
// and copied). Read here with a 256 MiB cap: the peak grows by about the cap, not twice it.
void TestHostileInput::endlessInputStopsAtTheCap() {
    const std::int64_t cap = std::int64_t{256} << 20;
    const long before = peakRssKiB();
    const auto text = readTextFile("/dev/zero", cap, "workload file");
    const long grownKiB = peakRssKiB() - before;
    QVERIFY(std::holds_alternative<InputError>(text));
    const InputError& e = std::get<InputError>(text);
    QCOMPARE(e.file, std::string("/dev/zero"));
    QVERIFY2(e.reason.find("exceeds the cap of 268435456 bytes") != std::string::npos, e.reason.c_str());
    qInfo("refused /dev/zero at a 256 MiB cap; peak RSS grew by %ld KiB", grownKiB);
    QVERIFY2(grownKiB < 320 * 1024, "held more than the cap and a chunk");
}

QTEST_GUILESS_MAIN(TestHostileInput)
#include "test_hostile_input.moc"
