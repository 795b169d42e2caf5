// The prefix cache by runs of ids (prefix_extents.h).
#include "core/prefix_extents.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace pl {

namespace {
constexpr std::int32_t kNone = -1;
}

void PrefixExtents::reset(std::size_t requests) {
    ext_.clear();
    spare_.clear();
    byFirst_.clear();
    lowest_ = kNone;
    finger_ = kNone;
    head_ = kNone;
    tail_ = kNone;
    cachedFree_ = 0;
    version_ = 0;
    held_.assign(requests, {});
    grown_.assign(requests, kNone);
    runAt_.assign(requests, 0);
}

std::int32_t PrefixExtents::find(std::int64_t id) const {
    // Lookups come in neighbourhoods (both ends of a range, the next run of a chain): try the extent found
    // last and the ones beside it before searching. A live extent that holds id is the one, however old the
    // finger is: extents never overlap.
    if (finger_ != kNone) {
        const Extent& f = ext_[static_cast<std::size_t>(finger_)];
        if (f.len > 0) {
            for (const std::int32_t e : {finger_, f.up, f.down}) {
                if (e != kNone) {
                    const Extent& x = ext_[static_cast<std::size_t>(e)];
                    if (x.first <= id && id < x.first + x.len) {
                        finger_ = e;
                        return e;
                    }
                }
            }
        }
    }
    auto it = byFirst_.upper_bound(id);
    if (it == byFirst_.begin()) {
        return kNone;
    }
    --it;
    const Extent& e = ext_[static_cast<std::size_t>(it->second)];
    if (id < e.first + e.len) {
        finger_ = it->second;
        return it->second;
    }
    return kNone;
}

// A new extent [first, first + len); `below` is the extent with the next lower ids (kNone: none).
std::int32_t PrefixExtents::make(std::int64_t first, std::int64_t len, std::int32_t ref, std::int32_t below) {
    std::int32_t e = kNone;
    if (spare_.empty()) {
        e = static_cast<std::int32_t>(ext_.size());
        ext_.emplace_back();
    } else {
        e = spare_.back();
        spare_.pop_back();
    }
    const std::int32_t above = below == kNone ? lowest_ : ext_[static_cast<std::size_t>(below)].up;
    ext_[static_cast<std::size_t>(e)] = Extent{first, len, ref, kNone, kNone, below, above};
    (below == kNone ? lowest_ : ext_[static_cast<std::size_t>(below)].up) = e;
    if (above != kNone) {
        ext_[static_cast<std::size_t>(above)].down = e;
    }
    byFirst_.emplace(first, e);
    return e;
}

void PrefixExtents::drop(std::int32_t e) {
    Extent& x = ext_[static_cast<std::size_t>(e)];
    (x.down == kNone ? lowest_ : ext_[static_cast<std::size_t>(x.down)].up) = x.up;
    if (x.up != kNone) {
        ext_[static_cast<std::size_t>(x.up)].down = x.down;
    }
    byFirst_.erase(x.first);
    x.len = 0; // a dead slot: no hint matches it
    spare_.push_back(e);
}

void PrefixExtents::unlink(std::int32_t e) {
    Extent& x = ext_[static_cast<std::size_t>(e)];
    (x.prev == kNone ? head_ : ext_[static_cast<std::size_t>(x.prev)].next) = x.next;
    (x.next == kNone ? tail_ : ext_[static_cast<std::size_t>(x.next)].prev) = x.prev;
    x.prev = kNone;
    x.next = kNone;
}

void PrefixExtents::pushBack(std::int32_t e) {
    Extent& x = ext_[static_cast<std::size_t>(e)];
    x.prev = tail_;
    x.next = kNone;
    (tail_ == kNone ? head_ : ext_[static_cast<std::size_t>(tail_)].next) = e;
    tail_ = e;
}

// Puts e into the freed order just before `at` (e is reused first).
void PrefixExtents::insertBefore(std::int32_t e, std::int32_t at) {
    Extent& x = ext_[static_cast<std::size_t>(e)];
    Extent& a = ext_[static_cast<std::size_t>(at)];
    x.next = at;
    x.prev = a.prev;
    (a.prev == kNone ? head_ : ext_[static_cast<std::size_t>(a.prev)].next) = e;
    a.prev = e;
}

