#pragma once
// ReceiptActions: File > Open Receipt... and Edit a Copy. A receipt (a dropped *.receipt.json, or the lab's
// --receipt FILE too) is read by core (its workload and policy: pl::receiptWorkload), verified (the replay's
// receipt must match it byte for byte: pl::verifyReceiptText) and shown read-only: the banner above the pool
// says "Receipt F (read-only): verifies" or the first difference, and every edit is refused until Edit a Copy
// makes it an ordinary unsaved workload. A bad or hostile receipt gets the error dialog naming file and field.

#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace plui {

class LabBanner;
class MainWindow;

class ReceiptActions : public QObject {
    Q_OBJECT
  public:
    ReceiptActions(MainWindow* window, LabBanner* banner);
    // Open Receipt... (Ctrl+Shift+O) and Edit a Copy, inserted before `before` (at the end when null).
    void addTo(QMenu* menu, QAction* before);
    // Reads, verifies and shows `path` read-only (after asking about unsaved edits). False with the error
    // ("FILE: /field: reason") shown in the error dialog and returned in `error`.
    bool openReceipt(const QString& path, QString* error = nullptr);
    // The verdict on the receipt shown: "Receipt F (read-only): verifies", empty when none is shown.
    QString verdict() const;
    QAction* editCopyAction() const { return editCopy_; }
    // A file the lab opens as a receipt rather than a workload (by its name: *.receipt.json).
    static bool isReceiptPath(const QString& path);

  private:
    void openDialog();
    void showBanner();
    MainWindow* window_;
    LabBanner* banner_;
    QAction* editCopy_;
};

} // namespace plui
