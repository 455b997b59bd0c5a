// JSON → YAML rendering (JsonToYaml, declared in yaml_json.h), following go-yaml v2's emitter:
// the style of each string (plain, 'single', "double", | literal) is chosen by libyaml's scalar
// analysis so the text reads back as the same string.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/api/yaml_scalar.h"

namespace berth::shim {
namespace {

using rapidjson::Value;

bool IsAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Non-ASCII bytes count as letters: a close stand-in for unicode.IsLetter on k8s keys.
bool IsLetter(unsigned char c) { return IsAsciiLetter(c) || c >= 0x80; }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// KeyLess is go-yaml v2's map key order: letters after other characters, digit runs compared
// by numeric value.
bool KeyLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char ca = a[i], cb = b[i];
    if (ca == cb) continue;
    const bool al = IsLetter(ca), bl = IsLetter(cb);
    if (al && bl) return ca < cb;
    if (al || bl) return bl;
    uint64_t an = 0, bn = 0;
    if (ca == '0' || cb == '0') {
      for (size_t j = i; j-- > 0 && IsDigit(static_cast<unsigned char>(a[j]));) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    size_t ai = i, bi = i;
    for (; ai < a.size() && IsDigit(static_cast<unsigned char>(a[ai])); ++ai) an = an * 10 + (a[ai] - '0');
    for (; bi < b.size() && IsDigit(static_cast<unsigned char>(b[bi])); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return an < bn;
    if (ai != bi) return ai < bi;
    return ca < cb;
  }
  return a.size() < b.size();
}

// CharWidth is the UTF-8 sequence length announced by a lead byte.
size_t CharWidth(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

unsigned char At(std::string_view s, size_t i) {
  return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
}

bool IsBreak(std::string_view s, size_t i) {
  const unsigned char c = At(s, i);
  return c == '\r' || c == '\n' || (c == 0xC2 && At(s, i + 1) == 0x85) ||
         (c == 0xE2 && At(s, i + 1) == 0x80 && (At(s, i + 2) == 0xA8 || At(s, i + 2) == 0xA9));
}

bool IsBlankZ(std::string_view s, size_t i) {
  const unsigned char c = At(s, i);
  return i >= s.size() || c == ' ' || c == '\t' || IsBreak(s, i);
}

// IsPrintable is libyaml's is_printable (4-byte sequences are not).
bool IsPrintable(std::string_view s, size_t i) {
  const unsigned char c = At(s, i), c1 = At(s, i + 1), c2 = At(s, i + 2);
  return c == 0x0A || (c >= 0x20 && c <= 0x7E) || (c == 0xC2 && c1 >= 0xA0) ||
         (c > 0xC2 && c < 0xED) || (c == 0xED && c1 < 0xA0) || c == 0xEE ||
         (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)));
}

struct Analysis {
  bool multiline = false;
  bool block_plain = true;
  bool single_quoted = true;
  bool block = true;
};

Analysis Analyze(std::string_view s) {
  Analysis a;
  if (s.empty()) {
    a.block = false;
    return a;
  }
  bool block_indicators = false, special = false, line_breaks = false;
  bool leading_space = false, leading_break = false, trailing_space = false,
       trailing_break = false, break_space = false, space_break = false;
  bool previous_space = false, previous_break = false;
  if (s.starts_with("---") || s.starts_with("...")) block_indicators = true;
  bool preceded_by_ws = true;
  bool followed_by_ws = IsBlankZ(s, CharWidth(At(s, 0)));
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = At(s, i);
    const size_t w = CharWidth(c);
    if (i == 0) {
      switch (c) {
        case '#': case ',': case '[': case ']': case '{': case '}': case '&': case '*':
        case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
          block_indicators = true;
          break;
        case '?': case ':':
          if (followed_by_ws) block_indicators = true;
          break;
        case '-':
          if (followed_by_ws) block_indicators = true;
          break;
        default:
          break;
      }
    } else {
      if (c == ':' && followed_by_ws) block_indicators = true;
      if (c == '#' && preceded_by_ws) block_indicators = true;
    }
    if (!IsPrintable(s, i)) special = true;
    const bool is_break = IsBreak(s, i);
    if (is_break) line_breaks = true;
    const bool last = i + w >= s.size();
    if (c == ' ') {
      if (i == 0) leading_space = true;
      if (last) trailing_space = true;
      if (previous_break) break_space = true;
      previous_space = true;
      previous_break = false;
    } else if (is_break) {
      if (i == 0) leading_break = true;
      if (last) trailing_break = true;
      if (previous_space) space_break = true;
      previous_break = true;
      previous_space = false;
    } else {
      previous_space = previous_break = false;
    }
    preceded_by_ws = IsBlankZ(s, i);
    i += w;
    if (i < s.size()) followed_by_ws = IsBlankZ(s, i + CharWidth(At(s, i)));
  }
  a.multiline = line_breaks;
  if (leading_space || leading_break || trailing_space || trailing_break) a.block_plain = false;
  if (trailing_space) a.block = false;
  if (break_space) a.block_plain = a.single_quoted = false;
  if (space_break || special) a.block_plain = a.single_quoted = a.block = false;
  if (line_breaks) a.block_plain = false;
  if (block_indicators) a.block_plain = false;
  return a;
}

