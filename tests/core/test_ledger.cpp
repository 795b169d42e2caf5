// The ledger's queries (core/ledger.h) on a ledger written by hand, so that each case is one the engine may
// never happen to produce: victimsAtTick, what the lab's "why" panel shows at its cursor.
#include "core/ledger.h"

#include <QtTest>

#include <cstdint>
#include <vector>

using namespace pl;

namespace {

// Appends one event; its seq is its place in the ledger.
void add(Ledger& ledger, Tick tick, EventKind kind, std::int32_t request,
         PressureTrigger trigger = PressureTrigger::AllocationFailed) {
    Event e;
    e.seq = static_cast<std::int64_t>(ledger.events.size());
    e.tick = tick;
    e.kind = kind;
    e.request = request;
    e.trigger = trigger;
    ledger.events.push_back(e);
}

// Tick 5: request 3 needs blocks and evicts 1 and 2. Tick 7: a decode retraction (no requester) evicts 4.
// Tick 9: 4's swap-out lands; 5 needs blocks, evicts itself and 6, whose swap-out lands at once; 1's swap-out
// (evicted at 5) lands; a preempt-ahead (no requester) evicts 7.
Ledger handWritten() {
    Ledger l;
    add(l, 0, EventKind::Arrive, 1);
    add(l, 5, EventKind::Pressure, 3);
    add(l, 5, EventKind::Evict, 1);
    add(l, 5, EventKind::Evict, 2);
    add(l, 7, EventKind::Pressure, -1, PressureTrigger::RetractDecode);
    add(l, 7, EventKind::Evict, 4);
    add(l, 9, EventKind::SwapOutDone, 4);
    add(l, 9, EventKind::Pressure, 5);
    add(l, 9, EventKind::Evict, 5);
    add(l, 9, EventKind::Evict, 6);
    add(l, 9, EventKind::SwapOutDone, 6);
    add(l, 9, EventKind::SwapOutDone, 1);
    add(l, 9, EventKind::Pressure, -1, PressureTrigger::PreemptAhead);
    add(l, 9, EventKind::Evict, 7);
    add(l, 9, EventKind::Admit, 8);
    return l;
}

using Ids = std::vector<std::int32_t>;
using Flags = std::vector<std::uint8_t>;
using Ticks = std::vector<Tick>;

} // namespace

class TestLedger : public QObject {
    Q_OBJECT
  private slots:
    // Victims once each in event order; a landed swap-out's victim says so and when it was evicted, unless it
    // was evicted in the same tick too; requesters once each, none for a pressure without one.
    void victimsAtTickReadsTheTicksEvictionsAndLandings() {
        const Ledger l = handWritten();
        const VictimsAtTick at9 = victimsAtTick(l, 9);
        QVERIFY(at9.victims == (Ids{4, 5, 6, 1, 7}));
        QVERIFY(at9.landed == (Flags{1, 0, 0, 1, 0}));
        QVERIFY(at9.evicted_at == (Ticks{7, 9, 9, 5, 9}));
        QVERIFY(at9.requesters == (Ids{5}));
        QVERIFY(at9.self_evicted == (Ids{5}));

        const VictimsAtTick at5 = victimsAtTick(l, 5);
        QVERIFY(at5.victims == (Ids{1, 2}));
        QVERIFY(at5.landed == (Flags{0, 0}));
        QVERIFY(at5.evicted_at == (Ticks{5, 5}));
        QVERIFY(at5.requesters == (Ids{3}));
        QVERIFY(at5.self_evicted.empty());

        const VictimsAtTick at7 = victimsAtTick(l, 7);
        QVERIFY(at7.victims == (Ids{4}));
        QVERIFY(at7.requesters.empty()); // a decode retraction is no one request's need
    }

    // A tick without evictions or landings, one past the last event, and an empty ledger: nothing.
    void victimsAtTickIsEmptyWhereNothingWasEvicted() {
        const Ledger l = handWritten();
        for (const Tick t : {Tick{0}, Tick{6}, Tick{10}, Tick{-1}}) {
            const VictimsAtTick none = victimsAtTick(l, t);
            QVERIFY(none.victims.empty());
            QVERIFY(none.landed.empty());
            QVERIFY(none.evicted_at.empty());
            QVERIFY(none.requesters.empty());
            QVERIFY(none.self_evicted.empty());
        }
        QVERIFY(victimsAtTick(Ledger{}, 0).victims.empty());
    }
};

QTEST_APPLESS_MAIN(TestLedger)
#include "test_ledger.moc"
