// BlockGridWidget: cells land where blockAt() says, colours follow owners, victims and in-flight blocks are
// marked, and the level of detail holds from 16 to 100,000 blocks.
#include "ui/blockgridwidget.h"
#include "ui/exporter.h"
#include "ui/requestpalette.h"
#include "tests/ui/uitestutil.h"

#include <QApplication>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTest>

#include <set>

using plui::BlockGridWidget;
using plui::RequestPalette;

class TestBlockGrid : public QObject {
    Q_OBJECT
  private:
    static QPoint centreOf(const BlockGridWidget& g, int block) {
        const int c = g.effectiveCellSize();
        const int cols = std::max(1, g.width() / c);
        return {(block % cols) * c + c / 2, (block / cols) * c + c / 2};
    }

    // The colours a PDF's content streams fill with ("r g b rg" or "r g b scn", 0..1), inflated (FlateDecode:
    // zlib, which qUncompress reads after a 4-byte size hint it grows past).
    static std::set<QRgb> pdfFillColours(const QByteArray& pdf) {
        std::set<QRgb> out;
        const QRegularExpression fill(QStringLiteral("([0-9.]+) ([0-9.]+) ([0-9.]+) (rg|scn)\\b"));
        qsizetype at = 0;
        while ((at = pdf.indexOf("stream", at)) >= 0) {
            qsizetype begin = at + 6;
            if (begin < pdf.size() && pdf[begin] == '\r') ++begin;
            if (begin < pdf.size() && pdf[begin] == '\n') ++begin;
            const qsizetype end = pdf.indexOf("endstream", begin);
            if (end < 0) break;
            QByteArray packed = QByteArray("\x00\x10\x00\x00", 4) + pdf.mid(begin, end - begin);
            QByteArray text = qUncompress(packed);
            if (text.isEmpty()) text = pdf.mid(begin, end - begin); // not compressed
            auto it = fill.globalMatch(QString::fromLatin1(text));
            while (it.hasNext()) {
                const auto m = it.next();
                const auto c = [&](int i) { return qBound(0, qRound(m.captured(i).toDouble() * 255.0), 255); };
                out.insert(qRgb(c(1), c(2), c(3)));
            }
            at = end + 9;
        }
        return out;
    }

  private slots:
    // Issue 27: an SVG stretched the pool's 6x3 bitmap (viewers smeared it) and a PDF embedded it as JPEG (free
    // cells turned peach). Both draw the cells as vectors now: the SVG rendered back (QSvgRenderer) has the PNG's
    // colour at each known cell, and the PDF holds no image, only fills of those very colours.
    void svgAndPdfDrawThePoolInThePngsColours() {
        BlockGridWidget g;
        g.resize(600, 300);
        std::vector<std::int32_t> owners(18, -1);
        owners[0] = 0;
        owners[1] = 0;
        owners[7] = 2;
        owners[12] = 4;
        std::vector<std::uint8_t> flight(18, 0), victims(18, 0);
        victims[7] = RequestPalette::kVictimBlock;
        g.setPool(owners, flight, victims);
        QVERIFY(g.effectiveCellSize() >= 40); // 6x3-like: large cells, as the issue's pool
        QString error;
        const auto png = plui::renderWidget(&g, QStringLiteral("png"), &error);
        const auto svg = plui::renderWidget(&g, QStringLiteral("svg"), &error);
        const auto pdf = plui::renderWidget(&g, QStringLiteral("pdf"), &error);
        QVERIFY2(png && svg && pdf, qPrintable(error));
        const QImage shot = QImage::fromData(*png, "PNG").convertToFormat(QImage::Format_RGB32);
        QCOMPARE(shot.size(), g.size());
        QSvgRenderer renderer(*svg);
        QVERIFY(renderer.isValid());
        QImage back(g.size(), QImage::Format_RGB32);
        back.fill(Qt::white);
        {
            QPainter p(&back);
            renderer.render(&p, QRectF(QPointF(0, 0), QSizeF(g.size())));
        }
        // A point of each cell clear of its frame, cross, label and pattern: a sixth in from the left, mid-height.
        const int c = g.effectiveCellSize();
        const auto sample = [&](int block) { return centreOf(g, block) - QPoint(c / 3, 0); };
        QVERIFY(!svg->contains("<image")); // no bitmap at all, stretched or not
        const std::set<QRgb> fills = pdfFillColours(*pdf);
        QVERIFY2(!pdf->contains("/DCTDecode") && !pdf->contains("/Subtype /Image"), "the PDF embeds a bitmap");
        for (const int block : {0, 1, 3, 7, 12, 17}) {
            const QRgb want = shot.pixel(sample(block));
            const QRgb got = back.pixel(sample(block));
            QVERIFY2(std::abs(qRed(want) - qRed(got)) <= 1 && std::abs(qGreen(want) - qGreen(got)) <= 1 &&
                         std::abs(qBlue(want) - qBlue(got)) <= 1,
                     qPrintable(QStringLiteral("block %1: PNG %2, SVG %3").arg(block).arg(QColor(want).name(), QColor(got).name())));
            const bool inPdf = std::any_of(fills.begin(), fills.end(), [&](QRgb f) {
                return std::abs(qRed(want) - qRed(f)) <= 1 && std::abs(qGreen(want) - qGreen(f)) <= 1 &&
                       std::abs(qBlue(want) - qBlue(f)) <= 1;
            });
            QVERIFY2(inPdf, qPrintable(QStringLiteral("block %1: the PDF fills no %2").arg(block).arg(QColor(want).name())));
        }
        QCOMPARE(QColor(shot.pixel(sample(3))).rgb(), RequestPalette::freeColor().rgb()); // free is free, not peach
    }

