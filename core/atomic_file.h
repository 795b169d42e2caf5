#pragma once
// Atomic file writes: write to a temporary file in the target's folder, flush, fsync, rename over the target.
// On any failure the temporary is removed, the previous file (if any) is left intact, and the error names the
// file and the reason (errno text). Used by every writer in the project.

#include <optional>
#include <string>
#include <string_view>

namespace pl {

// Returns std::nullopt on success, else a message "PATH: reason".
std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents);

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
    std::optional<std::string> commit();

  private:
    std::string path_;
    std::string tmpPath_;
    int fd_ = -1;
    std::string buffer_;
    std::optional<std::string> error_;
    bool committed_ = false;
    void flushBuffer();
};

} // namespace pl
