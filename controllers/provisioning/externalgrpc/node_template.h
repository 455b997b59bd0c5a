// controllers/provisioning/externalgrpc/node_template.h
//
// NodeGroupTemplateNodeInfoResponse.nodeBytes: a core/v1 Node in k8s.io/api protobuf (Go's
// v1.Node#Marshal, no k8s\0 envelope), read with proto/k8s_node.proto into the NodeView the
// bin-packing needs: labels, taints, unschedulable, allocatable (capacity where allocatable is
// empty, as a kubelet would report it).
#pragma once

#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/types.h"

namespace berth::controllers::externalgrpc {

// DecodeTemplateNode. Errors (kInvalidArgument): bytes that are not a Node, a quantity that
// does not parse (naming the resource), no cpu or no memory in the node's resources.
Result<reconcile::placement::NodeView> DecodeTemplateNode(std::string_view bytes);

// EncodeTemplateNode: the inverse, for providers (the e2e provider) and tests.
std::string EncodeTemplateNode(const reconcile::placement::NodeView& node, std::string_view provider_id = {});

}  // namespace berth::controllers::externalgrpc
