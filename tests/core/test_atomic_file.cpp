// Atomic writes: the target is either the complete new file or the previous one, never a partial file, and
// no temporary is left behind on success or failure.
#include "core/atomic_file.h"

#include <QtTest>

#include <csignal>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

QStringList entries(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
  private slots:
    void writesCompleteFile();
    void replacesExistingFile();
    void missingFolderIsAnError();
    void readOnlyFolderKeepsPreviousFile();
    void failedWriteKeepsPreviousFile();
    void targetIsAFolder();
    void symbolicLinkIsWrittenThrough();
    void nonRegularTargetsAreRefused();
    void streamingWriterCommits();
    void uncommittedWriterLeavesNothing();
};

void TestAtomicFile::writesCompleteFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.json").toStdString();
    const auto error = pl::writeFileAtomically(path, "{\"a\":1}\n");
    QVERIFY2(!error, error ? error->c_str() : "");
    QCOMPARE(readAll(path), std::string("{\"a\":1}\n"));
    QCOMPARE(entries(dir), QStringList{"out.json"});
}

void TestAtomicFile::replacesExistingFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.json").toStdString();
    QVERIFY(!pl::writeFileAtomically(path, "old contents that are longer"));
    QVERIFY(!pl::writeFileAtomically(path, "new"));
    QCOMPARE(readAll(path), std::string("new"));
    QCOMPARE(entries(dir), QStringList{"out.json"});
    // The replaced file's permission bits stay (the temporary was made 0666 less the umask).
    QCOMPARE(::chmod(path.c_str(), 0640), 0);
    QVERIFY(!pl::writeFileAtomically(path, "newer"));
    struct stat st {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 07777, 0640u);
    QCOMPARE(readAll(path), std::string("newer"));
}

void TestAtomicFile::missingFolderIsAnError() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("missing/out.json").toStdString();
    const auto error = pl::writeFileAtomically(path, "x");
    QVERIFY(error.has_value());
    QCOMPARE(*error, path + ": No such file or directory");
    QVERIFY(entries(dir).isEmpty());
}

void TestAtomicFile::readOnlyFolderKeepsPreviousFile() {
    if (::geteuid() == 0) {
        QSKIP("running as root: folder permissions do not stop root (failedWriteKeepsPreviousFile covers failure)");
    }
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.json").toStdString();
    QVERIFY(!pl::writeFileAtomically(path, "previous"));
    QVERIFY(::chmod(dir.path().toLocal8Bit().constData(), 0555) == 0);
    const auto error = pl::writeFileAtomically(path, "new");
    ::chmod(dir.path().toLocal8Bit().constData(), 0755);
    QVERIFY(error.has_value());
    QCOMPARE(*error, path + ": Permission denied");
    QCOMPARE(readAll(path), std::string("previous"));
    QCOMPARE(entries(dir), QStringList{"out.json"});
}

void TestAtomicFile::failedWriteKeepsPreviousFile() {
    // A file size limit makes write(2) fail part-way (EFBIG) even for root: the previous file must survive and
    // the temporary must be removed.
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.json").toStdString();
    QVERIFY(!pl::writeFileAtomically(path, "previous"));
    const std::string big(256 * 1024, 'x');

    std::optional<std::string> error;
    {
        rlimit saved{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        auto* savedHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = saved;
        small.rlim_cur = 4096;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        error = pl::writeFileAtomically(path, big);
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, savedHandler);
    }
    QVERIFY(error.has_value());
    QCOMPARE(*error, path + ": File too large");
    QCOMPARE(readAll(path), std::string("previous"));
    QCOMPARE(entries(dir), QStringList{"out.json"});
}

