// The prefix cache by runs of ids (core/prefix_extents.h) on its own: against a per-id model written the
// obvious way (a holder count per id, the freed order as a list of ids, a vector of ids per request), over
// random request lives that keep the engine's rules; and the run structure itself (a chain stays one extent).
// The engine-level comparison with the per-block cache is in test_prefix (propertyRandomSharedWorkloads).
#include "core/prefix_extents.h"

#include <QtTest>

#include <algorithm>
#include <limits>
#include <list>
#include <map>
#include <vector>

using namespace pl;

namespace {

// The per-block cache's semantics, one id at a time.
struct PerIdModel {
    std::int64_t capacity = 0;
    std::map<std::int64_t, std::int32_t> ref; // ids in the cache
    std::list<std::int64_t> freed;            // free ids with an id, reused from the front
    std::vector<std::vector<std::int64_t>> held; // per request, per block: its id or -1

    std::int64_t plainFree() const {
        std::int64_t used = 0; // blocks without an id, and each held id once (shared blocks are one block)
        for (const auto& h : held) {
            used += std::count(h.begin(), h.end(), -1);
        }
        for (const auto& [id, n] : ref) {
            used += n > 0 ? 1 : 0;
        }
        return capacity - used - static_cast<std::int64_t>(freed.size());
    }
    std::int64_t hits(const std::vector<std::int64_t>& ids, std::int64_t limit, std::int64_t& shared) const {
        shared = 0;
        std::int64_t h = 0;
        for (; h < std::min<std::int64_t>(limit, static_cast<std::int64_t>(ids.size())); ++h) {
            const auto it = ref.find(ids[static_cast<std::size_t>(h)]);
            if (it == ref.end()) {
                break;
            }
            shared += it->second > 0 ? 1 : 0;
        }
        return h;
    }
    std::int64_t attach(std::size_t r, const std::vector<std::int64_t>& ids, std::int64_t h) {
        std::int64_t fromFree = 0;
        for (std::int64_t i = 0; i < h; ++i) {
            const auto id = ids[static_cast<std::size_t>(i)];
            if (ref[id]++ == 0) {
                freed.remove(id);
                fromFree += 1;
            }
            held[r].push_back(id);
        }
        return fromFree;
    }
    void take(std::size_t r, std::int64_t n) {
        for (std::int64_t fromCache = n - std::min(n, plainFree()); fromCache > 0; --fromCache) {
            ref.erase(freed.front());
            freed.pop_front();
        }
        held[r].insert(held[r].end(), static_cast<std::size_t>(n), -1);
    }
    void registerRange(std::size_t r, const std::vector<std::int64_t>& ids, std::int64_t from, std::int64_t to) {
        for (std::int64_t p = from; p < to; ++p) {
            const auto id = ids[static_cast<std::size_t>(p)];
            if (ref.try_emplace(id, 1).second) {
                held[r][static_cast<std::size_t>(p)] = id;
            }
        }
    }
    std::int64_t release(std::size_t r, std::int64_t lo, std::int64_t hi) {
        std::int64_t n = 0;
        for (std::int64_t p = hi; p-- > lo;) {
            const auto id = held[r][static_cast<std::size_t>(p)];
            if (id < 0) {
                n += 1;
            } else if (--ref[id] == 0) {
                freed.push_back(id);
                n += 1;
            }
        }
        held[r].erase(held[r].begin() + lo, held[r].begin() + hi);
        return n;
    }
    std::int64_t exclusive(std::size_t r, std::int64_t n) const {
        std::int64_t own = 0;
        for (std::int64_t p = 0; p < n; ++p) {
            const auto id = held[r][static_cast<std::size_t>(p)];
            own += id < 0 || ref.at(id) == 1 ? 1 : 0;
        }
        return own;
    }
    std::int64_t reusableBefore(const std::vector<std::int64_t>& ids, std::int64_t hits, std::int64_t steps) const {
        const std::int64_t n = std::max<std::int64_t>(0, std::min<std::int64_t>(steps, static_cast<std::int64_t>(freed.size())));
        std::int64_t first = n;
        std::int64_t pos = 0;
        for (auto it = freed.begin(); it != freed.end() && pos < n; ++it, ++pos) {
            if (std::find(ids.begin(), ids.begin() + hits, *it) != ids.begin() + hits) {
                first = std::min(first, pos);
            }
        }
        return first;
    }
};

} // namespace