// Makes `id` the first id of its extent (when one holds it); returns that extent or kNone.
std::int32_t PrefixExtents::splitAt(std::int64_t id) {
    const std::int32_t e = find(id);
    if (e == kNone || ext_[static_cast<std::size_t>(e)].first == id) {
        return e;
    }
    const Extent x = ext_[static_cast<std::size_t>(e)];
    const std::int32_t upper = make(id, x.first + x.len - id, x.ref, e);
    ext_[static_cast<std::size_t>(e)].len = id - x.first;
    if (x.ref == 0) {
        insertBefore(upper, e); // higher ids leave first
    }
    return upper;
}

// Extents cover [lo, hi) exactly where they overlap it (none straddles an end); returns the one starting at lo.
std::int32_t PrefixExtents::isolate(std::int64_t lo, std::int64_t hi) {
    const std::int32_t first = splitAt(lo);
    splitAt(hi); // a split keeps the lower part in its slot: `first` still starts at lo
    return first;
}

// Merges e with the extent right above it in ids and then the one right below, where they could be one
// extent (same holder count; when free, next to each other in the freed order, higher ids first). Returns the
// extent that now holds e's ids.
std::int32_t PrefixExtents::coalesce(std::int32_t e) {
    for (int side = 0; side < 2; ++side) {
        const Extent& x = ext_[static_cast<std::size_t>(e)];
        const std::int32_t lower = side == 0 ? e : x.down;
        const std::int32_t upper = side == 0 ? x.up : e;
        if (lower == kNone || upper == kNone) {
            continue;
        }
        Extent& lo = ext_[static_cast<std::size_t>(lower)];
        Extent& up = ext_[static_cast<std::size_t>(upper)];
        if (lo.first + lo.len != up.first || lo.ref != up.ref || (lo.ref == 0 && up.next != lower)) {
            continue;
        }
        if (up.ref == 0) {
            unlink(upper); // `lower` stands where it stood, right after it
        }
        lo.len += up.len;
        drop(upper);
        e = lower;
    }
    return e;
}

// coalesce() over the contiguous extents from `first` up to id hi.
void PrefixExtents::coalesceUpTo(std::int32_t first, std::int64_t hi) {
    for (std::int32_t e = first; e != kNone;) {
        const Extent& s = ext_[static_cast<std::size_t>(coalesce(e))];
        e = s.first + s.len < hi ? s.up : kNone;
    }
}

void PrefixExtents::append(std::vector<Held>& runs, std::int64_t len, std::int64_t id) {
    if (len <= 0) {
        return;
    }
    if (!runs.empty()) {
        Held& last = runs.back();
        if ((id < 0 && last.id < 0) || (id >= 0 && last.id >= 0 && last.id + last.len == id)) {
            last.len += len;
            return;
        }
    }
    runs.push_back(Held{len, id});
}

std::int64_t PrefixExtents::heldLength(RequestIndex r) const {
    std::int64_t n = 0;
    for (const Held& h : held_[r]) {
        n += h.len;
    }
    return n;
}

std::int64_t PrefixExtents::hits(const std::vector<IdRun>& ids, std::int64_t limit, std::int64_t& shared) const {
    shared = 0;
    std::int64_t h = 0;
    for (const IdRun& run : ids) {
        if (run.pos >= limit) {
            break;
        }
        std::int64_t x = run.id;
        const std::int64_t end = run.id + std::min(run.len, limit - run.pos);
        std::int32_t last = kNone; // the extent that ended at x
        while (x < end) {
            std::int32_t e = kNone;
            if (last == kNone) {
                e = find(x);
            } else if (const std::int32_t up = ext_[static_cast<std::size_t>(last)].up;
                       up != kNone && ext_[static_cast<std::size_t>(up)].first == x) {
                e = up;
            }
            if (e == kNone) {
                return h;
            }
            last = e;
            const Extent& ex = ext_[static_cast<std::size_t>(e)];
            const std::int64_t k = std::min(end, ex.first + ex.len) - x;
            h += k;
            shared += ex.ref > 0 ? k : 0;
            x += k;
        }
    }
    return h;
}

