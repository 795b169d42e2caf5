#include "ui/transportbar.h"

#include "ui/bytestext.h"
#include "ui/labdocument.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSlider>
#include <QStyle>
#include <QTextEdit>
#include <QTimer>

#include <cmath>

namespace plui {

bool controlKeepsKey(const QWidget* focus, int key) {
    const bool editor = qobject_cast<const QAbstractSpinBox*>(focus) || qobject_cast<const QLineEdit*>(focus) ||
                        qobject_cast<const QTextEdit*>(focus) || qobject_cast<const QPlainTextEdit*>(focus);
    // Esc (Cancel Run) leaves a value being typed, as editors use it to drop the edit.
    if (key == Qt::Key_Escape) return editor;
    const bool navigation = key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Home ||
                            key == Qt::Key_End || key == Qt::Key_PageUp || key == Qt::Key_PageDown;
    if (!navigation && key != Qt::Key_Space) return false;
    if (editor || qobject_cast<const QAbstractItemView*>(focus) || qobject_cast<const QComboBox*>(focus)) return true;
    if (qobject_cast<const QAbstractSlider*>(focus)) return navigation;
    if (qobject_cast<const QAbstractButton*>(focus)) return key == Qt::Key_Space;
    return false;
}

namespace {
// "Step back (Left)": what the button does and its key.
QString keyTip(const QAction* a) {
    return QStringLiteral("%1 (%2)").arg(a->text(), a->shortcut().toString(QKeySequence::NativeText));
}

// Accepting a ShortcutOverride is Qt's way for a focused widget to claim a key that is also a shortcut: the
// key then goes to the widget as a key press and the shortcut does not fire.
class TransportKeyGuard : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::ShortcutOverride) return false;
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() & ~Qt::KeypadModifier) return false;
        if (!controlKeepsKey(qobject_cast<const QWidget*>(watched), key->key())) return false;
        event->accept();
        return true;
    }
};
} // namespace

