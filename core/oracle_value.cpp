// The oracle's read-only JSON values (oracle_value.h): views of nlohmann documents, and the plain-JSON reader
// for receipt lines.
#include "core/oracle_value.h"

#include <limits>

namespace pl::oracle_detail {
namespace {

// Deeper than any receipt line (an evict is three levels): a deeper line goes to nlohmann_json.
constexpr int kMaxDepth = 16;

const Value& nullValue() {
    static const Value v;
    return v;
}

} // namespace

const Value* Value::find(std::string_view key) const {
    if (kind_ != Kind::Object) {
        return end();
    }
    for (const Value* it = begin(); it != end(); ++it) {
        if (it->key_ == key) {
            return it;
        }
    }
    return end();
}

const Value& Value::operator[](std::string_view key) const {
    const Value* it = find(key);
    return it == end() ? nullValue() : *it;
}

std::string Value::dump() const {
    if (dom_ != nullptr) {
        return dom_->dump();
    }
    if (!raw_.empty()) {
        return nlohmann::json::parse(raw_).dump(); // plain JSON, so it parses; only error messages come here
    }
    return "null";
}

const Value* ValueReader::readLine(std::string_view line) {
    at_ = line.data();
    end_ = line.data() + line.size();
    nodes_.clear();
    stack_.clear();
    root_ = Value();
    if (!readValue(root_, 0)) {
        return nullptr;
    }
    skipSpace();
    if (at_ != end_) {
        return nullptr;
    }
    link(root_);
    return &root_;
}

const Value& ValueReader::view(const nlohmann::json& doc) {
    nodes_.clear();
    stack_.clear();
    root_ = Value();
    viewNode(doc, root_);
    link(root_);
    return root_;
}

void ValueReader::viewNode(const nlohmann::json& doc, Value& out) {
    out.dom_ = &doc;
    switch (doc.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded: out.kind_ = Value::Kind::Null; return;
    case nlohmann::json::value_t::boolean: out.kind_ = Value::Kind::Boolean; return;
    case nlohmann::json::value_t::number_unsigned:
        out.kind_ = Value::Kind::Unsigned;
        out.unsigned_ = doc.get<std::uint64_t>();
        return;
    case nlohmann::json::value_t::number_integer:
        out.kind_ = Value::Kind::Integer;
        out.signed_ = doc.get<std::int64_t>();
        return;
    case nlohmann::json::value_t::number_float: out.kind_ = Value::Kind::Float; return;
    case nlohmann::json::value_t::binary: out.kind_ = Value::Kind::Float; return; // never in parsed JSON: not an integer
    case nlohmann::json::value_t::string:
        out.kind_ = Value::Kind::String;
        out.text_ = doc.get_ref<const std::string&>();
        return;
    case nlohmann::json::value_t::object: {
        out.kind_ = Value::Kind::Object;
        const std::size_t mark = stack_.size();
        for (const auto& [key, member] : doc.items()) {
            Value v; // its own members go to nodes_ before it joins stack_
            viewNode(member, v);
            v.key_ = key;
            stack_.push_back(v);
        }
        close(out, mark);
        return;
    }
    case nlohmann::json::value_t::array: {
        out.kind_ = Value::Kind::Array;
        const std::size_t mark = stack_.size();
        for (const auto& element : doc) {
            Value v;
            viewNode(element, v);
            stack_.push_back(v);
        }
        close(out, mark);
        return;
    }
    }
}

void ValueReader::close(Value& container, std::size_t mark) {
    container.first_ = static_cast<std::uint32_t>(nodes_.size());
    container.count_ = static_cast<std::uint32_t>(stack_.size() - mark);
    nodes_.insert(nodes_.end(), stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
}

// Members are placed once every container is read (nodes_ no longer grows): their addresses are final.
void ValueReader::link(Value& root) {
    root.kids_ = root.count_ == 0 ? nullptr : nodes_.data() + root.first_;
    for (Value& v : nodes_) {
        v.kids_ = v.count_ == 0 ? nullptr : nodes_.data() + v.first_;
    }
}

void ValueReader::skipSpace() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) {
        ++at_;
    }
}

// A string of printable ASCII without escapes; at_ is on its opening quote.
bool ValueReader::readString(std::string_view& out) {
    const char* begin = ++at_;
    while (at_ != end_) {
        const auto c = static_cast<unsigned char>(*at_);
        if (c == '"') {
            out = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
            ++at_;
            return true;
        }
        if (c < 0x20 || c >= 0x7f || c == '\\') {
            return false;
        }
        ++at_;
    }
    return false;
}