void TestAtomicFile::targetIsAFolder() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("sub"));
    QVERIFY(QFile::copy(QFINDTESTDATA("test_atomic_file.cpp"), dir.filePath("sub/keep")));
    const std::string path = dir.filePath("sub").toStdString();
    const auto error = pl::writeFileAtomically(path, "x");
    QVERIFY(error.has_value());
    QVERIFY2(error->rfind(path + ": ", 0) == 0, error->c_str());
    QVERIFY(QFileInfo(dir.filePath("sub")).isDir());
    QCOMPARE(entries(dir), QStringList{"sub"});
}

void TestAtomicFile::symbolicLinkIsWrittenThrough() {
    QTemporaryDir dir;
    const std::string target = dir.filePath("real.json").toStdString();
    const std::string link = dir.filePath("link.json").toStdString();
    QVERIFY(!pl::writeFileAtomically(target, "old"));
    QVERIFY(::symlink("real.json", link.c_str()) == 0);
    QVERIFY(!pl::writeFileAtomically(link, "new"));
    QVERIFY(QFileInfo(QString::fromStdString(link)).isSymLink()); // the link stays a link
    QCOMPARE(readAll(target), std::string("new"));
    QCOMPARE(entries(dir), (QStringList{"link.json", "real.json"}));
    // A link to nowhere is refused with the reason; nothing is created.
    const std::string dangling = dir.filePath("dangling.json").toStdString();
    QVERIFY(::symlink("missing/none.json", dangling.c_str()) == 0);
    const auto error = pl::writeFileAtomically(dangling, "x");
    QVERIFY(error.has_value());
    QVERIFY2(error->rfind(dangling + ": a symbolic link that cannot be followed", 0) == 0, error->c_str());
}

void TestAtomicFile::nonRegularTargetsAreRefused() {
    // A device or a pipe at the path is never replaced by a regular file (as root, a rename over /dev/null
    // would succeed and break the machine's /dev/null).
    QTemporaryDir dir;
    const std::string fifo = dir.filePath("pipe").toStdString();
    QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
    auto error = pl::writeFileAtomically(fifo, "x");
    QVERIFY(error.has_value());
    QCOMPARE(*error, fifo + ": is not a regular file (a device, pipe or socket); name a file");
    struct stat st {};
    QVERIFY(::stat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)); // still the pipe
    QVERIFY(entries(dir).isEmpty()); // no temporary left (QDir lists no pipes)
    // /dev/null through a link in a writable folder: the link is followed to the device and refused there.
    const std::string toNull = dir.filePath("null.json").toStdString();
    QVERIFY(::symlink("/dev/null", toNull.c_str()) == 0);
    error = pl::writeFileAtomically(toNull, "x");
    QVERIFY(error.has_value());
    QCOMPARE(*error, toNull + ": is not a regular file (a device, pipe or socket); name a file");
    QCOMPARE(entries(dir), QStringList{"null.json"});
    QVERIFY(::stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

void TestAtomicFile::streamingWriterCommits() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("big.txt").toStdString();
    QVERIFY(!pl::writeFileAtomically(path, "previous"));
    std::string expected;
    {
        pl::AtomicFileWriter writer(path);
        QVERIFY(writer.ok());
        for (int i = 0; i < 50000; ++i) { // ~3.4 MB: several flushes of the 1 MiB buffer
            const std::string line = "line " + std::to_string(i) + " of the streaming test\n";
            writer.write(line);
            expected += line;
        }
        QCOMPARE(readAll(path), std::string("previous")); // not visible before commit
        const auto error = writer.commit();
        QVERIFY2(!error, error ? error->c_str() : "");
        QVERIFY(writer.commit().has_value()); // a second commit is refused
    }
    QCOMPARE(readAll(path), expected);
    QCOMPARE(entries(dir), QStringList{"big.txt"});
}

void TestAtomicFile::uncommittedWriterLeavesNothing() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("never.txt").toStdString();
    {
        pl::AtomicFileWriter writer(path);
        writer.write(std::string(3 << 20, 'y'));
        QCOMPARE(entries(dir).size(), 1); // the temporary exists while writing
    }
    QVERIFY(entries(dir).isEmpty());
}

QTEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
