// Canonical JSON and SHA-256: published test vectors, key-order independence, UTF-8 kept as is, floats and
// invalid UTF-8 refused, incremental hashing equal to one-shot, no libcrypto state left on a thread that hashed.
#include "core/hashing.h"

#include <QtTest>

#include <openssl/crypto.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

// libcrypto's frees on a thread after it stopped hashing: what the thread's exit had left to free. Counted by
// memory functions main() installs before libcrypto allocates anything (CRYPTO_set_mem_functions refuses
// after that).
thread_local bool tExiting = false;
std::atomic<long> gFreedAtExit{0};
std::atomic<long> gAllocated{0};

void* countedMalloc(std::size_t size, const char*, int) {
    ++gAllocated;
    return std::malloc(size);
}

void countedFree(void* p, const char*, int) {
    if (p != nullptr && tExiting) ++gFreedAtExit;
    std::free(p);
}

void* countedRealloc(void* p, std::size_t size, const char* file, int line) {
    if (p == nullptr) return countedMalloc(size, file, line);
    if (size == 0) {
        countedFree(p, file, line);
        return nullptr;
    }
    return std::realloc(p, size);
}

constexpr char kFirstHashOnAWorker[] = "--first-hash-on-a-worker";

// The process's first hash, on a worker thread, as a Qt pool job makes it; the exit code is the number of
// blocks the worker's exit freed (64 when the count saw no allocation at all, so it measured nothing).
int firstHashOnAWorker(bool counting) {
    if (!counting) return 65;
    std::thread worker([] {
        {
            pl::Sha256 h;
            h.update("abc");
            if (h.finishTagged() != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") {
                std::abort();
            }
        }
        tExiting = true;
    });
    worker.join();
    if (gAllocated.load() == 0) return 64;
    return static_cast<int>(std::min(gFreedAtExit.load(), 63L));
}

} // namespace

using nlohmann::json;

class TestHashing : public QObject {
    Q_OBJECT
  private slots:
    void knownVectors_data();
    void knownVectors();
    void millionA();
    void incrementalMatchesOneShot();
    void finishResetsForReuse();
    void canonicalSortsKeysWithoutSpaces();
    void canonicalIsKeyOrderIndependent();
    void canonicalKeepsUtf8();
    void canonicalSortsKeysByBytes();
    void canonicalRejectsFloats();
    void canonicalRejectsInvalidUtf8();
    void aHashingThreadKeepsNoLibcryptoState();
};

void TestHashing::knownVectors_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("digest");
    // FIPS 180-2 examples.
    QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                              << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
}

void TestHashing::knownVectors() {
    QFETCH(QByteArray, input);
    QFETCH(QString, digest);
    const std::string tagged = pl::sha256Tagged(std::string_view(input.constData(), static_cast<std::size_t>(input.size())));
    QCOMPARE(QString::fromStdString(tagged), "sha256:" + digest);
}