class TestPrefixExtents : public QObject {
    Q_OBJECT
  private slots:
    void idRunsSplitWhereIdsStopRising();
    void aChainStaysOneExtent();
    void matchesAPerIdModel();
};

void TestPrefixExtents::idRunsSplitWhereIdsStopRising() {
    const PrefixIds ids{7, 8, 9, 3, 3, 4, 100};
    const auto& runs = ids.runs();
    QCOMPARE(runs.size(), std::size_t{4});
    QCOMPARE(runs[0], (IdRun{0, 7, 3}));
    QCOMPARE(runs[1], (IdRun{3, 3, 1}));
    QCOMPARE(runs[2], (IdRun{4, 3, 2}));
    QCOMPARE(runs[3], (IdRun{6, 100, 1}));
    QCOMPARE(ids.size(), std::size_t{7});
    const std::vector<std::int64_t> back{7, 8, 9, 3, 3, 4, 100};
    QCOMPARE(ids.toVector(), back);
    QCOMPARE(std::vector<std::int64_t>(ids.begin(), ids.end()), back);
    for (std::size_t i = 0; i < back.size(); ++i) {
        QCOMPARE(ids[i], back[i]);
    }
    QVERIFY(PrefixIds{}.runs().empty());
    // Equal sequences compare equal however they were built; ids far apart never join a run.
    PrefixIds built;
    for (const auto id : back) {
        built.push_back(id);
    }
    QVERIFY(built == ids);
    QVERIFY(!(PrefixIds{7, 8} == PrefixIds{7, 9}));
    const std::int64_t top = std::numeric_limits<std::int64_t>::max();
    const PrefixIds extremes{top, std::numeric_limits<std::int64_t>::min(), -1, 0};
    QCOMPARE(extremes.runs().size(), std::size_t{3}); // top | min | -1, 0
    QCOMPARE(extremes[1], std::numeric_limits<std::int64_t>::min());
}

// A 750-block chain registered chunk by chunk, attached by a second request, then let go by both: one extent
// all along (the per-run cost depends on it), and the freed order still drops the highest ids first.
void TestPrefixExtents::aChainStaysOneExtent() {
    std::vector<std::int64_t> chain(750);
    for (std::size_t i = 0; i < chain.size(); ++i) {
        chain[i] = 1000 + static_cast<std::int64_t>(i);
    }
    const PrefixIds chainIds(chain);
    const auto& runs = chainIds.runs();
    PrefixExtents x;
    x.reset(2);
    for (std::int64_t p = 0; p < 750; p += 18) {
        const std::int64_t to = std::min<std::int64_t>(750, p + 18);
        x.take(to - p, 1 << 20);
        x.registerRange(RequestIndex(0), runs, p, to);
    }
    QCOMPARE(x.extentCount(), std::size_t{1});
    std::int64_t shared = 0;
    QCOMPARE(x.hits(runs, 749, shared), 749);
    QCOMPARE(shared, 749);
    QCOMPARE(x.attach(RequestIndex(1), runs, 749), 0);
    QCOMPARE(x.extentCount(), std::size_t{2}); // [1000, 1749) held twice, 1749 once
    QCOMPARE(x.exclusive(RequestIndex(0), 750), 1);
    QCOMPARE(x.release(RequestIndex(0), 0, 750), 1);  // only 1749 was r0's alone
    QCOMPARE(x.extentCount(), std::size_t{2});
    QCOMPARE(x.release(RequestIndex(1), 0, 749), 749);
    QCOMPARE(x.extentCount(), std::size_t{1});
    QCOMPARE(x.cachedFree(), 750);
    x.take(10, 0); // drops 1740..1749
    QCOMPARE(x.hits(runs, 750, shared), 740);
    QCOMPARE(shared, 0);
}

