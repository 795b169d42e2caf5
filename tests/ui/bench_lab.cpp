// Redraw benchmarks (QBENCHMARK): one step, and one scrub jump, each followed by a full repaint of the lab
// window (pool grid, timeline and plot cursors, transport, ledger), at 2,000 blocks / 500 requests and at
// 100,000 blocks / 10,000 requests. Run: QT_QPA_PLATFORM=offscreen build/bin/bench_lab
// The figures are reported in docs/lab.md.
#include "ui/blockgridwidget.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/poolview.h"
#include "tests/ui/uitestutil.h"

#include "core/session.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTest>

using namespace plui;

class BenchLab : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<MainWindow> window_;
    qint64 buildMs_ = 0;

    std::pair<std::int64_t, std::int64_t> opened_{0, 0};

    void open(std::int64_t blocks, std::int64_t requests) {
        // QBENCHMARK re-enters the test function; build each size once.
        if (window_ && opened_ == std::make_pair(blocks, requests)) return;
        opened_ = {blocks, requests};
        window_ = std::make_unique<MainWindow>();
        window_->document()->setRunMode(LabDocument::RunMode::Synchronous);
        window_->resize(1600, 1000);
        window_->show();
        QElapsedTimer t;
        t.start();
        QString error;
        if (!window_->document()->setWorkload(uitest::syntheticWorkload(blocks, requests), QStringLiteral("bench"), &error)) {
            qFatal("%s", qPrintable(error));
        }
        buildMs_ = t.elapsed();
        QApplication::processEvents();
        const pl::Session* s = window_->document()->session();
        qInfo("workload: %lld blocks, %lld requests, %lld ticks, %lld evictions; session built in %lld ms",
              static_cast<long long>(blocks), static_cast<long long>(requests), static_cast<long long>(s->lastTick() + 1),
              static_cast<long long>(s->result().totals.evictions), static_cast<long long>(buildMs_));
    }

    // What the user sees after a step: the dirty views repaint (posted update requests, queued replots).
    void redraw() { QApplication::processEvents(); }

    void stepBench() {
        LabDocument* doc = window_->document();
        doc->seek(doc->lastTick() / 3);
        redraw();
        QBENCHMARK {
            if (doc->currentTick() >= doc->lastTick()) doc->seek(doc->lastTick() / 3);
            doc->stepForward();
            redraw();
        }
    }

    void scrubBench() {
        LabDocument* doc = window_->document();
        std::int64_t i = 0;
        const std::int64_t last = doc->lastTick();
        QBENCHMARK {
            // Jumps back and forth across the run, as a scrubbing hand does.
            i = (i * 7919 + 104729) % (last + 1);
            doc->seek(i);
            redraw();
        }
    }

    // Worst case: every view of the window repainted, changed or not.
    void fullRepaintBench() {
        QBENCHMARK {
            window_->document()->stepForward();
            QApplication::processEvents();
            window_->repaint();
        }
    }

    // A grid repaint with the pool changed (image rebuilt), as after a step.
    void gridBench() {
        BlockGridWidget* g = window_->poolView()->grid();
        window_->document()->seek(window_->document()->lastTick() / 2);
        const auto& e = window_->document()->session()->cursor();
        QBENCHMARK {
            g->setPool(static_cast<int>(e.workload().config.capacity_blocks), e.blockOwners(), e.blockInFlight(),
                       window_->document()->victimBlockMask());
            g->repaint();
        }
    }

  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("bench_lab")); } // no user's layout or files
    void step_2000_blocks_500_requests() {
        open(2000, 500);
        stepBench();
    }
    void scrub_2000_blocks_500_requests() {
        open(2000, 500);
        scrubBench();
    }
    void fullWindowRepaint_2000_blocks() {
        open(2000, 500);
        fullRepaintBench();
    }
    void gridOnly_2000_blocks() {
        open(2000, 500);
        gridBench();
    }
    void step_100000_blocks_10000_requests() {
        open(100000, 10000);
        stepBench();
    }
    void scrub_100000_blocks_10000_requests() {
        open(100000, 10000);
        scrubBench();
    }
    void fullWindowRepaint_100000_blocks() {
        open(100000, 10000);
        fullRepaintBench();
    }
    void gridOnly_100000_blocks() {
        open(100000, 10000);
        gridBench();
    }
    void cleanupTestCase() { window_.reset(); }
};

QTEST_MAIN(BenchLab)
#include "bench_lab.moc"
