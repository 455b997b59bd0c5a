// controllers/provisioning/externalgrpc/scale_up.h
//
// best-effort-atomic-scale-up wired to a Cluster Autoscaler externalgrpc cloud provider:
// GrpcNodeGroupPort implements reconcile's NodeGroupPort with ExternalGrpcClient and the Node
// informer (which group a Node belongs to is NodeGroupForNode, cached per node name and
// providerID until the next Refresh, "not managed" never cached), and SetupExternalGrpcScaleUp
// plugs an AtomicScaleUpProvisioner into the ProvisioningRequest controller for the
// best-effort-atomic-scale-up class, with the metric berth_nodegroup_scaleup_total{group,result}.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clientgo-shim/manager/manager.h"
#include "controllers/provisioning/externalgrpc/client.h"
#include "controllers/provisioning/provisioning_controller.h"
#include "reconcile/provisioning/scale_up.h"

namespace berth::controllers::externalgrpc {

class GrpcNodeGroupPort : public reconcile::provisioning::NodeGroupPort {
 public:
  GrpcNodeGroupPort(std::unique_ptr<ExternalGrpcClient> client, std::shared_ptr<shim::SharedInformer> nodes);

  std::expected<std::vector<reconcile::provisioning::NodeGroupInfo>, std::string> NodeGroups() override;
  std::expected<int32_t, std::string> TargetSize(const std::string& group) override;
  std::expected<void, IncreaseError> IncreaseSize(const std::string& group, int32_t delta) override;
  std::expected<void, std::string> DecreaseTargetSize(const std::string& group, int32_t delta) override;
  std::expected<void, std::string> DeleteNodes(const std::string& group,
                                               const std::vector<reconcile::provisioning::RegisteredNode>& nodes) override;
  std::expected<std::vector<reconcile::provisioning::RegisteredNode>, std::string> RegisteredNodes(
      const std::string& group) override;

 private:
  pb::ExternalGrpcNode NodeMessage(const std::string& name) const;
  // GroupOf: the node's group id ("" = not managed), through the NodeGroupForNode cache.
  std::expected<std::string, std::string> GroupOf(const std::string& name, const std::string& provider_id);

  std::unique_ptr<ExternalGrpcClient> client_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  // NodeGroupForNode's non-empty answers by node name + "\n" + providerID, until the next
  // Refresh (upstream's client caching); entries of nodes gone from the cache are dropped.
  std::map<std::string, std::string> group_of_;
};

struct ExternalGrpcScaleUpOptions {
  CloudConfig cloud;
  reconcile::provisioning::AtomicScaleUpOptions scale_up;
};

// ExternalGrpcScaleUp owns the client, the port and the provisioner (they live as long as the
// controller they are plugged into).
struct ExternalGrpcScaleUp {
  std::unique_ptr<GrpcNodeGroupPort> port;
  std::unique_ptr<reconcile::provisioning::AtomicScaleUpProvisioner> provisioner;
};

Result<std::unique_ptr<ExternalGrpcScaleUp>> SetupExternalGrpcScaleUp(shim::Manager& manager,
                                                                      ProvisioningRequestController& controller,
                                                                      const ExternalGrpcScaleUpOptions& options);

}  // namespace berth::controllers::externalgrpc
