#pragma once
// The lab's command line (QCommandLineParser):
//   preemptlab [WORKLOAD] [--workload FILE] [--<config or policy key> VALUE ...] [--tick N]
//              [--view NAME] [--screenshot OUT.png|svg|pdf] [--size WxH]
// Every `config` and `policy` key is a flag, underscores written as dashes, as in preemptlab-cli.
// With --screenshot the lab renders one view and exits (headless.h).

#include <QList>
#include <QPair>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace plui {

struct LabOptions {
    QString workload;
    QList<QPair<QString, QString>> overrides; // (file key, value), in command-line order
    std::optional<std::int64_t> tick;
    QString view = QStringLiteral("window");
    QString screenshot;
    QSize size{1600, 1000};
    int exitCode = -1; // >= 0: help or version was printed, exit with it
};

// Views --view accepts.
QStringList labViewNames();

bool parseLabCommandLine(const QStringList& arguments, LabOptions* out, QString* error);

} // namespace plui
