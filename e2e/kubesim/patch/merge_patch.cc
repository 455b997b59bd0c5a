// e2e/kubesim/patch/merge_patch.cc
#include "e2e/kubesim/patch/merge_patch.h"

namespace berth::kubesim::patch {
namespace {

using rapidjson::Value;

// MergeInto is RFC 7386 MergePatch(Target, Patch) for one level; it cannot fail.
void MergeInto(Value& target, const Value& patch, Allocator& alloc) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (auto& m : patch.GetObject()) {
    auto it = target.FindMember(m.name);
    if (m.value.IsNull()) {
      if (it != target.MemberEnd()) target.EraseMember(it);
      continue;
    }
    if (it == target.MemberEnd()) {
      // Merging into null (not copying) drops nulls nested in the new subtree, as the RFC says.
      Value fresh;
      MergeInto(fresh, m.value, alloc);
      target.AddMember(Value(m.name, alloc), std::move(fresh), alloc);
    } else {
      MergeInto(it->value, m.value, alloc);
    }
  }
}

}  // namespace

berth::Status ApplyMergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                              Allocator& alloc) {
  if (!patch.IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "Invalid JSON Patch");
  }
  MergeInto(target, patch, alloc);
  return {};
}

}  // namespace berth::kubesim::patch
