#pragma once
// PoolView: the device pool grid (BlockGridWidget in a scroll area, with zoom controls), the host pool bar
// beside it and one line of figures for the cursor tick. Listens to the document; clicking a block selects
// its owner.

#include <QWidget>

class QLabel;
class QScrollArea;

namespace pl {
class Session;
}

namespace plui {

class BlockGridWidget;
class HostPoolBar;
class LabDocument;

class PoolView : public QWidget {
    Q_OBJECT
  public:
    explicit PoolView(LabDocument* doc, QWidget* parent = nullptr);
    BlockGridWidget* grid() const { return grid_; }
    QString legendText() const; // what the legend under the pool explains
    void refresh();
    // A strip of notes (LabBanner) above the pool's tool row; the view lays it out, the caller owns its rows.
    void setBanner(QWidget* banner);

  private:
    LabDocument* doc_;
    BlockGridWidget* grid_;
    QScrollArea* scroll_;
    HostPoolBar* host_;
    QLabel* figures_;
    QLabel* legend_;
    // `hybridPercent` >= 0: the policy recovers by hybrid, and the legend says what its split shows.
    void setLegend(bool prefixSharing, long long hybridPercent = -1);
    QString requesterText(const pl::Session& s) const;
    QString ownerDetail(int request) const;
};

} // namespace plui
