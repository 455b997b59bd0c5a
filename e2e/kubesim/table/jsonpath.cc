#include "e2e/kubesim/table/jsonpath.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::table {

// Literal is a constant operand of a filter: "text", 'text', 12, 1.5, true, false.
struct JsonPathLiteral {
  enum class Kind { kString, kInt, kFloat, kBool } kind = Kind::kString;
  std::string text;
  int64_t integer = 0;
  double real = 0;
  bool boolean = false;
};

// Operand is one side of a filter comparison: a path relative to "@" or a literal.
struct JsonPathOperand {
  bool is_path = false;
  std::vector<JsonPathStep> path;
  JsonPathLiteral literal;
};

struct JsonPathFilter {
  JsonPathOperand left;
  std::string op;  // "==", "!=", "<", ">", "<=", ">=", or "exists"
  JsonPathOperand right;
};

struct JsonPathStep {
  enum class Kind { kField, kWildcard, kRecursive, kSlice, kUnion, kFilter } kind = Kind::kField;
  std::string name;                           // kField
  std::optional<int64_t> start, end, stride;  // kSlice ([*] leaves all three unset)
  bool single_index = false;                  // kSlice written as [i]
  std::vector<int64_t> indices;               // kUnion
  std::shared_ptr<JsonPathFilter> filter;     // kFilter
};

namespace {

using Values = std::vector<const rapidjson::Value*>;
using Steps = std::vector<JsonPathStep>;

std::unexpected<Error> ParseError(std::string_view expr, size_t pos, std::string_view what) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "invalid JSONPath \"" + std::string(expr) + "\": " + std::string(what) +
                       " at offset " + std::to_string(pos));
}

std::unexpected<Error> EvalError(std::string what) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(what));
}

// Parser is a recursive-descent reader over one expression.
class Parser {
 public:
  explicit Parser(std::string_view expr) : expr_(expr) {}