TransportBar::TransportBar(LabDocument* doc, QWidget* parent) : QToolBar(tr("Transport"), parent), doc_(doc) {
    setObjectName(QStringLiteral("transportBar"));
    qApp->installEventFilter(new TransportKeyGuard(this)); // removed with this bar
    auto make = [this](QStyle::StandardPixmap icon, const QString& tip, const QKeySequence& key) {
        auto* a = addAction(style()->standardIcon(icon), tip);
        a->setShortcut(key);
        a->setToolTip(keyTip(a));
        a->setShortcutContext(Qt::WindowShortcut);
        return a;
    };
    first_ = make(QStyle::SP_MediaSkipBackward, tr("First tick"), QKeySequence(Qt::Key_Home));
    prevPressure_ = make(QStyle::SP_MediaSeekBackward, tr("Previous pressure event"), QKeySequence(Qt::Key_PageUp));
    back_ = make(QStyle::SP_ArrowLeft, tr("Step back"), QKeySequence(Qt::Key_Left));
    play_ = make(QStyle::SP_MediaPlay, tr("Play / pause"), QKeySequence(Qt::Key_Space));
    play_->setCheckable(true);
    forward_ = make(QStyle::SP_ArrowRight, tr("Step forward"), QKeySequence(Qt::Key_Right));
    nextPressure_ = make(QStyle::SP_MediaSeekForward, tr("Next pressure event"), QKeySequence(Qt::Key_PageDown));
    last_ = make(QStyle::SP_MediaSkipForward, tr("Last tick"), QKeySequence(Qt::Key_End));
    addSeparator();
    scrub_ = new QSlider(Qt::Horizontal, this);
    // Not focused by a click: PageUp/PageDown stay the pressure-event jumps after a scrub (a focused slider
    // keeps its page keys, controlKeepsKey).
    scrub_->setFocusPolicy(Qt::NoFocus);
    scrub_->setObjectName(QStringLiteral("scrubber"));
    scrub_->setMinimumWidth(200);
    scrub_->setToolTip(tr("Scrub through the run"));
    addWidget(scrub_);
    tickLabel_ = new QLabel(this);
    tickLabel_->setMinimumWidth(tickLabel_->fontMetrics().horizontalAdvance(QStringLiteral(" tick 0000000 / 0000000 ")));
    addWidget(tickLabel_);
    addSeparator();
    addWidget(new QLabel(tr("speed "), this));
    speed_ = new QSlider(Qt::Horizontal, this);
    speed_->setObjectName(QStringLiteral("speedSlider"));
    speed_->setRange(0, 40); // 1 .. 10,000 ticks/s, logarithmic
    speed_->setValue(10);
    speed_->setMaximumWidth(120);
    addWidget(speed_);
    speedLabel_ = new QLabel(this);
    addWidget(speedLabel_);
    timer_ = new QTimer(this);

    connect(first_, &QAction::triggered, this, [this]() { doc_->seek(-1); });
    connect(last_, &QAction::triggered, this, [this]() { doc_->seek(doc_->lastTick()); });
    connect(back_, &QAction::triggered, doc_, &LabDocument::stepBack);
    connect(forward_, &QAction::triggered, doc_, &LabDocument::stepForward);
    connect(prevPressure_, &QAction::triggered, doc_, &LabDocument::seekPreviousPressure);
    connect(nextPressure_, &QAction::triggered, doc_, &LabDocument::seekNextPressure);
    connect(play_, &QAction::toggled, this, &TransportBar::setPlaying);
    connect(scrub_, &QSlider::valueChanged, this, [this](int v) {
        if (!updating_) doc_->seek(v - 1);
    });
    connect(speed_, &QSlider::valueChanged, this, [this]() {
        speedLabel_->setText(tr("%1 ticks/s").arg(ticksPerSecond()));
        if (playing()) setPlaying(true);
    });
    connect(timer_, &QTimer::timeout, this, [this]() {
        const int tps = ticksPerSecond();
        // Above 50 ticks/s several ticks are taken per frame so the frame rate stays near 50.
        const int stride = std::max(1, tps / 50);
        if (doc_->currentTick() >= doc_->lastTick()) {
            play_->setChecked(false);
            return;
        }
        doc_->seek(doc_->currentTick() + stride);
    });
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & (LabChangeKind::Cursor | LabChangeKind::Session | LabChangeKind::Workload)) refresh();
    });
    speedLabel_->setText(tr("%1 ticks/s").arg(ticksPerSecond()));
    refresh();
}

QList<QAction*> TransportBar::transportActions() const {
    return {first_, prevPressure_, back_, play_, forward_, nextPressure_, last_};
}

bool TransportBar::playing() const { return timer_->isActive(); }

int TransportBar::ticksPerSecond() const {
    return static_cast<int>(std::lround(std::pow(10.0, speed_->value() / 10.0)));
}

void TransportBar::setPlaying(bool on) {
    if (!on) {
        timer_->stop();
        play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
        return;
    }
    const int tps = ticksPerSecond();
    timer_->start(std::max(20, 1000 / std::max(1, tps)));
    play_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
}

void TransportBar::refresh() {
    updating_ = true;
    const auto last = doc_->lastTick();
    const auto cur = doc_->currentTick();
    // Slider value = tick + 1 so that "before the first tick" (-1) is position 0.
    scrub_->setRange(0, static_cast<int>(std::max<std::int64_t>(0, last + 1)));
    scrub_->setValue(static_cast<int>(cur + 1));
    scrub_->setPageStep(std::max(1, static_cast<int>((last + 1) / 20)));
    const bool has = doc_->session() != nullptr;
    tickLabel_->setText(has ? tr(" tick %1 / %2 ").arg(groupedNumber(cur), groupedNumber(last)) : tr(" no run "));
    for (auto* a : transportActions()) {
        a->setEnabled(has);
        // A disabled button says why; the key is in the tooltip either way.
        a->setToolTip(has ? keyTip(a) : keyTip(a) + tr(": open a workload first"));
    }
    updating_ = false;
}

} // namespace plui
