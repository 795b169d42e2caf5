// The policy panel as a user reads and edits it: every key explained, numbers with their units, byte counts
// in binary units that read back exactly and can be typed as "512 KiB", and the byte text's own rules.
#include "ui/blockgridwidget.h"
#include "ui/bytestext.h"
#include "ui/exporter.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/policypanel.h"
#include "ui/qtext.h"
#include "ui/poolview.h"
#include "tests/ui/uitestutil.h"

#include "core/session.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTest>
#include <QScopeGuard>
#include <QUndoStack>

using namespace plui;

namespace {
// What a person does in a number field: select what is there, type, and (unless told) press Enter.
void typeInto(QLineEdit* edit, const QString& text, bool enter = true) {
    edit->selectAll();
    QTest::keyClicks(edit, text);
    if (enter) QTest::keyClick(edit, Qt::Key_Return);
}

const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");

} // namespace

class TestPolicyPanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_policy_panel")); }

    // In the lab's window: an edit re-runs at once, keeps the tick, is undoable, and a refused value snaps back.
    void aSliderChangeRerunsAndKeepsTheTick() {
        auto w = std::make_unique<MainWindow>();
        w->document()->setRunMode(LabDocument::RunMode::Synchronous);
        w->resize(1400, 900);
        w->show();
        QVERIFY(w->openPath(kSwapWins));
        LabDocument* doc = w->document();
        doc->seek(40);
        const std::string before = receiptTextOf(*doc);
        auto* capacity = qobject_cast<QDoubleSpinBox*>(w->policy()->editor(QStringLiteral("capacity_blocks")));
        QVERIFY(capacity != nullptr);
        capacity->setValue(128);
        QCOMPARE(doc->workload().config.capacity_blocks, 128);
        QCOMPARE(doc->session()->workload().config.capacity_blocks, 128);
        QCOMPARE(doc->currentTick(), 40);
        QCOMPARE(w->poolView()->grid()->blockCount(), 128);
        QVERIFY(receiptTextOf(*doc) != before);
        // The slider beside it moves the same key.
        auto* slider = qobject_cast<QSlider*>(w->policy()->slider(QStringLiteral("prefill_tokens_per_tick")));
        QVERIFY(slider != nullptr);
        const auto prefillBefore = doc->workload().config.prefill_tokens_per_tick;
        slider->setValue(slider->maximum());
        QCOMPARE(doc->workload().config.prefill_tokens_per_tick, prefillBefore * 4);
        auto* recovery = qobject_cast<QComboBox*>(w->policy()->editor(QStringLiteral("recovery")));
        QWidget* tie = w->policy()->editor(QStringLiteral("adaptive_tie"));
        QWidget* hybridShare = w->policy()->editor(QStringLiteral("hybrid_swap_percent"));
        QVERIFY(!tie->isEnabled() && !hybridShare->isEnabled()); // swap reads neither
        QVERIFY(tie->toolTip().contains(QStringLiteral("adaptive")));
        recovery->setCurrentText(QStringLiteral("hybrid"));
        QWidget* shareSlider = w->policy()->slider(QStringLiteral("hybrid_swap_percent"));
        QVERIFY(hybridShare->isEnabled() && shareSlider->isEnabled());
        QVERIFY2(shareSlider->toolTip().contains(QStringLiteral("log scale")), qPrintable(shareSlider->toolTip()));
        QVERIFY(!tie->isEnabled());
        doc->undoStack()->undo();
        QVERIFY(!hybridShare->isEnabled());
        recovery->setCurrentText(QStringLiteral("recompute"));
        QVERIFY(doc->workload().policy.recovery == pl::Recovery::Recompute);
        // Undo walks back through all three edits; the controls follow.
        doc->undoStack()->undo();
        QCOMPARE(recovery->currentText(), QStringLiteral("swap"));
        doc->undoStack()->undo();
        doc->undoStack()->undo();
        QCOMPARE(capacity->value(), 64.0);
        QCOMPARE(receiptTextOf(*doc), before);
        QCOMPARE(doc->currentTick(), 40);
        // A capacity too small for the largest request is never offered (issue 27: 1 was, and was refused): the
        // field stops at the least the workload accepts, the 54 blocks its largest request needs, which applies.
        capacity->setValue(1);
        QCOMPARE(capacity->value(), 54.0);
        QCOMPARE(doc->workload().config.capacity_blocks, 54);
        doc->undoStack()->undo();
        QCOMPARE(capacity->value(), 64.0);
        // A value the workload cannot take is refused and explained, and the control snaps back.
        auto* profile = qobject_cast<QComboBox*>(w->policy()->editor(QStringLiteral("engine_profile")));
        auto* ahead = qobject_cast<QCheckBox*>(w->policy()->editor(QStringLiteral("preempt_ahead")));
        QVERIFY(profile && ahead);
        profile->setCurrentText(QStringLiteral("vllm-v1"));
        ahead->setChecked(true);
        QVERIFY(!doc->workload().policy.preempt_ahead);
        auto* err = w->policy()->findChild<QLabel*>(QStringLiteral("policyError"));
        QVERIFY(err && err->isVisible() && err->toolTip().contains(QStringLiteral("preempt_ahead")));
        QVERIFY(!ahead->isChecked());
        doc->undoStack()->undo();
    }

    void bytesTextIsExact_data() {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("0 B");
        QTest::newRow("odd") << qint64(262145) << QStringLiteral("262145 B");
        QTest::newRow("KiB") << qint64(262144) << QStringLiteral("256 KiB");
        QTest::newRow("1.5 KiB stays bytes") << qint64(1536) << QStringLiteral("1536 B");
        QTest::newRow("MiB") << qint64(64) * 1024 * 1024 << QStringLiteral("64 MiB");
        QTest::newRow("GiB") << (qint64(1) << 30) << QStringLiteral("1 GiB");
        QTest::newRow("3 TiB") << qint64(3) * (qint64(1) << 40) << QStringLiteral("3 TiB");
        QTest::newRow("PiB stays TiB") << (qint64(1) << 50) << QStringLiteral("1024 TiB");
    }
    void bytesTextIsExact() {
        QFETCH(qint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(exactBytesText(bytes), text);
        QCOMPARE(parseBytesText(text), std::optional<std::int64_t>(bytes));
    }

    void bytesTextReadsWhatPeopleType_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes"); // -1: refused
        QTest::newRow("digits") << QStringLiteral("262144") << qint64(262144);
        QTest::newRow("spaces and B") << QStringLiteral("  262144 b ") << qint64(262144);
        QTest::newRow("K") << QStringLiteral("512K") << qint64(524288);
        QTest::newRow("kib lower") << QStringLiteral("512 kib") << qint64(524288);
        QTest::newRow("KB is binary") << QStringLiteral("1 KB") << qint64(1024);
        QTest::newRow("fraction") << QStringLiteral("1.5 MiB") << qint64(1572864);
        QTest::newRow("fraction to half a byte") << QStringLiteral("1.5 B") << qint64(-1);
        QTest::newRow("fraction of KiB not whole") << QStringLiteral("0.001 KiB") << qint64(-1);
        QTest::newRow("negative") << QStringLiteral("-1") << qint64(-1);
        QTest::newRow("empty") << QString() << qint64(-1);
        QTest::newRow("word") << QStringLiteral("lots") << qint64(-1);
        QTest::newRow("two units") << QStringLiteral("1 KiB MiB") << qint64(-1);
        QTest::newRow("2^53-1") << QStringLiteral("9007199254740991") << qint64(9007199254740991);
        QTest::newRow("2^53") << QStringLiteral("9007199254740992") << qint64(-1);
        QTest::newRow("8 PiB in TiB") << QStringLiteral("8192 TiB") << qint64(-1);
        QTest::newRow("17 digits") << QStringLiteral("12345678901234567") << qint64(-1);
    }
    void bytesTextReadsWhatPeopleType() {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        const auto parsed = parseBytesText(text);
        if (bytes < 0) QVERIFY2(!parsed, qPrintable(QString::number(parsed.value_or(0))));
        else QCOMPARE(parsed, std::optional<std::int64_t>(bytes));
    }

    // Core explains every key it lists; an unknown key gets nothing.
    void everyKeyIsExplained() {
        for (const auto& keys : {pl::configKeys(), pl::policyKeys()}) {
            for (auto key : keys) QVERIFY2(!pl::settingHelp(key).meaning.empty(), std::string(key).c_str());
        }
        // Every number has its unit (a switch such as enable_prefix_caching has none).
        const auto all = pl::configJson(pl::Config{}, true);
        for (auto key : pl::configKeys()) {
            QVERIFY2(all.contains(std::string(key)), std::string(key).c_str());
            if (all[std::string(key)].is_number()) QVERIFY2(!pl::settingHelp(key).unit.empty(), std::string(key).c_str());
        }
        QVERIFY(pl::settingHelp("no_such_key").meaning.empty());
        // A choice's meaning names every value it takes.
        for (auto rule : pl::allVictimRules()) QVERIFY(pl::settingHelp("victim_rule").meaning.find(rule) != std::string_view::npos);
        for (auto mode : pl::allRecoveries()) QVERIFY(pl::settingHelp("recovery").meaning.find(mode) != std::string_view::npos);
    }

    void panelShowsUnitsAndMeanings() {
        LabDocument doc;
        QVERIFY(uitest::openSample(doc, kSwapWins));
        PolicyPanel panel(&doc);
        panel.resize(700, 600);
        panel.show();
        // Each row's name says what the key does and where else it is spelt.
        for (const auto& keys : {pl::configKeys(), pl::policyKeys()}) {
            for (auto k : keys) {
                const QString key = plui::qsv(k);
                auto* label = panel.findChild<QLabel*>(QStringLiteral("label_") + key);
                QVERIFY2(label, qPrintable(key));
                QCOMPARE(label->text(), key);
                QVERIFY2(label->toolTip().startsWith(plui::qsv(pl::settingHelp(k).meaning)), qPrintable(label->toolTip()));
                QString flag = key;
                QVERIFY2(label->toolTip().contains(QStringLiteral("--") + flag.replace(QLatin1Char('_'), QLatin1Char('-')) + QLatin1Char('.')),
                         qPrintable(label->toolTip()));
            }
        }
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("label_capacity_blocks"))->toolTip().contains(QStringLiteral("/config/capacity_blocks")));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("label_recovery"))->toolTip().contains(QStringLiteral("/policy/recovery")));
        auto spin = [&](const char* key) { return qobject_cast<QDoubleSpinBox*>(panel.editor(QLatin1String(key))); };
        QCOMPARE(spin("capacity_blocks")->text(), QStringLiteral("64 blocks"));
        // vLLM's prefix caching is a switch, off until set; ticking it sets the key (and an undo clears it).
        auto* caching = qobject_cast<QCheckBox*>(panel.editor(QStringLiteral("enable_prefix_caching")));
        QVERIFY(caching);
        QVERIFY(!caching->isChecked());
        caching->setChecked(true);
        QCOMPARE(doc.settingValue(QStringLiteral("enable_prefix_caching")), QStringLiteral("true"));
        QVERIFY(doc.workload().config.enable_prefix_caching);
        doc.undoStack()->undo();
        QVERIFY(!doc.workload().config.enable_prefix_caching);
        QCOMPARE(spin("max_ticks")->text(), QStringLiteral("20,000 ticks")); // grouped, whatever the locale
        // A count is typed with or without the commas.
        QLineEdit* maxTicks = spin("max_ticks")->findChild<QLineEdit*>();
        for (const auto& [typed, value] : {std::pair{"30000", 30000}, std::pair{"40,000", 40000}}) {
            typeInto(maxTicks, QLatin1String(typed));
            QCOMPARE(doc.workload().config.max_ticks, value);
        }
        QCOMPARE(spin("hybrid_swap_percent")->text(), QStringLiteral("50%"));
        QCOMPARE(spin("kv_bytes_per_token")->text(), QStringLiteral("256 B"));
        // Byte counts in binary units, exact, with the count itself in the tooltip.
        QCOMPARE(spin("transfer_bytes_per_tick")->text(), QStringLiteral("256 KiB/tick"));
        QCOMPARE(spin("transfer_bytes_per_tick")->toolTip(), QStringLiteral("262,144 B"));
        QCOMPARE(spin("host_capacity_bytes")->text(), QStringLiteral("64 MiB"));
        // The number fields share one width, so the sliders beside them line up.
        QCOMPARE(spin("capacity_blocks")->width(), spin("host_capacity_bytes")->width());
        QCOMPARE(spin("preemption_threshold")->width(), spin("transfer_bytes_per_tick")->width());
    }

    void typedBytesApply() {
        // Under a desktop locale whose decimal point is a comma and whose group separator is a point: the
        // fields are the lab's own text either way ("1.5 MiB" is 1.5 MiB, never 15).
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        LabDocument doc;
        QVERIFY(uitest::openSample(doc, kSwapWins));
        PolicyPanel panel(&doc);
        panel.show();
        auto* transfer = qobject_cast<QDoubleSpinBox*>(panel.editor(QStringLiteral("transfer_bytes_per_tick")));
        QVERIFY(transfer);
        QLineEdit* edit = transfer->findChild<QLineEdit*>();
        QVERIFY(edit);
        typeInto(edit, QStringLiteral("512 KiB"));
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 524288);
        QCOMPARE(transfer->text(), QStringLiteral("512 KiB/tick"));
        typeInto(edit, QStringLiteral("300001"));
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 300001);
        QCOMPARE(transfer->text(), QStringLiteral("300001 B/tick"));
        QCOMPARE(transfer->toolTip(), QStringLiteral("300,001 B"));
        typeInto(edit, QStringLiteral("1.5 K"));
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 1536);
        QCOMPARE(transfer->text(), QStringLiteral("1536 B/tick"));
        // What cannot be a byte count is not taken: letters are refused as they are typed, at the start or after
        // the unit; the text stays as it was.
        const QString kept = edit->text();
        typeInto(edit, QStringLiteral("lots"), false);
        QCOMPARE(edit->text(), kept);
        typeInto(edit, QStringLiteral("5 KiB/tickx"), false);
        QCOMPARE(edit->text(), QStringLiteral("5 KiB/tick"));
        QString text = QStringLiteral("lots");
        int pos = 0;
        QCOMPARE(transfer->validate(text, pos), QValidator::Invalid);
        text = QStringLiteral("5 KiB/tickx");
        QCOMPARE(transfer->validate(text, pos), QValidator::Invalid);
        text = QStringLiteral("5 KiB/ti");
        QCOMPARE(transfer->validate(text, pos), QValidator::Intermediate);
        text = QStringLiteral("512 K");
        QCOMPARE(transfer->validate(text, pos), QValidator::Acceptable);
        QTest::keyClick(edit, Qt::Key_Escape);
        transfer->setValue(300001);
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 300001);
        // An undo brings back the value and its exact count in the tooltip (edits of one key in quick
        // succession are one undo step: back to the file's 256 KiB).
        doc.undoStack()->undo();
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 262144);
        QCOMPARE(transfer->text(), QStringLiteral("256 KiB/tick"));
        QCOMPARE(transfer->toolTip(), QStringLiteral("262,144 B"));
        doc.undoStack()->redo();
        // The arrows step a KiB.
        transfer->setValue(262144);
        transfer->stepBy(1);
        QCOMPARE(transfer->text(), QStringLiteral("257 KiB/tick"));
        // The slider moves byte counts in whole KiB (its ends are a quarter and four times the file's 256 KiB).
        auto* slider = qobject_cast<QSlider*>(panel.slider(QStringLiteral("transfer_bytes_per_tick")));
        QVERIFY(slider);
        slider->setValue(slider->maximum() - 7);
        const auto moved = doc.workload().config.transfer_bytes_per_tick;
        QVERIFY2(moved % 1024 == 0 && moved > 262144 && moved < 1048576, qPrintable(QString::number(moved)));
        QVERIFY2(transfer->text().endsWith(QStringLiteral(" KiB/tick")), qPrintable(transfer->text()));
        slider->setValue(slider->maximum());
        QCOMPARE(doc.workload().config.transfer_bytes_per_tick, 1048576);
        QCOMPARE(transfer->text(), QStringLiteral("1 MiB/tick"));
        QCOMPARE(slider->toolTip(), QStringLiteral("64 KiB/tick to 1 MiB/tick (log scale)"));
    }
};

QTEST_MAIN(TestPolicyPanel)
#include "test_policy_panel.moc"
