// LabDocument: loading, cursor, undoable edits that keep the tick, errors that name file and field, and the
// receipt being byte-identical to core's (the CLI's) for the same inputs.
#include "ui/exporter.h"
#include "ui/editcommands.h"
#include "ui/labdocument.h"
#include "ui/requestpalette.h"
#include "tests/ui/uitestutil.h"

#include "core/receipt.h"
#include "core/session.h"
#include "core/trace/generator.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <map>

using plui::LabDocument;

// Every block marked kept at the cursor was shared before (holders >= 2), was its victim's then and is not
// now, and someone still holds it.
static void checkKeptMarks(const LabDocument& doc, const std::vector<std::int32_t>& holdersBefore) {
    const auto& m = doc.victimBlockMask();
    const auto& victimOwners = doc.victimBlockOwners();
    const auto owners = doc.session()->cursor().blockOwners();
    std::int64_t kept = 0;
    for (std::size_t b = 0; b < m.size(); ++b) {
        if (m[b] != plui::RequestPalette::kVictimBlockKept) continue;
        ++kept;
        QVERIFY(holdersBefore[b] >= 2);
        QVERIFY(owners[b] != pl::kFreeBlock);
        const auto heldNow = doc.session()->cursor().heldBlocks(victimOwners[b]);
        QVERIFY(std::find(heldNow.begin(), heldNow.end(), static_cast<std::int32_t>(b)) == heldNow.end());
    }
    QCOMPARE(doc.victimSharedKeptAtCursor(), kept);
}

