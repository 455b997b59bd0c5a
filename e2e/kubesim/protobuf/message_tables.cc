// e2e/kubesim/protobuf/message_tables.cc
#include "e2e/kubesim/protobuf/message_tables.h"

#include <algorithm>

namespace berth::kubesim::protobuf {

int FindRootMessage(std::string_view api_version, std::string_view kind) {
  for (std::size_t i = 0; i < kRootKindCount; ++i) {
    if (api_version == kRootKinds[i].api_version && kind == kRootKinds[i].kind) return kRootKinds[i].message;
  }
  return -1;
}

const FieldSpec* FindField(const MessageSpec& message, std::uint32_t number) {
  const FieldSpec* end = message.fields + message.field_count;
  const FieldSpec* it = std::lower_bound(message.fields, end, number,
                                         [](const FieldSpec& f, std::uint32_t n) { return f.number < n; });
  return it != end && it->number == number ? it : nullptr;
}

}  // namespace berth::kubesim::protobuf
