#pragma once
// BreakevenView: the break-even explorer on core's cost model (core/cost, seed 004). Selectors and sliders
// for model, GPU, achieved link bandwidth, MFU, per-copy cost, copy layout, block size, TP and context; the
// per-token swap and recompute curves over context with the crossover marked, and core's explanation text.
// Presets reproduce the seed's worked numbers. With a calibration (setCalibration) it also draws the device's
// measured curves: per-token swap round trip and replay on the main plot with the measured break-even marked
// beside the model's, swap microseconds against bytes per method, and prefill microseconds against tokens.

#include <QWidget>

#include <memory>

class QComboBox;
class QHBoxLayout;
class QCustomPlot;
class QLabel;
class QSlider;

namespace pl::cost {
struct Calibration;
}
namespace pl {
struct Config;
}

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
    // The calibration to draw (copied), or nullptr to hide the measured curves.
    void setCalibration(const pl::cost::Calibration* calibration);
    QCustomPlot* swapPlot() const;
    QCustomPlot* prefillPlot() const;
    // The measured break-even line's context (tokens), or -1 when none is drawn; and the text beside it.
    double measuredBreakeven() const;
    QString measuredText() const;
    // The open workload's machine (its config), or nullptr: a line under the verdict says which recovery is
    // cheaper per token there, in the tick model's own terms.
    void setWorkloadConfig(const pl::Config* config);
    QString workloadText() const;
    // That line for `config`: recompute's and swap's tokens a tick and which is cheaper (tests).
    static QString workloadVerdict(const pl::Config& config);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    // The constructor's builders: the controls' column and the curves' column.
    QWidget* createControls();
    QWidget* createCurves();
    void recompute();
    void fitColumns();
    void drawMeasured(double ymax);
    struct Impl;
    std::unique_ptr<Impl> d;
    QComboBox* preset_;
    QComboBox* model_;
    QComboBox* gpu_;
    QComboBox* layout_;
    QLabel* verdict_;
    QLabel* report_;
    QLabel* measured_;
    QLabel* workload_;
    QHBoxLayout* outer_ = nullptr;
};

} // namespace plui
