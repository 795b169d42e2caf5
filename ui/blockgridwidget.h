#pragma once
// BlockGridWidget: the device KV pool as a grid, one cell per block, painted by hand.
//
// Level of detail: every block becomes one pixel of a QImage that is scaled up to the cell size, so a repaint
// is O(blocks) whatever the zoom; cells of 7 px and more also get outlines, the owner's fill pattern, in-flight
// and victim marks, and the owner's label (from 18 px its palette number, from 30 px its request id, elided
// from the left when it does not fit), drawn only for the cells in the exposed rectangle.
// When there are more blocks than pixels (fit mode, 100,000 blocks in a small window), several blocks share a
// pixel and its colour is their average. Ctrl+wheel zooms; click selects the owner.

#include <QHash>
#include <QImage>
#include <QPainter>
#include <QStringList>
#include <QSet>
#include <QWidget>

#include <functional>
#include <optional>

#include <cstdint>
#include <span>
#include <vector>

namespace plui {

class BlockGridWidget : public QWidget {
    Q_OBJECT
  public:
    explicit BlockGridWidget(QWidget* parent = nullptr);

    // blocks: the pool's size; owners: request index per block or -1 (free); inFlight: 1 while the block is
    // copied; victims: the mark of blocks of this tick's victims (RequestPalette::kVictimBlock...); victimOwners:
    // the victim a marked block belonged to (request index, else -1), which labels a block the victim has already
    // let go. Spans are copied and may be shorter than the pool (the engine's lazy pool map, pl::Engine::
    // blockOwners): blocks past their end are free and unmarked, and cost nothing to hold.
    void setPool(int blocks, std::span<const std::int32_t> owners, std::span<const std::uint8_t> inFlight,
                 std::span<const std::uint8_t> victims, std::span<const std::int32_t> victimOwners = {});
    // A pool exactly as long as `owners`.
    void setPool(std::span<const std::int32_t> owners, std::span<const std::uint8_t> inFlight,
                 std::span<const std::uint8_t> victims, std::span<const std::int32_t> victimOwners = {}) {
        setPool(static_cast<int>(owners.size()), owners, inFlight, victims, victimOwners);
    }
    // Prefix sharing (empty spans without it): holders per block (a block with 2 or more gets a corner mark)
    // and the prefix id each block carries or -1 (a free block with an id is drawn in the cached colour).
    void setSharing(std::span<const std::int32_t> holders, std::span<const std::int64_t> prefixIds);
    int holdersOf(int b) const; // 0 for free blocks, 1 without sharing
    bool isCachedFree(int b) const;
    // Request ids for the cell labels; the prefix every id shares ("mc-00" of "mc-001760") is left out of a
    // label that does not fit whole.
    void setRequestNames(QStringList names);
    // What hovering block b shows: its owner (or free) and what ownerDetail says of it, sharing, copy and victim
    // marks; empty out of range.
    QString cellToolTip(int b) const;
    // A line about a request at the shown tick for the tooltip of its blocks (the pool view's: phase, context,
    // blocks); none by default.
    void setOwnerDetail(std::function<QString(int request)> detail) { ownerDetail_ = std::move(detail); }
    void setSelectedRequest(int request);
    // The requesters of this tick's evictions (LabDocument::requestersAtCursor): their blocks get a violet frame,
    // a victim's inside its red one, so "who needed the blocks" reads in the pool beside "who lost them".
    void setRequesters(std::vector<std::int32_t> requesters);
    const std::vector<std::int32_t>& requesters() const { return requesters_; }
    bool isRequester(int request) const;

    // Cell size in pixels; 0 = fit the whole pool into the widget.
    void setCellSize(int px);
    int cellSize() const { return cellSize_; }
    int effectiveCellSize() const; // the size used at the current widget size (fit mode: computed)
    int blockCount() const { return blocks_; }
    int blockAt(QPoint p) const;   // -1 outside the pool
    // The label the detail pass writes into block `b` at the current cell size: the owner's request id
    // (elided) where the cell is large enough, else its palette number; empty for free blocks, small cells
    // and blocks out of range.
    QString cellLabel(int b) const;

