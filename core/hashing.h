#pragma once
// Canonical JSON and SHA-256 (OpenSSL libcrypto). Canonical = keys sorted by bytes, no spaces, UTF-8,
// integers only (no floating point in anything hashed).

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace pl {

std::string canonicalJson(const nlohmann::json& value);
// "sha256:<64 lowercase hex>"
std::string sha256Tagged(std::string_view bytes);

// Incremental hashing for large payloads (the event array is hashed while it is written). Destroying one frees
// what libcrypto keeps for the calling thread (OPENSSL_thread_stop), so a worker thread that hashed leaves
// nothing behind for its exit to race.
class Sha256 {
  public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(std::string_view bytes);
    std::string finishTagged(); // "sha256:<hex>"

  private:
    void* ctx_;
};

} // namespace pl
