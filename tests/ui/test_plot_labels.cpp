// Compact axis labels: short at every magnitude, exact below 10,000, and what the lab's plots actually draw.
#include "compactticker.h"

#include <QTest>

using plui::compactNumber;

class TestPlotLabels : public QObject {
    Q_OBJECT
  private slots:
    void compactNumbers() {
        QCOMPARE(compactNumber(0), QStringLiteral("0"));
        QCOMPARE(compactNumber(950), QStringLiteral("950"));
        QCOMPARE(compactNumber(2.5), QStringLiteral("2.5"));
        QCOMPARE(compactNumber(9999), QStringLiteral("9999"));
        QCOMPARE(compactNumber(10000), QStringLiteral("10k"));
        QCOMPARE(compactNumber(50000), QStringLiteral("50k"));
        QCOMPARE(compactNumber(125000), QStringLiteral("125k"));
        QCOMPARE(compactNumber(373699), QStringLiteral("374k"));
        QCOMPARE(compactNumber(1500000), QStringLiteral("1.5M"));
        QCOMPARE(compactNumber(68719476736.0), QStringLiteral("68.7G"));
        QCOMPARE(compactNumber(-20000), QStringLiteral("-20k"));
        QCOMPARE(compactNumber(3e12), QStringLiteral("3T"));
    }

    void plotsUseThem() {
        QCustomPlot plot;
        plot.resize(400, 300);
        plot.xAxis->setRange(0, 400000);
        plui::useCompactTicks(&plot);
        plot.replot();
        const QVector<QString> labels = plot.xAxis->tickVectorLabels();
        QVERIFY(!labels.isEmpty());
        for (const QString& l : labels) QVERIFY2(l.size() <= 4, qPrintable(l)); // "0", "100k", ...
        QVERIFY(labels.contains(QStringLiteral("200k")));
    }
};

QTEST_MAIN(TestPlotLabels)
#include "test_plot_labels.moc"
