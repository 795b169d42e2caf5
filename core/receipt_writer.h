#pragma once
// The receipt's two JSON writers, shared by receipt.cpp (the head, records and streaming) and
// receipt_events.cpp (one line per event): ObjectWriter sorts its fields, SortedObject takes them already in
// order. Internal to the receipt; nothing else includes this.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pl::receipt_detail {

// One JSON object built from (key, already-encoded value) pairs, emitted with keys in byte order. Keys are the
// receipt's own names (printable ASCII, written as they are); the values share one buffer.
class ObjectWriter {
  public:
    ObjectWriter() {
        fields_.reserve(24);
        values_.reserve(256);
    }
    void integer(std::string_view key, std::int64_t v) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        add(key, std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    void string(std::string_view key, std::string_view v) {
        if (!plain(v)) {
            add(key, quote(v));
            return;
        }
        fields_.push_back({key, values_.size(), v.size() + 2});
        values_ += '"';
        values_ += v;
        values_ += '"';
    }
    void boolean(std::string_view key, bool v) { add(key, v ? "true" : "false"); }
    void raw(std::string_view key, std::string_view v) { add(key, v); }
    void nullableInteger(std::string_view key, std::int64_t v) {
        if (v < 0) {
            add(key, "null");
        } else {
            integer(key, v);
        }
    }
    std::string str() {
        // Insertion sort: at most a couple of dozen keys, which nearly always differ in their first byte.
        for (std::size_t i = 1; i < fields_.size(); ++i) {
            const Field f = fields_[i];
            std::size_t j = i;
            for (; j > 0 && before(f.key, fields_[j - 1].key); --j) {
                fields_[j] = fields_[j - 1];
            }
            fields_[j] = f;
        }
        std::size_t size = 2 + fields_.size() * 4;
        for (const Field& f : fields_) {
            size += f.key.size() + f.size;
        }
        std::string out;
        out.reserve(size);
        out += '{';
        for (std::size_t i = 0; i < fields_.size(); ++i) {
            if (i > 0) {
                out += ',';
            }
            out += '"';
            out += fields_[i].key;
            out += "\":";
            out.append(values_, fields_[i].begin, fields_[i].size);
        }
        out += '}';
        return out;
    }
    // A JSON string: printable ASCII without '"' or '\\' is written as it is (keys, ids, enum names: nearly
    // every string of a receipt); anything else as nlohmann_json escapes it (control bytes, UTF-8 checked).
    static bool plain(std::string_view s) {
        return std::all_of(s.begin(), s.end(), [](char ch) {
            const auto c = static_cast<unsigned char>(ch);
            return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
        });
    }
    static std::string quote(std::string_view s) {
        if (!plain(s)) {
            return nlohmann::json(std::string(s)).dump();
        }
        std::string out;
        out.reserve(s.size() + 2);
        out += '"';
        out += s;
        out += '"';
        return out;
    }

  private:
    // Byte order, as std::string_view's operator<, deciding on the first byte where it can.
    static bool before(std::string_view a, std::string_view b) {
        if (!a.empty() && !b.empty() && a.front() != b.front()) {
            return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front());
        }
        return a < b;
    }
    struct Field {
        std::string_view key;
        std::size_t begin = 0, size = 0; // the value in values_
    };
    std::vector<Field> fields_;
    std::string values_;

    void add(std::string_view key, std::string_view value) {
        fields_.push_back({key, values_.size(), value.size()});
        values_ += value;
    }
};

// An object written in the order its fields are given, which is byte order of their keys (the callers list
// them so; test_sample_hashes pins the bytes): what ObjectWriter makes, without a field list or a sort, for the
// lines a receipt has most of (candidates, records, workload requests).
class SortedObject {
  public:
    explicit SortedObject(std::string& out) : out_(out) { out_ += '{'; }
    void integer(std::string_view key, std::int64_t v) {
        name(key);
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        out_.append(digits, static_cast<std::size_t>(end - digits));
    }
    void string(std::string_view key, std::string_view v) {
        name(key);
        if (ObjectWriter::plain(v)) {
            out_ += '"';
            out_ += v;
            out_ += '"';
        } else {
            out_ += ObjectWriter::quote(v);
        }
    }
    void raw(std::string_view key, std::string_view v) {
        name(key);
        out_ += v;
    }
    void nullableInteger(std::string_view key, std::int64_t v) {
        if (v < 0) {
            raw(key, "null");
        } else {
            integer(key, v);
        }
    }
    void close() { out_ += '}'; }

  private:
    void name(std::string_view key) {
        out_ += first_ ? "\"" : ",\"";
        first_ = false;
        out_ += key;
        out_ += "\":";
    }
    std::string& out_;
    bool first_ = true;
};

} // namespace pl::receipt_detail