std::int64_t PrefixExtents::attach(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t h) {
    auto& mine = held_[r];
    std::int64_t fromFree = 0;
    for (const IdRun& run : ids) {
        if (run.pos >= h) {
            break;
        }
        const std::int64_t lo = run.id;
        const std::int64_t hi = run.id + std::min(run.len, h - run.pos);
        const std::int32_t first = isolate(lo, hi);
        for (std::int32_t e = first; e != kNone;) { // every id of [lo, hi) is cached: contiguous extents
            Extent& ex = ext_[static_cast<std::size_t>(e)];
            if (ex.ref++ == 0) {
                unlink(e);
                cachedFree_ -= ex.len;
                fromFree += ex.len;
                version_ += 1;
            }
            e = ex.first + ex.len < hi ? ex.up : kNone;
        }
        coalesceUpTo(first, hi);
        append(mine, hi - lo, lo);
    }
    return fromFree;
}

void PrefixExtents::takeSlow(std::int64_t fromCache) {
    version_ += 1;
    while (fromCache > 0) {
        const std::int32_t e = head_; // the engine checked the pool holds them
        Extent& ex = ext_[static_cast<std::size_t>(e)];
        const std::int64_t k = std::min(fromCache, ex.len);
        ex.len -= k; // the highest ids go first
        cachedFree_ -= k;
        fromCache -= k;
        if (ex.len == 0) {
            unlink(e);
            drop(e);
        }
    }
}

void PrefixExtents::registerSlow(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t from, std::int64_t to) {
    auto& mine = held_[r];
    for (std::size_t ri = 0; ri < ids.size(); ++ri) {
        const IdRun& run = ids[ri];
        const std::int64_t p0 = std::max(from, run.pos);
        const std::int64_t p1 = std::min(to, run.pos + run.len);
        if (run.pos >= to) {
            break;
        }
        if (p0 >= p1) {
            continue;
        }
        runAt_[r] = ri;
        std::int64_t x = run.id + (p0 - run.pos);
        const std::int64_t end = run.id + (p1 - run.pos);
        while (x < end) {
            // The extents just below and above x: from r's last registration while it grows a chain (the usual
            // case, no search), else from the index.
            std::int32_t below = kNone;
            std::int32_t above = kNone;
            if (const std::int32_t g = grown_[r];
                g != kNone && ext_[static_cast<std::size_t>(g)].len > 0 &&
                ext_[static_cast<std::size_t>(g)].first + ext_[static_cast<std::size_t>(g)].len == x) {
                below = g;
                above = ext_[static_cast<std::size_t>(g)].up;
            } else {
                const auto next = byFirst_.upper_bound(x);
                above = next == byFirst_.end() ? kNone : next->second;
                below = next == byFirst_.begin() ? kNone : std::prev(next)->second;
            }
            std::int32_t holder = kNone; // the extent already holding x, if any
            if (below != kNone && x < ext_[static_cast<std::size_t>(below)].first + ext_[static_cast<std::size_t>(below)].len) {
                holder = below;
            } else if (above != kNone && ext_[static_cast<std::size_t>(above)].first == x) {
                holder = above;
            }
            if (holder != kNone) {
                const Extent& ex = ext_[static_cast<std::size_t>(holder)];
                const std::int64_t k = std::min(end, ex.first + ex.len) - x;
                append(mine, k, -1); // the cache keeps the block computed first
                x += k;
                continue;
            }
            const std::int64_t gapEnd = above == kNone ? end : std::min(end, ext_[static_cast<std::size_t>(above)].first);
            version_ += 1;
            append(mine, gapEnd - x, x);
            if (below != kNone && ext_[static_cast<std::size_t>(below)].ref == 1 &&
                ext_[static_cast<std::size_t>(below)].first + ext_[static_cast<std::size_t>(below)].len == x) {
                ext_[static_cast<std::size_t>(below)].len += gapEnd - x; // the chain grows by a chunk
                if (above != kNone && ext_[static_cast<std::size_t>(above)].first == gapEnd) {
                    coalesce(below); // it now touches the extent above
                }
                grown_[r] = below;
            } else {
                const std::int32_t e = make(x, gapEnd - x, 1, below);
                coalesce(e); // only an extent above can join it: it survives
                grown_[r] = e;
            }
            x = gapEnd;
        }
    }
}