void TestPrefixExtents::matchesAPerIdModel() {
    std::uint64_t state = 0x5eed;
    auto next = [&state](std::int64_t lo, std::int64_t hi) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return lo + static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
    };
    std::int64_t checks = 0;
    for (int world = 0; world < 300; ++world) {
        const std::size_t n = static_cast<std::size_t>(next(2, 6));
        std::vector<std::vector<std::int64_t>> ids(n);
        std::vector<std::vector<IdRun>> runs(n);
        for (std::size_t r = 0; r < n; ++r) {
            const auto len = next(0, 24);
            const auto family = next(0, 2) * 100;
            const auto branch = next(0, len);
            for (std::int64_t b = 0; b < len; ++b) {
                const auto style = next(0, 9);
                ids[r].push_back(style == 0 ? next(0, 8) : b < branch ? family + b : family + 50 + b);
            }
            runs[r] = PrefixIds(ids[r]).runs();
        }
        PerIdModel m;
        m.capacity = next(20, 90);
        m.held.assign(n, {});
        PrefixExtents x;
        x.reset(n);
        std::vector<std::int64_t> settled(n, 0);
        for (int op = 0; op < 200; ++op) {
            const std::size_t r = static_cast<std::size_t>(next(0, static_cast<std::int64_t>(n) - 1));
            const auto ri = RequestIndex::fromSlot(r);
            auto& mine = m.held[r];
            const auto blocks = static_cast<std::int64_t>(mine.size());
            const auto total = static_cast<std::int64_t>(ids[r].size());
            if (blocks == 0) {
                const std::int64_t room = m.plainFree() + static_cast<std::int64_t>(m.freed.size()); // admit: attach the hits, take a few more, settle what is computed
                std::int64_t sm = 0;
                std::int64_t sx = 0;
                const auto limit = next(0, total);
                const auto h = m.hits(ids[r], limit, sm);
                QCOMPARE(x.hits(runs[r], limit, sx), h);
                QCOMPARE(sx, sm);
                if (h - sm > room) {
                    continue;
                }
                QCOMPARE(x.attach(ri, runs[r], h), m.attach(r, ids[r], h));
                settled[r] = h;
            } else if (next(0, 3) == 0) { // let go: the tail (an eviction) or everything from the front
                QCOMPARE(x.exclusive(ri, blocks), m.exclusive(r, blocks));
                const auto k = next(1, blocks);
                const bool front = next(0, 1) == 0;
                const auto lo = front ? 0 : blocks - k;
                const auto hi = front ? k : blocks;
                QCOMPARE(x.release(ri, lo, hi), m.release(r, lo, hi));
                settled[r] = mine.empty() ? 0 : -1; // what is left is settled no further, as after a swap-out
                QCOMPARE(x.exclusive(ri, static_cast<std::int64_t>(mine.size())),
                         m.exclusive(r, static_cast<std::int64_t>(mine.size())));
                continue;
            }
            // grow: take fresh blocks, then settle up to what they cover
            if (settled[r] < 0) {
                continue;
            }
            QCOMPARE(x.cachedFree(), static_cast<std::int64_t>(m.freed.size()));
            const auto k = next(0, std::min<std::int64_t>(4, m.plainFree() + static_cast<std::int64_t>(m.freed.size())));
            x.take(k, m.plainFree());
            m.take(r, k);
            const auto to = std::min(total, static_cast<std::int64_t>(mine.size()));
            if (settled[r] < to && settled[r] == x.heldLength(ri)) {
                x.registerRange(ri, runs[r], settled[r], to);
                m.registerRange(r, ids[r], settled[r], to);
                settled[r] = to;
            }
            QCOMPARE(x.cachedFree(), static_cast<std::int64_t>(m.freed.size()));
            const std::size_t q = static_cast<std::size_t>(next(0, static_cast<std::int64_t>(n) - 1));
            std::int64_t sm = 0;
            std::int64_t sx = 0;
            const auto h = m.hits(ids[q], total + 1, sm);
            QCOMPARE(x.hits(runs[q], total + 1, sx), h);
            const auto steps = next(-2, 30);
            QCOMPARE(x.reusableBefore(runs[q], h, steps), m.reusableBefore(ids[q], h, steps));
            ++checks;
        }
    }
    qInfo("%lld checked states", static_cast<long long>(checks));
    QVERIFY(checks > 10000);
}

QTEST_APPLESS_MAIN(TestPrefixExtents)
#include "test_prefix_extents.moc"