// IsBase60Float mirrors go-yaml's ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ check.
bool IsBase60Float(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    size_t start = i;
    while (i < s.size() && IsDigit(s[i]) && i - start < 2) ++i;
    const size_t len = i - start;
    if (len == 0 || (len == 2 && s[start] > '5')) return false;
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

enum class Style { kPlain, kSingle, kDouble, kLiteral };

Style ChooseStyle(std::string_view s, bool simple_key) {
  Style style;
  if (s.find('\n') != std::string_view::npos) {
    style = Style::kLiteral;
  } else if (ResolvePlainScalar(s).kind == ScalarKind::kString && !IsBase60Float(s)) {
    style = Style::kPlain;
  } else {
    style = Style::kDouble;
  }
  const Analysis a = Analyze(s);
  if (style == Style::kPlain) {
    if (!a.block_plain || (s.empty() && simple_key)) style = Style::kSingle;
  }
  if (style == Style::kSingle && !a.single_quoted) style = Style::kDouble;
  if (style == Style::kLiteral && (!a.block || simple_key)) style = Style::kDouble;
  return style;
}

void AppendCodePointEscape(std::string& out, uint32_t cp) {
  char buf[16];
  if (cp <= 0xFF) {
    std::snprintf(buf, sizeof(buf), "\\x%02X", cp);
  } else if (cp <= 0xFFFF) {
    std::snprintf(buf, sizeof(buf), "\\u%04X", cp);
  } else {
    std::snprintf(buf, sizeof(buf), "\\U%08X", cp);
  }
  out += buf;
}

uint32_t DecodeUtf8(std::string_view s, size_t i, size_t w) {
  const unsigned char c = At(s, i);
  if (w == 1) return c;
  uint32_t cp = c & (0xFF >> (w + 1));
  for (size_t k = 1; k < w; ++k) cp = (cp << 6) | (At(s, i + k) & 0x3F);
  return cp;
}

void WriteDoubleQuoted(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = At(s, i);
    const size_t w = std::min(CharWidth(c), s.size() - i);
    const bool bom = c == 0xEF && At(s, i + 1) == 0xBB && At(s, i + 2) == 0xBF;
    if (!IsPrintable(s, i) || bom || IsBreak(s, i) || c == '"' || c == '\\') {
      const uint32_t cp = DecodeUtf8(s, i, w);
      switch (cp) {
        case 0x00: out += "\\0"; break;
        case 0x07: out += "\\a"; break;
        case 0x08: out += "\\b"; break;
        case 0x09: out += "\\t"; break;
        case 0x0A: out += "\\n"; break;
        case 0x0B: out += "\\v"; break;
        case 0x0C: out += "\\f"; break;
        case 0x0D: out += "\\r"; break;
        case 0x1B: out += "\\e"; break;
        case 0x22: out += "\\\""; break;
        case 0x5C: out += "\\\\"; break;
        case 0x85: out += "\\N"; break;
        case 0xA0: out += "\\_"; break;
        case 0x2028: out += "\\L"; break;
        case 0x2029: out += "\\P"; break;
        default: AppendCodePointEscape(out, cp);
      }
    } else {
      out.append(s.substr(i, w));
    }
    i += w;
  }
  out += '"';
}

void WriteSingleQuoted(std::string& out, std::string_view s) {
  out += '\'';
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
}

