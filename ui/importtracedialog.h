#pragma once
// ImportTraceDialog: the options of core's trace importer (core/trace/trace_importer.h, ImportOptions) for
// one trace file: format, tick length, slice start and duration, request limit, rate scale, output cap,
// oversized rule, timestamp spreading and seed, prefix blocks, names, and the machine (block size and
// capacity) the slice is sized for. The last options are kept in QSettings ("import/..."); the file is not.

#include "ui/traceimportjob.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace plui {

class ImportTraceDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ImportTraceDialog(const QString& path, QWidget* parent = nullptr);

    // The job for the current settings. Values are exact: decimals go through core's integer parsers.
    TraceImportJob job() const;
    void loadSettings();
    void saveSettings() const;

    QComboBox* format() const { return format_; }
    QDoubleSpinBox* tickMs() const { return tickMs_; }
    QDoubleSpinBox* startS() const { return startS_; }
    QDoubleSpinBox* durationS() const { return durationS_; }
    QSpinBox* limit() const { return limit_; }
    QDoubleSpinBox* rateScale() const { return rateScale_; }
    QSpinBox* blockSize() const { return blockSize_; }
    QSpinBox* capacity() const { return capacity_; }
    QComboBox* model() const { return model_; }
    QComboBox* gpu() const { return gpu_; }
    QDoubleSpinBox* hostGiB() const { return hostGiB_; }

  private:
    void updateEnabled();
    QString path_;
    QComboBox* format_;
    QDoubleSpinBox* tickMs_;
    QDoubleSpinBox* startS_;
    QDoubleSpinBox* durationS_;
    QSpinBox* limit_;
    QDoubleSpinBox* rateScale_;
    QSpinBox* maxOutput_;
    QCheckBox* skipOversized_;
    QComboBox* spread_;
    QDoubleSpinBox* spreadMs_;
    QSpinBox* seed_;
    QCheckBox* prefixBlocks_;
    QLineEdit* name_;
    QLineEdit* idPrefix_;
    QSpinBox* blockSize_;
    QSpinBox* capacity_;
    QComboBox* model_;
    QComboBox* gpu_;
    QDoubleSpinBox* hostGiB_;
};

} // namespace plui
