#include "ui/labbanner.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace plui {

namespace {

const char* kRowProperty = "bannerRow";
const char* kTextProperty = "bannerText";

} // namespace

LabBanner::LabBanner(QWidget* parent) : QWidget(parent), rows_(new QVBoxLayout(this)) {
    setObjectName(QStringLiteral("labBanner"));
    rows_->setContentsMargins(0, 0, 0, 2);
    rows_->setSpacing(2);
    hide();
}

QWidget* LabBanner::rowWidget(Row row) const {
    for (int i = 0; i < rows_->count(); ++i) {
        QWidget* w = rows_->itemAt(i)->widget();
        if (w && w->property(kRowProperty).toInt() == static_cast<int>(row)) return w;
    }
    return nullptr;
}

void LabBanner::setRow(Row row, const QString& text, const QList<QAction*>& actions, bool warning) {
    clearRow(row);
    auto* frame = new QFrame(this);
    frame->setProperty(kRowProperty, static_cast<int>(row));
    frame->setProperty(kTextProperty, text);
    frame->setObjectName(row == Row::Receipt ? QStringLiteral("receiptBanner") : QStringLiteral("livelockBanner"));
    // Pale fills with dark text (readable in light and dark themes alike): sand for a note, rose for a warning.
    frame->setStyleSheet(QStringLiteral("QFrame#%1 { background: %2; border: 1px solid %3; border-radius: 3px; }"
                                        "QFrame#%1 QLabel { color: #1f2937; }")
                             .arg(frame->objectName(), warning ? QStringLiteral("#fde2e2") : QStringLiteral("#fdf3d7"),
                                  warning ? QStringLiteral("#b91c1c") : QStringLiteral("#b58a1b")));
    auto* h = new QHBoxLayout(frame);
    h->setContentsMargins(6, 2, 2, 2);
    // Wrapped, never cut: the sentence is what the teacher needs (two or three lines in a narrow window).
    auto* label = new QLabel(text, frame);
    label->setWordWrap(true);
    label->setMinimumWidth(1);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setToolTip(text);
    h->addWidget(label, 1);
    for (QAction* a : actions) {
        auto* button = new QToolButton(frame);
        button->setDefaultAction(a);
        h->addWidget(button);
    }
    // Rows keep their kind's order (receipt above livelock) whichever was set first.
    int at = 0;
    while (at < rows_->count() && rows_->itemAt(at)->widget() &&
           rows_->itemAt(at)->widget()->property(kRowProperty).toInt() < static_cast<int>(row)) {
        ++at;
    }
    rows_->insertWidget(at, frame);
    show();
}

void LabBanner::clearRow(Row row) {
    if (QWidget* w = rowWidget(row)) {
        rows_->removeWidget(w);
        delete w;
    }
    setVisible(rows_->count() > 0);
}

QString LabBanner::text(Row row) const {
    const QWidget* w = rowWidget(row);
    return w ? w->property(kTextProperty).toString() : QString();
}

} // namespace plui
