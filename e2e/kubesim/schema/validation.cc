#include "e2e/kubesim/schema/validation.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/formats.h"
#include "e2e/kubesim/schema/go_format.h"
#include "e2e/kubesim/schema/pattern_cache.h"
#include "e2e/kubesim/schema/schema_node.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;

enum class Kind { kNull, kBool, kInteger, kNumber, kString, kArray, kObject };

// KindOf classifies data as the apiserver's JSON decoder does: integers that fit int64 are
// int64, every other number is float64.
Kind KindOf(const Value& v) {
  if (v.IsNull()) return Kind::kNull;
  if (v.IsBool()) return Kind::kBool;
  if (v.IsInt64()) return Kind::kInteger;
  if (v.IsNumber()) return Kind::kNumber;
  if (v.IsString()) return Kind::kString;
  if (v.IsArray()) return Kind::kArray;
  return Kind::kObject;
}

std::string_view TypeName(Kind k) {
  switch (k) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kInteger: return "integer";
    case Kind::kNumber: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "";
}

// DataFormat is the swagger format kube-openapi infers from the Go type of the data.
std::string_view DataFormat(Kind k) {
  if (k == Kind::kInteger) return "int64";
  if (k == Kind::kNumber) return "float64";
  return "";
}

std::string_view StringOf(const Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// IsJsonInteger follows swag.IsFloat64AJSONInteger: integral (or within 1e-9 relative error)
// and inside ±(2^53-1).
bool IsJsonInteger(double f) {
  constexpr double kMaxJsonFloat = 9007199254740991.0;
  if (!std::isfinite(f) || f < -kMaxJsonFloat || f > kMaxJsonFloat) return false;
  const double g = std::trunc(f);
  if (f == g) return true;
  const double diff = std::fabs(f - g);
  return diff / (std::fabs(f) + std::fabs(g)) < 1e-9;
}

// ToInt64 converts a schema bound as Go's int64(float64) does for in-range values.
int64_t ToInt64(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9.2233720368547758e18) return INT64_MAX;
  if (d <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(d);
}

std::string Int(int64_t v) { return std::to_string(v); }

// EncodeRune is Go's string(rune(i)) (invalid code points become U+FFFD).
std::string EncodeRune(int64_t cp) {
  if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// DeepEqual is Go's reflect.DeepEqual over decoded JSON: int64 and float64 never compare equal.
bool DeepEqual(const Value& a, const Value& b) {
  const Kind ka = KindOf(a);
  if (ka != KindOf(b)) return false;
  switch (ka) {
    case Kind::kNull: return true;
    case Kind::kBool: return a.GetBool() == b.GetBool();
    case Kind::kInteger: return a.GetInt64() == b.GetInt64();
    case Kind::kNumber: return a.GetDouble() == b.GetDouble();
    case Kind::kString: return StringOf(a) == StringOf(b);
    case Kind::kArray: {
      if (a.Size() != b.Size()) return false;
      for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (!DeepEqual(a[i], b[i])) return false;
      }
      return true;
    }
    case Kind::kObject: {
      if (a.MemberCount() != b.MemberCount()) return false;
      for (const auto& m : a.GetObject()) {
        auto it = b.FindMember(m.name);
        if (it == b.MemberEnd() || !DeepEqual(m.value, it->value)) return false;
      }
      return true;
    }
  }
  return false;
}

// EnumMatches mirrors kube-openapi's enum check: equal after converting the data to the enum
// value's Go type (so 1.7 matches 1, and 65 matches "A"); null never matches.
bool EnumMatches(const Value& data, const Value& allowed) {
  const Kind kd = KindOf(data);
  const Kind ke = KindOf(allowed);
  if (kd == Kind::kNull || ke == Kind::kNull) return false;
  if (DeepEqual(data, allowed)) return true;
  if (kd == Kind::kInteger && ke == Kind::kNumber) {
    return static_cast<double>(data.GetInt64()) == allowed.GetDouble();
  }
  if (kd == Kind::kNumber && ke == Kind::kInteger) {
    return ToInt64(data.GetDouble()) == allowed.GetInt64();
  }
  if (kd == Kind::kInteger && ke == Kind::kString) {
    return EncodeRune(data.GetInt64()) == StringOf(allowed);
  }
  return false;
}

// RuneCount counts UTF-8 code points (invalid bytes count one each), like utf8.RuneCount.
int64_t RuneCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

class Validator {
 public:
  std::vector<Cause> causes;

  void Node(const Value* schema, const Value& data, const std::string& path, int depth) {
    if (schema == nullptr || !schema->IsObject() || depth > kMaxSchemaDepth) return;
    const std::vector<std::string> types = SchemaTypes(schema);
    std::string format;
    if (auto f = SchemaString(schema, "format"); f && IsSupportedFormat(*f)) format = *f;
    const Kind kind = KindOf(data);

    if (kind == Kind::kNull) {
      if (!types.empty() && !Contains(types, "null") && !SchemaFlag(schema, "nullable")) {
        TypeFail(path, Join(types), "null");
      }
      Enum(schema, data, path);
      return;
    }
    if (!types.empty() || !format.empty()) CheckType(types, format, kind, data, path);
    if (kind == Kind::kString) {
      CheckString(schema, StringOf(data), path);
      if (!format.empty() && !FormatValidates(format, StringOf(data))) {
        TypeFail(path, format, StringOf(data));
      }
    }
    if (kind == Kind::kInteger || kind == Kind::kNumber) CheckNumber(schema, data, path);
    if (kind == Kind::kArray) CheckArray(schema, data, path, depth);
    Enum(schema, data, path);
    if (kind == Kind::kObject) CheckObject(schema, data, path, depth);
  }

 private:
  // Compiled patterns held for this validation (the process-wide cache may start over meanwhile).
  std::map<std::string, std::shared_ptr<const re2::RE2>, std::less<>> regexes_;

  static bool Contains(const std::vector<std::string>& types, std::string_view t) {
    for (const auto& s : types) {
      if (s == t) return true;
    }
    return false;
  }

  static std::string Join(const std::vector<std::string>& types) {
    std::string out;
    for (const auto& t : types) {
      if (!out.empty()) out += ",";
      out += t;
    }
    return out;
  }

  // FieldOf converts a kube-openapi error name into the cause's field (apiextensions trims the
  // leading dot; an empty name is the nil path).
  static std::string FieldOf(const std::string& name) {
    if (name.empty() || name == ".") return "<nil>";
    return name[0] == '.' ? name.substr(1) : name;
  }

  void Add(std::string_view type, const std::string& name, std::string_view bad_value,
           std::string_view detail) {
    causes.push_back(MakeCause(type, FieldOf(name), bad_value, detail));
  }

  // TypeFail reports errors.InvalidType with string data: FieldValueTypeInvalid.
  void TypeFail(const std::string& path, std::string_view type_name, std::string_view value) {
    const std::string quoted = GoQuote(value);
    Add(kCauseTypeInvalid, path, quoted,
        path + " in body must be of type " + std::string(type_name) + ": " + quoted);
  }

  void CheckType(const std::vector<std::string>& types, const std::string& format, Kind kind,
                 const Value& data, const std::string& path) {
    const std::string_view sch_type = TypeName(kind);
    const std::string_view data_format = DataFormat(kind);
    const bool float_int =
        kind == Kind::kNumber && IsJsonInteger(data.GetDouble()) && Contains(types, "integer");
    const bool int_float = kind == Kind::kInteger && Contains(types, "number");
    const bool matches = Contains(types, sch_type) || float_int || int_float;
    const bool string_like = kind == Kind::kString || kind == Kind::kArray;
    if (!string_like && !format.empty() && !(matches || data_format == format)) {
      TypeFail(path, format, data_format);
      return;
    }
    if (!(Contains(types, "number") || Contains(types, "integer")) && !format.empty() &&
        string_like) {
      return;
    }
    if (!matches) TypeFail(path, Join(types), sch_type);
  }

  const re2::RE2* Compile(std::string_view pattern, std::string* error) {
    auto it = regexes_.find(pattern);
    if (it != regexes_.end()) return it->second.get();
    auto re = CompiledPattern(pattern);
    if (!re) {
      *error = re.error();
      return nullptr;
    }
    regexes_.emplace(std::string(pattern), *re);
    return re->get();
  }

  // CheckString: maxLength, minLength, pattern; only the first failure is reported.
  void CheckString(const Value* schema, std::string_view data, const std::string& path) {
    const int64_t length = RuneCount(data);
    if (auto max = SchemaInt(schema, "maxLength"); max && length > *max) {
      Add(kCauseTooLong, path, "",
          *max >= 0 ? "may not be longer than " + Int(*max) : std::string("value is too long"));
      return;
    }
    if (auto min = SchemaInt(schema, "minLength"); min && length < *min) {
      Add(kCauseInvalid, path, GoQuote(data),
          path + " in body should be at least " + Int(*min) + " chars long");
      return;
    }
    auto pattern = SchemaString(schema, "pattern");
    if (!pattern || pattern->empty()) return;
    std::string error;
    const re2::RE2* re = Compile(*pattern, &error);
    if (re == nullptr) {
      Add(kCauseInvalid, path, GoQuote(data),
          path + " in body should match '" + std::string(*pattern) +
              ", but pattern is invalid: " + error + "'");
      return;
    }
    if (!PatternMatches(*re, data)) {
      Add(kCauseInvalid, path, GoQuote(data),
          path + " in body should match '" + std::string(*pattern) + "'");
    }
  }

  // CheckNumber: multipleOf, minimum, maximum (in that order). Integer data is compared with
  // the bound truncated to int64, float data with the bound as float64, as kube-openapi does.
  void CheckNumber(const Value* schema, const Value& data, const std::string& path) {
    const bool is_int = data.IsInt64();
    const std::string value = is_int ? Int(data.GetInt64()) : FormatFloatG(data.GetDouble());
    if (auto factor = SchemaNumber(schema, "multipleOf")) {
      if (*factor < 0) {
        Add(kCauseInvalid, path, is_int ? Int(ToInt64(*factor)) : FormatFloatG(*factor),
            "factor MultipleOf declared for " + path + " must be positive: " +
                (is_int ? Int(ToInt64(*factor)) : FormatFloatG(*factor)));
      } else if (is_int) {
        const int64_t f = ToInt64(*factor);
        if (f != 0 && data.GetInt64() % f != 0) {
          Add(kCauseInvalid, path, value, path + " in body should be a multiple of " + Int(f));
        }
      } else if (*factor > 0) {
        const double d = data.GetDouble();
        const double mult = *factor < 1 ? 1 / *factor * d : d / *factor;
        if (!IsJsonInteger(mult)) {
          Add(kCauseInvalid, path, value,
              path + " in body should be a multiple of " + FormatFloatG(*factor));
        }
      }
    }
    if (auto min = SchemaNumber(schema, "minimum")) {
      const bool exclusive = SchemaFlag(schema, "exclusiveMinimum");
      bool fail;
      std::string bound;
      if (is_int) {
        const int64_t m = ToInt64(*min);
        fail = exclusive ? data.GetInt64() <= m : data.GetInt64() < m;
        bound = Int(m);
      } else {
        fail = exclusive ? data.GetDouble() <= *min : data.GetDouble() < *min;
        bound = FormatFloatG(*min);
      }
      if (fail) {
        Add(kCauseInvalid, path, value,
            path + (exclusive ? " in body should be greater than "
                              : " in body should be greater than or equal to ") + bound);
      }
    }
    if (auto max = SchemaNumber(schema, "maximum")) {
      const bool exclusive = SchemaFlag(schema, "exclusiveMaximum");
      bool fail;
      std::string bound;
      if (is_int) {
        const int64_t m = ToInt64(*max);
        fail = exclusive ? data.GetInt64() >= m : data.GetInt64() > m;
        bound = Int(m);
      } else {
        fail = exclusive ? data.GetDouble() >= *max : data.GetDouble() > *max;
        bound = FormatFloatG(*max);
      }
      if (fail) {
        Add(kCauseInvalid, path, value,
            path + (exclusive ? " in body should be less than "
                              : " in body should be less than or equal to ") + bound);
      }
    }
  }

  // CheckArray: items first, then minItems and maxItems.
  void CheckArray(const Value* schema, const Value& data, const std::string& path, int depth) {
    if (const Value* items = ItemsSchema(schema)) {
      for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
        Node(items, data[i], path + "[" + std::to_string(i) + "]", depth + 1);
      }
    }
    const auto size = static_cast<int64_t>(data.Size());
    if (auto min = SchemaInt(schema, "minItems"); min && size < *min) {
      Add(kCauseInvalid, path, Int(size),
          path + " in body should have at least " + Int(*min) + " items");
    }
    if (auto max = SchemaInt(schema, "maxItems"); max && size > *max) {
      Add(kCauseTooMany, path, Int(size),
          *max >= 0 ? "must have at most " + Int(*max) + " items" : std::string("has too many items"));
    }
  }

  void Enum(const Value* schema, const Value& data, const std::string& path) {
    const Value* values = SchemaMember(schema, "enum");
    if (values == nullptr || !values->IsArray() || values->Empty()) return;
    std::string supported;
    for (const auto& allowed : values->GetArray()) {
      if (EnumMatches(data, allowed)) return;
      if (!supported.empty()) supported += ", ";
      supported += GoQuote(allowed.IsString() ? std::string(StringOf(allowed))
                                              : json::Serialize(allowed));
    }
    Add(kCauseNotSupported, path, GoBadValue(data), "supported values: " + supported);
  }

  // CheckObject: min/maxProperties (which end the object's checks), undeclared keys, declared
  // properties, then required.
  void CheckObject(const Value* schema, const Value& data, const std::string& path, int depth) {
    const auto count = static_cast<int64_t>(data.MemberCount());
    if (auto min = SchemaInt(schema, "minProperties"); min && count < *min) {
      Add(kCauseInvalid, path, Int(count),
          path + " in body should have at least " + Int(*min) + " properties");
      return;
    }
    if (auto max = SchemaInt(schema, "maxProperties"); max && count > *max) {
      Add(kCauseTooMany, path, Int(count),
          *max >= 0 ? "must have at most " + Int(*max) + " items" : std::string("has too many items"));
      return;
    }
    const Value* props = SchemaMember(schema, "properties");
    const AdditionalProperties additional = GetAdditionalProperties(schema);
    for (const auto& m : data.GetObject()) {
      const std::string_view key = StringOf(m.name);
      if (SchemaMember(props, key) != nullptr) continue;
      if (additional.present && !additional.allows) {
        Add(kCauseInvalid, path, GoQuote(key),
            path + "." + std::string(key) + " in body is a forbidden property");
      } else if (additional.schema != nullptr) {
        Node(additional.schema, m.value, path + "." + std::string(key), depth + 1);
      }
    }
    if (props != nullptr && props->IsObject()) {
      for (const auto& prop : props->GetObject()) {
        auto it = data.FindMember(prop.name);
        if (it == data.MemberEnd()) continue;
        const std::string_view name = StringOf(prop.name);
        const std::string child = path.empty() ? std::string(name) : path + "." + std::string(name);
        Node(&prop.value, it->value, child, depth + 1);
      }
    }
    if (const Value* required = SchemaMember(schema, "required");
        required != nullptr && required->IsArray()) {
      for (const auto& r : required->GetArray()) {
        if (!r.IsString()) continue;
        if (!data.HasMember(r)) Add(kCauseRequired, path + "." + std::string(StringOf(r)), "", "");
      }
    }
  }
};

}  // namespace

std::vector<Cause> Validate(const rapidjson::Value& schema, const rapidjson::Value& object) {
  Validator v;
  v.Node(&schema, object, "", 0);
  return std::move(v.causes);
}

}  // namespace berth::kubesim::schema
