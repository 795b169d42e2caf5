#include "gpu/reference_model.h"

#include "gpu/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pl::gpu {

float roundToBf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u) {
        return f; // inf and NaN pass through
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    std::memcpy(&f, &u, 4);
    return f;
}

namespace {

using Matrix = std::vector<float>; // row-major

std::size_t ix(std::int64_t i) { return static_cast<std::size_t>(i); }

// The weight tensor `which` (0 qkv, 1 output, 2 gate+up, 3 down) of `layer`: [rows, cols], bf16 values.
Matrix weights(std::int64_t layer, int which, std::int64_t rows, std::int64_t cols) {
    Matrix w(ix(rows * cols));
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols));
    for (std::int64_t i = 0; i < rows * cols; ++i) {
        w[ix(i)] = roundToBf16(weightValue(static_cast<std::uint32_t>(layer * 8 + which), i, scale));
    }
    return w;
}

// out[t, n] = bf16(add[t, n] + sum_k a[t, k] w[n, k]), fp32 accumulation in double (the order differs from
// cuBLAS's; the comparison's tolerance covers it). `add` may be empty (beta = 0).
Matrix linear(const Matrix& a, std::int64_t t, std::int64_t k, const Matrix& w, std::int64_t n, const Matrix* add) {
    Matrix out(ix(t * n));
    for (std::int64_t r = 0; r < t; ++r) {
        for (std::int64_t c = 0; c < n; ++c) {
            double acc = 0.0;
            for (std::int64_t j = 0; j < k; ++j) {
                acc += static_cast<double>(a[ix(r * k + j)]) * w[ix(c * k + j)];
            }
            if (add != nullptr) {
                acc += (*add)[ix(r * n + c)];
            }
            out[ix(r * n + c)] = roundToBf16(static_cast<float>(acc));
        }
    }
    return out;
}

Matrix rmsnorm(const Matrix& x, std::int64_t t, std::int64_t hidden) {
    Matrix y(x.size());
    for (std::int64_t r = 0; r < t; ++r) {
        float ss = 0.0f;
        for (std::int64_t d = 0; d < hidden; ++d) {
            ss += x[ix(r * hidden + d)] * x[ix(r * hidden + d)];
        }
        const float inv = 1.0f / std::sqrt(ss / static_cast<float>(hidden) + 1e-5f);
        for (std::int64_t d = 0; d < hidden; ++d) {
            y[ix(r * hidden + d)] = roundToBf16(x[ix(r * hidden + d)] * inv);
        }
    }
    return y;
}

} // namespace

