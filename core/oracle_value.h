#pragma once
// What the conservation oracle reads an event or a request record through: a read-only JSON value with the
// part of nlohmann_json's interface the checks use (find, contains, is_*, get, dump, iteration), made either
// as a view of a nlohmann document (checkReceipt, OracleStream::event) or straight from one receipt line's
// bytes (OracleStream::eventLine, what the receipt writer feeds), with no document built.
//
// The line reader takes only plain JSON: objects whose keys are strictly increasing in byte order (as every
// receipt line is written), arrays, strings of printable ASCII without escapes, integers that nlohmann_json
// reads as integers (no fraction, no exponent, within 64 bits), true, false and null. Anything else (an
// escape, non-ASCII text, a duplicate or unsorted key, a fraction, a syntax error) is not read here at all:
// the caller parses that line with nlohmann_json as before, so every such line is checked, and refused, exactly
// as it was. What the line reader accepts reads as its nlohmann document would: same keys and values, same
// kinds (a non-negative integer is unsigned, a negative one signed), and dump() is that document's dump().

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace pl::oracle_detail {

class Value {
  public:
    // Float: any number that is not an integer (a document's fraction; the line reader leaves those to nlohmann).
    enum class Kind : std::uint8_t { Null, Boolean, Unsigned, Integer, Float, String, Object, Array };

    bool is_null() const { return kind_ == Kind::Null; }
    bool is_object() const { return kind_ == Kind::Object; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_number_unsigned() const { return kind_ == Kind::Unsigned; }
    bool is_number_integer() const { return kind_ == Kind::Unsigned || kind_ == Kind::Integer; }

    // As nlohmann_json's get<T>() for the kinds the checks ask for (they test the kind first).
    template <typename T>
    T get() const {
        if constexpr (std::is_same_v<T, std::string>) {
            return std::string(text_);
        } else {
            static_assert(std::is_integral_v<T>, "Value::get reads strings and integers");
            return kind_ == Kind::Integer ? static_cast<T>(signed_) : static_cast<T>(unsigned_);
        }
    }
    std::string_view text() const { return text_; } // a string's text (empty otherwise)

    // Objects: the member named `key`, or end() (also on anything that is not an object, as nlohmann's find).
    const Value* find(std::string_view key) const;
    bool contains(std::string_view key) const { return find(key) != end(); }
    const Value& operator[](std::string_view key) const; // a null value when absent
    std::string_view key() const { return key_; }        // a member's key

    // Objects and arrays: the members or elements, in order.
    const Value* begin() const { return kids_; }
    const Value* end() const { return kids_ + count_; }
    std::size_t size() const { return count_; }

    // The value as nlohmann_json writes it (compact); only error messages call it.
    std::string dump() const;

    friend bool operator==(const Value& v, std::string_view s) { return v.kind_ == Kind::String && v.text_ == s; }

  private:
    friend class ValueReader;
    Kind kind_ = Kind::Null;
    std::uint32_t count_ = 0; // members or elements
    std::uint32_t first_ = 0; // while reading: where the members are in the reader's nodes
    std::uint64_t unsigned_ = 0;
    std::int64_t signed_ = 0;
    std::string_view text_;
    std::string_view key_;
    std::string_view raw_;              // read from text: its bytes (dump() parses them)
    const nlohmann::json* dom_ = nullptr; // viewed from a document: the node
    const Value* kids_ = nullptr;
};

// Makes Values; each read replaces the previous one (the nodes are reused, so a line costs no allocation once
// the first few have been read). The text or document read must outlive the Value.
class ValueReader {
  public:
    // The line as a Value, or nullptr when it is not plain JSON as above (then read it with nlohmann_json).
    const Value* readLine(std::string_view line);
    // A view of a nlohmann document.
    const Value& view(const nlohmann::json& doc);

  private:
    bool readValue(Value& out, int depth);
    bool readString(std::string_view& out);
    bool readNumber(Value& out);
    bool readLiteral(std::string_view word);
    void skipSpace();
    void viewNode(const nlohmann::json& doc, Value& out);
    void close(Value& container, std::size_t mark); // moves its members from stack_ to nodes_
    void link(Value& root);

    const char* at_ = nullptr;
    const char* end_ = nullptr;
    std::vector<Value> nodes_; // members of every container read, each container's contiguous
    std::vector<Value> stack_; // members of the containers still open
    Value root_;
};

} // namespace pl::oracle_detail
