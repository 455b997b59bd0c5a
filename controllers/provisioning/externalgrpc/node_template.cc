// controllers/provisioning/externalgrpc/node_template.cc
#include "controllers/provisioning/externalgrpc/node_template.h"

#include "clientgo-shim/api/quantity.h"
#include "proto/k8s_node.pb.h"

namespace berth::controllers::externalgrpc {

Result<reconcile::placement::NodeView> DecodeTemplateNode(std::string_view bytes) {
  berth::k8s::Node node;
  if (!node.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return MakeError(ErrorCode::kInvalidArgument, "template node: not a core/v1 Node in protobuf");
  }
  reconcile::placement::NodeView view;
  view.name = node.metadata().name();
  for (const auto& [k, v] : node.metadata().labels()) view.labels[k] = v;
  for (const auto& t : node.spec().taints()) view.taints.push_back({t.key(), t.value(), t.effect()});
  view.unschedulable = node.spec().unschedulable();
  const auto& resources = node.status().allocatable().empty() ? node.status().capacity() : node.status().allocatable();
  for (const auto& [name, quantity] : resources) {
    auto q = shim::Quantity::Parse(quantity.string());
    if (!q) {
      return MakeError(ErrorCode::kInvalidArgument, "template node: status.allocatable[" + name + "]: \"" +
                                                        quantity.string() + "\": " + q.error().message);
    }
    view.allocatable[name] = q->MilliValue();
  }
  for (const char* required : {"cpu", "memory"}) {
    if (!view.allocatable.contains(required)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       std::string("template node: no ") + required + " in status.allocatable or status.capacity");
    }
  }
  return view;
}

std::string EncodeTemplateNode(const reconcile::placement::NodeView& view, std::string_view provider_id) {
  berth::k8s::Node node;
  node.mutable_metadata()->set_name(view.name);
  for (const auto& [k, v] : view.labels) (*node.mutable_metadata()->mutable_labels())[k] = v;
  if (!provider_id.empty()) node.mutable_spec()->set_providerid(std::string(provider_id));
  for (const auto& t : view.taints) {
    auto* taint = node.mutable_spec()->add_taints();
    taint->set_key(t.key);
    taint->set_value(t.value);
    taint->set_effect(t.effect);
  }
  if (view.unschedulable) node.mutable_spec()->set_unschedulable(true);
  for (const auto& [name, milli] : view.allocatable) {
    // Milli-units back to a quantity: whole units when exact ("4", "110"), else "<n>m".
    const std::string text = milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
    (*node.mutable_status()->mutable_allocatable())[name].set_string(text);
    (*node.mutable_status()->mutable_capacity())[name].set_string(text);
  }
  return node.SerializeAsString();
}

}  // namespace berth::controllers::externalgrpc
