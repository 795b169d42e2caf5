#include "ui/blockgridwidget.h"

#include "ui/requestpalette.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPaintEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>

namespace plui {

namespace {

constexpr int kNumberLabelCell = 18; // from this cell size a block shows its owner's palette number
constexpr int kIdLabelCell = 30;     // from this size, the owner's request id (elided)

QRgb blend(QRgb a, QRgb b, int bWeight256) {
    const int aw = 256 - bWeight256;
    return qRgb((qRed(a) * aw + qRed(b) * bWeight256) >> 8, (qGreen(a) * aw + qGreen(b) * bWeight256) >> 8,
                (qBlue(a) * aw + qBlue(b) * bWeight256) >> 8);
}

QRgb requestRgb(int r) {
    // Colours of the first requests are cached: HSV conversion per block per repaint would dominate.
    static std::vector<QRgb> cache;
    if (r < 0) return RequestPalette::freeColor().rgb();
    if (static_cast<std::size_t>(r) >= cache.size()) {
        const std::size_t old = cache.size();
        cache.resize(static_cast<std::size_t>(r) + 256);
        for (std::size_t i = old; i < cache.size(); ++i) {
            cache[i] = RequestPalette::color(static_cast<int>(i)).rgb();
        }
    }
    return cache[static_cast<std::size_t>(r)];
}

} // namespace

BlockGridWidget::BlockGridWidget(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(false);
    setMinimumSize(120, 80);
    setToolTip(QString()); // tooltips come from event()
}

void BlockGridWidget::setPool(int blocks, std::span<const std::int32_t> owners, std::span<const std::uint8_t> inFlight,
                              std::span<const std::uint8_t> victims, std::span<const std::int32_t> victimOwners) {
    const bool sizeChanged = blocks != blocks_;
    blocks_ = blocks;
    owners_.assign(owners.begin(), owners.end());
    inFlight_.assign(inFlight.begin(), inFlight.end());
    victims_.assign(victims.begin(), victims.end());
    victimOwners_.assign(victimOwners.begin(), victimOwners.end());
    poolLabelsChecked_ = false;
    imageDirty_ = true;
    if (sizeChanged) updateMinimumHeight();
    update();
}

void BlockGridWidget::setSharing(std::span<const std::int32_t> holders, std::span<const std::int64_t> prefixIds) {
    holders_.assign(holders.begin(), holders.end());
    prefixIds_.assign(prefixIds.begin(), prefixIds.end());
    imageDirty_ = true;
    update();
}

int BlockGridWidget::holdersOf(int b) const {
    if (b < 0 || b >= blockCount() || ownerAt(static_cast<std::size_t>(b)) < 0) return 0;
    const auto bi = static_cast<std::size_t>(b);
    return bi < holders_.size() ? std::max(1, holders_[bi]) : 1;
}

bool BlockGridWidget::isCachedFree(int b) const {
    if (b < 0 || b >= blockCount()) return false;
    const auto bi = static_cast<std::size_t>(b);
    return ownerAt(bi) < 0 && bi < prefixIds_.size() && prefixIds_[bi] >= 0;
}

void BlockGridWidget::setSelectedRequest(int request) {
    if (request == selected_) return;
    selected_ = request;
    imageDirty_ = true;
    update();
}

void BlockGridWidget::setRequesters(std::vector<std::int32_t> requesters) {
    if (requesters == requesters_) return;
    requesters_ = std::move(requesters);
    update();
}

bool BlockGridWidget::isRequester(int request) const {
    return request >= 0 && std::find(requesters_.begin(), requesters_.end(), request) != requesters_.end();
}

void BlockGridWidget::setCellSize(int px) {
    px = std::clamp(px, 0, kMaxCell);
    if (px == cellSize_) return;
    cellSize_ = px;
    imageDirty_ = true;
    updateMinimumHeight();
    update();
    emit zoomChanged(cellSize_);
}

int BlockGridWidget::effectiveCellSize() const { return layout().cell; }

QFont BlockGridWidget::labelFont(int cell) const {
    QFont f = font();
    // A third of a medium cell (an id of three or four characters fits: "024", "b·05"); large cells keep to
    // 8-13 px, so longer ids fit whole, and cells of 96 px and more (a small pool filling a window) to 20 px.
    f.setPixelSize(cell >= kIdLabelCell ? std::clamp(cell / 5, 8, cell >= 96 ? 20 : 13) : std::max(7, cell / 3));
    return f;
}

void BlockGridWidget::setRequestNames(QStringList names) {
    names_ = std::move(names);
    spelled_.reset();
    poolLabelsCell_ = -1;
    sharedPrefix_ = names_.isEmpty() ? 0 : names_.front().size();
    for (const QString& n : names_) {
        qsizetype i = 0;
        while (i < sharedPrefix_ && i < n.size() && n[i] == names_.front()[i]) ++i;
        // Never a whole id: "req-0001" beside "req-00011" keeps "1" and "11" apart.
        sharedPrefix_ = std::min(i, std::max<qsizetype>(0, n.size() - 1));
    }
    update();
}

QString BlockGridWidget::labelFor(int owner, int cell, const QFontMetrics& metrics) const {
    if (owner < 0 || cell < kNumberLabelCell) return {};
    // The palette number, marked as a number ("#4"): a bare "4" beside ids ending in digits would read as
    // another request's id.
    const QString number = paletteNumber(owner);
    if (owner >= names_.size()) return number;
    const QString& name = names_[owner];
    const int room = cell - 4;
    if (metrics.horizontalAdvance(name) <= room) return name;
    // What every id shares ("az-000" of "az-000123") tells none apart: drop it. Then the first character and
    // as much of the end as fits, at least two characters, with a mark where the middle was ("b…-07", or the
    // narrower "b·07" in a medium cell): the end tells one tenant's requests apart, the start the tenants, so
    // batch-07 and chat-07 never read alike, and the mark (no id can hold it) says it is shortened.
    const QString rest = name.mid(sharedPrefix_);
    if (metrics.horizontalAdvance(rest) <= room) return rest;
    // At least two characters go where the mark is (a mark for one character, "2·91" for 2891, saved nothing
    // and told 2891 from 2991 no better), and the middle dot never sits between two digits, where it reads
    // as a decimal point.
    for (const QChar mark : {QChar(0x2026), QChar(0x00b7)}) {
        for (qsizetype tail = rest.size() - 3; tail >= 2; --tail) {
            const QString id = rest.left(1) + mark + rest.right(tail);
            if (mark == QChar(0x00b7) && rest.front().isDigit() && id.at(2).isDigit()) continue;
            if (metrics.horizontalAdvance(id) <= room) return id;
        }
    }
    // A tenant's letter and its number ("b05" for batch-05, "c04" for chat-04) where even the mark does not fit:
    // only a letter followed by a number, and never the spelling of any id (with or without the shared prefix),
    // so "199" is never made of mc-001299 and "b05" not where some request is called b05.
    if (rest.front().isLetter()) {
        for (qsizetype tail = rest.size() - 2; tail >= 2; --tail) {
            const QString id = rest.left(1) + rest.right(tail);
            if (!id.at(1).isDigit()) continue;
            if (metrics.horizontalAdvance(id) > room) continue;
            if (!spelled_) {
                spelled_.emplace();
                spelled_->reserve(names_.size() * 2);
                for (const QString& n : names_) {
                    spelled_->insert(n);
                    spelled_->insert(n.mid(sharedPrefix_));
                }
            }
            if (!spelled_->contains(id)) return id;
        }
    }
    return number; // not even that fits (the tooltip maps the number to the id)
}

QString BlockGridWidget::poolLabel(int owner, int cell, const QFontMetrics& metrics) const {
    if (owner < 0 || cell < kNumberLabelCell) return {};
    if (!poolLabelsChecked_) {
        std::vector<std::int32_t> labelled;
        for (std::size_t b = 0; b < owners_.size(); ++b) {
            if (const int r = labelledRequest(b); r >= 0) labelled.push_back(r);
        }
        std::sort(labelled.begin(), labelled.end());
        labelled.erase(std::unique(labelled.begin(), labelled.end()), labelled.end());
        if (labelled != poolLabelled_) {
            poolLabelled_ = std::move(labelled);
            poolLabelsCell_ = -1;
        }
        poolLabelsChecked_ = true;
    }
    if (poolLabelsCell_ != cell) {
        poolLabels_.clear();
        QHash<QString, int> uses;
        for (const std::int32_t r : poolLabelled_) {
            const QString label = labelFor(r, cell, metrics);
            poolLabels_.insert(r, label);
            ++uses[label];
        }
        for (auto it = poolLabels_.begin(); it != poolLabels_.end(); ++it) {
            if (uses.value(it.value()) > 1) it.value() = paletteNumber(it.key());
        }
        poolLabelsCell_ = cell;
    }
    const auto it = poolLabels_.constFind(owner);
    return it != poolLabels_.cend() ? it.value() : labelFor(owner, cell, metrics);
}

QString BlockGridWidget::cellLabel(int b) const {
    if (b < 0 || b >= blockCount()) return {};
    const Layout l = layout();
    if (l.blocksPerPixel > 1) return {};
    return poolLabel(labelledRequest(static_cast<std::size_t>(b)), l.cell, QFontMetrics(labelFont(l.cell)));
}

BlockGridWidget::Layout BlockGridWidget::layout() const {
    Layout l;
    const int n = std::max(1, blockCount());
    const int w = std::max(1, width());
    const int h = std::max(1, height());
    if (cellSize_ > 0) {
        l.cell = cellSize_;
        l.cols = std::max(1, w / l.cell);
        l.rows = (n + l.cols - 1) / l.cols;
        return l;
    }
    // Fit: the largest cell such that ceil(n / floor(w / c)) * c <= h.
    for (int c = kMaxCell; c >= 1; --c) {
        const int cols = std::max(1, w / c);
        const int rows = (n + cols - 1) / cols;
        if (static_cast<long long>(rows) * c <= h) {
            l.cell = c;
            l.cols = cols;
            l.rows = rows;
            return l;
        }
    }
    // More blocks than pixels: several blocks per pixel.
    const long long pixels = static_cast<long long>(w) * h;
    l.cell = 1;
    l.blocksPerPixel = static_cast<int>((n + pixels - 1) / pixels);
    l.cols = w;
    l.rows = (n / l.blocksPerPixel + l.cols) / l.cols;
    return l;
}

void BlockGridWidget::updateMinimumHeight() {
    if (cellSize_ == 0) {
        setMinimumHeight(80);
        return;
    }
    const Layout l = layout();
    setMinimumHeight(std::max(80, l.rows * l.cell));
}

void BlockGridWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    imageDirty_ = true;
    if (cellSize_ > 0) updateMinimumHeight();
}