// -?(0|[1-9][0-9]*) with no fraction or exponent, within uint64 (non-negative: unsigned, as nlohmann reads it)
// or int64 (negative: signed).
bool ValueReader::readNumber(Value& out) {
    const char* begin = at_;
    const bool negative = *at_ == '-';
    if (negative) {
        ++at_;
    }
    if (at_ == end_ || *at_ < '0' || *at_ > '9' || (*at_ == '0' && at_ + 1 != end_ && at_[1] >= '0' && at_[1] <= '9')) {
        return false;
    }
    std::uint64_t magnitude = 0;
    while (at_ != end_ && *at_ >= '0' && *at_ <= '9') {
        const auto digit = static_cast<std::uint64_t>(*at_ - '0');
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
            return false; // nlohmann reads it as a double
        }
        magnitude = magnitude * 10 + digit;
        ++at_;
    }
    if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) {
        return false;
    }
    out.raw_ = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
    if (!negative) {
        out.kind_ = Value::Kind::Unsigned;
        out.unsigned_ = magnitude;
        return true;
    }
    constexpr auto kMinMagnitude = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    if (magnitude > kMinMagnitude) {
        return false;
    }
    out.kind_ = Value::Kind::Integer;
    out.signed_ = magnitude == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                             : -static_cast<std::int64_t>(magnitude);
    return true;
}

bool ValueReader::readLiteral(std::string_view word) {
    if (static_cast<std::size_t>(end_ - at_) < word.size() || std::string_view(at_, word.size()) != word) {
        return false;
    }
    at_ += word.size();
    return true;
}

bool ValueReader::readValue(Value& out, int depth) {
    skipSpace();
    if (at_ == end_) {
        return false;
    }
    const char* begin = at_;
    switch (*at_) {
    case '{': {
        if (depth >= kMaxDepth) {
            return false;
        }
        ++at_;
        out.kind_ = Value::Kind::Object;
        const std::size_t mark = stack_.size();
        skipSpace();
        if (at_ != end_ && *at_ == '}') {
            ++at_;
        } else {
            std::string_view previous;
            for (bool first = true;; first = false) {
                skipSpace();
                std::string_view key;
                if (at_ == end_ || *at_ != '"' || !readString(key) || (!first && !(previous < key))) {
                    return false; // unsorted or repeated keys: nlohmann_json reads them
                }
                previous = key;
                skipSpace();
                if (at_ == end_ || *at_ != ':') {
                    return false;
                }
                ++at_;
                Value member;
                if (!readValue(member, depth + 1)) {
                    return false;
                }
                member.key_ = key;
                stack_.push_back(member);
                skipSpace();
                if (at_ != end_ && *at_ == ',') {
                    ++at_;
                    continue;
                }
                if (at_ != end_ && *at_ == '}') {
                    ++at_;
                    break;
                }
                return false;
            }
        }
        close(out, mark);
        break;
    }
    case '[': {
        if (depth >= kMaxDepth) {
            return false;
        }
        ++at_;
        out.kind_ = Value::Kind::Array;
        const std::size_t mark = stack_.size();
        skipSpace();
        if (at_ != end_ && *at_ == ']') {
            ++at_;
        } else {
            for (;;) {
                Value element;
                if (!readValue(element, depth + 1)) {
                    return false;
                }
                stack_.push_back(element);
                skipSpace();
                if (at_ != end_ && *at_ == ',') {
                    ++at_;
                    continue;
                }
                if (at_ != end_ && *at_ == ']') {
                    ++at_;
                    break;
                }
                return false;
            }
        }
        close(out, mark);
        break;
    }
    case '"':
        if (!readString(out.text_)) {
            return false;
        }
        out.kind_ = Value::Kind::String;
        break;
    case 't':
    case 'f':
        if (!readLiteral(*at_ == 't' ? "true" : "false")) {
            return false;
        }
        out.kind_ = Value::Kind::Boolean;
        break;
    case 'n':
        if (!readLiteral("null")) {
            return false;
        }
        out.kind_ = Value::Kind::Null;
        break;
    default:
        if (*at_ != '-' && (*at_ < '0' || *at_ > '9')) {
            return false;
        }
        if (!readNumber(out)) {
            return false;
        }
        return true;
    }
    out.raw_ = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
    return true;
}

} // namespace pl::oracle_detail
