#include "clientgo-shim/proto/protobuf_json.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/unknown_field_set.h>

#include "proto/k8s/core_v1.pb.h"
#include "proto/k8s/json_options.pb.h"
#include "proto/k8s/meta_v1.pb.h"

namespace berth::shim::proto {
namespace {

namespace pb = google::protobuf;
using rapidjson::Value;

// RFC 3339 spells years 0000-9999.
constexpr int64_t kMinRfc3339Seconds = -62167219200;  // 0000-01-01T00:00:00Z
constexpr int64_t kMaxRfc3339Seconds = 253402300799;  // 9999-12-31T23:59:59Z

enum class Kind { kString, kBytes, kInt32, kInt64, kUint32, kUint64, kBool, kDouble, kMessage,
                  kTime, kQuantity, kIntOrString, kMap };

struct MessagePlan;

// Typed access to the map fields proto/k8s declares: reflection can only read a map as a repeated
// field of entries, which makes libprotobuf build (allocate) that repeated view on every read.
using StringMap = pb::Map<std::string, std::string>;
using QuantityMap = pb::Map<std::string, k8s::io::apimachinery::pkg::api::resource::Quantity>;
using StringMapGetter = const StringMap& (*)(const pb::Message&);
using QuantityMapGetter = const QuantityMap& (*)(const pb::Message&);

template <class M, const StringMap& (M::*Get)() const>
const StringMap& StringMapOf(const pb::Message& m) {
  return (static_cast<const M&>(m).*Get)();
}
template <class M, const QuantityMap& (M::*Get)() const>
const QuantityMap& QuantityMapOf(const pb::Message& m) {
  return (static_cast<const M&>(m).*Get)();
}

namespace core = k8s::io::api::core::v1;
namespace meta = k8s::io::apimachinery::pkg::apis::meta::v1;

StringMapGetter StringMapGetterFor(const std::string& field) {
  if (field == "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.labels") return StringMapOf<meta::ObjectMeta, &meta::ObjectMeta::labels>;
  if (field == "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.annotations") return StringMapOf<meta::ObjectMeta, &meta::ObjectMeta::annotations>;
  if (field == "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector.matchLabels") return StringMapOf<meta::LabelSelector, &meta::LabelSelector::matchlabels>;
  if (field == "k8s.io.api.core.v1.PodSpec.nodeSelector") return StringMapOf<core::PodSpec, &core::PodSpec::nodeselector>;
  return nullptr;
}

QuantityMapGetter QuantityMapGetterFor(const std::string& field) {
  if (field == "k8s.io.api.core.v1.ResourceRequirements.limits") return QuantityMapOf<core::ResourceRequirements, &core::ResourceRequirements::limits>;
  if (field == "k8s.io.api.core.v1.ResourceRequirements.requests") return QuantityMapOf<core::ResourceRequirements, &core::ResourceRequirements::requests>;
  if (field == "k8s.io.api.core.v1.PodSpec.overhead") return QuantityMapOf<core::PodSpec, &core::PodSpec::overhead>;
  if (field == "k8s.io.api.core.v1.NodeStatus.capacity") return QuantityMapOf<core::NodeStatus, &core::NodeStatus::capacity>;
  if (field == "k8s.io.api.core.v1.NodeStatus.allocatable") return QuantityMapOf<core::NodeStatus, &core::NodeStatus::allocatable>;
  return nullptr;
}

struct FieldPlan {
  const pb::FieldDescriptor* field = nullptr;
  Kind kind = Kind::kString;
  bool repeated = false;
  bool keep_zero = false;
  bool inline_fields = false;
  const MessagePlan* message = nullptr;  // kMessage; kMap: the value's plan (or null)
  const pb::FieldDescriptor* map_key = nullptr;
  const pb::FieldDescriptor* map_value = nullptr;
  Kind map_value_kind = Kind::kString;
  StringMapGetter string_map = nullptr;
  QuantityMapGetter quantity_map = nullptr;
};

struct MessagePlan {
  std::vector<FieldPlan> fields;
  std::vector<bool> declared;  // by field number: a number this message declares
};

Kind SpecialKind(const pb::Descriptor* d) {
  const std::string& name = d->full_name();
  if (name == "k8s.io.apimachinery.pkg.apis.meta.v1.Time") return Kind::kTime;
  if (name == "k8s.io.apimachinery.pkg.api.resource.Quantity") return Kind::kQuantity;
  if (name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") return Kind::kIntOrString;
  return Kind::kMessage;
}

Kind ScalarKind(const pb::FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: return Kind::kInt32;
    case pb::FieldDescriptor::CPPTYPE_INT64: return Kind::kInt64;
    case pb::FieldDescriptor::CPPTYPE_UINT32: return Kind::kUint32;
    case pb::FieldDescriptor::CPPTYPE_UINT64: return Kind::kUint64;
    case pb::FieldDescriptor::CPPTYPE_BOOL: return Kind::kBool;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT: return Kind::kDouble;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return f->type() == pb::FieldDescriptor::TYPE_BYTES ? Kind::kBytes : Kind::kString;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: return SpecialKind(f->message_type());
    default: return Kind::kString;  // enums: none in proto/k8s
  }
}

// Plans: one per message type, built on first use of a type and never freed (descriptors are
// static too). The lock is taken per ToJson call, not per field.
class Plans {
 public:
  const MessagePlan& For(const pb::Descriptor* d) {
    std::lock_guard lock(mu_);
    return BuildLocked(d);
  }