    void smallPoolColoursAndHitTesting() {
        BlockGridWidget g;
        g.resize(400, 300);
        std::vector<std::int32_t> owners(16, -1);
        owners[0] = 0;
        owners[1] = 0;
        owners[5] = 3;
        std::vector<std::uint8_t> flight(16, 0), victims(16, 0);
        victims[5] = 1;
        g.setPool(owners, flight, victims);
        QVERIFY(g.effectiveCellSize() >= 18); // 16 blocks in 400x300: big cells with labels
        const QImage img = g.grab().toImage();
        // Free block: the free colour at its centre-left (labels are only drawn on owned cells).
        const QPoint free = centreOf(g, 10) - QPoint(g.effectiveCellSize() / 4, 0);
        QCOMPARE(QColor(img.pixel(free)).rgb(), RequestPalette::freeColor().rgb());
        QCOMPARE(g.blockAt(centreOf(g, 5)), 5);
        QCOMPARE(g.blockAt(centreOf(g, 0)), 0);
        QCOMPARE(g.blockAt(QPoint(399, 299)), -1);
        // Owned cells differ from free cells; the victim's cell leans red.
        const QColor owned(img.pixel(centreOf(g, 1) + QPoint(g.effectiveCellSize() / 3, g.effectiveCellSize() / 3)));
        QVERIFY(owned.rgb() != RequestPalette::freeColor().rgb());
        const QColor victim(img.pixel(centreOf(g, 5) + QPoint(2, -g.effectiveCellSize() / 3)));
        QVERIFY2(victim.red() > victim.blue() + 40, qPrintable(victim.name()));
        QSignalSpy clicked(&g, &BlockGridWidget::requestClicked);
        QTest::mouseClick(&g, Qt::LeftButton, {}, centreOf(g, 5));
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.at(0).at(0).toInt(), 3);
    }

    void labelsShowRequestIdsWhereCellsAreLarge() {
        BlockGridWidget g;
        g.resize(640, 480);
        std::vector<std::int32_t> owners(40, -1);
        owners[0] = 0;
        owners[1] = 11;
        owners[2] = 37;
        g.setPool(owners, {}, {});
        const QStringList names = {QStringLiteral("r0"), QStringLiteral("r1"), QStringLiteral("r2"),
                                   QStringLiteral("r3"), QStringLiteral("r4"), QStringLiteral("r5"),
                                   QStringLiteral("r6"), QStringLiteral("r7"), QStringLiteral("r8"),
                                   QStringLiteral("r9"), QStringLiteral("r10"), QStringLiteral("mc-000011")};
        g.setRequestNames(names);
        // Small cells: no label; from 18 px the id when it fits whole, else its first character and end with a
        // mark where the middle was (no id holds one); the palette number, marked "#", only where none of that
        // fits.
        g.setCellSize(12);
        QCOMPARE(g.cellLabel(0), QString());
        g.setCellSize(20);
        QCOMPARE(g.cellLabel(0), QStringLiteral("r0"));
        g.setCellSize(26);
        QCOMPARE(g.cellLabel(1), QStringLiteral("m\u00b711"));
        g.setCellSize(18);
        g.setRequestNames({QStringLiteral("r0"), QStringLiteral("r1"), QStringLiteral("r2"), QStringLiteral("r3"),
                           QStringLiteral("r4"), QStringLiteral("r5"), QStringLiteral("r6"), QStringLiteral("r7"),
                           QStringLiteral("r8"), QStringLiteral("r9"), QStringLiteral("r10"),
                           QStringLiteral("a-very-long-request-id-that-ends-in-WWWW")});
        QCOMPARE(g.cellLabel(1), QStringLiteral("#b")); // "a·WW" does not fit in 14 px: the number
        g.setRequestNames(names);
        g.setCellSize(40);
        QCOMPARE(g.cellLabel(0), QStringLiteral("r0"));
        const QString elided = g.cellLabel(1);
        QVERIFY2(elided.endsWith(QStringLiteral("11")) && elided.startsWith(QLatin1Char('m')) &&
                     elided.contains(QChar(0x2026)),
                 qPrintable(elided));
        QCOMPARE(g.cellLabel(2), QStringLiteral("#11")); // no name known for request 37: its number
        QCOMPARE(g.cellLabel(5), QString());             // free block
        QCOMPARE(g.cellLabel(40), QString());            // out of range
        // Ids that share a prefix lose it first: "mc-001760" and "mc-001813" read "760" and "813".
        g.setRequestNames({QStringLiteral("mc-001760"), QStringLiteral("mc-001813")});
        owners[1] = 1;
        g.setPool(owners, {}, {});
        QCOMPARE(g.cellLabel(0), QStringLiteral("760"));
        QCOMPARE(g.cellLabel(1), QStringLiteral("813"));
        // Where not even the mark fits, a tenant's letter and number ("b05"), unless some request is called that.
        {
            std::vector<std::int32_t> two{0, 1};
            g.setPool(two, {}, {});
            g.setCellSize(18);
            g.setRequestNames({QStringLiteral("batch-05"), QStringLiteral("chat-04")});
            QCOMPARE(g.cellLabel(0), QStringLiteral("b05"));
            QCOMPARE(g.cellLabel(1), QStringLiteral("c04"));
            g.setRequestNames({QStringLiteral("batch-05"), QStringLiteral("b05")});
            QVERIFY2(g.cellLabel(0) != QStringLiteral("b05"), qPrintable(g.cellLabel(0)));
            QCOMPARE(g.cellLabel(1), QStringLiteral("b05"));
            g.setPool(owners, {}, {});
        }
        // A shortened label never reads as another request's id, at any size: 2,000 ids mc-000000 to mc-001999,
        // where a shortening without its mark would make mc-001299, mc-001399 and mc-001999 all "199".
        {
            QStringList many;
            for (int i = 0; i < 2000; ++i) many << QStringLiteral("mc-%1").arg(i, 6, 10, QLatin1Char('0'));
            const std::set<QString> whole(many.begin(), many.end());
            std::set<QString> rests;
            for (const QString& id : many) rests.insert(id.mid(5)); // the labels of ids that fit: "1299"
            std::vector<std::int32_t> all(2000);
            for (int i = 0; i < 2000; ++i) all[static_cast<std::size_t>(i)] = i;
            g.setPool(all, {}, {});
            g.setRequestNames(many);
            for (const int cell : {18, 20, 22, 24, 26, 29, 30, 40, 64}) {
                g.setCellSize(cell);
                for (int b = 0; b < 2000; b += 7) {
                    const QString label = g.cellLabel(b);
                    const QString own = many[b].mid(5);
                    QVERIFY2(label == many[b] || label == own || (!whole.count(label) && !rests.count(label)),
                             qPrintable(QStringLiteral("%1 px: %2 labelled %3").arg(cell).arg(many[b], label)));
                }
            }
            g.setPool(owners, {}, {});
        }
        // A mark stands for two characters or more, and the middle dot never sits between digits: 2891 and 2991
        // (az-00 shared) were both "2·91", which read as the decimal 2.91.
        QStringList azure; // az-002800 to az-003000: "az-00" is what they share
        for (int i = 2891; i <= 3000; ++i) azure << QStringLiteral("az-%1").arg(i, 6, 10, QLatin1Char('0'));
        azure.swapItemsAt(1, 100); // az-002891, az-002991 first
        g.setRequestNames(azure);
        for (int cell = 18; cell <= 64; ++cell) {
            g.setCellSize(cell);
            for (const int b : {0, 1}) {
                const QString label = g.cellLabel(b);
                QVERIFY2(!label.contains(QChar(0x00b7)) && !label.contains(QChar(0x2026)),
                         qPrintable(QStringLiteral("%1 px: %2").arg(cell).arg(label)));
            }
            QVERIFY(g.cellLabel(0) != g.cellLabel(1));
        }
        // An id that is itself the shared prefix keeps a character of it: "1" and "11", never "1" and "1".
        g.setRequestNames({QStringLiteral("req-0001"), QStringLiteral("req-00011")});
        QVERIFY2(g.cellLabel(0) != g.cellLabel(1), qPrintable(g.cellLabel(0) + QLatin1Char(' ') + g.cellLabel(1)));
        // Tenants' ids that differ from the start keep both ends: never "…ch-00" for both batch-00 and chat-00.
        g.setRequestNames({QStringLiteral("batch-0000"), QStringLiteral("chat-000000")});
        const QString a = g.cellLabel(0), b = g.cellLabel(1);
        QVERIFY2(a.startsWith(QLatin1Char('b')) && b.startsWith(QLatin1Char('c')), qPrintable(a + QLatin1Char(' ') + b));
        // Two requests on the pool whose shortenings read alike (batch-0107 and batch-0207 both "b…07") are
        // told apart by their palette numbers; a third, whose shortening is its own, keeps it.
        {
            std::vector<std::int32_t> three{0, 1, 2};
            g.setPool(three, {}, {});
            g.setRequestNames({QStringLiteral("batch-0107"), QStringLiteral("batch-0207"), QStringLiteral("chat-0001")});
            int numbered = 0;
            for (int cell = 18; cell <= 64; ++cell) {
                g.setCellSize(cell);
                const QString l0 = g.cellLabel(0), l1 = g.cellLabel(1), l2 = g.cellLabel(2);
                const QString at = QStringLiteral("%1 px: %2 %3 %4").arg(cell).arg(l0, l1, l2);
                QVERIFY2(l0 != l1 && l0 != l2 && l1 != l2, qPrintable(at));
                if (l0 == QStringLiteral("#0")) {
                    ++numbered;
                    QVERIFY2(l1 == QStringLiteral("#1") && !l2.startsWith(QLatin1Char('#')), qPrintable(at));
                }
            }
            QVERIFY(numbered > 0);
            // Off the pool, a request's label is no longer shared: the shortening comes back, the same as on a
            // pool where it was always alone.
            three[1] = -1;
            g.setPool(three, {}, {});
            BlockGridWidget alone;
            alone.resize(400, 300);
            alone.setPool(std::vector<std::int32_t>{0, -1, 2}, {}, {});
            alone.setRequestNames({QStringLiteral("batch-0107"), QStringLiteral("batch-0207"), QStringLiteral("chat-0001")});
            int shortened = 0;
            for (int cell = 18; cell <= 64; ++cell) {
                g.setCellSize(cell);
                alone.setCellSize(cell);
                QCOMPARE(g.cellLabel(0), alone.cellLabel(0));
                shortened += g.cellLabel(0) != QStringLiteral("#0") ? 1 : 0;
            }
            QVERIFY(shortened >= numbered); // every size that numbered it for the clash shows its own label now
        }
        owners[1] = 11;
        g.setPool(owners, {}, {});
        g.setRequestNames(names);
        g.setCellSize(64);
        QCOMPARE(g.cellLabel(0), QStringLiteral("r0"));
        // What is drawn follows cellLabel: the id cell's pixels differ from the numbered one's at the same zoom.
        // A victim's block that is already free (its swap-out landed, or a recompute took it back) is labelled,
        // and explained, with the victim it came from.
        std::vector<std::uint8_t> marks(40, 0);
        std::vector<std::int32_t> victimOwners(40, -1);
        marks[5] = RequestPalette::kVictimBlockLanded;
        marks[6] = RequestPalette::kVictimBlock;
        marks[0] = RequestPalette::kVictimBlock;
        marks[1] = RequestPalette::kVictimBlockKept;
        victimOwners[5] = victimOwners[6] = victimOwners[1] = 10;
        victimOwners[0] = 0;
        g.setPool(owners, {}, marks, victimOwners);
        QCOMPARE(g.cellLabel(5), QStringLiteral("r10"));
        QCOMPARE(g.cellLabel(6), QStringLiteral("r10"));
        QCOMPARE(g.cellLabel(0), QStringLiteral("r0"));
        QVERIFY2(g.cellToolTip(5).contains(QStringLiteral("free (r10's swap-out landed this tick")), qPrintable(g.cellToolTip(5)));
        QVERIFY2(g.cellToolTip(6).contains(QStringLiteral("taken back from r10")), qPrintable(g.cellToolTip(6)));
        QVERIFY2(g.cellToolTip(0).endsWith(QStringLiteral("r0 (label #0) (victim this tick)")), qPrintable(g.cellToolTip(0)));
        QVERIFY2(g.cellToolTip(1).endsWith(QStringLiteral("(r10, this tick's victim, let go of it; its other holders keep it)")), qPrintable(g.cellToolTip(1)));
        QCOMPARE(g.cellToolTip(7), QStringLiteral("block 7: free"));
        QCOMPARE(g.cellToolTip(40), QString());
        g.setPool(owners, {}, {});
        QCOMPARE(g.cellLabel(5), QString());
        g.setRequestNames({});
        const QImage withNumber = g.grab().toImage();
        g.setRequestNames({QStringLiteral("r0-long-id")});
        const QImage withId = g.grab().toImage();
        const QRect cell0(0, 0, 63, 63);
        QVERIFY(withNumber.copy(cell0) != withId.copy(cell0));
    }

    // Cells of 3 to 6 px (a laptop window on thousands of blocks) get no cross: a block of this tick's victim is
    // solid victim red, one freed by a landed swap-out is paler with the legend's light diagonal (bottom left to
    // top right), and one the victim freed that another request already holds gets a red frame. Owner colours
    // keep off red, so no other cell is that red.
    void victimsStandOutOnSmallCells() {
        BlockGridWidget g;
        std::vector<std::int32_t> owners(4000, 7);
        std::vector<std::uint8_t> flight(4000, 0), victims(4000, 0);
        for (int b = 100; b < 110; ++b) victims[static_cast<std::size_t>(b)] = RequestPalette::kVictimBlock;
        victims[200] = RequestPalette::kVictimBlockReused;
        victims[250] = RequestPalette::kVictimBlockLanded;
        victims[260] = RequestPalette::kVictimBlockKept;
        g.resize(400, 250); // 4,000 blocks: cells of 4 px
        g.setPool(owners, flight, victims);
        const int c = g.effectiveCellSize();
        QVERIFY2(c >= 3 && c < 7, qPrintable(QString::number(c)));
        const QImage img = g.grab().toImage();
        const int cols = g.width() / c;
        const auto at = [&](int block, int dx, int dy) {
            return QColor(img.pixel((block % cols) * c + dx, (block / cols) * c + dy)).rgb();
        };
        const QRgb red = RequestPalette::victimColor().rgb();
        for (int b = 100; b < 110; ++b) {
            QCOMPARE(at(b, 0, 0), red);
            QCOMPARE(at(b, c - 1, 0), red);
            QCOMPARE(at(b, c / 2, c / 2), red);
        }
        const QRgb pale = RequestPalette::victimColor().lighter(140).rgb();
        QCOMPARE(at(250, 0, 0), pale);           // off the diagonal
        QVERIFY(at(250, c - 1, 0) != pale);      // on it (top right)
        QVERIFY(at(250, 0, c - 1) != pale);      // on it (bottom left)
        QVERIFY(at(200, 0, 0) != at(201, 0, 0)); // the handed-on block's frame
        QCOMPARE(at(200, c / 2, c / 2), at(201, c / 2, c / 2)); // inside it: the owner's colour
        for (const int b : {0, 99, 110, 300}) QVERIFY(at(b, c - 1, 0) != red && at(b, c - 1, 0) != pale);
        // A shared block the victim let go and others keep: the red corner at the top left, the holder's colour
        // at the opposite corner.
        QCOMPARE(at(260, 0, 0), red);
        QCOMPARE(at(260, c - 1, c - 1), at(261, c - 1, c - 1));
        QVERIFY(at(261, 0, 0) != red);
    }

    // Fit fills the widget: 40 blocks in 1800x1150 get cells of about 200 px (the 64 px cap left nine tenths
    // of a large window empty), and the rows drawn still fit the height.
    void fitFillsALargeWidgetWithASmallPool() {
        BlockGridWidget g;
        g.resize(1800, 1150);
        g.setPool(std::vector<std::int32_t>(40, 0), {}, {});
        const int c = g.effectiveCellSize();
        QVERIFY2(c > 150, qPrintable(QString::number(c)));
        const int cols = 1800 / c;
        QVERIFY((40 + cols - 1) / cols * c <= 1150);
    }

    void selectionDimsOtherRequests() {
        BlockGridWidget g;
        g.resize(200, 100);
        std::vector<std::int32_t> owners{0, 1, -1, -1};
        g.setPool(owners, {}, {});
        const QPoint p1 = centreOf(g, 1) + QPoint(g.effectiveCellSize() / 3, g.effectiveCellSize() / 3);
        const QColor before(g.grab().toImage().pixel(p1));
        g.setSelectedRequest(0);
        const QColor after(g.grab().toImage().pixel(p1));
        QVERIFY2(after.lightness() > before.lightness(), "unselected requests fade when one is selected");
    }

    void hundredThousandBlocksFitAndStayLegible() {
        BlockGridWidget g;
        g.resize(640, 480);
        std::vector<std::int32_t> owners(100000, -1);
        for (int b = 0; b < 60000; ++b) owners[static_cast<std::size_t>(b)] = b / 40; // 1,500 requests
        g.setPool(owners, {}, {});
        QCOMPARE(g.effectiveCellSize(), 1); // 100k blocks in 307k pixels: one pixel each
        const QImage img = g.grab().toImage();
        QVERIFY(uitest::distinctColours(img) > 20);
        QCOMPARE(g.blockAt(QPoint(0, 0)), 0);
        QCOMPARE(g.blockAt(QPoint(5, 1)), 640 + 5);
        // Zoomed in, the grid scrolls: it asks for the height the rows need.
        g.setCellSize(12);
        QVERIFY(g.minimumHeight() >= (100000 / (640 / 12)) * 12);
    }

    // Prefix sharing: a block held by two requests gets a dark corner, a free block that still caches a prefix
    // id gets the cached colour (at any zoom: it is in the image, not the detail pass), and both say so in
    // holdersOf/isCachedFree; without sharing data nothing changes.
    void sharedAndCachedBlocksAreMarked() {
        BlockGridWidget g;
        g.resize(400, 300);
        std::vector<std::int32_t> owners{0, 0, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
        g.setPool(owners, {}, {});
        const int c = g.effectiveCellSize();
        const QPoint cornerOf0 = centreOf(g, 0) + QPoint(-c / 2 + 2, c / 2 - 3);
        const QPoint cornerOf1 = centreOf(g, 1) + QPoint(-c / 2 + 2, c / 2 - 3);
        const QPoint inside3 = centreOf(g, 3) - QPoint(c / 4, 0);
        const QImage plain = g.grab().toImage();
        QCOMPARE(QColor(plain.pixel(inside3)).rgb(), RequestPalette::freeColor().rgb());
        std::vector<std::int32_t> holders{2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        std::vector<std::int64_t> ids(16, -1);
        ids[0] = 41;
        ids[3] = 42;
        g.setSharing(holders, ids);
        QCOMPARE(g.holdersOf(0), 2);
        QCOMPARE(g.holdersOf(1), 1);
        QCOMPARE(g.holdersOf(3), 0);
        QVERIFY(g.isCachedFree(3));
        QVERIFY(!g.isCachedFree(4));
        const QImage marked = g.grab().toImage();
        QCOMPARE(QColor(marked.pixel(inside3)).rgb(), RequestPalette::cachedFreeColor().rgb());
        QCOMPARE(QColor(marked.pixel(cornerOf0)).rgb(), RequestPalette::sharedMarkColor().rgb());
        QCOMPARE(marked.pixel(cornerOf1), plain.pixel(cornerOf1)); // held by one request: unmarked
        g.setCellSize(1);                                          // no detail pass: the colour stays
        QCOMPARE(QColor(g.grab().toImage().pixel(3, 0)).rgb(), RequestPalette::cachedFreeColor().rgb());
    }

    void moreBlocksThanPixelsAggregates() {
        BlockGridWidget g;
        g.resize(100, 100);
        std::vector<std::int32_t> owners(100000, 2);
        g.setPool(owners, {}, {});
        const QImage img = g.grab().toImage();
        QCOMPARE(g.effectiveCellSize(), 1);
        // Every pixel that holds blocks has the owner's colour (all blocks belong to request 2).
        QCOMPARE(QColor(img.pixel(10, 10)).rgb(), RequestPalette::color(2).rgb());
        QVERIFY(g.blockAt(QPoint(0, 1)) >= 100);
    }

    // The engine's lazy pool map (pl::Engine::blockOwners covers the blocks taken so far): a pool of
    // 50,000,000 blocks given 300 owners draws those 300 and every other block free, holding only the 300.
    void aPoolLongerThanItsMapIsFreePastTheMap() {
        BlockGridWidget g;
        g.resize(200, 100);
        std::vector<std::int32_t> owners(300, 4);
        owners[7] = -1;
        std::vector<std::uint8_t> victims(300, 0);
        victims[0] = RequestPalette::kVictimBlock;
        g.setPool(50'000'000, owners, {}, victims);
        QCOMPARE(g.blockCount(), 50'000'000);
        QCOMPARE(g.holdersOf(299), 1);
        QCOMPARE(g.holdersOf(300), 0);
        QVERIFY(g.cellToolTip(300).startsWith(QStringLiteral("block 300: free")));
        QVERIFY(g.cellToolTip(49'999'999).startsWith(QStringLiteral("block 49999999: free")));
        QVERIFY(g.cellToolTip(50'000'000).isEmpty());
        QVERIFY(g.cellLabel(40'000'000).isEmpty());
        const QImage img = g.grab().toImage();
        QCOMPARE(g.effectiveCellSize(), 1); // 2,500 blocks per pixel
        // The first pixel averages request 4's 300 blocks with 2,200 free ones; the last is free.
        QVERIFY(QColor(img.pixel(0, 0)).rgb() != RequestPalette::freeColor().rgb());
        QCOMPARE(QColor(img.pixel(199, 99)).rgb(), RequestPalette::freeColor().rgb());
        QCOMPARE(g.blockAt(QPoint(199, 99)), 199 * 2500 + 99 * 200 * 2500);
        QSignalSpy clicked(&g, &BlockGridWidget::requestClicked);
        QTest::mouseClick(&g, Qt::LeftButton, {}, QPoint(150, 50));
        QCOMPARE(clicked.at(0).at(0).toInt(), -1); // a free block past the map
        // The same pool given whole draws the same picture.
        BlockGridWidget whole;
        whole.resize(200, 100);
        std::vector<std::int32_t> all(50'000'000, -1);
        std::copy(owners.begin(), owners.end(), all.begin());
        whole.setPool(all, {}, victims);
        QCOMPARE(whole.grab().toImage(), img);
    }
};

QTEST_MAIN(TestBlockGrid)
#include "test_block_grid.moc"
