#pragma once
// CalibrationActions: File > Load Calibration... and File > Apply Calibration to Workload... . Loading reads a
// calibration.json strictly (pl::cost::loadCalibrationFile: a bad file gets the error dialog naming the file,
// the JSON pointer and the reason, and the previous calibration stays), hands it to the document (the live
// backend's modelled figures, the break-even explorer's measured curves) and, when a workload is open, asks
// for the tick length and applies the derived transfer and prefill rates as one undoable edit. The file and
// the tick length are kept in QSettings; the file is loaded again at the next start.

#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace plui {

class MainWindow;

class CalibrationActions : public QObject {
    Q_OBJECT
  public:
    explicit CalibrationActions(MainWindow* window);
    // Inserts the two actions before `before` (e.g. File > Quit), or at the end when null.
    void addTo(QMenu* menu, QAction* before = nullptr);
    // Without dialogs (tests, the menu after its dialogs). False with `error` when the file is refused.
    bool loadCalibration(const QString& path, QString* error);
    // Applies the loaded calibration to the open workload at ticks of `tickMs`; remembers the tick length.
    bool applyToWorkload(double tickMs, QString* error);
    // What the last apply derived, line by line (also shown in the status bar).
    const QString& lastReport() const { return report_; }
    double rememberedTickMs() const;
    QAction* loadAction() const { return load_; }
    QAction* applyAction() const { return apply_; }

  private:
    void loadDialog();
    void applyDialog();
    void updateEnabled();
    MainWindow* window_;
    QAction* load_ = nullptr;
    QAction* apply_ = nullptr;
    QString report_;
};

} // namespace plui
