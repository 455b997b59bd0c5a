// e2e/kubesim/protobuf/message_tables.h
//
// Field tables of the protobuf messages of the built-in kinds (k8s.io/api generated.proto), the
// data that drives the hand-written decoder in decoder.h. The tables are generated from the
// descriptors compiled into kubectl (gen_message_tables.py -> message_tables_data.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace berth::kubesim::protobuf {

// FieldKind: the protobuf type of a field, which fixes its wire type and its JSON form.
enum class FieldKind : std::uint8_t {
  kString, kBytes, kInt32, kInt64, kUint32, kUint64, kSint32, kSint64, kBool, kDouble, kFloat,
  kMessage,  // `message` indexes kMessages
  kMap,      // map<string, value_kind>; a message value indexes kMessages through `message`
};

// Special: messages whose JSON form is not an object of their fields.
enum class Special : std::uint8_t {
  kNone,
  kTime,          // meta.v1.Time {1 seconds, 2 nanos} -> RFC 3339 seconds, zero time omitted
  kMicroTime,     // meta.v1.MicroTime -> RFC 3339 with microseconds
  kQuantity,      // resource.Quantity {1 string} -> the string
  kIntOrString,   // intstr.IntOrString {1 type, 2 intVal, 3 strVal} -> number or string
  kRawJson,       // FieldsV1 / RawExtension {1 raw} -> the embedded JSON value
};

struct FieldSpec {
  std::uint32_t number;
  const char* json_name;
  FieldKind kind;
  bool repeated;
  // keep_zero: a Go pointer scalar, on the wire only when set, so a zero value is kept.
  bool keep_zero;
  std::int16_t message;   // kMessage / kMap with a message value: index in kMessages; else -1
  FieldKind value_kind;   // kMap: the kind of the values
  // inlined: a Go struct embedded with `json:",inline"` (Probe's handler, Volume's volumeSource):
  // one message field on the wire whose fields sit flat in the parent's JSON object.
  bool inlined = false;
};

struct MessageSpec {
  const char* name;  // full proto name, e.g. "k8s.io.api.core.v1.Pod"
  Special special;
  const FieldSpec* fields;  // sorted by number
  std::size_t field_count;
};

// RootKind: a kind a protobuf request body may carry, by its apiVersion and kind.
struct RootKind {
  const char* api_version;
  const char* kind;
  std::int16_t message;
};

extern const MessageSpec kMessages[];
extern const std::size_t kMessageCount;
extern const RootKind kRootKinds[];
extern const std::size_t kRootKindCount;

// FindRootMessage returns the kMessages index of `kind` in `api_version`, or -1 when kubesim
// cannot decode that kind from protobuf.
int FindRootMessage(std::string_view api_version, std::string_view kind);

// FindField returns the field numbered `number` in `message`, or nullptr (an unknown field).
const FieldSpec* FindField(const MessageSpec& message, std::uint32_t number);

}  // namespace berth::kubesim::protobuf
