#pragma once
// Runs the built preemptlab-cli from a test suite: its exit code (-1 when it crashed or did not finish within
// the timeout), standard output and standard error.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace pltest {

struct CliRun {
    int code = -1;
    QByteArray out;
    QByteArray err;
};

inline CliRun runCli(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli"), args);
    const bool finished = p.waitForFinished(timeoutMs);
    CliRun r;
    r.code = finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace pltest
