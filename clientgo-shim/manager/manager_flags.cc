// clientgo-shim/manager/manager_flags.cc — see manager_flags.h.
#include "clientgo-shim/manager/manager_flags.h"

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/base/go_bool.h"
#include "clientgo-shim/proto/protobuf_codec.h"

namespace berth::shim {

Result<std::vector<std::string>> ApplyManagerFlags(const std::vector<std::string>& args,
                                                   ManagerOptions& options) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string name = a, value;
    bool has_value = false;
    if (const size_t eq = a.find('='); a.starts_with("--") && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    std::string* target = nullptr;
    if (name == "--kube-api-content-type") target = &options.informer_options.content_type;
    else if (name == "--metrics-bind-address") target = &options.metrics_bind_address;
    else if (name == "--health-probe-bind-address") target = &options.health_probe_bind_address;
    else if (name == "--leader-election-namespace") target = &options.leader_election_namespace;
    else if (name == "--leader-election-id") target = &options.leader_election_id;
    else if (name == "--metrics-cert-dir") target = &options.metrics_cert_dir;
    if (target != nullptr) {
      if (!has_value) {
        if (i + 1 >= args.size()) {
          return MakeError(ErrorCode::kInvalidArgument, "flag needs an argument: " + name);
        }
        value = args[++i];
      }
      if (target == &options.informer_options.content_type && value != kJsonContentType &&
          value != proto::kProtobufContentType) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid value \"" + value + "\" for --kube-api-content-type (" +
                             std::string(proto::kProtobufContentType) + " or " + kJsonContentType + ")");
      }
      *target = value;
      continue;
    }
    std::chrono::milliseconds* duration = nullptr;
    if (name == "--leader-elect-lease-duration") duration = &options.lease_duration;
    else if (name == "--leader-elect-renew-deadline") duration = &options.renew_deadline;
    else if (name == "--leader-elect-retry-period") duration = &options.retry_period;
    if (duration != nullptr) {
      if (!has_value) {
        if (i + 1 >= args.size()) {
          return MakeError(ErrorCode::kInvalidArgument, "flag needs an argument: " + name);
        }
        value = args[++i];
      }
      auto d = ParseDuration(value);
      if (!d || d->count() <= 0) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid duration \"" + value + "\" for " + name + ": " +
                             (d ? std::string("must be positive") : d.error().message));
      }
      // Below a millisecond the elector's arithmetic has no meaning; round up, never to zero.
      *duration = std::max(std::chrono::milliseconds(1),
                           std::chrono::ceil<std::chrono::milliseconds>(*d));
      continue;
    }
    if (name == "--leader-elect" || name == "--metrics-secure") {
      bool& flag = name == "--leader-elect" ? options.leader_election : options.metrics_secure;
      // Go's flag package: named alone is true, `=` takes strconv.ParseBool's forms.
      if (!has_value) {
        flag = true;
      } else if (auto parsed = ParseGoBool(value)) {
        flag = *parsed;
      } else {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid boolean value \"" + value + "\" for " + name);
      }
      continue;
    }
    rest.push_back(a);
  }
  return rest;
}

std::string ManagerFlagsUsage() {
  return "  --metrics-bind-address string        The address the metrics endpoint binds to. "
         "Use \"0\" to disable. (default \":8080\")\n"
         "  --health-probe-bind-address string   The address the probe endpoint binds to. "
         "(default \":8081\")\n"
         "  --metrics-secure                     Serve metrics over HTTPS, each scrape authorised by\n"
         "                                       TokenReview and SubjectAccessReview (default false)\n"
         "  --metrics-cert-dir string            With --metrics-secure: tls.crt and tls.key to serve\n"
         "                                       (default: a self-signed certificate made at start)\n"
         "  --leader-elect                       Enable leader election for controller manager. "
         "(default false)\n"
         "  --leader-election-namespace string   Namespace of the leader election Lease "
         "(default: the service-account namespace, else \"default\")\n"
         "  --leader-election-id string          Name of the leader election Lease\n"
         "  --leader-elect-lease-duration duration\n"
         "                                       How long a standby waits after the last observed\n"
         "                                       renewal before taking the Lease (default 15s)\n"
         "  --leader-elect-renew-deadline duration\n"
         "                                       How long the leader may write after its last\n"
         "                                       successful renewal (default 10s)\n"
         "  --leader-elect-retry-period duration\n"
         "                                       Interval between Lease attempts (default 2s)\n"
         "  --kube-api-content-type string       Content type of the informers' requests for built-in\n"
         "                                       kinds berth decodes from protobuf (Pods, Nodes); JSON\n"
         "                                       stays the fallback and the only type for the rest;\n"
         "                                       \"application/vnd.kubernetes.protobuf\" turns\n"
         "                                       protobuf on (default \"application/json\")\n";
}

}  // namespace berth::shim
