#pragma once
// Atomic file writes: write to a temporary file in the target's folder, flush, fsync, rename over the target.
// On any failure the temporary is removed, the previous file (if any) is left intact, and the error names the
// file and the reason (errno text). Used by every writer in the project.
// A symbolic link is written through (its target is replaced, the link stays); a path that holds something
// other than a regular file (a folder, a device such as /dev/null, a pipe, a socket) is refused before anything
// is written, never replaced by a file.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pl {

// Returns std::nullopt on success, else a message "PATH: reason".
std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents);

// Whether `path` can be written now (a temporary is created beside it and removed; the target is untouched):
// a command checks its outputs before its work, so a bad --out costs nothing.
std::optional<std::string> checkWritable(const std::string& path);

// An output must not be one of its inputs (by any path to the same file: a relative path, a symbolic or a hard
// link; compared by device and inode): writing it would destroy the input. Returns the message (paths made
// printable), or nothing when `out` is a different file, "-" or empty. The CLI's commands and the lab's
// --screenshot and --bundle check their outputs with it.
std::optional<std::string> outputIsAnInput(const std::string& out, const std::vector<std::string>& inputs);

// Several files, all or nothing as far as POSIX allows: every temporary is written and synced before the first
// rename, so an unwritable path or a full disk anywhere leaves every target as it was.
std::optional<std::string> writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files);
// The same, the contents viewed where they are (a receipt of hundreds of MB is not copied).
std::optional<std::string> writeFilesAtomically(const std::vector<std::pair<std::string, std::string_view>>& files);

// Streaming form for large outputs: write() appends; commit() makes it visible atomically; the destructor
// discards an uncommitted temporary.
class AtomicFileWriter {
  public:
    explicit AtomicFileWriter(std::string path);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
    bool ok() const { return !error_; }
    const std::optional<std::string>& error() const { return error_; }
    void write(std::string_view bytes);
    // Flushes, fsyncs and closes the temporary (the target is untouched until commit()); commit() calls it.
    std::optional<std::string> finish();
    std::optional<std::string> commit();

  private:
    std::string path_;   // as the caller named it (messages)
    std::string target_; // where the bytes go: path_, or the file a symbolic link at path_ points to
    std::string tmpPath_;
    int fd_ = -1;
    std::string buffer_;
    std::optional<std::string> error_;
    bool finished_ = false;
    bool committed_ = false;
    void flushBuffer();
};

} // namespace pl