ReferenceKv referencePrefill(const TransformerShape& s, std::uint32_t seed, std::int64_t tokens) {
    const std::int64_t T = tokens, hid = s.hidden, hd = s.head_dim, half = hd / 2;
    const std::int64_t heads = s.heads, kvh = s.kv_heads, g = heads / kvh, ffn = s.ffn;
    const std::int64_t qkvCols = (heads + 2 * kvh) * hd;
    ReferenceKv out;
    out.layers = s.layers;
    out.tokens = T;
    out.kv_heads = kvh;
    out.head_dim = hd;
    out.values.assign(ix(s.layers * 2 * T * kvh * hd), 0.0f);
    auto kvAt = [&](std::int64_t l, int kv, std::int64_t pos, std::int64_t h, std::int64_t d) -> float& {
        return out.values[ix((((l * 2 + kv) * T + pos) * kvh + h) * hd + d)];
    };

    Matrix x(ix(T * hid));
    for (std::int64_t t = 0; t < T; ++t) {
        for (std::int64_t d = 0; d < hid; ++d) {
            x[ix(t * hid + d)] = roundToBf16(embeddingValue(syntheticToken(seed, t), d));
        }
    }
    const float log2Theta = static_cast<float>(std::log2(s.rope_theta));
    const float attnScale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (std::int64_t l = 0; l < s.layers; ++l) {
        const Matrix h = rmsnorm(x, T, hid);
        const Matrix qkv = linear(h, T, hid, weights(l, 0, qkvCols, hid), qkvCols, nullptr);
        // RoPE on q and k heads; q kept [heads, T, hd] in bf16, k and v stored as the arena stores them.
        Matrix q(ix(heads * T * hd));
        for (std::int64_t t = 0; t < T; ++t) {
            for (std::int64_t head = 0; head < heads + 2 * kvh; ++head) {
                for (std::int64_t j = 0; j < half; ++j) {
                    float a = qkv[ix(t * qkvCols + head * hd + j)], b = qkv[ix(t * qkvCols + head * hd + j + half)];
                    if (head < heads + kvh) {
                        const float freq = std::exp2(-log2Theta * static_cast<float>(2 * j) / static_cast<float>(hd));
                        const float ang = static_cast<float>(t) * freq;
                        const float sn = std::sin(ang), cs = std::cos(ang);
                        const float ra = a * cs - b * sn, rb = b * cs + a * sn;
                        a = ra;
                        b = rb;
                    }
                    if (head < heads) {
                        q[ix((head * T + t) * hd + j)] = roundToBf16(a);
                        q[ix((head * T + t) * hd + j + half)] = roundToBf16(b);
                    } else {
                        const int kv = head < heads + kvh ? 0 : 1;
                        const std::int64_t kh = head - heads - kv * kvh;
                        kvAt(l, kv, t, kh, j) = roundToBf16(a);
                        kvAt(l, kv, t, kh, j + half) = roundToBf16(b);
                    }
                }
            }
        }
        // Causal attention per query head over its KV head's keys: fp32 scores, bf16 probabilities and output.
        Matrix merged(ix(T * heads * hd));
        std::vector<double> scores(ix(T));
        std::vector<float> p(ix(T));
        for (std::int64_t head = 0; head < heads; ++head) {
            const std::int64_t kh = head / g;
            for (std::int64_t t = 0; t < T; ++t) {
                float m = -INFINITY;
                for (std::int64_t c = 0; c <= t; ++c) {
                    double acc = 0.0;
                    for (std::int64_t d = 0; d < hd; ++d) {
                        acc += static_cast<double>(q[ix((head * T + t) * hd + d)]) * kvAt(l, 0, c, kh, d);
                    }
                    scores[ix(c)] = static_cast<float>(acc * attnScale);
                    m = std::max(m, static_cast<float>(scores[ix(c)]));
                }
                float sum = 0.0f;
                for (std::int64_t c = 0; c <= t; ++c) {
                    sum += std::exp(static_cast<float>(scores[ix(c)]) - m);
                }
                for (std::int64_t c = 0; c <= t; ++c) {
                    p[ix(c)] = roundToBf16(std::exp(static_cast<float>(scores[ix(c)]) - m) / sum);
                }
                for (std::int64_t d = 0; d < hd; ++d) {
                    double acc = 0.0;
                    for (std::int64_t c = 0; c <= t; ++c) {
                        acc += static_cast<double>(p[ix(c)]) * kvAt(l, 1, c, kh, d);
                    }
                    merged[ix(t * heads * hd + head * hd + d)] = roundToBf16(static_cast<float>(acc));
                }
            }
        }
        x = linear(merged, T, heads * hd, weights(l, 1, hid, heads * hd), hid, &x);
        const Matrix h2 = rmsnorm(x, T, hid);
        const Matrix gu = linear(h2, T, hid, weights(l, 2, 2 * ffn, hid), 2 * ffn, nullptr);
        Matrix act(ix(T * ffn));
        for (std::int64_t t = 0; t < T; ++t) {
            for (std::int64_t j = 0; j < ffn; ++j) {
                const float gate = gu[ix(t * 2 * ffn + j)], up = gu[ix(t * 2 * ffn + ffn + j)];
                act[ix(t * ffn + j)] = roundToBf16(gate / (1.0f + std::exp(-gate)) * up);
            }
        }
        x = linear(act, T, ffn, weights(l, 3, hid, ffn), hid, &x);
    }
    return out;
}

} // namespace pl::gpu
