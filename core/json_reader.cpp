// A SAX handler that builds the DOM itself, so it can see every key as it is read (duplicates) and knows the
// JSON pointer of the value being built.
#include "core/json_reader.h"

#include "core/json_pointer.h"
#include "core/stop_check.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

namespace pl {
namespace {

using json = nlohmann::json;

class StrictDomBuilder {
  public:
    StrictDomBuilder(std::string_view text, const std::string& file, const std::vector<JsonArrayCap>& caps,
                     const std::atomic<bool>* stop, const std::vector<JsonElementSink>& sinks)
        : text_(text), file_(file), caps_(caps), totals_(caps.size(), 0), stop_(stop, kValuesPerStopCheck),
          sinks_(sinks) {}

    bool null() { return place(json(nullptr)); }
    bool boolean(bool v) { return place(json(v)); }
    bool number_integer(json::number_integer_t v) { return place(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t& raw) {
        // An integer literal past 64 bits ("18446744073709551616") reaches here as a double: it is an integer out
        // of range, not "a floating-point number" as the readers would call it.
        if (raw.find_first_of(".eE") == json::string_t::npos) {
            return fail(currentPath(), printable(raw, 40) + " is out of range of a 64-bit integer (integers here are "
                                                            "at most 2^53-1)");
        }
        return place(json(v));
    }
    bool string(json::string_t& v) { return place(json(std::move(v))); }
    bool binary(json::binary_t&) { return fail(currentPath(), "binary values are not JSON text"); }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(json::string_t& k) {
        json& object = *stack_.back().node;
        if (object.contains(k)) {
            return fail(pointerChild(stack_.back().path, k), "duplicate key \"" + k + "\" in one object");
        }
        pendingKey_ = std::move(k);
        return true;
    }

    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        if (error_) { // the SAX handler refused (duplicate key, depth, cap): that is the error to report
            return false;
        }
        // `position` counts the characters read, the offending one included.
        const std::size_t offset = position == 0 ? 0 : position - 1;
        // A comment ("// ..." or "/* ... */"): the lexer's "invalid literal; last read: ..." quoted up to 400 bytes
        // before it. Say what it is, at its first '/'.
        for (const std::size_t at : {offset, offset - 1}) {
            if (at < text_.size() && text_[at] == '/' && at + 1 < text_.size() &&
                (text_[at + 1] == '/' || text_[at + 1] == '*')) {
                return fail(lineColumnAt(text_, at), "invalid JSON: comments are not JSON (remove the " +
                                                         std::string(text_.substr(at, 2)) + " comment)");
            }
        }
        return fail(lineColumnAt(text_, offset), "invalid JSON: " + describe(ex.what()));
    }

    json& root() { return root_; }
    const std::optional<InputError>& error() const { return error_; }

  private:
    struct Frame {
        json* node;
        std::string path;
        const JsonArrayCap* cap = nullptr; // the element cap on this array, if any
        std::size_t* total = nullptr;      // the cap's count over all its arrays (across_arrays caps)
        std::size_t count = 0;             // elements added to this array (a sink's array keeps none)
        const JsonElementSink* sink = nullptr; // each element goes to it once complete
    };

    std::string currentPath() const {
        if (stack_.empty()) {
            return "";
        }
        const Frame& top = stack_.back();
        return top.node->is_object() ? pointerChild(top.path, pendingKey_) : pointerChild(top.path, top.count);
    }

    // Insert `v` where the parser is (root, object member or array element); returns the stored value.
    json* insert(json v) {
        stop_.step(); // Cancelled goes up through nlohmann's parser, which holds nothing but RAII members
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        Frame& top = stack_.back();
        json& parent = *top.node;
        if (!roomForOneMore(top)) {
            return nullptr;
        }
        if (parent.is_object()) {
            json& slot = parent[pendingKey_];
            slot = std::move(v);
            return &slot;
        }
        ++top.count;
        if (top.sink != nullptr) { // built aside; a container is handed over when it closes
            element_ = std::move(v);
            if (!element_.is_structured()) {
                top.sink->take(std::move(element_), top.count - 1);
            }
            return &element_;
        }
        parent.push_back(std::move(v));
        return &parent.back();
    }

    // Counts the element about to be added to the array `f` against its cap; false (and the error) over it.
    bool roomForOneMore(const Frame& f) {
        if (f.cap == nullptr) {
            return true;
        }
        const std::size_t size = f.count;
        const std::size_t count = f.total != nullptr ? *f.total : size;
        if (count < f.cap->max_elements) {
            if (f.total != nullptr) {
                ++*f.total;
            }
            return true;
        }
        const std::string where = f.total != nullptr ? " in the document" : "";
        return fail(f.path, "at least " + std::to_string(f.cap->max_elements + 1) + " " + f.cap->what + where +
                                " exceed the cap of " + std::to_string(f.cap->max_elements) +
                                "; reading stopped at element " + std::to_string(size));
    }

