#include "clientgo-shim/base/json.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace berth::json {

Result<Document> Parse(std::string_view text) {
  Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                         rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

std::string Serialize(const Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const Value* Member(const Value& root, std::string_view key) {
  if (!root.IsObject()) return nullptr;
  auto it = root.FindMember(KeyOf(key));
  return it == root.MemberEnd() ? nullptr : &it->value;
}

const Value* Find(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* cur = &root;
  for (std::string_view key : path) {
    cur = Member(*cur, key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

Value* FindMutable(Value& root, std::initializer_list<std::string_view> path) {
  return const_cast<Value*>(Find(root, path));
}

std::string_view GetString(const Value& root, std::initializer_list<std::string_view> path,
                           std::string_view fallback) {
  const Value* v = Find(root, path);
  if (v == nullptr || !v->IsString()) return fallback;
  return std::string_view(v->GetString(), v->GetStringLength());
}

Value& EnsureObject(Value& root, std::string_view key, Document::AllocatorType& alloc) {
  auto it = root.FindMember(KeyOf(key));
  if (it == root.MemberEnd()) {
    root.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                   Value(rapidjson::kObjectType), alloc);
    return (root.MemberEnd() - 1)->value;
  }
  if (!it->value.IsObject()) it->value.SetObject();
  return it->value;
}

void SetMember(Value& root, std::string_view key, Value&& value, Document::AllocatorType& alloc) {
  auto it = root.FindMember(KeyOf(key));
  if (it != root.MemberEnd()) {
    it->value = std::move(value);
    return;
  }
  root.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                 std::move(value), alloc);
}

void SetString(Value& root, std::string_view key, std::string_view value,
               Document::AllocatorType& alloc) {
  SetMember(root, key, Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), alloc),
            alloc);
}

bool RemoveMember(Value& root, std::string_view key) {
  if (!root.IsObject()) return false;
  auto it = root.FindMember(KeyOf(key));
  if (it == root.MemberEnd()) return false;
  root.EraseMember(it);
  return true;
}

}  // namespace berth::json
