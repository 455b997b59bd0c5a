// unit-tests/clientgo-shim/proto/pod_fixtures.h
//
// A Pod and a Node as protobuf bytes built by hand from upstream's field numbers
// (k8s.io/api/core/v1 and apimachinery generated.proto), and the JSON kube-apiserver writes for
// the same objects.
#pragma once

#include <string>

#include "wire_builder.h"

namespace berth::shim::proto::testing {

constexpr int64_t kCreated = 1714564800;  // 2024-05-01T12:00:00Z

inline Wire Time(int64_t seconds) { return Wire().Varint(1, static_cast<uint64_t>(seconds)); }

// PodWire: ObjectMeta{1 name, 2 generateName, 3 namespace, 5 uid, 6 resourceVersion,
// 8 creationTimestamp, 11 labels, 12 annotations, 13 ownerReferences}, PodSpec, PodStatus.
inline Wire PodWire(const std::string& name = "web-0", const std::string& rv = "17") {
  Wire meta;
  meta.Bytes(1, name).Bytes(2, "web-").Bytes(3, "default").Bytes(5, "uid-" + name).Bytes(6, rv)
      .Msg(8, Time(kCreated))
      .StringMapEntry(11, "app", "web")
      .StringMapEntry(12, "kubectl.kubernetes.io/last-applied-configuration", "{}")
      .StringMapEntry(12, "note", "x")
      // OwnerReference{1 kind, 3 name, 4 uid, 5 apiVersion, 6 controller, 7 blockOwnerDeletion}
      .Msg(13, Wire().Bytes(1, "ReplicaSet").Bytes(3, "web").Bytes(4, "rs-uid").Bytes(5, "apps/v1")
                   .Varint(6, 1).Varint(7, 1));
  // Container{1 name, 2 image, 6 ports{2 hostPort, 3 containerPort, 4 protocol},
  // 8 resources{1 limits, 2 requests}}
  Wire container;
  container.Bytes(1, "app").Bytes(2, "nginx")
      .Msg(6, Wire().Varint(2, 8080).Varint(3, 80).Bytes(4, "TCP"))
      .Msg(8, Wire().QuantityMapEntry(1, "cpu", "1")
                  .QuantityMapEntry(2, "cpu", "100m").QuantityMapEntry(2, "memory", "64Mi"));
  // Affinity{1 nodeAffinity{1 required{1 terms{1 matchExpressions{1 key, 2 operator, 3 values}}}},
  // 3 podAntiAffinity{2 preferred{1 weight, 2 podAffinityTerm{1 labelSelector{1 matchLabels},
  // 3 topologyKey}}}}
  Wire affinity;
  affinity
      .Msg(1, Wire().Msg(1, Wire().Msg(1, Wire().Msg(1, Wire().Bytes(1, "zone").Bytes(2, "In")
                                                        .Bytes(3, "a").Bytes(3, "b")))))
      .Msg(3, Wire().Msg(2, Wire().Varint(1, 50).Msg(2, Wire().Msg(1, Wire().StringMapEntry(1, "app", "web"))
                                                             .Bytes(3, "kubernetes.io/hostname"))));
  Wire spec;
  // Volume{1 name, 2 VolumeSource{1 hostPath{1 path}, 2 emptyDir{}}}
  spec.Msg(1, Wire().Bytes(1, "scratch").Msg(2, Wire().Msg(2, Wire())))
      .Msg(1, Wire().Bytes(1, "logs").Msg(2, Wire().Msg(1, Wire().Bytes(1, "/var/log"))))
      .Msg(2, container)
      .StringMapEntry(7, "disk", "ssd")
      .Bytes(10, "n1")
      .Msg(18, affinity)
      .Bytes(19, "koord-scheduler")
      // Toleration{1 key, 2 operator, 4 effect, 5 tolerationSeconds}
      .Msg(22, Wire().Bytes(1, "k").Bytes(2, "Exists").Bytes(4, "NoSchedule").Varint(5, 300))
      .Varint(25, 0)  // priority: a Go pointer, so 0 is written
      // TopologySpreadConstraint{1 maxSkew, 2 topologyKey, 3 whenUnsatisfiable, 4 labelSelector}
      .Msg(33, Wire().Varint(1, 1).Bytes(2, "zone").Bytes(3, "DoNotSchedule")
                   .Msg(4, Wire().StringMapEntry(1, "app", "web")));
  // PodStatus{1 phase, 2 conditions{1 type, 2 status, 3 lastProbeTime, 4 lastTransitionTime},
  // 6 podIP, 7 startTime}
  Wire status;
  status.Bytes(1, "Running")
      .Msg(2, Wire().Bytes(1, "Ready").Bytes(2, "True").Msg(3, Wire()).Msg(4, Time(kCreated + 5)))
      .Bytes(6, "10.0.0.5")
      .Msg(7, Time(kCreated + 1));
  return Wire().Msg(1, meta).Msg(2, spec).Msg(3, status);
}

// PodJson: the same pod as kube-apiserver's JSON (Go's encoding/json of v1.Pod).
inline std::string PodJson(const std::string& name = "web-0", const std::string& rv = "17") {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","generateName":"web-","namespace":"default","uid":"uid-)" + name +
         R"(","resourceVersion":")" + rv + R"(","creationTimestamp":"2024-05-01T12:00:00Z",
    "labels":{"app":"web"},
    "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","note":"x"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs-uid",
                        "controller":true,"blockOwnerDeletion":true}],
    "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1"}]},
  "spec":{"volumes":[{"name":"scratch","emptyDir":{}},{"name":"logs","hostPath":{"path":"/var/log"}}],
    "containers":[{"name":"app","image":"nginx",
      "ports":[{"hostPort":8080,"containerPort":80,"protocol":"TCP"}],
      "resources":{"limits":{"cpu":"1"},"requests":{"cpu":"100m","memory":"64Mi"}}}],
    "nodeSelector":{"disk":"ssd"},"nodeName":"n1",
    "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}},
      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,
        "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},
                           "topologyKey":"kubernetes.io/hostname"}}]}},
    "schedulerName":"koord-scheduler",
    "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":300}],
    "priority":0,
    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",
                                  "labelSelector":{"matchLabels":{"app":"web"}}}]},
  "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,
      "lastTransitionTime":"2024-05-01T12:00:05Z"}],
    "podIP":"10.0.0.5","startTime":"2024-05-01T12:00:01Z"}})";
}

