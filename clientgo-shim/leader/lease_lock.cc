// clientgo-shim/leader/lease_lock.cc — see lease_lock.h.
#include "clientgo-shim/leader/lease_lock.h"

namespace berth::shim {
namespace {

std::optional<TimePoint> MicroTimeAt(const json::Value& spec, std::string_view key) {
  std::string_view text = json::GetString(spec, {key});
  if (text.empty()) return std::nullopt;
  auto t = ParseMicroTimestamp(text);
  if (!t) t = ParseTimestamp(text);  // tolerate a second-precision time written by others
  if (!t) return std::nullopt;
  return *t;
}

int IntAt(const json::Value& spec, std::string_view key) {
  const json::Value* v = json::Member(spec, key);
  return v != nullptr && v->IsInt() ? v->GetInt() : 0;
}

}  // namespace

LeaderElectionRecord RecordFromLease(const json::Value& lease) {
  LeaderElectionRecord r;
  const json::Value* spec = json::Find(lease, {"spec"});
  if (spec == nullptr || !spec->IsObject()) return r;
  r.holder_identity = std::string(json::GetString(*spec, {"holderIdentity"}));
  r.lease_duration_seconds = IntAt(*spec, "leaseDurationSeconds");
  r.acquire_time = MicroTimeAt(*spec, "acquireTime");
  r.renew_time = MicroTimeAt(*spec, "renewTime");
  r.lease_transitions = IntAt(*spec, "leaseTransitions");
  return r;
}

LeaseLock::LeaseLock(ObjectClient client, std::string ns, std::string name)
    : client_(std::move(client)), ns_(std::move(ns)), name_(std::move(name)) {}

ResourceRef LeaseLock::Ref() const {
  return ResourceRef{"coordination.k8s.io", "v1", "leases", ns_, name_};
}

json::Document LeaseLock::ToLease(const LeaderElectionRecord& r, const json::Value* base) const {
  json::Document d;
  if (base != nullptr) {
    d.CopyFrom(*base, d.GetAllocator());
  } else {
    d.SetObject();
    json::SetString(d, "apiVersion", "coordination.k8s.io/v1", d.GetAllocator());
    json::SetString(d, "kind", "Lease", d.GetAllocator());
    auto& meta = json::EnsureObject(d, "metadata", d.GetAllocator());
    json::SetString(meta, "name", name_, d.GetAllocator());
    json::SetString(meta, "namespace", ns_, d.GetAllocator());
  }
  auto& a = d.GetAllocator();
  json::Value spec(rapidjson::kObjectType);
  json::SetString(spec, "holderIdentity", r.holder_identity, a);
  json::SetMember(spec, "leaseDurationSeconds", json::Value(r.lease_duration_seconds), a);
  if (r.acquire_time) json::SetString(spec, "acquireTime", FormatMicroTimestamp(*r.acquire_time), a);
  if (r.renew_time) json::SetString(spec, "renewTime", FormatMicroTimestamp(*r.renew_time), a);
  json::SetMember(spec, "leaseTransitions", json::Value(r.lease_transitions), a);
  json::SetMember(d, "spec", std::move(spec), a);
  return d;
}

std::string LeaseLock::Uid() {
  std::lock_guard<std::mutex> l(mu_);
  if (!last_) return "";
  return std::string(json::GetString(*last_, {"metadata", "uid"}, ""));
}

Result<LeaderElectionRecord> LeaseLock::Get() {
  auto lease = client_.Get(Ref());
  if (!lease) return std::unexpected(lease.error());
  LeaderElectionRecord r = RecordFromLease(*lease);
  std::lock_guard<std::mutex> l(mu_);
  last_ = std::move(*lease);
  return r;
}

Status LeaseLock::Create(const LeaderElectionRecord& record) {
  auto created = client_.Create(Ref(), ToLease(record, nullptr));
  if (!created) return std::unexpected(created.error());
  std::lock_guard<std::mutex> l(mu_);
  last_ = std::move(*created);
  return {};
}

Status LeaseLock::Update(const LeaderElectionRecord& record) {
  json::Document lease;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!last_) {
      return MakeError(ErrorCode::kInternal,
                       "lease " + Describe() + " not initialized: Get or Create it first");
    }
    lease = ToLease(record, &*last_);
  }
  auto updated = client_.Update(Ref(), lease);
  if (!updated) return std::unexpected(updated.error());
  std::lock_guard<std::mutex> l(mu_);
  last_ = std::move(*updated);
  return {};
}

}  // namespace berth::shim