    bool place(json v) { return insert(std::move(v)) != nullptr; }

    bool open(json container) {
        if (stack_.size() >= kMaxJsonDepth) {
            return fail(currentPath(), "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        std::string path = currentPath();
        const bool isArray = container.is_array();
        json* node = insert(std::move(container));
        if (node == nullptr) {
            return false;
        }
        Frame frame{node, std::move(path)};
        if (isArray && !inSinkElement()) {
            // One array per pointer: a second "requests" key is refused as a duplicate before it opens.
            for (const JsonElementSink& sink : sinks_) {
                if (frame.path == sink.pointer) {
                    frame.sink = &sink;
                }
            }
        }
        if (isArray) {
            for (std::size_t i = 0; i < caps_.size(); ++i) {
                if (pointerMatches(caps_[i].pointer, frame.path)) {
                    frame.cap = &caps_[i];
                    frame.total = caps_[i].across_arrays ? &totals_[i] : nullptr;
                }
            }
        }
        stack_.push_back(std::move(frame));
        return true;
    }

    // `path` matches `pattern` segment by segment; a "*" segment of the pattern matches any one segment.
    static bool pointerMatches(std::string_view pattern, std::string_view path) {
        while (!pattern.empty() && !path.empty()) {
            const std::size_t p = pattern.find('/', 1);
            const std::size_t q = path.find('/', 1);
            const std::string_view ps = pattern.substr(0, p);
            if (ps != "/*" && ps != path.substr(0, q)) {
                return false;
            }
            pattern = p == std::string_view::npos ? std::string_view() : pattern.substr(p);
            path = q == std::string_view::npos ? std::string_view() : path.substr(q);
        }
        return pattern.empty() && path.empty();
    }

    bool close() {
        stack_.pop_back();
        if (!stack_.empty() && stack_.back().sink != nullptr) {
            stack_.back().sink->take(std::move(element_), stack_.back().count - 1);
        }
        return true;
    }

    // Inside an element being built for a sink (element_ is in use: no second sink's array may start there).
    bool inSinkElement() const {
        return std::any_of(stack_.begin(), stack_.end(), [](const Frame& f) { return f.sink != nullptr; });
    }

    bool fail(std::string path, std::string reason) {
        if (!error_) {
            error_ = InputError{file_, std::move(path), std::move(reason)};
        }
        return false;
    }

    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ...";
    // the position is reported separately, so keep only the part after the position.
    static std::string describe(const std::string& what) {
        const auto column = what.find("column ");
        const auto colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
        return colon == std::string::npos ? what : what.substr(colon + 2);
    }

    std::string_view text_;
    const std::string& file_;
    const std::vector<JsonArrayCap>& caps_;
    std::vector<std::size_t> totals_; // per cap: elements read so far in all its arrays (across_arrays caps)
    StopCheck stop_;
    const std::vector<JsonElementSink>& sinks_;
    json element_; // the element being built for a sink
    json root_;
    std::vector<Frame> stack_;
    std::string pendingKey_;
    std::optional<InputError> error_;
};

} // namespace

std::string lineColumnAt(std::string_view text, std::size_t offset) {
    const std::size_t end = std::min(offset, text.size());
    const std::string_view before = text.substr(0, end);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto lastNewline = before.rfind('\n');
    const std::size_t column = lastNewline == std::string_view::npos ? end + 1 : end - lastNewline;
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

bool isEmptyJsonText(std::string_view text) {
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) {
        text.remove_prefix(3);
    }
    return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::variant<nlohmann::json, InputError> parseJsonStrict(std::string_view text, const std::string& file,
                                                         std::string_view format,
                                                         const std::vector<JsonArrayCap>& arrayCaps,
                                                         const std::atomic<bool>* stop,
                                                         const std::vector<JsonElementSink>& sinks) {
    if (isEmptyJsonText(text)) {
        return InputError{file, "",
                          std::string(file == "-" ? "standard input is empty" : "the file is empty") +
                              " (a " + std::string(format) + " JSON document was expected)"};
    }
    StrictDomBuilder builder(text, file, arrayCaps, stop, sinks);
    const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
    // nlohmann's lexer takes a NUL byte for the end of the input, so a document followed by a NUL and anything
    // at all would pass. A parse that ended at a NUL (a whole document, or one cut off there) is refused at the
    // NUL; an error before it (a cap, a syntax error) stands.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        const std::string at = lineColumnAt(text, nul);
        if ((ok && !builder.error()) || (builder.error() && builder.error()->path == at)) {
            return InputError{file, at, "invalid JSON: a NUL byte (JSON text holds none)"};
        }
    }
    if (!ok || builder.error()) {
        if (builder.error()) {
            return *builder.error();
        }
        return InputError{file, "", "invalid JSON"};
    }
    return std::move(builder.root());
}

} // namespace pl
