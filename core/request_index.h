#pragma once
// RequestIndex and PerRequest<T>: a request's place in the workload's request list (Workload::requests, in
// (arrival_tick, id) order) as its own type, and the per-request containers only such an index can subscript.
// A block id, an extent id, a queue position or a loop counter is a plain integer; passing one where a request
// is meant, or subscripting per-request state with one, does not compile (Jolt's BodyID, docs/style.md).
//
// Both are the int32 and the std::vector they wrap: same size, same layout, every member inline, so a Release
// build emits the same code as the raw loops did. The int32 stays at the boundaries a file, the lab or a device
// reads (Event::request, Candidate::request, RequestRecord, the pool map's owners with their -1, LiveBackend):
// RequestIndex(int32) crosses in, value() crosses out, and nothing converts implicitly either way.

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace pl {

class RequestIndex {
  public:
    // No request: the sentinel a few engine fields start from (a memo not yet filled, no queue head).
    static constexpr RequestIndex none() noexcept { return RequestIndex(-1); }
    // The index of the i-th element of a per-request list (a loop over Workload::requests or an arrival cursor).
    static constexpr RequestIndex fromSlot(std::size_t i) noexcept { return RequestIndex(static_cast<std::int32_t>(i)); }

    constexpr RequestIndex() noexcept = default; // none()
    constexpr explicit RequestIndex(std::int32_t value) noexcept : value_(value) {}
    // Only the int32 the files and events carry: a size_t, an int64 or a bool is no request index by accident.
    template <class T>
        requires std::integral<T> && (!std::same_as<T, std::int32_t>)
    explicit RequestIndex(T) = delete;

    constexpr std::int32_t value() const noexcept { return value_; }
    // Its place in a per-request container (PerRequest, Workload::requests, a span of RequestState).
    constexpr std::size_t slot() const noexcept { return static_cast<std::size_t>(value_); }
    constexpr bool isNone() const noexcept { return value_ < 0; }

    friend constexpr bool operator==(RequestIndex, RequestIndex) noexcept = default;
    friend constexpr auto operator<=>(RequestIndex, RequestIndex) noexcept = default;

  private:
    std::int32_t value_ = -1;
};

static_assert(sizeof(RequestIndex) == sizeof(std::int32_t));
static_assert(std::is_trivially_copyable_v<RequestIndex>);

// The indices [0, n) in order: `for (RequestIndex r : state.indices())`.
class RequestIndices {
  public:
    class iterator {
      public:
        using iterator_category = std::input_iterator_tag; // (yields values: no reference to hand out)
        using value_type = RequestIndex;
        using difference_type = std::ptrdiff_t;
        using reference = RequestIndex;
        using pointer = void;
        constexpr iterator() noexcept = default;
        constexpr explicit iterator(std::int32_t v) noexcept : v_(v) {}
        constexpr RequestIndex operator*() const noexcept { return RequestIndex(v_); }
        constexpr iterator& operator++() noexcept {
            ++v_;
            return *this;
        }
        constexpr iterator operator++(int) noexcept {
            iterator old = *this;
            ++v_;
            return old;
        }
        friend constexpr bool operator==(iterator, iterator) noexcept = default;

      private:
        std::int32_t v_ = 0;
    };
    constexpr explicit RequestIndices(std::size_t n) noexcept : n_(static_cast<std::int32_t>(n)) {}
    constexpr iterator begin() const noexcept { return iterator(0); }
    constexpr iterator end() const noexcept { return iterator(n_); }
    constexpr std::size_t size() const noexcept { return static_cast<std::size_t>(n_); }

  private:
    std::int32_t n_ = 0;
};

// A std::vector<T> with one element per request, subscripted by RequestIndex only. Iterating it (begin/end)
// walks the values in index order; indices() walks the indices. The bulk operations (assign, insert, reserve,
// capacity) are the vector's, for snapshots that copy ranges of requests without naming any one of them.
template <class T>
class PerRequest {
  public:
    using value_type = T;
    using iterator = typename std::vector<T>::iterator;
    using const_iterator = typename std::vector<T>::const_iterator;

    PerRequest() = default;
    explicit PerRequest(std::vector<T> values) : v_(std::move(values)) {}

    T& operator[](RequestIndex r) { return v_[r.slot()]; }
    const T& operator[](RequestIndex r) const { return v_[r.slot()]; }
    bool contains(RequestIndex r) const noexcept { return !r.isNone() && r.slot() < v_.size(); }

    std::size_t size() const noexcept { return v_.size(); }
    bool empty() const noexcept { return v_.empty(); }
    RequestIndices indices() const noexcept { return RequestIndices(v_.size()); }

    void resize(std::size_t n) { v_.resize(n); }
    void resize(std::size_t n, const T& value) { v_.resize(n, value); }
    void reserve(std::size_t n) { v_.reserve(n); }
    std::size_t capacity() const noexcept { return v_.capacity(); }
    void clear() noexcept { v_.clear(); }
    void assign(std::size_t n, const T& value) { v_.assign(n, value); }
    template <std::input_iterator It>
    void assign(It first, It last) { v_.assign(first, last); }
    template <std::input_iterator It>
    iterator insert(const_iterator pos, It first, It last) { return v_.insert(pos, first, last); }
    template <class... Args>
    T& emplace_back(Args&&... args) { return v_.emplace_back(std::forward<Args>(args)...); }
    void push_back(const T& value) { v_.push_back(value); }
    void push_back(T&& value) { v_.push_back(std::move(value)); }

    iterator begin() noexcept { return v_.begin(); }
    iterator end() noexcept { return v_.end(); }
    const_iterator begin() const noexcept { return v_.begin(); }
    const_iterator end() const noexcept { return v_.end(); }
    // The values as the plain vector, for a public span a caller indexes with the int32 it holds (Engine::requests).
    const std::vector<T>& values() const noexcept { return v_; }

    friend bool operator==(const PerRequest&, const PerRequest&) = default;

  private:
    std::vector<T> v_;
};

static_assert(sizeof(PerRequest<int>) == sizeof(std::vector<int>));

} // namespace pl

template <>
struct std::hash<pl::RequestIndex> {
    std::size_t operator()(pl::RequestIndex r) const noexcept { return std::hash<std::int32_t>{}(r.value()); }
};