void TestHashing::millionA() {
    pl::Sha256 h;
    const std::string thousand(1000, 'a');
    for (int i = 0; i < 1000; ++i) {
        h.update(thousand);
    }
    QCOMPARE(h.finishTagged(), std::string("sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

void TestHashing::incrementalMatchesOneShot() {
    const std::string text = R"({"a":[1,2,3],"b":"x"})";
    pl::Sha256 h;
    for (char c : text) {
        h.update(std::string_view(&c, 1));
    }
    QCOMPARE(h.finishTagged(), pl::sha256Tagged(text));
}

void TestHashing::finishResetsForReuse() {
    pl::Sha256 h;
    h.update("something else");
    (void)h.finishTagged();
    h.update("abc");
    QCOMPARE(h.finishTagged(), pl::sha256Tagged("abc"));
}

void TestHashing::canonicalSortsKeysWithoutSpaces() {
    const json v = json::parse(R"({ "b" : [ 1, {"z": true, "y": null} ], "a" : "t" })");
    QCOMPARE(pl::canonicalJson(v), std::string(R"({"a":"t","b":[1,{"y":null,"z":true}]})"));
}

void TestHashing::canonicalIsKeyOrderIndependent() {
    const json one = json::parse(R"({"b":1,"a":{"d":2,"c":[3,-4]}})");
    const json two = json::parse(R"({"a":{"c":[3,-4],"d":2},"b":1})");
    QCOMPARE(pl::canonicalJson(one), pl::canonicalJson(two));
    QCOMPARE(pl::sha256Tagged(pl::canonicalJson(one)), pl::sha256Tagged(pl::canonicalJson(two)));
    // Array order is content, not formatting.
    const json three = json::parse(R"({"a":{"c":[-4,3],"d":2},"b":1})");
    QVERIFY(pl::canonicalJson(one) != pl::canonicalJson(three));
}

void TestHashing::canonicalKeepsUtf8() {
    const json v = {{"name", "caf\xc3\xa9 \xe2\x86\x92"}};
    QCOMPARE(pl::canonicalJson(v), std::string("{\"name\":\"caf\xc3\xa9 \xe2\x86\x92\"}"));
}

void TestHashing::canonicalSortsKeysByBytes() {
    // 'Z' (0x5a) < 'a' (0x61) < 0xc3 (first byte of e-acute): byte order, not locale order.
    const json v = {{"\xc3\xa9", 1}, {"a", 2}, {"Z", 3}};
    QCOMPARE(pl::canonicalJson(v), std::string("{\"Z\":3,\"a\":2,\"\xc3\xa9\":1}"));
}

void TestHashing::canonicalRejectsFloats() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pl::canonicalJson(json(1.0)));
    const json nested = {{"events", json::array({json{{"tick", 1}}, json{{"ms", 0.5}}})}};
    try {
        (void)pl::canonicalJson(nested);
        QFAIL("a float inside an array of objects was accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find("/events/1/ms") != std::string::npos, e.what());
    }
    // Integers of both signs pass.
    QCOMPARE(pl::canonicalJson(json::array({-1, 0, std::uint64_t{9007199254740991}})),
             std::string("[-1,0,9007199254740991]"));
}

void TestHashing::canonicalRejectsInvalidUtf8() {
    const json v = {{"name", std::string("bad \xff byte")}};
    QVERIFY_THROWS_EXCEPTION(nlohmann::json::type_error, pl::canonicalJson(v));
}

// A thread that hashed holds no libcrypto memory once its Sha256 is gone, so its exit has nothing to free and
// cannot race process exit into a leak. Qt's pool threads are detached: one can still be exiting after
// QThreadPool has handed it back, while exit() runs OPENSSL_cleanup. The process's first hash is the one that
// gives a thread its error queue, so the check runs in a fresh copy of this program.
void TestHashing::aHashingThreadKeepsNoLibcryptoState() {
    QProcess child;
    child.start(QStringLiteral("/proc/self/exe"), {QString::fromLatin1(kFirstHashOnAWorker)});
    QVERIFY2(child.waitForFinished(30000), qPrintable(child.errorString()));
    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QVERIFY2(child.exitCode() != 65, "libcrypto allocated before main() could count its allocations");
    QVERIFY2(child.exitCode() != 64, "the count saw no allocation while hashing: it measures nothing");
    // The number of blocks the worker's exit freed (a sanitizer's report in the child shows in its stderr).
    QVERIFY2(child.exitCode() == 0, qPrintable(QStringLiteral("exit code %1: %2")
                                                   .arg(child.exitCode())
                                                   .arg(QString::fromLocal8Bit(child.readAllStandardError()))));
}

int main(int argc, char** argv) {
    const bool counting = CRYPTO_set_mem_functions(countedMalloc, countedRealloc, countedFree) == 1;
    if (argc == 2 && std::string_view(argv[1]) == kFirstHashOnAWorker) return firstHashOnAWorker(counting);
    TestHashing test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_hashing.moc"
