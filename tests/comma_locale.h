#pragma once
// Puts the C library's LC_NUMERIC into a locale whose decimal point is a comma (de_DE), as Qt does on a German
// desktop (QApplication calls setlocale(LC_ALL, "")), so a test can show that text does not follow it. Uses an
// installed de_DE, else compiles one with localedef into `dir` (LOCPATH); false when neither is possible.

#include <QByteArray>
#include <QProcess>
#include <QTemporaryDir>

#include <clocale>
#include <cstdio>
#include <cstring>

namespace pltest {

inline bool decimalPointIsComma() {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", 0.5);
    return std::strcmp(buf, "0,5") == 0;
}

inline bool useCommaLocale(const QTemporaryDir& dir) {
    if (std::setlocale(LC_NUMERIC, "de_DE.UTF-8") && decimalPointIsComma()) return true;
    QProcess p;
    p.start(QStringLiteral("localedef"),
            {QStringLiteral("-i"), QStringLiteral("de_DE"), QStringLiteral("-f"), QStringLiteral("UTF-8"),
             dir.filePath(QStringLiteral("de_DE.UTF-8"))});
    if (!p.waitForFinished(60'000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return false;
    qputenv("LOCPATH", dir.path().toLocal8Bit());
    return std::setlocale(LC_NUMERIC, "de_DE.UTF-8") && decimalPointIsComma();
}

} // namespace pltest
