// Canonical JSON and SHA-256. Canonical JSON is nlohmann::json's compact dump: its objects are std::map-backed,
// so keys come out sorted by bytes (char_traits<char> compares as unsigned char); ensure_ascii is off, so text
// stays UTF-8; the strict error handler rejects invalid UTF-8. Floating point is refused before dumping, so a
// hash never depends on how a platform prints a double.
#include "core/hashing.h"

#include "core/json_pointer.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace pl {
namespace {

void rejectNonCanonical(const nlohmann::json& v, std::string& path) {
    switch (v.type()) {
    case nlohmann::json::value_t::number_float:
        throw std::invalid_argument("canonical JSON holds no floating-point numbers (at " +
                                    (path.empty() ? std::string("/") : path) + ")");
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded:
        throw std::invalid_argument("canonical JSON holds no binary or discarded values (at " +
                                    (path.empty() ? std::string("/") : path) + ")");
    case nlohmann::json::value_t::object:
        for (const auto& [key, item] : v.items()) {
            const auto size = path.size();
            path += '/';
            path += escapePointerToken(key);
            rejectNonCanonical(item, path);
            path.resize(size);
        }
        break;
    case nlohmann::json::value_t::array: {
        std::size_t index = 0;
        for (const auto& item : v) {
            const auto size = path.size();
            path += '/';
            path += std::to_string(index++);
            rejectNonCanonical(item, path);
            path.resize(size);
        }
        break;
    }
    default:
        break;
    }
}

EVP_MD_CTX* asCtx(void* p) { return static_cast<EVP_MD_CTX*>(p); }

std::string toTaggedHex(const unsigned char* digest, unsigned int length) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "sha256:";
    out.reserve(out.size() + 2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        out += kHex[digest[i] >> 4];
        out += kHex[digest[i] & 0x0f];
    }
    return out;
}

void initOrThrow(EVP_MD_CTX* ctx) {
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("SHA-256: EVP_DigestInit_ex failed");
    }
}

} // namespace

std::string canonicalJson(const nlohmann::json& value) {
    std::string path;
    rejectNonCanonical(value, path);
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
}

std::string sha256Tagged(std::string_view bytes) {
    Sha256 h;
    h.update(bytes);
    return h.finishTagged();
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (ctx_ == nullptr) {
        throw std::runtime_error("SHA-256: EVP_MD_CTX_new failed");
    }
    try {
        initOrThrow(asCtx(ctx_));
    } catch (...) {
        EVP_MD_CTX_free(asCtx(ctx_)); // no destructor runs for an object whose constructor threw
        throw;
    }
}

// Besides the context, the destructor frees what libcrypto keeps for this thread (OPENSSL_thread_stop: its error
// queue and the handlers that would free it at thread exit). Left to thread exit, that state races process exit: Qt's pool threads are
// detached, so QThreadPool hands a thread back as finished while glibc is still running its exit, and an
// OPENSSL_cleanup at exit in between leaks the 904-byte error queue (LeakSanitizer saw it in
// test_background_work). The cost did not show: sha256Tagged("abc") took 617-670 ns a call with the stop and
// without it (200,000 calls, this machine).
Sha256::~Sha256() {
    EVP_MD_CTX_free(asCtx(ctx_));
    OPENSSL_thread_stop();
}

void Sha256::update(std::string_view bytes) {
    if (!bytes.empty() && EVP_DigestUpdate(asCtx(ctx_), bytes.data(), bytes.size()) != 1) {
        throw std::runtime_error("SHA-256: EVP_DigestUpdate failed");
    }
}

// Finishing resets the context, so one Sha256 can hash several payloads in turn.
std::string Sha256::finishTagged() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(asCtx(ctx_), digest.data(), &length) != 1) {
        throw std::runtime_error("SHA-256: EVP_DigestFinal_ex failed");
    }
    initOrThrow(asCtx(ctx_));
    return toTaggedHex(digest.data(), length);
}

} // namespace pl