 private:
  const MessagePlan& BuildLocked(const pb::Descriptor* d) {
    if (auto it = plans_.find(d); it != plans_.end()) return *it->second;
    auto owned = std::make_unique<MessagePlan>();
    MessagePlan& plan = *owned;
    plans_.emplace(d, std::move(owned));  // before recursing: a type may reach itself
    for (int i = 0; i < d->field_count(); ++i) {
      const pb::FieldDescriptor* f = d->field(i);
      FieldPlan fp;
      fp.field = f;
      fp.repeated = f->is_repeated();
      fp.keep_zero = f->options().GetExtension(berth::kubeproto::keep_zero);
      fp.inline_fields = f->options().GetExtension(berth::kubeproto::json_inline);
      if (f->is_map()) {
        fp.kind = Kind::kMap;
        fp.map_key = f->message_type()->map_key();
        fp.map_value = f->message_type()->map_value();
        fp.map_value_kind = ScalarKind(fp.map_value);
        fp.string_map = StringMapGetterFor(f->full_name());
        fp.quantity_map = QuantityMapGetterFor(f->full_name());
        if (fp.map_value_kind == Kind::kMessage) {
          fp.message = &BuildLocked(fp.map_value->message_type());
        }
      } else {
        fp.kind = ScalarKind(f);
        if (fp.kind == Kind::kMessage) fp.message = &BuildLocked(f->message_type());
      }
      plan.fields.push_back(fp);
      if (plan.declared.size() <= static_cast<size_t>(f->number())) plan.declared.resize(f->number() + 1);
      plan.declared[f->number()] = true;
    }
    // Declaration order is the JSON order of Go's structs; upstream declares by field number.
    std::sort(plan.fields.begin(), plan.fields.end(),
              [](const FieldPlan& a, const FieldPlan& b) { return a.field->number() < b.field->number(); });
    return plan;
  }

  std::mutex mu_;
  std::unordered_map<const pb::Descriptor*, std::unique_ptr<MessagePlan>> plans_;
};

Plans& AllPlans() {
  static Plans* plans = new Plans();  // leaked on purpose: used until exit
  return *plans;
}

Error Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, "protobuf: " + std::move(message)).error();
}

Value StringValue(const std::string& s, rapidjson::Document::AllocatorType& alloc) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

// Rfc3339Seconds: "YYYY-MM-DDTHH:MM:SSZ" for seconds within years 0000-9999 (the caller checks),
// without printf (it runs for every Time of every object).
Value Rfc3339Seconds(int64_t seconds, rapidjson::Document::AllocatorType& alloc) {
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
  return Value(buf, 20, alloc);
}

