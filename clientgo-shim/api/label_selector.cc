#include "clientgo-shim/api/label_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "clientgo-shim/base/go_format.h"
#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

using berth::GoQuote;  // Go's %q (strconv.Quote), shared in clientgo-shim/base/go_format.h


// GoSliceLiteral is Go's %#v of a []string (nil when `is_nil`).
std::string GoSliceLiteral(const std::vector<std::string>& values, bool is_nil) {
  if (is_nil) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  return out + "}";
}

std::string InvalidField(std::string_view path, std::string_view value_literal,
                         std::string_view detail) {
  return std::string(path) + ": Invalid value: " + std::string(value_literal) + ": " +
         std::string(detail);
}

// Aggregate renders a field.ErrorList like utilerrors.NewAggregate: one message, or "[a, b]".
std::string Aggregate(const std::vector<std::string>& errs) {
  if (errs.size() == 1) return errs[0];
  return "[" + GoJoin(errs, ", ") + "]";
}

bool ParseGoInt64(std::string_view s, int64_t& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);  // strconv.ParseInt accepts a '+' sign
  if (s.empty() || s[0] == '+') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

const char* OperatorWord(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn: return "in";
    case SelectorOperator::kNotIn: return "notin";
    case SelectorOperator::kEquals: return "=";
    case SelectorOperator::kDoubleEquals: return "==";
    case SelectorOperator::kNotEquals: return "!=";
    case SelectorOperator::kExists: return "exists";
    case SelectorOperator::kDoesNotExist: return "!";
    case SelectorOperator::kGreaterThan: return "gt";
    case SelectorOperator::kLessThan: return "lt";
  }
  return "";
}

