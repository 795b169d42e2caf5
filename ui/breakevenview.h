#pragma once
// BreakevenView: the break-even explorer on core's cost model (core/cost, seed 004). Selectors and sliders
// for model, GPU, achieved link bandwidth, MFU, per-copy cost, copy layout, block size, TP and context; the
// per-token swap and recompute curves over context with the crossover marked, and core's explanation text.
// Presets reproduce the seed's worked numbers.

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QSlider;

namespace plui {

class BreakevenView : public QWidget {
    Q_OBJECT
  public:
    explicit BreakevenView(QWidget* parent = nullptr);
    ~BreakevenView() override;
    QCustomPlot* plot() const;
    QComboBox* presetBox() const { return preset_; }
    QSlider* slider(const QString& name) const;
    // The verdict line currently shown (tests).
    QString verdictText() const;
    void applyPreset(int index);

  private:
    void recompute();
    struct Impl;
    std::unique_ptr<Impl> d;
    QComboBox* preset_;
    QComboBox* model_;
    QComboBox* gpu_;
    QComboBox* layout_;
    QLabel* verdict_;
    QLabel* report_;
};

} // namespace plui