class TestLabDocument : public QObject {
    Q_OBJECT
  private slots:
    void loadsEverySampleAndSteps_data() {
        QTest::addColumn<QString>("file");
        for (const QString& f : uitest::sampleFiles()) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void loadsEverySampleAndSteps() {
        QFETCH(QString, file);
        LabDocument doc;
        QSignalSpy changed(&doc, &LabDocument::changed);
        QString error;
        QVERIFY2(doc.loadFile(file, &error), qPrintable(error));
        QVERIFY(doc.session() != nullptr);
        QVERIFY(changed.size() >= 2);
        QCOMPARE(doc.currentTick(), -1);
        doc.stepForward();
        QCOMPARE(doc.currentTick(), 0);
        doc.seek(doc.lastTick() / 2);
        QCOMPARE(doc.currentTick(), doc.lastTick() / 2);
        doc.stepBack();
        QCOMPARE(doc.currentTick(), doc.lastTick() / 2 - 1);
        doc.seek(1 << 30);
        QCOMPARE(doc.currentTick(), doc.lastTick());
        // Every pressure tick can be reached with next-pressure from the start.
        doc.seek(-1);
        std::size_t reached = 0;
        while (doc.seekNextPressure()) ++reached;
        QCOMPARE(reached, doc.session()->pressureTicks().size());
    }

    // A victim at the cursor is one evicted in this tick or one whose swap-out lands in it (evicted earlier);
    // the pool's header says which, since the ledger's row is at the eviction's tick.
    void victimsSayWhetherTheirSwapOutLandedNow() {
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"), &error));
        int evicted = 0, landed = 0, resumedWhereLanded = 0;
        for (const pl::Event& e : doc.session()->result().ledger.events) {
            if (e.kind != pl::EventKind::Evict && e.kind != pl::EventKind::SwapOutDone) continue;
            doc.seek(e.tick);
            const auto& victims = doc.victimsAtCursor();
            const auto at = std::find(victims.begin(), victims.end(), e.request);
            QVERIFY(at != victims.end());
            QCOMPARE(std::count(victims.begin(), victims.end(), e.request), 1);
            QCOMPARE(doc.victimsLandedAtCursor().size(), victims.size());
            const bool evictedHere = std::any_of(doc.session()->result().ledger.events.begin(),
                                                 doc.session()->result().ledger.events.end(), [&](const pl::Event& o) {
                                                     return o.tick == e.tick && o.request == e.request &&
                                                            o.kind == pl::EventKind::Evict;
                                                 });
            QCOMPARE(doc.victimsLandedAtCursor()[static_cast<std::size_t>(at - victims.begin())], std::uint8_t{!evictedHere});
            ++(evictedHere ? evicted : landed);
            // Where it was evicted: here, or at the tick of its last evict before.
            std::int64_t evictTick = -1;
            for (const pl::Event& o : doc.session()->result().ledger.events)
                if (o.kind == pl::EventKind::Evict && o.request == e.request && o.tick <= e.tick) evictTick = o.tick;
            QCOMPARE(doc.victimsEvictedAtCursor()[static_cast<std::size_t>(at - victims.begin())], evictTick);
            if (victims.size() == 1) {
                // Its blocks carry the mark of what happened now: the cross of an eviction, or the single
                // diagonal of a landed swap-out. A victim that resumed in the tick its swap-out landed holds
                // blocks again, copying back in: those carry no mark (they are not freed).
                const auto& mask = doc.victimBlockMask();
                const auto owners = doc.session()->cursor().blockOwners();
                const auto heldNow = std::count(owners.begin(), owners.end(), e.request);
                const std::uint8_t expected = evictedHere ? plui::RequestPalette::kVictimBlock : plui::RequestPalette::kVictimBlockLanded;
                const std::uint8_t other = evictedHere ? plui::RequestPalette::kVictimBlockLanded : plui::RequestPalette::kVictimBlock;
                if (evictedHere || heldNow == 0) QVERIFY(std::count(mask.begin(), mask.end(), expected) > 0);
                QCOMPARE(std::count(mask.begin(), mask.end(), other), 0);
                for (std::size_t b = 0; b < owners.size(); ++b) {
                    if (!evictedHere && owners[b] == e.request) QCOMPARE(mask[b], std::uint8_t{0});
                }
                if (!evictedHere && heldNow > 0) ++resumedWhereLanded;
                // Every marked block names the one victim (a freed one is labelled with it); no other does.
                const auto& victimOwners = doc.victimBlockOwners();
                QCOMPARE(victimOwners.size(), mask.size());
                for (std::size_t b = 0; b < mask.size(); ++b) QCOMPARE(victimOwners[b], mask[b] ? e.request : -1);
            }
        }
        QVERIFY(evicted > 0 && landed > 0 && resumedWhereLanded > 0);
    }

    void victimMaskMarksTheEvictedBlocks() {
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json"), &error));
        const auto& events = doc.session()->result().ledger.events;
        auto it = std::find_if(events.begin(), events.end(), [](const pl::Event& e) {
            return e.kind == pl::EventKind::Evict && e.mode == pl::Recovery::Recompute;
        });
        QVERIFY(it != events.end());
        doc.seek(it->tick);
        QVERIFY(std::find(doc.victimsAtCursor().begin(), doc.victimsAtCursor().end(), it->request) !=
                doc.victimsAtCursor().end());
        const auto& mask = doc.victimBlockMask();
        const auto marked = std::count_if(mask.begin(), mask.end(), [](std::uint8_t m) { return m != 0; });
        QVERIFY2(marked >= it->freed_blocks, "every block the victim gave back is highlighted");
        // A block marked as a victim's is the victim's or free now; one handed on belongs to a request that is
        // no victim (its cell must not read as evicted).
        const auto owners = doc.session()->cursor().blockOwners();
        const auto& victims = doc.victimsAtCursor();
        auto isVictim = [&](std::int32_t r) { return std::find(victims.begin(), victims.end(), r) != victims.end(); };
        for (std::size_t b = 0; b < mask.size(); ++b) {
            if (mask[b] == plui::RequestPalette::kVictimBlock) QVERIFY(owners[b] == pl::kFreeBlock || isVictim(owners[b]));
            if (mask[b] == plui::RequestPalette::kVictimBlockReused) QVERIFY(owners[b] >= 0 && !isVictim(owners[b]));
        }
        // A shared prefix block the victim let go stays with its other holders: not marked as handed on.
        LabDocument moon;
        QVERIFY(moon.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/mooncake-conv-slice.workload.json"), &error));
        std::int64_t sharedChecked = 0;
        for (const pl::Event& e : moon.session()->result().ledger.events) {
            if (e.kind != pl::EventKind::Evict || e.shared_blocks == 0) continue;
            moon.seek(e.tick - 1);
            const auto h = moon.session()->cursor().blockRefCount();
            const std::vector<std::int32_t> holders(h.begin(), h.end());
            moon.seek(e.tick);
            const auto& m = moon.victimBlockMask();
            for (std::size_t b = 0; b < m.size(); ++b) {
                if (m[b] == plui::RequestPalette::kVictimBlockReused) QVERIFY(holders[b] < 2);
            }
            checkKeptMarks(moon, holders);
            // The kept blocks are counted (the pool's header says so), as the ledger's "shared, kept" does.
            std::int64_t kept = 0;
            for (const pl::Event& o : moon.session()->result().ledger.events)
                if (o.tick == e.tick && o.kind == pl::EventKind::Evict) kept += o.shared_blocks;
            QCOMPARE(moon.victimSharedKeptAtCursor(), kept);
            QVERIFY(kept >= e.shared_blocks);
            sharedChecked += e.shared_blocks;
        }
        QVERIFY(sharedChecked > 0);
        moon.seek(0);
        QCOMPARE(moon.victimSharedKeptAtCursor(), 0);
        // Some sample has a victim's block handed on in its eviction tick: the case the second mark exists for.
        std::int64_t reusedSeen = 0;
        for (const QString& file : uitest::sampleFiles()) {
            if (reusedSeen > 0) break;
            LabDocument all;
            QVERIFY(all.loadFile(file, &error));
            for (const pl::Event& e : all.session()->result().ledger.events) {
                if (e.kind != pl::EventKind::Evict || reusedSeen > 0) continue;
                all.seek(e.tick);
                const auto& m = all.victimBlockMask();
                reusedSeen += std::count(m.begin(), m.end(), plui::RequestPalette::kVictimBlockReused);
            }
        }
        QVERIFY(reusedSeen > 0);
        // A tick without evictions has no highlighted blocks.
        doc.seek(0);
        QVERIFY(std::count_if(doc.victimBlockMask().begin(), doc.victimBlockMask().end(),
                              [](std::uint8_t m) { return m != 0; }) == 0);
    }

    // Two swap-outs land in one tick and the first resumes at once (admission runs: nothing was evicted): the
    // blocks it takes that the other victim held are handed on (the second mark, naming the one who let go);
    // its own blocks, held through the copy and again now, are not marked.
    void aVictimResumingWhereItLandedTakesAnotherVictimsBlock() {
        std::int64_t handedOn = 0, ownAgain = 0;
        // Generated under swap with a fast link, so victims evicted together land together.
        const std::tuple<std::uint64_t, std::int64_t, std::int64_t> cases[] = {
            {3, 64, 16 << 20}, {4, 64, 16 << 20}, {10, 128, 16 << 20}, {32, 64, 4 << 20}};
        for (const auto& [seed, capacity, link] : cases) {
            pl::trace::GeneratorParams g;
            g.seed = seed;
            g.count = 40;
            g.rate_per_tick = 1.0;
            g.prompt_median = 64;
            g.output_median = 200;
            g.prompt_max = 300;
            g.output_max = 400;
            g.config.capacity_blocks = capacity;
            g.config.transfer_bytes_per_tick = link;
            g.policy.recovery = pl::Recovery::Swap;
            g.policy.resume_guard = pl::ResumeGuard::NextBlock;
            auto w = pl::trace::generateWorkload(g);
            QVERIFY(std::holds_alternative<pl::Workload>(w));
            LabDocument doc;
            doc.setRunMode(LabDocument::RunMode::Synchronous);
            QString error;
            QVERIFY2(doc.setWorkload(std::get<pl::Workload>(std::move(w)), QStringLiteral("generated"), &error), qPrintable(error));
            std::int64_t lastTick = -2;
            for (const pl::Event& e : doc.session()->result().ledger.events) {
                if (e.kind != pl::EventKind::SwapOutDone || e.tick == lastTick) continue;
                lastTick = e.tick;
                doc.seek(e.tick - 1);
                const auto b0 = doc.session()->cursor().blockOwners();
                const std::vector<std::int32_t> before(b0.begin(), b0.end());
                doc.seek(e.tick);
                const auto& victims = doc.victimsAtCursor();
                if (victims.size() < 2) continue;
                auto isVictim = [&](std::int32_t r) {
                    return r >= 0 && std::find(victims.begin(), victims.end(), r) != victims.end();
                };
                auto landedHere = [&](std::int32_t r) {
                    const auto at = std::find(victims.begin(), victims.end(), r);
                    return at != victims.end() && doc.victimsLandedAtCursor()[static_cast<std::size_t>(at - victims.begin())];
                };
                const auto now = doc.session()->cursor().blockOwners();
                for (std::size_t b = 0; b < now.size(); ++b) {
                    // Held now by a victim whose swap-out landed here (so it resumed), held before by a victim.
                    if (!landedHere(now[b]) || !isVictim(before[b])) continue;
                    if (before[b] == now[b]) {
                        QCOMPARE(doc.victimBlockMask()[b], std::uint8_t{0});
                        ++ownAgain;
                    } else {
                        QCOMPARE(doc.victimBlockMask()[b], plui::RequestPalette::kVictimBlockReused);
                        QCOMPARE(doc.victimBlockOwners()[b], before[b]);
                        ++handedOn;
                    }
                }
            }
        }
        qInfo("%lld blocks handed from one landed victim to another, %lld held again by their own",
              static_cast<long long>(handedOn), static_cast<long long>(ownAgain));
        QVERIFY(handedOn > 0);
        QVERIFY(ownAgain > 0);
    }

    // Under swap a victim keeps its hold on shared blocks until its swap-out lands: nothing is marked kept at
    // the eviction, and at the landing its shared blocks are (the swap_out_done's shared_blocks).
    // Hybrid lets go of its dropped tail at the eviction and of its swapped prefix at the landing: at most the
    // evict's shared_blocks in all.
    void aSwapVictimLetsGoOfSharedBlocksWhenItLands_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("swap") << QStringLiteral("swap");
        QTest::newRow("hybrid") << QStringLiteral("hybrid");
    }
    void aSwapVictimLetsGoOfSharedBlocksWhenItLands() {
        QFETCH(QString, mode);
        const bool hybrid = mode == QLatin1String("hybrid");
        LabDocument doc;
        QVERIFY(uitest::openSample(doc, QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/generated-bursty-shared-prefix.workload.json")));
        QString error;
        QVERIFY2(doc.setSetting(QStringLiteral("recovery"), mode, &error), qPrintable(error));
        std::int64_t atLanding = 0, evictions = 0, tailAtEviction = 0;
        std::map<std::int32_t, std::int64_t> keptSoFar, sharedAtEvict; // per victim, since its last eviction
        const auto events = doc.session()->result().ledger.events; // a copy: seeking does not change it, but be safe
        for (const pl::Event& e : events) {
            if (e.kind != pl::EventKind::Evict && e.kind != pl::EventKind::SwapOutDone) continue;
            doc.seek(e.tick - 1);
            const auto h = doc.session()->cursor().blockRefCount();
            const std::vector<std::int32_t> holders(h.begin(), h.end());
            doc.seek(e.tick);
            checkKeptMarks(doc, holders);
            const auto& m = doc.victimBlockMask();
            const auto& owners = doc.victimBlockOwners();
            std::int64_t kept = 0;
            for (std::size_t b = 0; b < m.size(); ++b)
                kept += m[b] == plui::RequestPalette::kVictimBlockKept && owners[b] == e.request ? 1 : 0;
            if (e.kind == pl::EventKind::Evict) {
                if (!hybrid || e.swap_blocks == 0 || e.mode != pl::Recovery::Hybrid) {
                    if (e.mode == pl::Recovery::Swap) QCOMPARE(kept, 0); // still held through the copy
                } else {
                    tailAtEviction += kept;
                }
                keptSoFar[e.request] = kept;
                sharedAtEvict[e.request] = e.shared_blocks;
                ++evictions;
            } else if (doc.victimsAtCursor().size() == 1) {
                if (!hybrid) QCOMPARE(kept, e.shared_blocks);
                keptSoFar[e.request] += kept;
                QVERIFY(keptSoFar[e.request] <= sharedAtEvict[e.request]);
                atLanding += kept;
            }
        }
        QVERIFY(evictions > 0);
        QVERIFY(atLanding > 0);
        if (hybrid) QVERIFY(tailAtEviction > 0);
    }

    void settingEditsAreUndoableAndKeepTheTick() {
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"), &error));
        const std::string receiptBefore = plui::receiptTextOf(doc);
        doc.seek(30);
        QVERIFY2(doc.setSetting(QStringLiteral("recovery"), QStringLiteral("recompute"), &error), qPrintable(error));
        QVERIFY(doc.workload().policy.recovery == pl::Recovery::Recompute);
        QCOMPARE(doc.currentTick(), 30);
        QVERIFY(plui::receiptTextOf(doc) != receiptBefore);
        QVERIFY(doc.setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("80"), &error));
        QVERIFY(doc.setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("90"), &error));
        QCOMPARE(doc.undoStack()->count(), 2); // two edits of one key in a row (a drag) merge into one step
        // A change of the same key after a pause is a step of its own (two changes were one undo before).
        QTest::qWait(static_cast<int>(plui::kMergeWindowMs) + 200);
        QVERIFY(doc.setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("100"), &error));
        QCOMPARE(doc.undoStack()->count(), 3);
        doc.undoStack()->undo();
        QCOMPARE(doc.settingValue(QStringLiteral("capacity_blocks")), QStringLiteral("90"));
        doc.undoStack()->undo();
        QCOMPARE(doc.settingValue(QStringLiteral("capacity_blocks")), QStringLiteral("64"));
        doc.undoStack()->undo();
        QCOMPARE(doc.currentTick(), 30);
        QCOMPARE(plui::receiptTextOf(doc), receiptBefore);
        doc.undoStack()->redo();
        QVERIFY(doc.workload().policy.recovery == pl::Recovery::Recompute);
        // A value core refuses leaves the document alone and names the key.
        QVERIFY(!doc.setSetting(QStringLiteral("recovery"), QStringLiteral("teleport"), &error));
        QVERIFY2(error.contains(QStringLiteral("recovery")), qPrintable(error));
        QVERIFY(!doc.setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("1"), &error));
        QCOMPARE(doc.workload().config.capacity_blocks, 64);
    }

    void requestEditsValidateAndUndo() {
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json"), &error));
        pl::RequestSpec r = doc.workload().requests[0];
        const auto before = r.output_tokens;
        r.output_tokens = before + 5;
        r.max_output_tokens = std::max(r.max_output_tokens, r.output_tokens);
        QVERIFY2(doc.setRequest(0, r, &error), qPrintable(error));
        QCOMPARE(doc.workload().requests[0].output_tokens, before + 5);
        doc.undoStack()->undo();
        QCOMPARE(doc.workload().requests[0].output_tokens, before);
        r.id = "bad id!";
        QVERIFY(!doc.setRequest(0, r, &error));
        QVERIFY2(error.contains(QStringLiteral("/requests/0/id")), qPrintable(error));
    }

    void badFilesNameFileFieldAndReason() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.workload.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"preemptlab.workload.v1","name":"x","config":{"capacity_blocks":-3},"requests":[]})");
        f.close();
        LabDocument doc;
        QString error;
        QVERIFY(!doc.loadFile(path, &error));
        QVERIFY2(error.contains(path) && error.contains(QStringLiteral("/config/capacity_blocks")), qPrintable(error));
        QVERIFY(!doc.hasWorkload());
        QVERIFY(!doc.loadFile(dir.filePath(QStringLiteral("missing.json")), &error));
        QVERIFY(error.contains(QStringLiteral("missing.json")));
    }

    void receiptIsByteIdenticalToCore_data() {
        QTest::addColumn<QString>("file");
        for (const QString& f : uitest::sampleFiles()) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void receiptIsByteIdenticalToCore() {
        QFETCH(QString, file);
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(file, &error));
        doc.seek(doc.lastTick() / 3); // the cursor position must not matter
        const pl::Workload w = uitest::loadSample(file);
        QCOMPARE(plui::receiptTextOf(doc), pl::receiptText(w, pl::runWorkload(w)));
    }

    void receiptMatchesTheCliBinary() {
        const QString cli = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli");
        if (!QFileInfo::exists(cli)) QSKIP("preemptlab-cli not built in this tree");
        QTemporaryDir dir;
        const QString sample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
        const QString cliOut = dir.filePath(QStringLiteral("cli.json"));
        QProcess p;
        p.start(cli, {QStringLiteral("run"), sample, QStringLiteral("--victim-rule"), QStringLiteral("longest-context"),
                      QStringLiteral("--out"), cliOut});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(sample, &error));
        QVERIFY(doc.setSetting(QStringLiteral("victim_rule"), QStringLiteral("longest-context"), &error));
        const QString labOut = dir.filePath(QStringLiteral("lab.json"));
        QVERIFY(!plui::exportReceipt(doc, labOut));
        QFile a(cliOut), b(labOut);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
    }

    void cancellingARunKeepsWhatIsOnScreen() {
        LabDocument doc;
        QString error;
        QVERIFY(doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"), &error));
        const std::string before = plui::receiptTextOf(doc);
        doc.setRunMode(LabDocument::RunMode::Background);
        QVERIFY(doc.setSetting(QStringLiteral("recovery"), QStringLiteral("recompute"), &error));
        QVERIFY(doc.busy());
        doc.cancelRun();
        doc.waitForIdle();
        QCOMPARE(plui::receiptTextOf(doc), before);
        QVERIFY(doc.workload().policy.recovery == pl::Recovery::Swap);
        // A first load that is cancelled leaves no workload.
        LabDocument fresh;
        fresh.setRunMode(LabDocument::RunMode::Background);
        QVERIFY(fresh.setWorkload(uitest::syntheticWorkload(4000, 1500), QStringLiteral("big"), &error));
        fresh.cancelRun();
        fresh.waitForIdle();
        QVERIFY(!fresh.hasWorkload());
        QVERIFY(fresh.session() == nullptr);
    }

    void backgroundRunsKeepTheWindowFree() {
        LabDocument doc;
        doc.setRunMode(LabDocument::RunMode::Background);
        QString error;
        QVERIFY(doc.setWorkload(uitest::syntheticWorkload(4000, 1500), QStringLiteral("synthetic"), &error));
        QVERIFY(doc.busy() || doc.session() != nullptr);
        doc.waitForIdle();
        QVERIFY(doc.session() != nullptr);
        QVERIFY(doc.lastTick() > 0);
        // A newer edit supersedes an unfinished run: only the last one is installed.
        doc.seek(10);
        QVERIFY(doc.setSetting(QStringLiteral("recovery"), QStringLiteral("swap"), &error));
        QVERIFY(doc.setSetting(QStringLiteral("recovery"), QStringLiteral("recompute"), &error));
        doc.waitForIdle();
        QVERIFY(doc.session()->workload().policy.recovery == pl::Recovery::Recompute);
        QCOMPARE(doc.currentTick(), 10);
    }

    // A run opens with the seek snapshots up to where it opens only; the rest are taken while the event loop is
    // idle, and seeks anywhere give what a fresh run gives before, while and after they are.
    void snapshotsAreTakenWhileIdle() {
        LabDocument doc;
        doc.setRunMode(LabDocument::RunMode::Synchronous);
        QString error;
        const pl::Workload w = uitest::syntheticWorkload(4000, 1500);
        QVERIFY(doc.setWorkload(w, QStringLiteral("synthetic"), &error));
        QVERIFY(doc.session() != nullptr);
        QVERIFY(!doc.session()->snapshotsComplete());
        const std::size_t atOpen = doc.session()->snapshotCount();
        QTRY_VERIFY_WITH_TIMEOUT(doc.session()->snapshotsComplete(), 60000);
        QVERIFY2(doc.session()->snapshotCount() > atOpen, qPrintable(QString::number(atOpen)));
        for (const std::int64_t t : {doc.lastTick(), doc.lastTick() / 3, std::int64_t{0}}) {
            doc.seek(t);
            pl::Ledger ledger;
            pl::Engine fresh(w, ledger, pl::EngineOptions{false, true});
            fresh.runToTick(t);
            const auto owners = doc.session()->cursor().blockOwners();
            QVERIFY(std::equal(owners.begin(), owners.end(), fresh.blockOwners().begin(), fresh.blockOwners().end()));
            QCOMPARE(doc.session()->cursor().freeBlocks(), fresh.freeBlocks());
        }
    }
};

QTEST_MAIN(TestLabDocument)
#include "test_lab_document.moc"