Value NameOf(const pb::FieldDescriptor* f) {
  const std::string& n = f->name();
  return Value(rapidjson::StringRef(n.data(), n.size()));
}

// CheckUnknown: libprotobuf keeps a declared field sent with another wire type as unknown.
Status CheckUnknown(const pb::Message& m, const pb::Reflection& refl, const std::vector<bool>* declared) {
  const pb::UnknownFieldSet& unknown = refl.GetUnknownFields(m);
  if (unknown.empty()) return {};
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    if (declared != nullptr &&
        (static_cast<size_t>(number) >= declared->size() || !(*declared)[number])) {
      continue;
    }
    if (const pb::FieldDescriptor* f = m.GetDescriptor()->FindFieldByNumber(number)) {
      return std::unexpected(Invalid(m.GetDescriptor()->name() + "." + f->name() + " (field " +
                                     std::to_string(number) + ") has the wrong wire type"));
    }
  }
  return {};
}

Status Convert(const pb::Message& m, const MessagePlan& plan, Value& out,
               rapidjson::Document::AllocatorType& alloc);

// Special messages (Time, Quantity, IntOrString) as their JSON value.
Result<Value> SpecialValue(Kind kind, const pb::Message& m, rapidjson::Document::AllocatorType& alloc) {
  const pb::Reflection& refl = *m.GetReflection();
  const pb::Descriptor* d = m.GetDescriptor();
  if (auto st = CheckUnknown(m, refl, nullptr); !st) return std::unexpected(st.error());
  switch (kind) {
    case Kind::kTime: {
      const pb::FieldDescriptor* seconds = d->FindFieldByNumber(1);
      const pb::FieldDescriptor* nanos = d->FindFieldByNumber(2);
      // metav1.Time marshals the zero time as no bytes, and JSON writes it as null.
      if (!refl.HasField(m, seconds) && !refl.HasField(m, nanos)) return Value(rapidjson::kNullType);
      const int64_t s = refl.GetInt64(m, seconds);
      if (s < kMinRfc3339Seconds || s > kMaxRfc3339Seconds) {
        return std::unexpected(Invalid("Time seconds " + std::to_string(s) + " is outside years 0000-9999"));
      }
      // JSON carries whole seconds only (upstream's Time drops nanos when decoding protobuf).
      return Rfc3339Seconds(s, alloc);
    }
    case Kind::kQuantity: {
      const pb::FieldDescriptor* text = d->FindFieldByNumber(1);
      if (!refl.HasField(m, text)) return std::unexpected(Invalid("Quantity has no string (field 1)"));
      std::string scratch;
      return StringValue(refl.GetStringReference(m, text, &scratch), alloc);
    }
    case Kind::kIntOrString: {
      const int64_t type = refl.GetInt64(m, d->FindFieldByNumber(1));
      if (type == 0) return Value(refl.GetInt32(m, d->FindFieldByNumber(2)));
      if (type == 1) {
        std::string scratch;
        return StringValue(refl.GetStringReference(m, d->FindFieldByNumber(3), &scratch), alloc);
      }
      return std::unexpected(Invalid("IntOrString type " + std::to_string(type) + " is neither 0 nor 1"));
    }
    default:
      return std::unexpected(Invalid("internal: not a special message"));
  }
}

// ElementValue: one value of kind `kind` from a message's field (or from a map entry).
Result<Value> MessageValue(Kind kind, const MessagePlan* plan, const pb::Message& sub,
                           rapidjson::Document::AllocatorType& alloc) {
  if (kind != Kind::kMessage) return SpecialValue(kind, sub, alloc);
  Value v(rapidjson::kObjectType);
  if (auto st = Convert(sub, *plan, v, alloc); !st) return std::unexpected(st.error());
  return v;
}