QRgb BlockGridWidget::blockColor(std::size_t b) const {
    const int owner = ownerAt(b);
    QRgb c = requestRgb(owner);
    if (owner < 0 && isCachedFree(static_cast<int>(b))) c = RequestPalette::cachedFreeColor().rgb();
    if (selected_ >= 0 && owner >= 0 && owner != selected_) c = blend(c, qRgb(255, 255, 255), 170);
    if (b < inFlight_.size() && inFlight_[b]) c = blend(c, RequestPalette::inFlightColor().rgb(), 110);
    if (victimAt(b) == RequestPalette::kVictimBlock) {
        c = blend(c, RequestPalette::victimColor().rgb(), 150);
    } else if (victimAt(b) == RequestPalette::kVictimBlockLanded) {
        c = blend(c, RequestPalette::victimColor().rgb(), 90); // lighter: the eviction was ticks ago
    }
    return c;
}

void BlockGridWidget::rebuildImage(const Layout& l) {
    const int n = blockCount();
    if (image_.width() != l.cols || image_.height() != l.rows || image_.format() != QImage::Format_RGB32) {
        image_ = QImage(l.cols, l.rows, QImage::Format_RGB32);
    }
    const QRgb background = palette().color(QPalette::Window).rgb();
    image_.fill(background);
    if (l.blocksPerPixel == 1) {
        for (int b = 0; b < n; ++b) {
            auto* line = reinterpret_cast<QRgb*>(image_.scanLine(b / l.cols));
            line[b % l.cols] = blockColor(static_cast<std::size_t>(b));
        }
    } else {
        const int k = l.blocksPerPixel;
        // Past the spans' end every block is free and unmarked: one colour, counted, not visited (a pool of
        // 50,000,000 blocks whose run touched a few hundred paints in the time of its pixels).
        const int marked = static_cast<int>(std::max(owners_.size(), victims_.size()));
        const QRgb freeRgb = requestRgb(-1);
        for (int p = 0; p * k < n; ++p) {
            int r = 0, g = 0, bl = 0, count = 0;
            const int end = std::min(n, (p + 1) * k);
            for (int b = p * k; b < std::min(end, marked); ++b, ++count) {
                const QRgb c = blockColor(static_cast<std::size_t>(b));
                r += qRed(c);
                g += qGreen(c);
                bl += qBlue(c);
            }
            if (const int rest = end - std::max(p * k, std::min(end, marked)); rest > 0) {
                r += qRed(freeRgb) * rest;
                g += qGreen(freeRgb) * rest;
                bl += qBlue(freeRgb) * rest;
                count += rest;
            }
            auto* line = reinterpret_cast<QRgb*>(image_.scanLine(p / l.cols));
            line[p % l.cols] = qRgb(r / count, g / count, bl / count);
        }
    }
    imageCols_ = l.cols;
    imageBpp_ = l.blocksPerPixel;
    imageDirty_ = false;
}