// NewRequirement validates like labels.NewRequirement; returns the aggregated error text.
std::string ValidateRequirement(const LabelRequirement& r, bool values_nil) {
  std::vector<std::string> errs;
  if (std::string e = ValidateLabelKey(r.key); !e.empty()) {
    errs.push_back(InvalidField("key", GoQuote(r.key), e));
  }
  const std::string literal = GoSliceLiteral(r.values, values_nil);
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (r.values.empty()) {
        errs.push_back(InvalidField("values", literal,
                                    "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kNotEquals:
      if (r.values.size() != 1) {
        errs.push_back(
            InvalidField("values", literal, "exact-match compatibility requires one single value"));
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errs.push_back(InvalidField("values", literal,
                                    "values set must be empty for exists and does not exist"));
      }
      break;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan:
      if (r.values.size() != 1) {
        errs.push_back(InvalidField("values", literal,
                                    "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        int64_t ignored;
        if (!ParseGoInt64(r.values[i], ignored)) {
          errs.push_back(InvalidField("values[" + std::to_string(i) + "]", GoQuote(r.values[i]),
                                      "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (std::string e = ValidateLabelValue(r.values[i]); !e.empty()) {
      errs.push_back(InvalidField("values[" + std::to_string(i) + "][" + r.key + "]",
                                  GoQuote(r.values[i]), e));
    }
  }
  if (errs.empty()) return {};
  // utilerrors.NewAggregate drops duplicate messages.
  std::vector<std::string> unique;
  for (auto& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  return Aggregate(unique);
}

void SortByKey(std::vector<LabelRequirement>& reqs) {
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) { return a.key < b.key; });
}

// --- lexer and parser (labels.Parse grammar) ---

enum class Token {
  kError, kEnd, kClosedPar, kComma, kDoesNotExist, kDoubleEquals, kEquals, kGreaterThan,
  kIdentifier, kIn, kLessThan, kNotEquals, kNotIn, kOpenPar,
};

bool LookupToken(std::string_view s, Token& tok) {
  static constexpr std::pair<std::string_view, Token> kTokens[] = {
      {")", Token::kClosedPar},     {",", Token::kComma},      {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},     {">", Token::kGreaterThan},
      {"in", Token::kIn},           {"<", Token::kLessThan},   {"!=", Token::kNotEquals},
      {"notin", Token::kNotIn},     {"(", Token::kOpenPar}};
  for (const auto& [text, t] : kTokens) {
    if (s == text) {
      tok = t;
      return true;
    }
  }
  return false;
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

struct Item {
  Token tok;
  std::string lit;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Item Lex() {
    char ch = Read();
    while (IsWhitespace(ch)) ch = Read();
    if (ch == 0) return {Token::kEnd, ""};
    Unread();
    return IsSpecial(ch) ? ScanSpecial() : ScanIdOrKeyword();
  }

 private:
  char Read() { return pos_ < s_.size() ? s_[pos_++] : (++pos_, '\0'); }
  void Unread() { --pos_; }

  Item ScanIdOrKeyword() {
    std::string buf;
    while (true) {
      char ch = Read();
      if (ch == 0) break;
      if (IsSpecial(ch) || IsWhitespace(ch)) {
        Unread();
        break;
      }
      buf += ch;
    }
    Token tok;
    if (LookupToken(buf, tok)) return {tok, buf};
    return {Token::kIdentifier, buf};
  }

  Item ScanSpecial() {
    std::string buf;
    Item last{Token::kError, ""};
    while (true) {
      char ch = Read();
      if (ch == 0) break;
      if (!IsSpecial(ch)) {
        Unread();
        break;
      }
      buf += ch;
      Token tok;
      if (LookupToken(buf, tok)) {
        last = {tok, buf};
      } else if (last.tok != Token::kError) {
        Unread();
        break;
      }
    }
    if (last.tok == Token::kError) return {Token::kError, "error expected: keyword found '" + buf + "'"};
    return last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view s) {
    Lexer lexer(s);
    while (true) {
      items_.push_back(lexer.Lex());
      if (items_.back().tok == Token::kEnd) break;
    }
  }

  Result<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> reqs;
    while (true) {
      const Item& next = Lookahead(true);
      switch (next.tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          auto r = ParseRequirement();
          if (!r) return Fail("unable to parse requirement: " + r.error().message);
          reqs.push_back(std::move(*r));
          Item after = Consume(true);
          if (after.tok == Token::kEnd) return reqs;
          if (after.tok == Token::kComma) {
            const Item& t2 = Lookahead(true);
            if (t2.tok != Token::kIdentifier && t2.tok != Token::kDoesNotExist) {
              return Fail("found '" + t2.lit + "', expected: identifier after ','");
            }
            break;
          }
          return Fail("found '" + after.lit + "', expected: ',' or 'end of string'");
        }
        case Token::kEnd:
          return reqs;
        default:
          return Fail("found '" + next.lit + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  static std::unexpected<Error> Fail(std::string message) {
    return MakeError(ErrorCode::kInvalidArgument, std::move(message));
  }

  // In the Values context "in" and "notin" are plain identifiers.
  Item Adjust(Item item, bool values) const {
    if (values && (item.tok == Token::kIn || item.tok == Token::kNotIn)) item.tok = Token::kIdentifier;
    return item;
  }
  const Item& Lookahead(bool values) {
    scratch_ = Adjust(items_[std::min(pos_, items_.size() - 1)], values);
    return scratch_;
  }
  Item Consume(bool values) {
    Item item = Adjust(items_[std::min(pos_, items_.size() - 1)], values);
    ++pos_;
    return item;
  }

  Result<LabelRequirement> ParseRequirement() {
    LabelRequirement r;
    std::optional<SelectorOperator> op;
    Item tok = Consume(true);
    if (tok.tok == Token::kDoesNotExist) {
      op = SelectorOperator::kDoesNotExist;
      tok = Consume(true);
    }
    if (tok.tok != Token::kIdentifier) return Fail("found '" + tok.lit + "', expected: identifier");
    if (std::string e = ValidateLabelKey(tok.lit); !e.empty()) {
      return Fail(InvalidField("<nil>", GoQuote(tok.lit), e));
    }
    r.key = tok.lit;
    Token t = Lookahead(true).tok;
    if ((t == Token::kEnd || t == Token::kComma) && !op) op = SelectorOperator::kExists;
    if (op) {
      r.op = *op;
      return r;
    }
    Item optok = Consume(false);
    switch (optok.tok) {
      case Token::kIn: r.op = SelectorOperator::kIn; break;
      case Token::kEquals: r.op = SelectorOperator::kEquals; break;
      case Token::kDoubleEquals: r.op = SelectorOperator::kDoubleEquals; break;
      case Token::kGreaterThan: r.op = SelectorOperator::kGreaterThan; break;
      case Token::kLessThan: r.op = SelectorOperator::kLessThan; break;
      case Token::kNotIn: r.op = SelectorOperator::kNotIn; break;
      case Token::kNotEquals: r.op = SelectorOperator::kNotEquals; break;
      default:
        return Fail("found '" + optok.lit + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    Status values = (r.op == SelectorOperator::kIn || r.op == SelectorOperator::kNotIn)
                        ? ParseValues(r.values)
                        : ParseExactValue(r.values);
    if (!values) return std::unexpected(values.error());
    // sets.String.List(): sorted, unique.
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
    if (std::string e = ValidateRequirement(r, false); !e.empty()) return Fail(e);
    return r;
  }

  Status ParseValues(std::vector<std::string>& out) {
    Item open = Consume(true);
    if (open.tok != Token::kOpenPar) return Fail("found '" + open.lit + "' expected: '('");
    Item next = Lookahead(true);
    switch (next.tok) {
      case Token::kIdentifier:
      case Token::kComma: {
        Status s = ParseIdentifiersList(out);
        if (!s) return s;
        if (Consume(true).tok != Token::kClosedPar) {
          return Fail("found '" + next.lit + "', expected: ')'");
        }
        return {};
      }
      case Token::kClosedPar:
        Consume(true);
        out.push_back("");
        return {};
      default:
        return Fail("found '" + next.lit + "', expected: ',', ')' or identifier");
    }
  }

  Status ParseIdentifiersList(std::vector<std::string>& out) {
    while (true) {
      Item tok = Consume(true);
      switch (tok.tok) {
        case Token::kIdentifier: {
          out.push_back(tok.lit);
          const Item& t2 = Lookahead(true);
          if (t2.tok == Token::kComma) continue;
          if (t2.tok == Token::kClosedPar) return {};
          return Fail("found '" + t2.lit + "', expected: ',' or ')'");
        }
        case Token::kComma: {
          if (out.empty()) out.push_back("");  // "(,"
          Token t2 = Lookahead(true).tok;
          if (t2 == Token::kClosedPar) {
            out.push_back("");  // ",)"
            return {};
          }
          if (t2 == Token::kComma) {
            Consume(true);
            out.push_back("");  // ",,"
          }
          break;
        }
        default:
          return Fail("found '" + tok.lit + "', expected: ',', or identifier");
      }
    }
  }

  Status ParseExactValue(std::vector<std::string>& out) {
    Token t = Lookahead(true).tok;
    if (t == Token::kEnd || t == Token::kComma) {
      out.push_back("");
      return {};
    }
    Item tok = Consume(true);
    if (tok.tok == Token::kIdentifier) {
      out.push_back(tok.lit);
      return {};
    }
    return Fail("found '" + tok.lit + "', expected: identifier");
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
  Item scratch_;
};

std::string_view AsView(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

std::optional<std::string_view> MapLabels::Get(std::string_view key) const {
  auto it = labels_.find(key);
  if (it == labels_.end()) return std::nullopt;
  return std::string_view(it->second);
}

JsonLabels JsonLabels::OfObject(const rapidjson::Value& object) {
  return JsonLabels(json::Find(object, {"metadata", "labels"}));
}

std::optional<std::string_view> JsonLabels::Get(std::string_view key) const {
  if (labels_ == nullptr) return std::nullopt;
  const rapidjson::Value* v = json::Member(*labels_, key);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return AsView(*v);
}

bool LabelRequirement::Matches(const LabelGetter& labels) const {
  std::optional<std::string_view> v = labels.Get(key);
  auto has_value = [&](std::string_view x) {
    return std::find(values.begin(), values.end(), x) != values.end();
  };
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
      return v && has_value(*v);
    case SelectorOperator::kNotIn:
    case SelectorOperator::kNotEquals:
      return !v || !has_value(*v);
    case SelectorOperator::kExists:
      return v.has_value();
    case SelectorOperator::kDoesNotExist:
      return !v;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      int64_t have, want;
      if (!v || values.size() != 1 || !ParseGoInt64(*v, have) || !ParseGoInt64(values[0], want)) {
        return false;
      }
      return op == SelectorOperator::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string out;
  if (op == SelectorOperator::kDoesNotExist) out += '!';
  out += key;
  switch (op) {
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      return out;
    case SelectorOperator::kIn:
      out += " in ";
      break;
    case SelectorOperator::kNotIn:
      out += " notin ";
      break;
    case SelectorOperator::kGreaterThan:
      out += '>';
      break;
    case SelectorOperator::kLessThan:
      out += '<';
      break;
    default:
      out += OperatorWord(op);
  }
  const bool set = op == SelectorOperator::kIn || op == SelectorOperator::kNotIn;
  if (set) out += '(';
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  out += GoJoin(sorted, ",");
  if (set) out += ')';
  return out;
}

LabelSelector LabelSelector::Nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  Parser parser(text);
  auto reqs = parser.Parse();
  if (!reqs) return std::unexpected(reqs.error());
  LabelSelector s;
  s.requirements_ = std::move(*reqs);
  SortByKey(s.requirements_);
  return s;
}

Result<LabelSelector> LabelSelector::FromJson(const rapidjson::Value* selector) {
  if (selector == nullptr || selector->IsNull()) return Nothing();
  auto fail = [](std::string m) { return MakeError(ErrorCode::kInvalidArgument, std::move(m)); };
  if (!selector->IsObject()) return fail("label selector must be a JSON object");
  LabelSelector s;
  const rapidjson::Value* labels = json::Member(*selector, "matchLabels");
  if (labels != nullptr && !labels->IsNull()) {
    if (!labels->IsObject()) return fail("matchLabels must be an object of strings");
    for (const auto& m : labels->GetObject()) {
      if (!m.value.IsString()) {
        return fail("matchLabels." + std::string(AsView(m.name)) + " must be a string");
      }
      LabelRequirement r{std::string(AsView(m.name)), SelectorOperator::kEquals,
                         {std::string(AsView(m.value))}};
      if (std::string e = ValidateRequirement(r, false); !e.empty()) return fail(e);
      s.requirements_.push_back(std::move(r));
    }
  }
  const rapidjson::Value* exprs = json::Member(*selector, "matchExpressions");
  if (exprs != nullptr && !exprs->IsNull()) {
    if (!exprs->IsArray()) return fail("matchExpressions must be an array");
    for (const auto& e : exprs->GetArray()) {
      if (!e.IsObject()) return fail("matchExpressions items must be objects");
      LabelRequirement r;
      r.key = std::string(json::GetString(e, {"key"}));
      std::string_view op = json::GetString(e, {"operator"});
      if (op == "In") {
        r.op = SelectorOperator::kIn;
      } else if (op == "NotIn") {
        r.op = SelectorOperator::kNotIn;
      } else if (op == "Exists") {
        r.op = SelectorOperator::kExists;
      } else if (op == "DoesNotExist") {
        r.op = SelectorOperator::kDoesNotExist;
      } else {
        return fail(GoQuote(op) + " is not a valid label selector operator");
      }
      const rapidjson::Value* values = json::Member(e, "values");
      if (values != nullptr && !values->IsNull()) {
        if (!values->IsArray()) return fail("matchExpressions values must be an array of strings");
        for (const auto& v : values->GetArray()) {
          if (!v.IsString()) return fail("matchExpressions values must be an array of strings");
          r.values.emplace_back(AsView(v));
        }
      }
      if (std::string err = ValidateRequirement(r, r.values.empty()); !err.empty()) {
        return fail(err);
      }
      s.requirements_.push_back(std::move(r));
    }
  }
  SortByKey(s.requirements_);
  return s;
}

LabelSelector LabelSelector::FromMap(const LabelMap& labels) {
  LabelSelector s;
  for (const auto& [k, v] : labels) s.requirements_.push_back({k, SelectorOperator::kEquals, {v}});
  return s;
}

bool LabelSelector::Matches(const LabelGetter& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelector::String() const {
  std::string out;
  if (nothing_) return out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].String();
  }
  return out;
}

}  // namespace berth::shim
