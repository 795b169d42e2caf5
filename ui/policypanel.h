#pragma once
// PolicyPanel: a control for every `policy` and `config` key (as core lists them): a selector for named
// choices, a check box for flags, and a spin box with a slider for integers (the slider spans a quarter to
// four times the value the workload was opened with, logarithmically, cut to the values core's rules accept:
// pl::acceptedRange). Every change is an undoable edit that re-runs at once and keeps the current tick; a value
// the workload cannot take is refused with the reason, on one elided line above the rows that never moves them.
// Keys only one recovery mode reads (adaptive_tie, hybrid_swap_percent) are greyed under the others.

#include <QHash>
#include <QWidget>

#include <utility>

class QDoubleSpinBox;
class QSlider;
class QTimer;

namespace plui {

class LabDocument;
class RefusalLabel;

// What one key's slider covers (lo..hi) and what the workload accepts for the key (the spin box's range).
struct SliderSpan {
    double lo = 0;
    double hi = 64;
    std::pair<double, double> accepted{0, 9007199254740991.0};
};

class PolicyPanel : public QWidget {
    Q_OBJECT
  public:
    explicit PolicyPanel(LabDocument* doc, QWidget* parent = nullptr);
    // The editor of one key (QComboBox, QCheckBox or QDoubleSpinBox), for tests and scripts.
    QWidget* editor(const QString& key) const { return editors_.value(key); }
    QWidget* slider(const QString& key) const { return sliders_.value(key); }
    // The span the key's slider covers now (its first and last positions' values).
    SliderSpan span(const QString& key) const { return spans_.value(key); }
    // The last refusal, whole (the line above the rows shows it elided); empty when the last change applied.
    QString refusal() const;

  private:
    void build();
    void syncValues();
    void markApplicable();
    void apply(const QString& key, const QString& value);
    void describeSpan(const QString& key, QSlider* slider, QDoubleSpinBox* spin);
    LabDocument* doc_;
    QHash<QString, QWidget*> editors_;
    QHash<QString, QWidget*> sliders_;
    QHash<QString, double> bases_;
    QHash<QString, SliderSpan> spans_;
    RefusalLabel* error_ = nullptr;
    QWidget* form_ = nullptr;
    int builtFor_ = -1;
    bool syncing_ = false;
};

} // namespace plui