// NodeWire: Node{1 ObjectMeta, 2 NodeSpec{4 unschedulable, 5 taints{1 key, 2 value, 3 effect}},
// 3 NodeStatus{1 capacity, 2 allocatable, 4 conditions{1 type, 2 status, 3 lastHeartbeatTime,
// 4 lastTransitionTime, 5 reason}}}.
inline Wire NodeWire() {
  Wire meta;
  meta.Bytes(1, "n1").Bytes(5, "node-uid").Bytes(6, "9").Msg(8, Time(kCreated))
      .StringMapEntry(11, "topology.kubernetes.io/zone", "a")
      .StringMapEntry(11, "kubernetes.io/hostname", "n1");
  Wire spec;
  spec.Varint(4, 1).Msg(5, Wire().Bytes(1, "dedicated").Bytes(2, "gpu").Bytes(3, "NoSchedule"));
  Wire status;
  status.QuantityMapEntry(1, "cpu", "4").QuantityMapEntry(1, "memory", "8Gi")
      .QuantityMapEntry(2, "cpu", "3800m").QuantityMapEntry(2, "memory", "7Gi").QuantityMapEntry(2, "pods", "110")
      .Msg(4, Wire().Bytes(1, "Ready").Bytes(2, "True").Msg(3, Time(kCreated + 60)).Msg(4, Time(kCreated))
                  .Bytes(5, "KubeletReady"));
  return Wire().Msg(1, meta).Msg(2, spec).Msg(3, status);
}

inline std::string NodeJson() {
  return R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","uid":"node-uid","resourceVersion":"9",
    "creationTimestamp":"2024-05-01T12:00:00Z",
    "labels":{"kubernetes.io/hostname":"n1","topology.kubernetes.io/zone":"a"}},
  "spec":{"unschedulable":true,"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},
  "status":{"capacity":{"cpu":"4","memory":"8Gi"},"allocatable":{"cpu":"3800m","memory":"7Gi","pods":"110"},
    "conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2024-05-01T12:01:00Z",
      "lastTransitionTime":"2024-05-01T12:00:00Z","reason":"KubeletReady"}]}})";
}

}  // namespace berth::shim::proto::testing