std::int64_t PrefixExtents::release(RequestIndex r, std::int64_t lo, std::int64_t hi) {
    auto& mine = held_[r];
    const std::int64_t covered = heldLength(r);
    std::int64_t freed = hi > covered ? hi - std::max(lo, covered) : 0; // the newest blocks have no id
    std::int64_t end = covered;
    for (std::size_t i = mine.size(); i-- > 0 && end > lo;) {
        const Held run = mine[i];
        const std::int64_t start = end - run.len;
        const std::int64_t a = std::max(lo, start);
        const std::int64_t b = std::min(hi, end);
        end = start;
        if (a >= b) {
            continue;
        }
        if (run.id < 0) {
            freed += b - a;
            continue;
        }
        const std::int64_t x0 = run.id + (a - start);
        const std::int64_t x1 = run.id + (b - start);
        const std::int32_t first = isolate(x0, x1);
        auto& span = scratch_; // r holds every id of [x0, x1): contiguous extents, let go of from the top
        span.clear();
        for (std::int32_t e = first; e != kNone;) {
            span.emplace_back(e, 0);
            const Extent& ex = ext_[static_cast<std::size_t>(e)];
            e = ex.first + ex.len < x1 ? ex.up : kNone;
        }
        for (auto it = span.rbegin(); it != span.rend(); ++it) {
            Extent& ex = ext_[static_cast<std::size_t>(it->first)];
            if (--ex.ref == 0) {
                pushBack(it->first);
                cachedFree_ += ex.len;
                freed += ex.len;
                version_ += 1;
            }
        }
        coalesceUpTo(first, x1);
    }
    // Drop positions [lo, hi) from the runs: the engine lets go of a tail (lo > 0, everything from lo on) or
    // of a front (lo == 0).
    if (lo == 0) {
        std::size_t whole = 0;
        std::int64_t gone = 0;
        while (whole < mine.size() && gone + mine[whole].len <= hi) {
            gone += mine[whole++].len;
        }
        mine.erase(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(whole));
        if (!mine.empty() && gone < hi) {
            mine.front().len -= hi - gone;
            mine.front().id = mine.front().id < 0 ? -1 : mine.front().id + (hi - gone);
        }
    } else {
        std::int64_t pos = 0;
        std::size_t keep = 0;
        while (keep < mine.size() && pos + mine[keep].len <= lo) {
            pos += mine[keep++].len;
        }
        if (keep < mine.size() && pos < lo) {
            mine[keep++].len = lo - pos;
        }
        mine.resize(keep);
    }
    return freed;
}

std::int64_t PrefixExtents::exclusive(RequestIndex r, std::int64_t n) const {
    std::int64_t own = 0;
    std::int64_t pos = 0;
    for (const Held& run : held_[r]) {
        if (pos >= n) {
            break;
        }
        const std::int64_t k = std::min(run.len, n - pos);
        pos += run.len;
        if (run.id < 0) {
            own += k;
            continue;
        }
        for (std::int64_t x = run.id; x < run.id + k;) {
            const Extent& ex = ext_[static_cast<std::size_t>(find(x))];
            const std::int64_t upto = std::min(run.id + k, ex.first + ex.len);
            own += ex.ref == 1 ? upto - x : 0;
            x = upto;
        }
    }
    return own + std::max<std::int64_t>(0, n - pos);
}

std::int64_t PrefixExtents::reusableBefore(const std::vector<IdRun>& ids, std::int64_t hits, std::int64_t steps) const {
    const std::int64_t n = std::max<std::int64_t>(0, std::min(steps, cachedFree_));
    if (hits <= 0 || n == 0) {
        return n;
    }
    auto& walked = scratch_; // (extent, place of its first block to go)
    walked.clear();
    std::int64_t at = 0;
    for (std::int32_t e = head_; e != kNone && at < n; e = ext_[static_cast<std::size_t>(e)].next) {
        walked.emplace_back(e, at);
        at += ext_[static_cast<std::size_t>(e)].len;
    }
    std::sort(walked.begin(), walked.end());
    std::int64_t firstHit = n;
    for (const IdRun& run : ids) {
        if (run.pos >= hits) {
            break;
        }
        const std::int64_t end = run.id + std::min(run.len, hits - run.pos);
        // Every id of [run.id, end) is cached (they are hits): contiguous extents, walked upward.
        for (std::int32_t e = find(run.id); e != kNone;) {
            const Extent& ex = ext_[static_cast<std::size_t>(e)];
            const std::int64_t upto = std::min(end, ex.first + ex.len);
            if (ex.ref == 0) {
                const auto it = std::lower_bound(walked.begin(), walked.end(), std::pair<std::int32_t, std::int64_t>{e, 0});
                if (it != walked.end() && it->first == e) {
                    firstHit = std::min(firstHit, it->second + (ex.first + ex.len - upto)); // its highest id here
                }
            }
            e = upto < end ? ex.up : kNone;
        }
    }
    return firstHit;
}

} // namespace pl