// Cells too small for the cross (3 to 6 px; a laptop-sized window on a pool of thousands of blocks): a block
// of this tick's victim is solid victim red (owner hues keep off red), one freed by a swap-out landing now is
// paler with the legend's light diagonal, and one the victim freed that is already another's gets a red frame.
// Below 3 px the colour blend is all.
void BlockGridWidget::paintSmallVictims(QPainter& p, const Layout& l) const {
    if (l.cell < 3 || victims_.empty()) return;
    const int n = std::min(blockCount(), static_cast<int>(victims_.size()));
    const QColor red = RequestPalette::victimColor();
    for (int b = 0; b < n; ++b) {
        const std::uint8_t v = victims_[static_cast<std::size_t>(b)];
        if (v == 0) continue;
        const QRect cell((b % l.cols) * l.cell, (b / l.cols) * l.cell, l.cell, l.cell);
        if (v == RequestPalette::kVictimBlockKept) {
            paintKeptCorner(p, cell); // not freed: the holder's cell with the victim's corner
        } else if (v == RequestPalette::kVictimBlock) {
            p.fillRect(cell, red); // evicted now: solid victim red, a colour no request has
        } else if (v == RequestPalette::kVictimBlockLanded) {
            // A landed swap-out: paler, with the legend's light diagonal (bottom left to top right).
            p.fillRect(cell, red.lighter(140));
            p.setPen(QPen(QColor(255, 255, 255, 220), 1));
            p.drawLine(cell.bottomLeft(), cell.topRight());
        } else {
            p.setPen(QPen(red.darker(130), 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(cell.adjusted(0, 0, -1, -1));
        }
    }
}

// An SVG or PDF export (QWidget::render onto their painters): a bitmap scaled up there is smeared by SVG
// viewers and JPEG-compressed by Qt's PDF writer (free cells turned peach), so the cells are drawn as rects.
bool BlockGridWidget::drawsVectors(const QPainter& p) {
    const QPaintEngine* engine = p.paintEngine();
    if (!engine) return false;
    const QPaintEngine::Type type = engine->type();
    return type == QPaintEngine::SVG || type == QPaintEngine::Pdf || type == QPaintEngine::Picture;
}

// The image's pixels as rects of the cell size, each run of one colour along a row as one rect: exactly the
// colours the PNG shows, and an SVG of a few hundred elements for a pool of thousands of blocks.
void BlockGridWidget::paintCellsAsRects(QPainter& p, const Layout& l) const {
    p.setPen(Qt::NoPen);
    for (int y = 0; y < image_.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(image_.constScanLine(y));
        for (int x = 0; x < image_.width();) {
            int end = x + 1;
            while (end < image_.width() && line[end] == line[x]) ++end;
            p.fillRect(QRect(x * l.cell, y * l.cell, (end - x) * l.cell, l.cell), QColor::fromRgb(line[x]));
            x = end;
        }
    }
}

// Cells too small for the detail pass (3 to 6 px): a requester's block gets a violet frame, drawn after the
// victims' marks so a request that evicted itself shows both (the red fill inside the violet frame).
void BlockGridWidget::paintSmallRequesters(QPainter& p, const Layout& l) const {
    if (l.cell < 3 || requesters_.empty()) return;
    const int n = std::min(blockCount(), static_cast<int>(std::max(owners_.size(), victimOwners_.size())));
    p.setPen(QPen(RequestPalette::requesterColor(), 1));
    p.setBrush(Qt::NoBrush);
    for (int b = 0; b < n; ++b) {
        if (!isRequester(labelledRequest(static_cast<std::size_t>(b)))) continue;
        p.drawRect(QRect((b % l.cols) * l.cell, (b / l.cols) * l.cell, l.cell, l.cell).adjusted(0, 0, -1, -1));
    }
}

// A shared prefix block this tick's victim let go and others keep: a red corner at the top left (the shared
// mark's dark corner is at the bottom left, the in-flight arrow at the top right).
void BlockGridWidget::paintKeptCorner(QPainter& p, const QRect& cell) {
    const int m = std::max(2, cell.width() * 2 / 5);
    const QPoint corner = cell.topLeft();
    const QPoint tri[3] = {corner, corner + QPoint(m, 0), corner + QPoint(0, m)};
    p.setPen(Qt::NoPen);
    p.setBrush(RequestPalette::victimColor());
    p.drawPolygon(tri, 3);
    p.setBrush(Qt::NoBrush);
}

void BlockGridWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().color(QPalette::Window));
    if (blocks_ == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No pool yet: open a workload"));
        return;
    }
    const Layout l = layout();
    if (imageDirty_ || imageCols_ != l.cols || imageBpp_ != l.blocksPerPixel) rebuildImage(l);
    if (drawsVectors(p)) {
        paintCellsAsRects(p, l);
    } else {
        p.drawImage(QRect(0, 0, l.cols * l.cell, l.rows * l.cell), image_);
    }
    if (l.cell < 7) {
        paintSmallVictims(p, l);
        paintSmallRequesters(p, l);
        return;
    }

    // Detail pass, only for exposed cells: outlines, patterns, marks and labels.
    const QRect exposed = event->rect();
    const int firstRow = std::max(0, exposed.top() / l.cell);
    const int lastRow = std::min(l.rows - 1, exposed.bottom() / l.cell);
    const int n = blockCount();
    const QFont f = labelFont(l.cell);
    const QFontMetrics metrics(f);
    p.setFont(f);
    const QPen grid(QColor(0, 0, 0, 60), 1);
    for (int row = firstRow; row <= lastRow; ++row) {
        for (int col = 0; col < l.cols; ++col) {
            const int b = row * l.cols + col;
            if (b >= n) break;
            const QRect cell(col * l.cell, row * l.cell, l.cell - 1, l.cell - 1);
            const int owner = ownerAt(static_cast<std::size_t>(b));
            if (owner >= 0) {
                const Qt::BrushStyle style = RequestPalette::pattern(owner);
                if (style != Qt::SolidPattern) p.fillRect(cell, QBrush(QColor(0, 0, 0, 70), style));
                if (l.cell >= kNumberLabelCell) {
                    const QString label = poolLabel(owner, l.cell, metrics);
                    // On a patch of the cell's own colour: the pattern's lines would cross the digits.
                    if (style != Qt::SolidPattern && !label.isEmpty()) {
                        p.fillRect(metrics.boundingRect(cell, Qt::AlignCenter, label).adjusted(-1, 0, 1, 0),
                                   QColor(blockColor(static_cast<std::size_t>(b))));
                    }
                    p.setPen(QColor(0, 0, 0, 200));
                    p.drawText(cell, Qt::AlignCenter, label);
                }
            }
            p.setPen(grid);
            p.setBrush(Qt::NoBrush);
            p.drawRect(cell);
            const std::size_t bi = static_cast<std::size_t>(b);
            if (bi < inFlight_.size() && inFlight_[bi]) {
                // In flight: a dashed blue frame and an arrow corner, readable without colour; inside the
                // victim's red frame when the block is both (a swap-out that lands this tick).
                const int inset = victimAt(bi) ? 3 : 1;
                p.setPen(QPen(RequestPalette::inFlightColor(), 2, Qt::DashLine));
                p.drawRect(cell.adjusted(inset, inset, -inset, -inset));
                p.drawLine(cell.topRight() + QPoint(-l.cell / 3, 2), cell.topRight() + QPoint(-2, 2));
                p.drawLine(cell.topRight() + QPoint(-2, 2), cell.topRight() + QPoint(-2, l.cell / 3));
            }
            if (victimAt(bi) == RequestPalette::kVictimBlockReused) {
                // Freed by this tick's victim and already another request's: a red frame, no cross.
                p.setPen(QPen(RequestPalette::victimColor().darker(130), 2, Qt::DotLine));
                p.drawRect(cell.adjusted(1, 1, -1, -1));
            } else if (victimAt(bi) == RequestPalette::kVictimBlockKept) {
                paintKeptCorner(p, cell);
            } else if (victimAt(bi)) {
                p.setPen(QPen(RequestPalette::victimColor().darker(130), 2));
                p.drawRect(cell.adjusted(1, 1, -1, -1));
                // A light cross (a dark one vanishes into the red fill on small cells); one diagonal when the
                // block is freed by a swap-out landing now, the eviction being ticks ago.
                p.setPen(QPen(QColor(255, 255, 255, 230), l.cell < 12 ? 1 : 2));
                const int m = l.cell / 4;
                p.drawLine(cell.topRight() + QPoint(-m, m), cell.bottomLeft() + QPoint(m, -m));
                if (victimAt(bi) != RequestPalette::kVictimBlockLanded) {
                    p.drawLine(cell.topLeft() + QPoint(m, m), cell.bottomRight() - QPoint(m, m));
                }
                // The owner's label again, over the marks, on a light patch: readable through the cross. A block
                // the victim has let go (a swap-out landed) is labelled with the victim it was freed from.
                const int labelled = labelledRequest(bi);
                if (labelled >= 0 && l.cell >= kNumberLabelCell) {
                    const QString label = poolLabel(labelled, l.cell, metrics);
                    QRect r = metrics.boundingRect(cell, Qt::AlignCenter, label).adjusted(-2, 0, 2, 0);
                    p.fillRect(r, QColor(255, 255, 255, 190));
                    p.setPen(QColor(0, 0, 0, 220));
                    p.drawText(cell, Qt::AlignCenter, label);
                }
            }
            if (holdersOf(b) >= 2) {
                // Shared prefix block: a dark corner, so sharing reads without colour.
                const int m = std::max(4, l.cell / 3);
                const QPoint corner = cell.bottomLeft();
                const QPoint tri[3] = {corner, corner - QPoint(0, m), corner + QPoint(m, 0)};
                p.setPen(Qt::NoPen);
                p.setBrush(RequestPalette::sharedMarkColor());
                p.drawPolygon(tri, 3);
                p.setBrush(Qt::NoBrush);
            }
            if (owner >= 0 && owner == selected_) {
                p.setPen(QPen(Qt::black, 2));
                p.drawRect(cell.adjusted(0, 0, 0, 0));
            }
            if (isRequester(labelledRequest(bi))) {
                // The requester's block (owned, or let go by a requester that evicted itself): a dark violet
                // frame on the cell's edge and a corner at the bottom right (the other corners are taken: kept,
                // shared, in flight), so it reads beside a victim's red frame and without colour.
                const QColor violet = RequestPalette::requesterColor();
                p.setPen(QPen(violet, l.cell < 12 ? 2 : 3));
                p.setBrush(Qt::NoBrush);
                p.drawRect(cell.adjusted(1, 1, 0, 0));
                const int m = std::max(4, l.cell * 3 / 10);
                const QPoint corner = cell.bottomRight() + QPoint(1, 1);
                const QPoint tri[3] = {corner, corner - QPoint(m, 0), corner - QPoint(0, m)};
                p.setPen(Qt::NoPen);
                p.setBrush(violet);
                p.drawPolygon(tri, 3);
                p.setBrush(Qt::NoBrush);
            }
        }
    }
}

