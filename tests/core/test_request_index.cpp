// RequestIndex and PerRequest<T> (core/request_index.h): what must not compile is checked by the static_asserts
// below (the suite does not build if a block id, a size_t or an int64 becomes a request index, or subscripts
// per-request state); what runs is checked against the plain int32 and std::vector the types replaced: the same
// order (the waiting queue's key), the same elements, the same bounds. The engine's own use is pinned by every
// receipt (test_sample_hashes).
#include "tests/core/engine_fixtures.h"
#include "core/engine.h"
#include "core/request_index.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

using namespace pl;

// ---- What must not compile ----
// In only from the int32 the files and events carry, and explicitly.
static_assert(std::is_constructible_v<RequestIndex, std::int32_t>);
static_assert(!std::is_convertible_v<std::int32_t, RequestIndex>);
static_assert(!std::is_constructible_v<RequestIndex, std::int64_t>);
static_assert(!std::is_constructible_v<RequestIndex, std::size_t>);
static_assert(!std::is_constructible_v<RequestIndex, std::uint32_t>);
static_assert(!std::is_constructible_v<RequestIndex, bool>);
// Out only through value() or slot().
static_assert(!std::is_convertible_v<RequestIndex, std::int32_t>);
static_assert(!std::is_convertible_v<RequestIndex, std::size_t>);
// (Concepts, so that an expression that does not compile is a false answer rather than an error.)
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A>
concept Incrementable = requires(A a) { ++a; };
template <class A, class B>
concept EqualityWith = requires(A a, B b) { a == b; };
template <class A, class B>
concept LessWith = requires(A a, B b) { a < b; };
template <class C, class I>
concept SubscriptableBy = requires(C c, I i) { c[i]; };
// No arithmetic, and no comparison with a plain integer (a block id, a position).
static_assert(!Addable<RequestIndex, int> && !Incrementable<RequestIndex>);
static_assert(EqualityWith<RequestIndex, RequestIndex> && LessWith<RequestIndex, RequestIndex>);
static_assert(!EqualityWith<RequestIndex, std::int32_t> && !LessWith<RequestIndex, std::int32_t>);
// Per-request state is subscripted by a request index only.
static_assert(SubscriptableBy<PerRequest<int>, RequestIndex>);
static_assert(!SubscriptableBy<PerRequest<int>, std::size_t>);
static_assert(!SubscriptableBy<PerRequest<int>, std::int32_t>);
static_assert(!SubscriptableBy<PerRequest<int>, std::int64_t>);
static_assert(SubscriptableBy<std::vector<int>, std::int32_t>); // (what the vector allowed)
// The int32 and the vector they wrap, nothing more (the engine's state is copied whole on every snapshot).
static_assert(sizeof(RequestIndex) == sizeof(std::int32_t) && alignof(RequestIndex) == alignof(std::int32_t));
static_assert(std::is_trivially_copyable_v<RequestIndex>);
static_assert(sizeof(PerRequest<RequestState>) == sizeof(std::vector<RequestState>));
static_assert(RequestIndex().isNone() && RequestIndex::none() == RequestIndex());

class TestRequestIndex : public QObject {
    Q_OBJECT

  private slots:
    void valueAndSlotGiveBackTheInt32();
    void orderIsTheInt32sAlsoInsideAQueueKey();
    void hashingTellsIndicesApart();
    void indicesWalkEveryRequestInOrder();
    void perRequestKeepsTheVectorsElementsAndBounds();
    void engineHeldBlocksOutOfRangeIsEmpty();
};

