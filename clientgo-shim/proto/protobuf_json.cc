// The hand-written half of the protobuf -> JSON converter: the special messages and the checks
// the generated half (protobuf_json_gen.cc) calls.
#include "clientgo-shim/proto/protobuf_json_support.h"

namespace berth::shim::proto {
namespace {

// RFC 3339 spells years 0000-9999.
constexpr int64_t kMinRfc3339Seconds = -62167219200;  // 0000-01-01T00:00:00Z
constexpr int64_t kMaxRfc3339Seconds = 253402300799;  // 9999-12-31T23:59:59Z

Error Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, "protobuf: " + std::move(message)).error();
}

// Rfc3339Seconds: "YYYY-MM-DDTHH:MM:SSZ" for seconds within years 0000-9999 (the caller checks),
// without printf (it runs for every Time of every object).
rapidjson::Value Rfc3339Seconds(int64_t seconds, rapidjson::Document::AllocatorType& alloc) {
  int64_t days = seconds / 86400;
  int64_t secs = seconds % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  // Howard Hinnant's civil_from_days.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buf[20];
  auto put = [&buf](int at, int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) buf[at + i] = static_cast<char>('0' + v % 10);
  };
  put(0, year, 4);
  buf[4] = '-';
  put(5, month, 2);
  buf[7] = '-';
  put(8, day, 2);
  buf[10] = 'T';
  put(11, secs / 3600, 2);
  buf[13] = ':';
  put(14, secs / 60 % 60, 2);
  buf[16] = ':';
  put(17, secs % 60, 2);
  buf[19] = 'Z';
  return rapidjson::Value(buf, 20, alloc);
}

constexpr DeclaredField kTimeFields[] = {{1, "seconds"}, {2, "nanos"}};
constexpr DeclaredField kQuantityFields[] = {{1, "string"}};
constexpr DeclaredField kIntOrStringFields[] = {{1, "type"}, {2, "intVal"}, {3, "strVal"}};

}  // namespace

Status CheckUnknownSlow(const google::protobuf::UnknownFieldSet& unknown, std::span<const DeclaredField> declared,
                        const char* message) {
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    for (const DeclaredField& f : declared) {
      if (f.number == number) {
        return std::unexpected(Invalid(std::string(message) + "." + f.name + " (field " + std::to_string(number) +
                                       ") has the wrong wire type"));
      }
    }
  }
  return {};
}

Result<rapidjson::Value> TimeValue(const k8s::io::apimachinery::pkg::apis::meta::v1::Time& time, JsonContext& c) {
  if (auto st = CheckUnknown(time.unknown_fields(), kTimeFields, "Time"); !st) return std::unexpected(st.error());
  // metav1.Time marshals the zero time as no bytes, and JSON writes it as null.
  if (!time.has_seconds() && !time.has_nanos()) return rapidjson::Value(rapidjson::kNullType);
  const int64_t s = time.seconds();
  if (s < kMinRfc3339Seconds || s > kMaxRfc3339Seconds) {
    return std::unexpected(Invalid("Time seconds " + std::to_string(s) + " is outside years 0000-9999"));
  }
  // JSON carries whole seconds only (upstream's Time drops nanos when decoding protobuf).
  return Rfc3339Seconds(s, c.alloc);
}

Result<rapidjson::Value> QuantityValue(const k8s::io::apimachinery::pkg::api::resource::Quantity& q,
                                       JsonContext& c) {
  if (auto st = CheckUnknown(q.unknown_fields(), kQuantityFields, "Quantity"); !st) return std::unexpected(st.error());
  if (!q.has_string()) return std::unexpected(Invalid("Quantity has no string (field 1)"));
  return Str(q.string(), c);
}

Result<rapidjson::Value> IntOrStringValue(const k8s::io::apimachinery::pkg::util::intstr::IntOrString& v,
                                          JsonContext& c) {
  if (auto st = CheckUnknown(v.unknown_fields(), kIntOrStringFields, "IntOrString"); !st) {
    return std::unexpected(st.error());
  }
  if (v.type() == 0) return rapidjson::Value(v.intval());
  if (v.type() == 1) return Str(v.strval(), c);
  return std::unexpected(Invalid("IntOrString type " + std::to_string(v.type()) + " is neither 0 nor 1"));
}

}  // namespace berth::shim::proto
