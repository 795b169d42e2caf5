#pragma once
// PolicyPanel: a control for every `policy` and `config` key (as core lists them): a selector for named
// choices, a check box for flags, and a spin box with a slider for integers (the slider spans a quarter to
// four times the value the workload was opened with, logarithmically). Every change is an undoable edit that
// re-runs at once and keeps the current tick; a value the workload cannot take is refused with the reason.
// Keys only one recovery mode reads (adaptive_tie, hybrid_swap_percent) are greyed under the others.

#include <QHash>
#include <QWidget>

class QLabel;
class QTimer;

namespace plui {

class LabDocument;

class PolicyPanel : public QWidget {
    Q_OBJECT
  public:
    explicit PolicyPanel(LabDocument* doc, QWidget* parent = nullptr);
    // The editor of one key (QComboBox, QCheckBox or QDoubleSpinBox), for tests and scripts.
    QWidget* editor(const QString& key) const { return editors_.value(key); }
    QWidget* slider(const QString& key) const { return sliders_.value(key); }

  private:
    void build();
    void syncValues();
    void markApplicable();
    void apply(const QString& key, const QString& value);
    LabDocument* doc_;
    QHash<QString, QWidget*> editors_;
    QHash<QString, QWidget*> sliders_;
    QHash<QString, double> bases_;
    QLabel* error_ = nullptr;
    QWidget* form_ = nullptr;
    int builtFor_ = -1;
    bool syncing_ = false;
};

} // namespace plui