    QSize sizeHint() const override { return {480, 320}; }

  signals:
    void requestClicked(int request);
    void zoomChanged(int cellSize);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* e) override;

  private:
    struct Layout {
        int cell = 1;         // pixels per cell (>= 1), or 1 with blocksPerPixel > 1
        int cols = 1;
        int rows = 1;
        int blocksPerPixel = 1;
    };
    Layout layout() const;
    void paintSmallVictims(QPainter& p, const Layout& l) const;
    void paintSmallRequesters(QPainter& p, const Layout& l) const;
    static bool drawsVectors(const QPainter& p);
    void paintCellsAsRects(QPainter& p, const Layout& l) const;
    static void paintKeptCorner(QPainter& p, const QRect& cell);
    // Fit grows cells up to this: a pool of a few dozen blocks fills a large window (at 64 px it took a tenth
    // of a 1920x1200 one).
    static constexpr int kMaxCell = 256;
    // Block b's victim mark (RequestPalette::kVictimBlock...), 0 when none or out of range.
    std::uint8_t victimAt(std::size_t b) const { return b < victims_.size() ? victims_[b] : 0; }
    // The victim block b belonged to, -1 when none is known.
    int victimOwnerAt(std::size_t b) const { return b < victimOwners_.size() ? victimOwners_[b] : -1; }
    // Whose label block b carries: its owner, or for a block this tick's victim has let go, that victim; -1.
    int ownerAt(std::size_t b) const { return b < owners_.size() ? owners_[b] : -1; }
    int labelledRequest(std::size_t b) const { return ownerAt(b) >= 0 ? ownerAt(b) : (victimAt(b) ? victimOwnerAt(b) : -1); }
    // The palette number as labels and tooltips show it, marked as a number: "#4".
    static QString paletteNumber(int request);
    QString nameOf(int request) const;
    void rebuildImage(const Layout& l);
    void updateMinimumHeight();
    QRgb blockColor(std::size_t b) const;
    QFont labelFont(int cell) const;
    QString labelFor(int owner, int cell, const QFontMetrics& metrics) const;
    // What the pool writes in request `owner`'s cells: labelFor's label, unless another request on the pool
    // would read the same ("b…-07" for batch-0107 and batch-0207); then each of them gets its palette number.
    // Computed for every request on the pool at once and kept until the names, the cell or the set of requests
    // on the pool change (a tick that moves blocks among the same requests keeps them: one pass over the pool).
    QString poolLabel(int owner, int cell, const QFontMetrics& metrics) const;

    int blocks_ = 0;
    std::vector<std::int32_t> owners_;
    std::vector<std::uint8_t> inFlight_;
    std::vector<std::uint8_t> victims_;
    std::vector<std::int32_t> victimOwners_;
    std::vector<std::int32_t> holders_;
    std::vector<std::int64_t> prefixIds_;
    QStringList names_;
    qsizetype sharedPrefix_ = 0; // characters every name starts with
    // Every id and every id less the shared prefix: a label without a mark must be neither (made when first
    // needed; a large workload drawn at a small zoom never needs it).
    mutable std::optional<QSet<QString>> spelled_;
    mutable QHash<int, QString> poolLabels_; // poolLabel's, for cell size poolLabelsCell_ (-1: to be made)
    mutable int poolLabelsCell_ = -1;
    mutable bool poolLabelsChecked_ = false;  // false: the pool changed; the labels hold if its requests did not
    mutable std::vector<std::int32_t> poolLabelled_; // the requests labelled on the pool, sorted
    int selected_ = -1;
    std::vector<std::int32_t> requesters_;
    std::function<QString(int)> ownerDetail_;
    int cellSize_ = 0;
    QImage image_;
    bool imageDirty_ = true;
    int imageCols_ = 0;
    int imageBpp_ = 0;
};

} // namespace plui