Value RepeatedScalar(Kind kind, const pb::Message& m, const pb::Reflection& refl,
                     const pb::FieldDescriptor* f, int i, rapidjson::Document::AllocatorType& alloc) {
  switch (kind) {
    case Kind::kInt32: return Value(refl.GetRepeatedInt32(m, f, i));
    case Kind::kInt64: return Value(refl.GetRepeatedInt64(m, f, i));
    case Kind::kUint32: return Value(refl.GetRepeatedUInt32(m, f, i));
    case Kind::kUint64: return Value(refl.GetRepeatedUInt64(m, f, i));
    case Kind::kBool: return Value(refl.GetRepeatedBool(m, f, i));
    case Kind::kDouble: return Value(refl.GetRepeatedDouble(m, f, i));
    default: {
      std::string scratch;
      return StringValue(refl.GetRepeatedStringReference(m, f, i, &scratch), alloc);
    }
  }
}

// SingularScalar: the field's JSON value, or null when omitempty drops it.
std::optional<Value> SingularScalar(const FieldPlan& fp, const pb::Message& m, const pb::Reflection& refl,
                                    rapidjson::Document::AllocatorType& alloc) {
  const pb::FieldDescriptor* f = fp.field;
  const bool keep = fp.keep_zero;
  switch (fp.kind) {
    case Kind::kInt32: {
      const int32_t v = refl.GetInt32(m, f);
      return v != 0 || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    case Kind::kInt64: {
      const int64_t v = refl.GetInt64(m, f);
      return v != 0 || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    case Kind::kUint32: {
      const uint32_t v = refl.GetUInt32(m, f);
      return v != 0 || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    case Kind::kUint64: {
      const uint64_t v = refl.GetUInt64(m, f);
      return v != 0 || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    case Kind::kBool: {
      const bool v = refl.GetBool(m, f);
      return v || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    case Kind::kDouble: {
      const double v = refl.GetDouble(m, f);
      return v != 0 || keep ? std::optional<Value>(Value(v)) : std::nullopt;
    }
    default: {
      std::string scratch;
      const std::string& s = refl.GetStringReference(m, f, &scratch);
      return !s.empty() || keep ? std::optional<Value>(StringValue(s, alloc)) : std::nullopt;
    }
  }
}

// SortedEntries: a typed map's entries by key (Go writes map keys sorted; so do we, and the
// cached form does not depend on hash order).
template <class MapT>
std::vector<const typename MapT::value_type*> SortedEntries(const MapT& map) {
  std::vector<const typename MapT::value_type*> entries;
  entries.reserve(map.size());
  for (const auto& e : map) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  return entries;
}

Status ConvertTypedMap(const FieldPlan& fp, const pb::Message& m, Value& out,
                       rapidjson::Document::AllocatorType& alloc) {
  Value object(rapidjson::kObjectType);
  if (fp.string_map != nullptr) {
    const StringMap& map = fp.string_map(m);
    if (map.empty()) return {};
    for (const auto* e : SortedEntries(map)) {
      object.AddMember(StringValue(e->first, alloc), StringValue(e->second, alloc), alloc);
    }
  } else {
    const QuantityMap& map = fp.quantity_map(m);
    if (map.empty()) return {};
    for (const auto* e : SortedEntries(map)) {
      if (!e->second.has_string()) return std::unexpected(Invalid("Quantity has no string (field 1)"));
      object.AddMember(StringValue(e->first, alloc), StringValue(e->second.string(), alloc), alloc);
    }
  }
  out.AddMember(NameOf(fp.field), object, alloc);
  return {};
}

Status ConvertMap(const FieldPlan& fp, const pb::Message& m, const pb::Reflection& refl, Value& out,
                  rapidjson::Document::AllocatorType& alloc) {
  if (fp.string_map != nullptr || fp.quantity_map != nullptr) return ConvertTypedMap(fp, m, out, alloc);
  const int n = refl.FieldSize(m, fp.field);
  if (n == 0) return {};
  // Go writes map keys sorted; so do we (and the cached form does not depend on hash order).
  std::vector<std::pair<std::string_view, const pb::Message*>> entries;
  entries.reserve(n);
  std::string scratch;
  for (int i = 0; i < n; ++i) {
    const pb::Message& entry = refl.GetRepeatedMessage(m, fp.field, i);
    const pb::Reflection& er = *entry.GetReflection();
    if (auto st = CheckUnknown(entry, er, nullptr); !st) return st;
    const std::string& key = er.GetStringReference(entry, fp.map_key, &scratch);
    entries.emplace_back(std::string_view(key), &entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Value object(rapidjson::kObjectType);
  for (size_t i = 0; i < entries.size(); ++i) {
    // A key repeated on the wire: the last one wins, as in Go's decoder.
    if (i + 1 < entries.size() && entries[i + 1].first == entries[i].first) continue;
    const pb::Message& entry = *entries[i].second;
    const pb::Reflection& er = *entry.GetReflection();
    Value key(entries[i].first.data(), static_cast<rapidjson::SizeType>(entries[i].first.size()), alloc);
    if (fp.map_value_kind == Kind::kString) {
      object.AddMember(key, StringValue(er.GetStringReference(entry, fp.map_value, &scratch), alloc), alloc);
    } else if (fp.map_value_kind == Kind::kMessage || fp.map_value_kind == Kind::kTime ||
               fp.map_value_kind == Kind::kQuantity || fp.map_value_kind == Kind::kIntOrString) {
      auto v = MessageValue(fp.map_value_kind, fp.message, er.GetMessage(entry, fp.map_value), alloc);
      if (!v) return std::unexpected(v.error());
      object.AddMember(key, *v, alloc);
    } else {
      return std::unexpected(Invalid("internal: unsupported map value in " + fp.field->full_name()));
    }
  }
  out.AddMember(NameOf(fp.field), object, alloc);
  return {};
}

Status Convert(const pb::Message& m, const MessagePlan& plan, Value& out,
               rapidjson::Document::AllocatorType& alloc) {
  const pb::Reflection& refl = *m.GetReflection();
  if (auto st = CheckUnknown(m, refl, &plan.declared); !st) return st;
  for (const FieldPlan& fp : plan.fields) {
    if (fp.kind == Kind::kMap) {
      if (auto st = ConvertMap(fp, m, refl, out, alloc); !st) return st;
      continue;
    }
    if (fp.repeated) {
      const int n = refl.FieldSize(m, fp.field);
      if (n == 0) continue;
      Value array(rapidjson::kArrayType);
      array.Reserve(static_cast<rapidjson::SizeType>(n), alloc);
      for (int i = 0; i < n; ++i) {
        if (fp.kind == Kind::kMessage || fp.kind == Kind::kTime || fp.kind == Kind::kQuantity ||
            fp.kind == Kind::kIntOrString) {
          auto v = MessageValue(fp.kind, fp.message, refl.GetRepeatedMessage(m, fp.field, i), alloc);
          if (!v) return std::unexpected(v.error());
          array.PushBack(*v, alloc);
        } else {
          array.PushBack(RepeatedScalar(fp.kind, m, refl, fp.field, i, alloc), alloc);
        }
      }
      out.AddMember(NameOf(fp.field), array, alloc);
      continue;
    }
    if (!refl.HasField(m, fp.field)) continue;
    if (fp.kind == Kind::kMessage && fp.inline_fields) {
      if (auto st = Convert(refl.GetMessage(m, fp.field), *fp.message, out, alloc); !st) return st;
    } else if (fp.kind == Kind::kMessage || fp.kind == Kind::kTime || fp.kind == Kind::kQuantity ||
               fp.kind == Kind::kIntOrString) {
      auto v = MessageValue(fp.kind, fp.message, refl.GetMessage(m, fp.field), alloc);
      if (!v) return std::unexpected(v.error());
      out.AddMember(NameOf(fp.field), *v, alloc);
    } else if (auto v = SingularScalar(fp, m, refl, alloc)) {
      out.AddMember(NameOf(fp.field), *v, alloc);
    }
  }
  return {};
}

}  // namespace

Status ToJson(const google::protobuf::Message& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc) {
  out.SetObject();
  const Kind special = SpecialKind(message.GetDescriptor());
  if (special != Kind::kMessage) {
    return std::unexpected(Invalid("internal: " + message.GetDescriptor()->full_name() +
                                   " is not an object"));
  }
  return Convert(message, AllPlans().For(message.GetDescriptor()), out, alloc);
}

}  // namespace berth::shim::proto