void TestRequestIndex::valueAndSlotGiveBackTheInt32() {
    for (const std::int32_t v : {0, 1, 7, 1'000'000, 2'147'483'647}) {
        const RequestIndex r(v);
        QCOMPARE(r.value(), v);
        QCOMPARE(r.slot(), static_cast<std::size_t>(v));
        QVERIFY(!r.isNone());
    }
    QCOMPARE(RequestIndex::none().value(), -1);
    QVERIFY(RequestIndex::none().isNone());
    QCOMPARE(RequestIndex::fromSlot(42).value(), 42);
    QVERIFY(RequestIndex(3) == RequestIndex(3));
    QVERIFY(RequestIndex(3) != RequestIndex(4));
}

// The waiting queue is keyed by (priority or place, request index): sorting such keys must give the order the
// (int64, int32) keys gave, ties on the first member broken by the index.
void TestRequestIndex::orderIsTheInt32sAlsoInsideAQueueKey() {
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::int64_t> priority(-3, 3);
    std::uniform_int_distribution<std::int32_t> index(0, 50);
    std::vector<std::pair<std::int64_t, std::int32_t>> raw;
    for (int i = 0; i < 500; ++i) {
        raw.emplace_back(priority(rng), index(rng));
    }
    std::vector<std::pair<std::int64_t, RequestIndex>> typed;
    for (const auto& [p, r] : raw) {
        typed.emplace_back(p, RequestIndex(r));
    }
    std::sort(raw.begin(), raw.end());
    std::sort(typed.begin(), typed.end());
    QCOMPARE(typed.size(), raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        QCOMPARE(typed[i].first, raw[i].first);
        QCOMPARE(typed[i].second.value(), raw[i].second);
    }
    const std::set<std::pair<std::int64_t, RequestIndex>> queue(typed.begin(), typed.end());
    const std::set<std::pair<std::int64_t, std::int32_t>> rawQueue(raw.begin(), raw.end());
    QCOMPARE(queue.size(), rawQueue.size());
    QVERIFY(RequestIndex::none() < RequestIndex(0));
}

void TestRequestIndex::hashingTellsIndicesApart() {
    std::unordered_set<RequestIndex> seen;
    for (std::int32_t v = 0; v < 1000; ++v) {
        QVERIFY(seen.insert(RequestIndex(v)).second);
    }
    QVERIFY(!seen.insert(RequestIndex(500)).second);
    QCOMPARE(seen.size(), std::size_t{1000});
    QVERIFY(seen.contains(RequestIndex(999)));
    QVERIFY(!seen.contains(RequestIndex(1000)));
}

void TestRequestIndex::indicesWalkEveryRequestInOrder() {
    PerRequest<std::string> names;
    QVERIFY(names.indices().begin() == names.indices().end());
    names.resize(5, "x");
    std::vector<std::int32_t> walked;
    for (const RequestIndex r : names.indices()) {
        walked.push_back(r.value());
    }
    QCOMPARE(walked, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
    QCOMPARE(names.indices().size(), std::size_t{5});
}

void TestRequestIndex::perRequestKeepsTheVectorsElementsAndBounds() {
    PerRequest<std::int64_t> v;
    QVERIFY(v.empty());
    v.reserve(16);
    QVERIFY(v.capacity() >= 16);
    v.assign(4, 0);
    for (const RequestIndex r : v.indices()) {
        v[r] = 10 * r.value();
    }
    const std::vector<std::int64_t> plain{0, 10, 20, 30};
    QCOMPARE(v.values(), plain);
    QVERIFY(std::equal(v.begin(), v.end(), plain.begin(), plain.end())); // begin/end walk the values
    QVERIFY(v.contains(RequestIndex(3)));
    QVERIFY(!v.contains(RequestIndex(4)));
    QVERIFY(!v.contains(RequestIndex::none()));
    // The bulk operations a snapshot uses (session.cpp): a range copied out and inserted back.
    PerRequest<std::int64_t> back;
    back.insert(back.end(), v.begin() + 1, v.end());
    QCOMPARE(back.size(), std::size_t{3});
    QCOMPARE(back[RequestIndex(0)], std::int64_t{10});
    back.resize(1);
    QCOMPARE(back.values(), (std::vector<std::int64_t>{10}));
    PerRequest<std::int64_t> same(plain);
    QVERIFY(same == v);
    same[RequestIndex(2)] = -1;
    QVERIFY(!(same == v));
}

// Engine::heldBlocks takes the int32 the lab holds (an event's request): -1 or past the end is no request.
void TestRequestIndex::engineHeldBlocksOutOfRangeIsEmpty() {
    Config c;
    c.block_size_tokens = 4;
    c.capacity_blocks = 8;
    const Workload w = pltest::workload(c, Policy{}, {pltest::req("a", 0, 8, 2)});
    Ledger ledger;
    EngineOptions options;
    options.track_block_owners = true;
    Engine engine(w, ledger, options);
    engine.step(); // arrives and is admitted: it holds its prompt's blocks
    QVERIFY(!engine.heldBlocks(0).empty());
    QVERIFY(engine.heldBlocks(-1).empty());
    QVERIFY(engine.heldBlocks(1).empty());
    QVERIFY(engine.heldBlocks(2'147'483'647).empty());
}

QTEST_GUILESS_MAIN(TestRequestIndex)
#include "test_request_index.moc"
