#pragma once
// GeneratorDialog: a synthetic workload from sliders (core's seeded generator, core/trace/generator.h):
// arrival rate and burstiness, prompt and output length distributions, priority and tenant mixes, machine
// size and seed. "Generate" hands the workload to the document; errors name the parameter.

#include <QDialog>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace pl {
struct Workload;
}

namespace plui {

class GeneratorDialog : public QDialog {
    Q_OBJECT
  public:
    explicit GeneratorDialog(QWidget* parent = nullptr);
    // The workload for the current settings, or nullopt with the reason in *error.
    std::optional<pl::Workload> generate(QString* error) const;
    QDoubleSpinBox* rate() const { return rate_; }
    QSpinBox* count() const { return count_; }
    QSpinBox* seed() const { return seed_; }
    QLineEdit* tenants() const { return tenants_; }

  private:
    QDoubleSpinBox* addSlider(QFormLayout* form, const QString& label, double lo, double hi, double value,
                              int decimals, bool log);
    QSpinBox* seed_;
    QSpinBox* count_;
    QComboBox* arrivals_;
    QDoubleSpinBox* rate_;
    QDoubleSpinBox* cv_;
    QDoubleSpinBox* promptMedian_;
    QDoubleSpinBox* promptSigma_;
    QDoubleSpinBox* outputMedian_;
    QDoubleSpinBox* outputSigma_;
    QLineEdit* priorities_;
    QLineEdit* tenants_;
    QSpinBox* capacity_;
    QLabel* error_;
};

} // namespace plui