int BlockGridWidget::blockAt(QPoint pos) const {
    const Layout l = layout();
    if (pos.x() < 0 || pos.y() < 0) return -1;
    const int col = pos.x() / l.cell;
    const int row = pos.y() / l.cell;
    if (col >= l.cols || row >= l.rows) return -1;
    const long long b = (static_cast<long long>(row) * l.cols + col) * l.blocksPerPixel;
    return b < blockCount() ? static_cast<int>(b) : -1;
}

void BlockGridWidget::wheelEvent(QWheelEvent* event) {
    if (!(event->modifiers() & Qt::ControlModifier)) {
        event->ignore();
        return;
    }
    const int current = effectiveCellSize();
    const int next = event->angleDelta().y() > 0 ? std::max(current + 1, current * 5 / 4)
                                                 : std::max(1, std::min(current - 1, current * 4 / 5));
    setCellSize(next);
    event->accept();
}

void BlockGridWidget::mousePressEvent(QMouseEvent* event) {
    const int b = blockAt(event->position().toPoint());
    emit requestClicked(b >= 0 ? ownerAt(static_cast<std::size_t>(b)) : -1);
}

QString BlockGridWidget::paletteNumber(int request) { return QLatin1Char('#') + RequestPalette::label(request); }

QString BlockGridWidget::nameOf(int request) const {
    if (request < 0) return {};
    return request < names_.size() ? names_[request] : paletteNumber(request);
}

