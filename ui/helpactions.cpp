#include "ui/helpactions.h"

#include "ui/mainwindow.h"
#include "core/model.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSet>

namespace plui {

namespace {
// Menu entries carry '&' mnemonics; the list shows their words.
QString plainText(const QAction* a) {
    QString t = a->text();
    t.remove(QLatin1Char('&'));
    if (t.endsWith(QStringLiteral("..."))) t.chop(3);
    return t;
}

void collect(const QMenu* menu, QStringList* lines, QSet<QString>* seen) {
    for (const QAction* a : menu->actions()) {
        if (a->menu()) {
            collect(a->menu(), lines, seen);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        if (keys.isEmpty()) continue;
        const QString line = QStringLiteral("%1\t%2").arg(keys.join(QStringLiteral(" or ")), plainText(a));
        if (!seen->contains(line)) {
            seen->insert(line);
            lines->append(line);
        }
    }
}
} // namespace

HelpActions::HelpActions(MainWindow* window) : QObject(window), window_(window) {}

void HelpActions::buildMenu(QMenu* menu) {
    auto* keys = menu->addAction(tr("&Keyboard Shortcuts"), this, [this]() {
        // In two columns: tabs in a message box's plain text do not line up ("Ctrl+Shift+S      Save Workload As").
        QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
        QString after;
        for (const QString& line : shortcutsText().split(QLatin1Char('\n'))) {
            const qsizetype tab = line.indexOf(QLatin1Char('\t'));
            if (tab < 0) {
                if (!line.isEmpty()) after += QStringLiteral("<p>%1</p>").arg(line.toHtmlEscaped());
                continue;
            }
            html += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>")
                        .arg(line.left(tab).toHtmlEscaped(), line.mid(tab + 1).toHtmlEscaped());
        }
        html += QStringLiteral("</table>") + after;
        QMessageBox box(QMessageBox::Information, tr("Keyboard shortcuts"), html, QMessageBox::Ok, window_);
        box.setTextFormat(Qt::RichText);
        box.setObjectName(QStringLiteral("shortcutsDialog"));
        box.exec();
    });
    keys->setShortcut(QKeySequence(Qt::Key_F1));
    menu->addAction(tr("&About PreemptLab"), this, [this]() {
        QMessageBox::about(
            window_, tr("About PreemptLab"),
            tr("<p><b>PreemptLab %1</b> (tick model 1)</p>"
               "<p>Steps a KV-cache scheduler tick by tick: how a full block pool forces a running request out, "
               "whether recompute or swap brings it back cheaper, who starves, and what it cost.</p>"
               "<p>The same workload and policy give byte-identical receipts here and from "
               "<tt>preemptlab-cli run</tt>. Documentation: README.md and docs/ (lab.md for this window, "
               "tick-model.md for the engine, contracts.md for the files).</p>"
               "<p>PreemptLab is free software: you can redistribute it and/or modify it under the terms of the "
               "GNU General Public License, version 3 or (at your option) any later version. It comes with "
               "ABSOLUTELY NO WARRANTY. It links QCustomPlot, which is GPL-3.0. The licence text is LICENSE; the "
               "sources and licences of the bundled trace slices are in samples/ATTRIBUTION.md (installed in "
               "share/doc/preemptlab).</p>")
                .arg(QString::fromUtf8(pl::kEngineVersion.data(),
                                       static_cast<qsizetype>(pl::kEngineVersion.size()))));
    });
}

QString HelpActions::shortcutsText() const {
    QStringList lines;
    QSet<QString> seen;
    for (const QAction* top : window_->menuBar()->actions()) {
        if (top->menu()) collect(top->menu(), &lines, &seen);
    }
    lines << tr("Ctrl+wheel on the pool\tZoom the grid") << tr("Double-click the timeline\tMove to that tick");
    return lines.join(QLatin1Char('\n')) +
           tr("\n\nThe plain keys (arrows, Home, End, Page Up/Down, Space) move the cursor from anywhere except a "
              "control that uses them itself: a slider, a table, a list, a text or number field, a button. Click "
              "the pool or the timeline to give them back to the transport.");
}

} // namespace plui