  Result<Steps> ParseTop() {
    std::string_view body = expr_;
    size_t base = 0;
    // Strip an enclosing {...} as kubectl and the CRD convertor write it.
    size_t first = body.find_first_not_of(' ');
    size_t last = body.find_last_not_of(' ');
    if (first != std::string_view::npos && body[first] == '{') {
      if (body[last] != '}') return ParseError(expr_, last, "unclosed action");
      base = first + 1;
      body = body.substr(first + 1, last - first - 1);
    }
    text_ = body;
    offset_ = base;
    pos_ = 0;
    SkipSpaces();
    if (AtEnd()) return ParseError(expr_, offset_ + pos_, "empty path");
    if (Peek() == '$') ++pos_;
    if (!AtEnd() && Peek() != '.' && Peek() != '[') {
      return ParseError(expr_, offset_ + pos_, "a path must start with '.', '[' or '$'");
    }
    auto steps = ParseSteps(/*in_filter=*/false);
    if (!steps) return std::unexpected(steps.error());
    SkipSpaces();
    if (!AtEnd()) return ParseError(expr_, offset_ + pos_, "unexpected character");
    return steps;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void SkipSpaces() {
    while (!AtEnd() && Peek() == ' ') ++pos_;
  }
  size_t Where() const { return offset_ + pos_; }

  static bool IsFieldChar(char c) {
    switch (c) {
      case '.': case '[': case ']': case ' ': case '\t': case '\n': case '{': case '}':
      case '(': case ')': case ',': case '=': case '!': case '<': case '>': case '@':
      case '$': case '\'': case '"': case '\0':
        return false;
      default:
        return true;
    }
  }

  // ParseSteps reads segments until a character that cannot start one.
  Result<Steps> ParseSteps(bool in_filter) {
    Steps steps;
    while (!AtEnd()) {
      const char c = Peek();
      if (c == '.' && Peek(1) == '.') {
        pos_ += 2;
        JsonPathStep rec;
        rec.kind = JsonPathStep::Kind::kRecursive;
        steps.push_back(std::move(rec));
        if (Peek() == '[') continue;
        auto step = ParseDotted();
        if (!step) return std::unexpected(step.error());
        if (!*step) return ParseError(expr_, Where(), "a name or '*' must follow '..'");
        steps.push_back(std::move(**step));
      } else if (c == '.') {
        ++pos_;
        auto step = ParseDotted();
        if (!step) return std::unexpected(step.error());
        if (*step) {
          steps.push_back(std::move(**step));
        } else if (!AtEnd() && Peek() != '[' && Peek() != ' ' && !(in_filter && IsFilterStop())) {
          return ParseError(expr_, Where(), "unexpected character after '.'");
        }
      } else if (c == '[') {
        auto step = ParseBracket();
        if (!step) return std::unexpected(step.error());
        steps.push_back(std::move(*step));
      } else {
        break;
      }
    }
    return steps;
  }

  bool IsFilterStop() const {
    const char c = Peek();
    return c == ')' || c == '=' || c == '!' || c == '<' || c == '>';
  }

  // ParseDotted reads what follows a '.': a field name, '*', or nothing (the "." root path).
  Result<std::optional<JsonPathStep>> ParseDotted() {
    JsonPathStep step;
    if (Peek() == '*') {
      ++pos_;
      step.kind = JsonPathStep::Kind::kWildcard;
      return std::optional<JsonPathStep>(std::move(step));
    }
    std::string name;
    while (!AtEnd()) {
      const char c = Peek();
      if (c == '\\' && Peek(1) == '.') {  // "kubernetes\.io" escapes the dot
        name.push_back('.');
        pos_ += 2;
        continue;
      }
      if (!IsFieldChar(c)) break;
      name.push_back(c);
      ++pos_;
    }
    if (name.empty()) return std::optional<JsonPathStep>();
    step.kind = JsonPathStep::Kind::kField;
    step.name = std::move(name);
    return std::optional<JsonPathStep>(std::move(step));
  }

  Result<std::string> ParseQuoted() {
    const char quote = Peek();
    const size_t begin = Where();
    ++pos_;
    std::string out;
    while (!AtEnd() && Peek() != quote) {
      if (Peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out.push_back(Peek());
      ++pos_;
    }
    if (AtEnd()) return ParseError(expr_, begin, "unterminated quoted string");
    ++pos_;
    return out;
  }

  Result<std::optional<int64_t>> ParseOptionalInt() {
    SkipSpaces();
    const size_t begin = pos_;
    if (Peek() == '-' || Peek() == '+') ++pos_;
    while (!AtEnd() && std::isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    if (pos_ == begin) return std::optional<int64_t>();
    std::string_view digits = text_.substr(begin, pos_ - begin);
    if (digits[0] == '+') digits.remove_prefix(1);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) {
      return ParseError(expr_, offset_ + begin, "invalid array index");
    }
    SkipSpaces();
    return std::optional<int64_t>(value);
  }

  Result<JsonPathStep> ParseBracket() {
    const size_t open = Where();
    ++pos_;  // '['
    SkipSpaces();
    JsonPathStep step;
    if (Peek() == '*') {
      ++pos_;
      SkipSpaces();
      step.kind = JsonPathStep::Kind::kSlice;
    } else if (Peek() == '?') {
      ++pos_;
      SkipSpaces();
      if (Peek() != '(') return ParseError(expr_, Where(), "expected '(' after '?'");
      ++pos_;
      auto filter = ParseFilter();
      if (!filter) return std::unexpected(filter.error());
      SkipSpaces();
      if (Peek() != ')') return ParseError(expr_, Where(), "expected ')' to close the filter");
      ++pos_;
      SkipSpaces();
      step.kind = JsonPathStep::Kind::kFilter;
      step.filter = std::make_shared<JsonPathFilter>(std::move(*filter));
    } else if (Peek() == '\'' || Peek() == '"') {
      auto name = ParseQuoted();
      if (!name) return std::unexpected(name.error());
      SkipSpaces();
      step.kind = JsonPathStep::Kind::kField;
      step.name = std::move(*name);
    } else {
      auto first = ParseOptionalInt();
      if (!first) return std::unexpected(first.error());
      if (Peek() == ':') {
        step.kind = JsonPathStep::Kind::kSlice;
        step.start = *first;
        ++pos_;
        auto end = ParseOptionalInt();
        if (!end) return std::unexpected(end.error());
        step.end = *end;
        if (Peek() == ':') {
          ++pos_;
          auto stride = ParseOptionalInt();
          if (!stride) return std::unexpected(stride.error());
          step.stride = *stride;
          if (step.stride && *step.stride <= 0) {
            return ParseError(expr_, Where(), "the slice step must be positive");
          }
        }
      } else if (Peek() == ',') {
        if (!*first) return ParseError(expr_, Where(), "expected an index");
        step.kind = JsonPathStep::Kind::kUnion;
        step.indices.push_back(**first);
        while (Peek() == ',') {
          ++pos_;
          auto next = ParseOptionalInt();
          if (!next) return std::unexpected(next.error());
          if (!*next) return ParseError(expr_, Where(), "expected an index after ','");
          step.indices.push_back(**next);
        }
      } else {
        if (!*first) return ParseError(expr_, Where(), "expected an index, '*', a quoted name or a filter");
        step.kind = JsonPathStep::Kind::kSlice;
        step.start = *first;
        step.single_index = true;
      }
    }
    if (Peek() != ']') return ParseError(expr_, open, "unterminated '['");
    ++pos_;
    return step;
  }

  Result<JsonPathOperand> ParseOperand() {
    SkipSpaces();
    JsonPathOperand operand;
    const char c = Peek();
    if (c == '@') {
      ++pos_;
      auto path = ParseSteps(/*in_filter=*/true);
      if (!path) return std::unexpected(path.error());
      operand.is_path = true;
      operand.path = std::move(*path);
    } else if (c == '\'' || c == '"') {
      auto text = ParseQuoted();
      if (!text) return std::unexpected(text.error());
      operand.literal.kind = JsonPathLiteral::Kind::kString;
      operand.literal.text = std::move(*text);
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const size_t begin = pos_;
      if (c == '-') ++pos_;
      bool is_float = false;
      while (!AtEnd() && (std::isdigit(static_cast<unsigned char>(Peek())) || Peek() == '.')) {
        is_float = is_float || Peek() == '.';
        ++pos_;
      }
      const std::string_view num = text_.substr(begin, pos_ - begin);
      const char* end = num.data() + num.size();
      if (is_float) {
        operand.literal.kind = JsonPathLiteral::Kind::kFloat;
        auto [ptr, ec] = std::from_chars(num.data(), end, operand.literal.real);
        if (ec != std::errc() || ptr != end) return ParseError(expr_, offset_ + begin, "invalid number");
      } else {
        operand.literal.kind = JsonPathLiteral::Kind::kInt;
        auto [ptr, ec] = std::from_chars(num.data(), end, operand.literal.integer);
        if (ec != std::errc() || ptr != end) return ParseError(expr_, offset_ + begin, "invalid number");
      }
    } else if (text_.substr(pos_, 4) == "true" || text_.substr(pos_, 5) == "false") {
      operand.literal.kind = JsonPathLiteral::Kind::kBool;
      operand.literal.boolean = Peek() == 't';
      pos_ += operand.literal.boolean ? 4 : 5;
    } else {
      return ParseError(expr_, Where(), "expected '@', a quoted string, a number or a boolean");
    }
    SkipSpaces();
    return operand;
  }

  Result<JsonPathFilter> ParseFilter() {
    JsonPathFilter filter;
    auto left = ParseOperand();
    if (!left) return std::unexpected(left.error());
    filter.left = std::move(*left);
    static constexpr std::string_view kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (std::string_view op : kOps) {
      if (text_.substr(pos_, op.size()) == op) {
        filter.op = std::string(op);
        pos_ += op.size();
        break;
      }
    }
    if (filter.op.empty()) {
      if (!filter.left.is_path) return ParseError(expr_, Where(), "a filter needs a path or a comparison");
      filter.op = "exists";
      return filter;
    }
    auto right = ParseOperand();
    if (!right) return std::unexpected(right.error());
    filter.right = std::move(*right);
    return filter;
  }

  std::string_view expr_;
  std::string_view text_;
  size_t offset_ = 0;
  size_t pos_ = 0;
};

Result<Values> Evaluate(const Steps& steps, Values input);

void CollectRecursive(const rapidjson::Value* v, Values& out) {
  if (v->IsObject() && v->MemberCount() > 0) {
    out.push_back(v);
    for (const auto& m : v->GetObject()) CollectRecursive(&m.value, out);
  } else if (v->IsArray() && !v->Empty()) {
    out.push_back(v);
    for (const auto& item : v->GetArray()) CollectRecursive(&item, out);
  }
}

Result<Values> EvalSlice(const JsonPathStep& step, const Values& input) {
  Values out;
  for (const rapidjson::Value* v : input) {
    if (v->IsNull()) continue;
    if (!v->IsArray()) return EvalError("value is not an array or slice");
    const int64_t len = static_cast<int64_t>(v->Size());
    int64_t start = step.start.value_or(0);
    if (start < 0) start += len;
    // A single index [i] is the slice [i:i+1]; its derived end 0 (for [-1]) counts from the end.
    int64_t end = step.single_index ? step.start.value_or(0) + 1 : step.end.value_or(len);
    if (end < 0 || (end == 0 && step.single_index)) end += len;
    const int64_t stride = step.stride.value_or(1);
    if (end == start) continue;  // asking for zero elements is allowed
    if (start < 0 || start >= len) {
      return EvalError("array index out of bounds: index " + std::to_string(start) + ", length " +
                       std::to_string(len));
    }
    if (end < 0 || end > len) {
      return EvalError("array index out of bounds: index " + std::to_string(end - 1) +
                       ", length " + std::to_string(len));
    }
    if (start > end) {
      return EvalError("starting index " + std::to_string(start) + " is greater than ending index " +
                       std::to_string(end));
    }
    for (int64_t i = start; i < end; i += stride) out.push_back(&(*v)[static_cast<rapidjson::SizeType>(i)]);
  }
  return out;
}

// Comparable views a value as one of Go text/template's basic kinds.
struct Comparable {
  enum class Kind { kInvalid, kString, kInt, kFloat, kBool } kind = Kind::kInvalid;
  std::string_view text;
  int64_t integer = 0;
  double real = 0;
  bool boolean = false;
};

Comparable FromValue(const rapidjson::Value& v) {
  Comparable c;
  if (v.IsString()) {
    c.kind = Comparable::Kind::kString;
    c.text = std::string_view(v.GetString(), v.GetStringLength());
  } else if (v.IsInt64()) {
    c.kind = Comparable::Kind::kInt;
    c.integer = v.GetInt64();
  } else if (v.IsNumber()) {
    c.kind = Comparable::Kind::kFloat;
    c.real = v.GetDouble();
  } else if (v.IsBool()) {
    c.kind = Comparable::Kind::kBool;
    c.boolean = v.GetBool();
  }
  return c;
}

Comparable FromLiteral(const JsonPathLiteral& l) {
  Comparable c;
  switch (l.kind) {
    case JsonPathLiteral::Kind::kString: c.kind = Comparable::Kind::kString; c.text = l.text; break;
    case JsonPathLiteral::Kind::kInt: c.kind = Comparable::Kind::kInt; c.integer = l.integer; break;
    case JsonPathLiteral::Kind::kFloat: c.kind = Comparable::Kind::kFloat; c.real = l.real; break;
    case JsonPathLiteral::Kind::kBool: c.kind = Comparable::Kind::kBool; c.boolean = l.boolean; break;
  }
  return c;
}

// Compare applies op; mismatched kinds are an error, as in text/template.
Result<bool> Compare(const Comparable& a, const std::string& op, const Comparable& b) {
  if (a.kind == Comparable::Kind::kInvalid || b.kind == Comparable::Kind::kInvalid) {
    return EvalError("invalid type for comparison");
  }
  if (a.kind != b.kind) return EvalError("incompatible types for comparison");
  int cmp = 0;
  switch (a.kind) {
    case Comparable::Kind::kString: cmp = a.text < b.text ? -1 : (a.text > b.text ? 1 : 0); break;
    case Comparable::Kind::kInt: cmp = a.integer < b.integer ? -1 : (a.integer > b.integer ? 1 : 0); break;
    case Comparable::Kind::kFloat: cmp = a.real < b.real ? -1 : (a.real > b.real ? 1 : 0); break;
    case Comparable::Kind::kBool:
      if (op != "==" && op != "!=") return EvalError("invalid type for comparison");
      cmp = a.boolean == b.boolean ? 0 : 1;
      break;
    case Comparable::Kind::kInvalid: break;
  }
  if (op == "==") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == "<") return cmp < 0;
  if (op == ">") return cmp > 0;
  if (op == "<=") return cmp <= 0;
  return cmp >= 0;
}

// OperandValue resolves one side of a filter for one candidate element; nullopt when a path
// selects nothing (the element is then skipped).
Result<std::optional<Comparable>> OperandValue(const JsonPathOperand& operand,
                                               const rapidjson::Value* element) {
  if (!operand.is_path) return std::optional<Comparable>(FromLiteral(operand.literal));
  auto found = Evaluate(operand.path, Values{element});
  if (!found) return std::unexpected(found.error());
  if (found->empty()) return std::optional<Comparable>();
  if (found->size() > 1) return EvalError("can only compare one element at a time");
  return std::optional<Comparable>(FromValue(*found->front()));
}

Result<Values> EvalFilter(const JsonPathFilter& filter, const Values& input) {
  Values out;
  for (const rapidjson::Value* v : input) {
    if (v->IsNull()) continue;
    if (!v->IsArray()) return EvalError("value is not an array or slice and cannot be filtered");
    for (const auto& element : v->GetArray()) {
      if (filter.op == "exists") {
        auto found = Evaluate(filter.left.path, Values{&element});
        if (!found) return std::unexpected(found.error());
        if (!found->empty()) out.push_back(&element);
        continue;
      }
      auto left = OperandValue(filter.left, &element);
      if (!left) return std::unexpected(left.error());
      auto right = OperandValue(filter.right, &element);
      if (!right) return std::unexpected(right.error());
      if (!*left || !*right) continue;
      auto pass = Compare(**left, filter.op, **right);
      if (!pass) return std::unexpected(pass.error());
      if (*pass) out.push_back(&element);
    }
  }
  return out;
}

Result<Values> Evaluate(const Steps& steps, Values current) {
  for (const JsonPathStep& step : steps) {
    Values next;
    switch (step.kind) {
      case JsonPathStep::Kind::kField:
        for (const rapidjson::Value* v : current) {
          if (!v->IsObject()) continue;  // missing keys are allowed
          auto it = v->FindMember(json::KeyOf(step.name));
          if (it != v->MemberEnd()) next.push_back(&it->value);
        }
        break;
      case JsonPathStep::Kind::kWildcard:
        for (const rapidjson::Value* v : current) {
          if (v->IsObject()) {
            for (const auto& m : v->GetObject()) next.push_back(&m.value);
          } else if (v->IsArray()) {
            for (const auto& item : v->GetArray()) next.push_back(&item);
          }
        }
        break;
      case JsonPathStep::Kind::kRecursive:
        for (const rapidjson::Value* v : current) CollectRecursive(v, next);
        break;
      case JsonPathStep::Kind::kSlice: {
        auto sliced = EvalSlice(step, current);
        if (!sliced) return std::unexpected(sliced.error());
        next = std::move(*sliced);
        break;
      }
      case JsonPathStep::Kind::kUnion:
        for (int64_t index : step.indices) {
          JsonPathStep single;
          single.kind = JsonPathStep::Kind::kSlice;
          single.start = index;
          single.single_index = true;
          auto picked = EvalSlice(single, current);
          if (!picked) return std::unexpected(picked.error());
          next.insert(next.end(), picked->begin(), picked->end());
        }
        break;
      case JsonPathStep::Kind::kFilter: {
        auto filtered = EvalFilter(*step.filter, current);
        if (!filtered) return std::unexpected(filtered.error());
        next = std::move(*filtered);
        break;
      }
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace

Result<JsonPath> JsonPath::Parse(std::string_view expression) {
  Parser parser(expression);
  auto steps = parser.ParseTop();
  if (!steps) return std::unexpected(steps.error());
  JsonPath path;
  path.source_ = std::string(expression);
  path.steps_ = std::make_shared<const Steps>(std::move(*steps));
  return path;
}

Result<std::vector<const rapidjson::Value*>> JsonPath::Find(const rapidjson::Value& root) const {
  if (!steps_) return Values{};
  return Evaluate(*steps_, Values{&root});
}

Result<JsonPath> ParseJsonPath(std::string_view expression) { return JsonPath::Parse(expression); }

}  // namespace berth::kubesim::table