QString BlockGridWidget::cellToolTip(int b) const {
    if (b < 0 || b >= blockCount()) return {};
    const std::size_t bi = static_cast<std::size_t>(b);
    const int owner = ownerAt(bi);
    QString text = tr("block %1: ").arg(b);
    if (owner < 0) {
        text += isCachedFree(b) ? tr("free, still caching prefix id %1 (a request with that prefix attaches it "
                                     "instead of prefilling, until the block is reused)")
                                      .arg(prefixIds_[bi])
                                : tr("free");
    } else {
        // The palette number too: small cells are labelled with it.
        text += owner < names_.size() ? tr("%1 (label %2)").arg(names_[owner], paletteNumber(owner)) : paletteNumber(owner);
        if (ownerDetail_) {
            if (const QString detail = ownerDetail_(owner); !detail.isEmpty()) text += QLatin1Char('\n') + detail;
        }
    }
    if (holdersOf(b) >= 2) text += tr("\nshared prefix block: held by %1 requests").arg(holdersOf(b));
    if (owner >= 0 && bi < prefixIds_.size() && prefixIds_[bi] >= 0) text += tr("\nprefix id %1").arg(prefixIds_[bi]);
    if (bi < inFlight_.size() && inFlight_[bi]) text += tr(" (copy in flight)");
    const QString victim = nameOf(victimOwnerAt(bi));
    if (victimAt(bi) == RequestPalette::kVictimBlockReused) {
        text += victim.isEmpty() ? tr(" (freed by this tick's victim, handed on in the same tick)")
                                 : tr(" (freed by this tick's victim %1, handed on in the same tick)").arg(victim);
    } else if (victimAt(bi) == RequestPalette::kVictimBlockKept) {
        text += victim.isEmpty() ? tr(" (this tick's victim let go of it; its other holders keep it)")
                                 : tr(" (%1, this tick's victim, let go of it; its other holders keep it)").arg(victim);
    } else if (victimAt(bi) == RequestPalette::kVictimBlockLanded) {
        text += victim.isEmpty() ? tr(" (its victim's swap-out landed this tick: freed; evicted earlier)")
                                 : tr(" (%1's swap-out landed this tick: freed; evicted earlier)").arg(victim);
    } else if (victimAt(bi)) {
        text += owner < 0 && !victim.isEmpty() ? tr(" (taken back from %1, victim this tick)").arg(victim)
                                                : tr(" (victim this tick)");
    }
    if (isRequester(labelledRequest(bi))) {
        const bool self = victimAt(bi) && victimOwnerAt(bi) == labelledRequest(bi);
        text += self ? tr("\nrequester that evicted itself: its own need caused this tick's eviction")
                     : tr("\nrequester: its need caused this tick's eviction");
    }
    if (layout().blocksPerPixel > 1) text += tr("\n%1 blocks per pixel: zoom in").arg(layout().blocksPerPixel);
    return text;
}

bool BlockGridWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int b = blockAt(help->pos());
        if (b < 0) {
            QToolTip::hideText();
            return true;
        }
        QToolTip::showText(help->globalPos(), cellToolTip(b), this);
        return true;
    }
    if (e->type() == QEvent::FontChange) poolLabelsCell_ = -1; // labels are measured in the widget's font
    return QWidget::event(e);
}

} // namespace plui
