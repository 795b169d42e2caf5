// Atomic file writes (POSIX): a temporary file beside the target, created with O_EXCL and mode 0666 (so the
// umask applies as for any new file; one that replaces a file takes that file's permission bits), written in
// full, fsync'ed, then renamed over the target. The folder is fsync'ed afterwards so the rename survives a crash. Any failure removes the temporary and leaves the target
// as it was.
#include "core/atomic_file.h"

#include "core/errors.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pl {
namespace {

constexpr std::size_t kFlushThreshold = std::size_t{1} << 20; // buffer up to 1 MiB between write(2) calls

// Messages show the path as the user named it, control bytes escaped (errors.h printable()).
std::string errnoMessage(const std::string& path, int err) { return printable(path, 4096) + ": " + std::strerror(err); }

std::string folderOf(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string baseOf(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A temporary name unique within this process (pid + counter); O_EXCL guards against other processes.
std::string temporaryName(const std::string& path) {
    static std::atomic<unsigned long> counter{0};
    const std::string folder = folderOf(path);
    const std::string prefix = path.find('/') == std::string::npos ? std::string() : folder + "/";
    return prefix + "." + baseOf(path) + ".tmp-" + std::to_string(static_cast<long>(::getpid())) + "-" +
           std::to_string(counter.fetch_add(1));
}

void syncFolder(const std::string& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd); // best effort: some file systems refuse fsync on folders
        ::close(fd);
    }
}

} // namespace

std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents) {
    AtomicFileWriter writer(path);
    writer.write(contents);
    return writer.commit();
}

std::optional<std::string> checkWritable(const std::string& path) { return AtomicFileWriter(path).error(); }

std::optional<std::string> writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<std::pair<std::string, std::string_view>> views;
    views.reserve(files.size());
    for (const auto& [path, contents] : files) {
        views.emplace_back(path, contents);
    }
    return writeFilesAtomically(views);
}

std::optional<std::string> writeFilesAtomically(const std::vector<std::pair<std::string, std::string_view>>& files) {
    std::vector<std::unique_ptr<AtomicFileWriter>> writers;
    for (const auto& [path, contents] : files) {
        writers.push_back(std::make_unique<AtomicFileWriter>(path));
        writers.back()->write(contents);
        if (auto e = writers.back()->finish()) {
            return e; // every temporary so far is removed by its writer's destructor
        }
    }
    for (auto& w : writers) {
        if (auto e = w->commit()) {
            return e;
        }
    }
    return std::nullopt;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
    if (path_.empty()) {
        error_ = std::string("(empty path): no file name given");
        return;
    }
    if (baseOf(path_).empty()) {
        error_ = printable(path_, 4096) + ": names a folder, not a file";
        return;
    }
    target_ = path_;
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        char* resolved = ::realpath(path_.c_str(), nullptr);
        if (resolved == nullptr) {
            error_ = printable(path_, 4096) + ": a symbolic link that cannot be followed: " + std::strerror(errno);
            return;
        }
        target_ = resolved;
        std::free(resolved);
    }
    const bool exists = ::stat(target_.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        error_ = printable(path_, 4096) + (S_ISDIR(st.st_mode) ? ": names a folder, not a file"
                                              : ": is not a regular file (a device, pipe or socket); name a file");
        return;
    }
    for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
        tmpPath_ = temporaryName(target_);
        fd_ = ::open(tmpPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ < 0 && errno != EEXIST) {
            break;
        }
    }
    if (fd_ < 0) {
        error_ = errnoMessage(path_, errno);
        tmpPath_.clear();
        return;
    }
    // A file written over keeps its permission bits (a 0640 receipt stays 0640); best effort, as an editor's.
    if (exists) {
        (void)::fchmod(fd_, st.st_mode & 07777);
    }
}

AtomicFileWriter::~AtomicFileWriter() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!committed_ && !tmpPath_.empty()) {
        ::unlink(tmpPath_.c_str());
    }
}

void AtomicFileWriter::write(std::string_view bytes) {
    if (error_ || committed_) {
        return;
    }
    buffer_.append(bytes);
    if (buffer_.size() >= kFlushThreshold) {
        flushBuffer();
    }
}

void AtomicFileWriter::flushBuffer() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            error_ = errnoMessage(path_, errno);
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    buffer_.clear();
    if (error_) {
        ::close(fd_);
        fd_ = -1;
        ::unlink(tmpPath_.c_str());
        tmpPath_.clear();
    }
}

std::optional<std::string> AtomicFileWriter::finish() {
    if (committed_) {
        return printable(path_, 4096) + ": already committed";
    }
    if (error_ || finished_) {
        return error_;
    }
    flushBuffer();
    if (error_) {
        return error_;
    }
    const auto fail = [this](int err) {
        error_ = errnoMessage(path_, err);
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
        ::unlink(tmpPath_.c_str());
        tmpPath_.clear();
        return error_;
    };
    if (::fsync(fd_) != 0) {
        return fail(errno);
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
        return fail(errno);
    }
    finished_ = true;
    return std::nullopt;
}

std::optional<std::string> AtomicFileWriter::commit() {
    if (auto e = finish()) {
        return e;
    }
    if (::rename(tmpPath_.c_str(), target_.c_str()) != 0) {
        error_ = errnoMessage(path_, errno);
        ::unlink(tmpPath_.c_str());
        tmpPath_.clear();
        return error_;
    }
    committed_ = true;
    syncFolder(folderOf(target_));
    return std::nullopt;
}

std::optional<std::string> outputIsAnInput(const std::string& out, const std::vector<std::string>& inputs) {
    if (out == "-" || out.empty()) {
        return std::nullopt;
    }
    for (const std::string& in : inputs) {
        std::error_code ec;
        // equivalent(): the same device and inode, so a relative path, a symbolic link or a hard link to the
        // input is caught as well as the same name.
        if (!in.empty() && in != "-" && std::filesystem::equivalent(out, in, ec) && !ec) {
            return printable(out, 4096) + ": is the input file " + printable(in, 4096) +
                   "; writing it would destroy the input (name another file)";
        }
    }
    return std::nullopt;
}

} // namespace pl