// WriteLiteral writes "|" plus hints, then the lines at `indent`; ends after the last newline.
void WriteLiteral(std::string& out, std::string_view s, int indent) {
  out += '|';
  if (!s.empty() && (s[0] == ' ' || s[0] == '\n')) out += '2';
  if (s.empty() || s.back() != '\n') {
    out += '-';
  } else if (s.size() == 1 || s[s.size() - 2] == '\n') {
    out += '+';
  }
  out += '\n';
  std::string_view body = s;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  size_t start = 0;
  while (true) {
    const size_t nl = body.find('\n', start);
    std::string_view line = body.substr(start, nl == std::string_view::npos ? body.npos : nl - start);
    if (!line.empty()) {
      out.append(static_cast<size_t>(indent), ' ');
      out.append(line);
    }
    out += '\n';
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

// WriteString writes a string scalar; a literal block ends the line itself. Returns whether it
// did, so callers know not to add "\n".
bool WriteString(std::string& out, std::string_view s, bool simple_key, int block_indent) {
  switch (ChooseStyle(s, simple_key)) {
    case Style::kPlain: out.append(s); return false;
    case Style::kSingle: WriteSingleQuoted(out, s); return false;
    case Style::kDouble: WriteDoubleQuoted(out, s); return false;
    case Style::kLiteral: WriteLiteral(out, s, block_indent); return true;
  }
  return false;
}

std::string_view AsView(const Value& v) { return std::string_view(v.GetString(), v.GetStringLength()); }

bool IsNonEmptyContainer(const Value& v) {
  return (v.IsObject() && v.MemberCount() > 0) || (v.IsArray() && !v.Empty());
}

// WriteScalarLine writes a scalar (or empty container) and ends the line.
void WriteScalarLine(std::string& out, const Value& v, int block_indent) {
  bool ended = false;
  if (v.IsNull()) {
    out += "null";
  } else if (v.IsBool()) {
    out += v.GetBool() ? "true" : "false";
  } else if (v.IsInt64()) {
    out += std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    out += std::to_string(v.GetUint64());
  } else if (v.IsNumber()) {
    out += FormatGoFloat(v.GetDouble(), false);
  } else if (v.IsString()) {
    ended = WriteString(out, AsView(v), false, block_indent);
  } else if (v.IsObject()) {
    out += "{}";
  } else if (v.IsArray()) {
    out += "[]";
  }
  if (!ended) out += '\n';
}

void WriteSequence(std::string& out, const Value& array, int indent, bool first_inline);

// WriteMapping writes entries at `indent`; with first_inline the first key continues the
// current line (after "- ").
void WriteMapping(std::string& out, const Value& object, int indent, bool first_inline) {
  std::vector<const Value::Member*> members;
  for (const auto& m : object.GetObject()) members.push_back(&m);
  std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
    return KeyLess(AsView(a->name), AsView(b->name));
  });
  bool first = true;
  for (const Value::Member* m : members) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    WriteString(out, AsView(m->name), /*simple_key=*/true, indent + 2);
    out += ':';
    const Value& v = m->value;
    if (v.IsObject() && v.MemberCount() > 0) {
      out += '\n';
      WriteMapping(out, v, indent + 2, false);
    } else if (v.IsArray() && !v.Empty()) {
      out += '\n';
      WriteSequence(out, v, indent, false);  // go-yaml does not indent sequences in mappings
    } else {
      out += ' ';
      WriteScalarLine(out, v, indent + 2);
    }
  }
}

void WriteSequence(std::string& out, const Value& array, int indent, bool first_inline) {
  bool first = true;
  for (const Value& item : array.GetArray()) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    out += "- ";
    if (item.IsObject() && item.MemberCount() > 0) {
      WriteMapping(out, item, indent + 2, true);
    } else if (item.IsArray() && !item.Empty()) {
      WriteSequence(out, item, indent + 2, true);
    } else {
      WriteScalarLine(out, item, indent + 2);
    }
  }
}

}  // namespace

std::string JsonToYaml(const Value& value) {
  std::string out;
  if (value.IsObject() && IsNonEmptyContainer(value)) {
    WriteMapping(out, value, 0, false);
  } else if (value.IsArray() && IsNonEmptyContainer(value)) {
    WriteSequence(out, value, 0, false);
  } else {
    WriteScalarLine(out, value, 2);
  }
  return out;
}

}  // namespace berth::shim
