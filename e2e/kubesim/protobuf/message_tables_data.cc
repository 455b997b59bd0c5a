// e2e/kubesim/protobuf/message_tables_data.cc -- GENERATED, do not edit.
//
// Protobuf field tables of the built-in kinds kubesim serves, read from the descriptors of
// k8s.io/api's generated.proto compiled into kubectl (kubectl). Regenerate with:
//   /usr/bin/python3 e2e/kubesim/protobuf/gen_message_tables.py > e2e/kubesim/protobuf/message_tables_data.cc
#include "e2e/kubesim/protobuf/message_tables.h"

namespace berth::kubesim::protobuf {
namespace {

using K = FieldKind;

// k8s.io.api.core.v1.Namespace
constexpr FieldSpec kFields0[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 6, K::kString},
    {3, "status", K::kMessage, false, false, 7, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta
constexpr FieldSpec kFields1[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "generateName", K::kString, false, false, -1, K::kString},
    {3, "namespace", K::kString, false, false, -1, K::kString},
    {4, "selfLink", K::kString, false, false, -1, K::kString},
    {5, "uid", K::kString, false, false, -1, K::kString},
    {6, "resourceVersion", K::kString, false, false, -1, K::kString},
    {7, "generation", K::kInt64, false, false, -1, K::kString},
    {8, "creationTimestamp", K::kMessage, false, false, 2, K::kString},
    {9, "deletionTimestamp", K::kMessage, false, false, 2, K::kString},
    {10, "deletionGracePeriodSeconds", K::kInt64, false, true, -1, K::kString},
    {11, "labels", K::kMap, false, false, -1, K::kString},
    {12, "annotations", K::kMap, false, false, -1, K::kString},
    {13, "ownerReferences", K::kMessage, true, false, 3, K::kString},
    {14, "finalizers", K::kString, true, false, -1, K::kString},
    {17, "managedFields", K::kMessage, true, false, 4, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference
constexpr FieldSpec kFields3[] = {
    {1, "kind", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
    {4, "uid", K::kString, false, false, -1, K::kString},
    {5, "apiVersion", K::kString, false, false, -1, K::kString},
    {6, "controller", K::kBool, false, true, -1, K::kString},
    {7, "blockOwnerDeletion", K::kBool, false, true, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry
constexpr FieldSpec kFields4[] = {
    {1, "manager", K::kString, false, false, -1, K::kString},
    {2, "operation", K::kString, false, false, -1, K::kString},
    {3, "apiVersion", K::kString, false, false, -1, K::kString},
    {4, "time", K::kMessage, false, false, 2, K::kString},
    {6, "fieldsType", K::kString, false, false, -1, K::kString},
    {7, "fieldsV1", K::kMessage, false, false, 5, K::kString},
    {8, "subresource", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NamespaceSpec
constexpr FieldSpec kFields6[] = {
    {1, "finalizers", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.NamespaceStatus
constexpr FieldSpec kFields7[] = {
    {1, "phase", K::kString, false, false, -1, K::kString},
    {2, "conditions", K::kMessage, true, false, 8, K::kString},
};
// k8s.io.api.core.v1.NamespaceCondition
constexpr FieldSpec kFields8[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {4, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {5, "reason", K::kString, false, false, -1, K::kString},
    {6, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Node
constexpr FieldSpec kFields9[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 10, K::kString},
    {3, "status", K::kMessage, false, false, 14, K::kString},
};
// k8s.io.api.core.v1.NodeSpec
constexpr FieldSpec kFields10[] = {
    {1, "podCIDR", K::kString, false, false, -1, K::kString},
    {2, "externalID", K::kString, false, false, -1, K::kString},
    {3, "providerID", K::kString, false, false, -1, K::kString},
    {4, "unschedulable", K::kBool, false, false, -1, K::kString},
    {5, "taints", K::kMessage, true, false, 11, K::kString},
    {6, "configSource", K::kMessage, false, false, 12, K::kString},
    {7, "podCIDRs", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.Taint
constexpr FieldSpec kFields11[] = {
    {1, "key", K::kString, false, false, -1, K::kString},
    {2, "value", K::kString, false, false, -1, K::kString},
    {3, "effect", K::kString, false, false, -1, K::kString},
    {4, "timeAdded", K::kMessage, false, false, 2, K::kString},
};
// k8s.io.api.core.v1.NodeConfigSource
constexpr FieldSpec kFields12[] = {
    {2, "configMap", K::kMessage, false, false, 13, K::kString},
};
// k8s.io.api.core.v1.ConfigMapNodeConfigSource
constexpr FieldSpec kFields13[] = {
    {1, "namespace", K::kString, false, false, -1, K::kString},
    {2, "name", K::kString, false, false, -1, K::kString},
    {3, "uid", K::kString, false, false, -1, K::kString},
    {4, "resourceVersion", K::kString, false, false, -1, K::kString},
    {5, "kubeletConfigKey", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeStatus
constexpr FieldSpec kFields14[] = {
    {1, "capacity", K::kMap, false, false, 15, K::kMessage},
    {2, "allocatable", K::kMap, false, false, 15, K::kMessage},
    {3, "phase", K::kString, false, false, -1, K::kString},
    {4, "conditions", K::kMessage, true, false, 16, K::kString},
    {5, "addresses", K::kMessage, true, false, 17, K::kString},
    {6, "daemonEndpoints", K::kMessage, false, false, 18, K::kString},
    {7, "nodeInfo", K::kMessage, false, false, 20, K::kString},
    {8, "images", K::kMessage, true, false, 21, K::kString},
    {9, "volumesInUse", K::kString, true, false, -1, K::kString},
    {10, "volumesAttached", K::kMessage, true, false, 22, K::kString},
    {11, "config", K::kMessage, false, false, 23, K::kString},
    {12, "runtimeHandlers", K::kMessage, true, false, 24, K::kString},
    {13, "features", K::kMessage, false, false, 26, K::kString},
};
// k8s.io.api.core.v1.NodeCondition
constexpr FieldSpec kFields16[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "lastHeartbeatTime", K::kMessage, false, false, 2, K::kString},
    {4, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {5, "reason", K::kString, false, false, -1, K::kString},
    {6, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeAddress
constexpr FieldSpec kFields17[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "address", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeDaemonEndpoints
constexpr FieldSpec kFields18[] = {
    {1, "kubeletEndpoint", K::kMessage, false, false, 19, K::kString},
};
// k8s.io.api.core.v1.DaemonEndpoint
constexpr FieldSpec kFields19[] = {
    {1, "Port", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeSystemInfo
constexpr FieldSpec kFields20[] = {
    {1, "machineID", K::kString, false, false, -1, K::kString},
    {2, "systemUUID", K::kString, false, false, -1, K::kString},
    {3, "bootID", K::kString, false, false, -1, K::kString},
    {4, "kernelVersion", K::kString, false, false, -1, K::kString},
    {5, "osImage", K::kString, false, false, -1, K::kString},
    {6, "containerRuntimeVersion", K::kString, false, false, -1, K::kString},
    {7, "kubeletVersion", K::kString, false, false, -1, K::kString},
    {8, "kubeProxyVersion", K::kString, false, false, -1, K::kString},
    {9, "operatingSystem", K::kString, false, false, -1, K::kString},
    {10, "architecture", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerImage
constexpr FieldSpec kFields21[] = {
    {1, "names", K::kString, true, false, -1, K::kString},
    {2, "sizeBytes", K::kInt64, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.AttachedVolume
constexpr FieldSpec kFields22[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "devicePath", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeConfigStatus
constexpr FieldSpec kFields23[] = {
    {1, "assigned", K::kMessage, false, false, 12, K::kString},
    {2, "active", K::kMessage, false, false, 12, K::kString},
    {3, "lastKnownGood", K::kMessage, false, false, 12, K::kString},
    {4, "error", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeRuntimeHandler
constexpr FieldSpec kFields24[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "features", K::kMessage, false, false, 25, K::kString},
};
// k8s.io.api.core.v1.NodeRuntimeHandlerFeatures
constexpr FieldSpec kFields25[] = {
    {1, "recursiveReadOnlyMounts", K::kBool, false, false, -1, K::kString},
    {2, "userNamespaces", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NodeFeatures
constexpr FieldSpec kFields26[] = {
    {1, "supplementalGroupsPolicy", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Pod
constexpr FieldSpec kFields27[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 28, K::kString},
    {3, "status", K::kMessage, false, false, 133, K::kString},
};
// k8s.io.api.core.v1.PodSpec
constexpr FieldSpec kFields28[] = {
    {1, "volumes", K::kMessage, true, false, 29, K::kString},
    {2, "containers", K::kMessage, true, false, 79, K::kString},
    {3, "restartPolicy", K::kString, false, false, -1, K::kString},
    {4, "terminationGracePeriodSeconds", K::kInt64, false, true, -1, K::kString},
    {5, "activeDeadlineSeconds", K::kInt64, false, true, -1, K::kString},
    {6, "dnsPolicy", K::kString, false, false, -1, K::kString},
    {7, "nodeSelector", K::kMap, false, false, -1, K::kString},
    {8, "serviceAccountName", K::kString, false, false, -1, K::kString},
    {9, "serviceAccount", K::kString, false, false, -1, K::kString},
    {10, "nodeName", K::kString, false, false, -1, K::kString},
    {11, "hostNetwork", K::kBool, false, false, -1, K::kString},
    {12, "hostPID", K::kBool, false, false, -1, K::kString},
    {13, "hostIPC", K::kBool, false, false, -1, K::kString},
    {14, "securityContext", K::kMessage, false, false, 110, K::kString},
    {15, "imagePullSecrets", K::kMessage, true, false, 40, K::kString},
    {16, "hostname", K::kString, false, false, -1, K::kString},
    {17, "subdomain", K::kString, false, false, -1, K::kString},
    {18, "affinity", K::kMessage, false, false, 112, K::kString},
    {19, "schedulerName", K::kString, false, false, -1, K::kString},
    {20, "initContainers", K::kMessage, true, false, 79, K::kString},
    {21, "automountServiceAccountToken", K::kBool, false, true, -1, K::kString},
    {22, "tolerations", K::kMessage, true, false, 122, K::kString},
    {23, "hostAliases", K::kMessage, true, false, 123, K::kString},
    {24, "priorityClassName", K::kString, false, false, -1, K::kString},
    {25, "priority", K::kInt32, false, true, -1, K::kString},
    {26, "dnsConfig", K::kMessage, false, false, 124, K::kString},
    {27, "shareProcessNamespace", K::kBool, false, true, -1, K::kString},
    {28, "readinessGates", K::kMessage, true, false, 126, K::kString},
    {29, "runtimeClassName", K::kString, false, false, -1, K::kString},
    {30, "enableServiceLinks", K::kBool, false, true, -1, K::kString},
    {31, "preemptionPolicy", K::kString, false, false, -1, K::kString},
    {32, "overhead", K::kMap, false, false, 15, K::kMessage},
    {33, "topologySpreadConstraints", K::kMessage, true, false, 127, K::kString},
    {34, "ephemeralContainers", K::kMessage, true, false, 128, K::kString},
    {35, "setHostnameAsFQDN", K::kBool, false, true, -1, K::kString},
    {36, "os", K::kMessage, false, false, 130, K::kString},
    {37, "hostUsers", K::kBool, false, true, -1, K::kString},
    {38, "schedulingGates", K::kMessage, true, false, 131, K::kString},
    {39, "resourceClaims", K::kMessage, true, false, 132, K::kString},
    {40, "resources", K::kMessage, false, false, 85, K::kString},
};
// k8s.io.api.core.v1.Volume
constexpr FieldSpec kFields29[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "volumeSource", K::kMessage, false, false, 30, K::kString, true},
};
// k8s.io.api.core.v1.VolumeSource
constexpr FieldSpec kFields30[] = {
    {1, "hostPath", K::kMessage, false, false, 31, K::kString},
    {2, "emptyDir", K::kMessage, false, false, 32, K::kString},
    {3, "gcePersistentDisk", K::kMessage, false, false, 33, K::kString},
    {4, "awsElasticBlockStore", K::kMessage, false, false, 34, K::kString},
    {5, "gitRepo", K::kMessage, false, false, 35, K::kString},
    {6, "secret", K::kMessage, false, false, 36, K::kString},
    {7, "nfs", K::kMessage, false, false, 38, K::kString},
    {8, "iscsi", K::kMessage, false, false, 39, K::kString},
    {9, "glusterfs", K::kMessage, false, false, 41, K::kString},
    {10, "persistentVolumeClaim", K::kMessage, false, false, 42, K::kString},
    {11, "rbd", K::kMessage, false, false, 43, K::kString},
    {12, "flexVolume", K::kMessage, false, false, 44, K::kString},
    {13, "cinder", K::kMessage, false, false, 45, K::kString},
    {14, "cephfs", K::kMessage, false, false, 46, K::kString},
    {15, "flocker", K::kMessage, false, false, 47, K::kString},
    {16, "downwardAPI", K::kMessage, false, false, 48, K::kString},
    {17, "fc", K::kMessage, false, false, 52, K::kString},
    {18, "azureFile", K::kMessage, false, false, 53, K::kString},
    {19, "configMap", K::kMessage, false, false, 54, K::kString},
    {20, "vsphereVolume", K::kMessage, false, false, 55, K::kString},
    {21, "quobyte", K::kMessage, false, false, 56, K::kString},
    {22, "azureDisk", K::kMessage, false, false, 57, K::kString},
    {23, "photonPersistentDisk", K::kMessage, false, false, 58, K::kString},
    {24, "portworxVolume", K::kMessage, false, false, 59, K::kString},
    {25, "scaleIO", K::kMessage, false, false, 60, K::kString},
    {26, "projected", K::kMessage, false, false, 61, K::kString},
    {27, "storageos", K::kMessage, false, false, 70, K::kString},
    {28, "csi", K::kMessage, false, false, 71, K::kString},
    {29, "ephemeral", K::kMessage, false, false, 72, K::kString},
    {30, "image", K::kMessage, false, false, 78, K::kString},
};
// k8s.io.api.core.v1.HostPathVolumeSource
constexpr FieldSpec kFields31[] = {
    {1, "path", K::kString, false, false, -1, K::kString},
    {2, "type", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EmptyDirVolumeSource
constexpr FieldSpec kFields32[] = {
    {1, "medium", K::kString, false, false, -1, K::kString},
    {2, "sizeLimit", K::kMessage, false, false, 15, K::kString},
};
// k8s.io.api.core.v1.GCEPersistentDiskVolumeSource
constexpr FieldSpec kFields33[] = {
    {1, "pdName", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "partition", K::kInt32, false, false, -1, K::kString},
    {4, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource
constexpr FieldSpec kFields34[] = {
    {1, "volumeID", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "partition", K::kInt32, false, false, -1, K::kString},
    {4, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.GitRepoVolumeSource
constexpr FieldSpec kFields35[] = {
    {1, "repository", K::kString, false, false, -1, K::kString},
    {2, "revision", K::kString, false, false, -1, K::kString},
    {3, "directory", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SecretVolumeSource
constexpr FieldSpec kFields36[] = {
    {1, "secretName", K::kString, false, false, -1, K::kString},
    {2, "items", K::kMessage, true, false, 37, K::kString},
    {3, "defaultMode", K::kInt32, false, false, -1, K::kString},
    {4, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.KeyToPath
constexpr FieldSpec kFields37[] = {
    {1, "key", K::kString, false, false, -1, K::kString},
    {2, "path", K::kString, false, false, -1, K::kString},
    {3, "mode", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.NFSVolumeSource
constexpr FieldSpec kFields38[] = {
    {1, "server", K::kString, false, false, -1, K::kString},
    {2, "path", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ISCSIVolumeSource
constexpr FieldSpec kFields39[] = {
    {1, "targetPortal", K::kString, false, false, -1, K::kString},
    {2, "iqn", K::kString, false, false, -1, K::kString},
    {3, "lun", K::kInt32, false, false, -1, K::kString},
    {4, "iscsiInterface", K::kString, false, false, -1, K::kString},
    {5, "fsType", K::kString, false, false, -1, K::kString},
    {6, "readOnly", K::kBool, false, false, -1, K::kString},
    {7, "portals", K::kString, true, false, -1, K::kString},
    {8, "chapAuthDiscovery", K::kBool, false, false, -1, K::kString},
    {10, "secretRef", K::kMessage, false, false, 40, K::kString},
    {11, "chapAuthSession", K::kBool, false, false, -1, K::kString},
    {12, "initiatorName", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.LocalObjectReference
constexpr FieldSpec kFields40[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.GlusterfsVolumeSource
constexpr FieldSpec kFields41[] = {
    {1, "endpoints", K::kString, false, false, -1, K::kString},
    {2, "path", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource
constexpr FieldSpec kFields42[] = {
    {1, "claimName", K::kString, false, false, -1, K::kString},
    {2, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.RBDVolumeSource
constexpr FieldSpec kFields43[] = {
    {1, "monitors", K::kString, true, false, -1, K::kString},
    {2, "image", K::kString, false, false, -1, K::kString},
    {3, "fsType", K::kString, false, false, -1, K::kString},
    {4, "pool", K::kString, false, false, -1, K::kString},
    {5, "user", K::kString, false, false, -1, K::kString},
    {6, "keyring", K::kString, false, false, -1, K::kString},
    {7, "secretRef", K::kMessage, false, false, 40, K::kString},
    {8, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.FlexVolumeSource
constexpr FieldSpec kFields44[] = {
    {1, "driver", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "secretRef", K::kMessage, false, false, 40, K::kString},
    {4, "readOnly", K::kBool, false, false, -1, K::kString},
    {5, "options", K::kMap, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.CinderVolumeSource
constexpr FieldSpec kFields45[] = {
    {1, "volumeID", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
    {4, "secretRef", K::kMessage, false, false, 40, K::kString},
};
// k8s.io.api.core.v1.CephFSVolumeSource
constexpr FieldSpec kFields46[] = {
    {1, "monitors", K::kString, true, false, -1, K::kString},
    {2, "path", K::kString, false, false, -1, K::kString},
    {3, "user", K::kString, false, false, -1, K::kString},
    {4, "secretFile", K::kString, false, false, -1, K::kString},
    {5, "secretRef", K::kMessage, false, false, 40, K::kString},
    {6, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.FlockerVolumeSource
constexpr FieldSpec kFields47[] = {
    {1, "datasetName", K::kString, false, false, -1, K::kString},
    {2, "datasetUUID", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.DownwardAPIVolumeSource
constexpr FieldSpec kFields48[] = {
    {1, "items", K::kMessage, true, false, 49, K::kString},
    {2, "defaultMode", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.DownwardAPIVolumeFile
constexpr FieldSpec kFields49[] = {
    {1, "path", K::kString, false, false, -1, K::kString},
    {2, "fieldRef", K::kMessage, false, false, 50, K::kString},
    {3, "resourceFieldRef", K::kMessage, false, false, 51, K::kString},
    {4, "mode", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ObjectFieldSelector
constexpr FieldSpec kFields50[] = {
    {1, "apiVersion", K::kString, false, false, -1, K::kString},
    {2, "fieldPath", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ResourceFieldSelector
constexpr FieldSpec kFields51[] = {
    {1, "containerName", K::kString, false, false, -1, K::kString},
    {2, "resource", K::kString, false, false, -1, K::kString},
    {3, "divisor", K::kMessage, false, false, 15, K::kString},
};
// k8s.io.api.core.v1.FCVolumeSource
constexpr FieldSpec kFields52[] = {
    {1, "targetWWNs", K::kString, true, false, -1, K::kString},
    {2, "lun", K::kInt32, false, false, -1, K::kString},
    {3, "fsType", K::kString, false, false, -1, K::kString},
    {4, "readOnly", K::kBool, false, false, -1, K::kString},
    {5, "wwids", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.AzureFileVolumeSource
constexpr FieldSpec kFields53[] = {
    {1, "secretName", K::kString, false, false, -1, K::kString},
    {2, "shareName", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ConfigMapVolumeSource
constexpr FieldSpec kFields54[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "items", K::kMessage, true, false, 37, K::kString},
    {3, "defaultMode", K::kInt32, false, false, -1, K::kString},
    {4, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource
constexpr FieldSpec kFields55[] = {
    {1, "volumePath", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "storagePolicyName", K::kString, false, false, -1, K::kString},
    {4, "storagePolicyID", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.QuobyteVolumeSource
constexpr FieldSpec kFields56[] = {
    {1, "registry", K::kString, false, false, -1, K::kString},
    {2, "volume", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
    {4, "user", K::kString, false, false, -1, K::kString},
    {5, "group", K::kString, false, false, -1, K::kString},
    {6, "tenant", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.AzureDiskVolumeSource
constexpr FieldSpec kFields57[] = {
    {1, "diskName", K::kString, false, false, -1, K::kString},
    {2, "diskURI", K::kString, false, false, -1, K::kString},
    {3, "cachingMode", K::kString, false, false, -1, K::kString},
    {4, "fsType", K::kString, false, false, -1, K::kString},
    {5, "readOnly", K::kBool, false, false, -1, K::kString},
    {6, "kind", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource
constexpr FieldSpec kFields58[] = {
    {1, "pdID", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PortworxVolumeSource
constexpr FieldSpec kFields59[] = {
    {1, "volumeID", K::kString, false, false, -1, K::kString},
    {2, "fsType", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ScaleIOVolumeSource
constexpr FieldSpec kFields60[] = {
    {1, "gateway", K::kString, false, false, -1, K::kString},
    {2, "system", K::kString, false, false, -1, K::kString},
    {3, "secretRef", K::kMessage, false, false, 40, K::kString},
    {4, "sslEnabled", K::kBool, false, false, -1, K::kString},
    {5, "protectionDomain", K::kString, false, false, -1, K::kString},
    {6, "storagePool", K::kString, false, false, -1, K::kString},
    {7, "storageMode", K::kString, false, false, -1, K::kString},
    {8, "volumeName", K::kString, false, false, -1, K::kString},
    {9, "fsType", K::kString, false, false, -1, K::kString},
    {10, "readOnly", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ProjectedVolumeSource
constexpr FieldSpec kFields61[] = {
    {1, "sources", K::kMessage, true, false, 62, K::kString},
    {2, "defaultMode", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VolumeProjection
constexpr FieldSpec kFields62[] = {
    {1, "secret", K::kMessage, false, false, 63, K::kString},
    {2, "downwardAPI", K::kMessage, false, false, 64, K::kString},
    {3, "configMap", K::kMessage, false, false, 65, K::kString},
    {4, "serviceAccountToken", K::kMessage, false, false, 66, K::kString},
    {5, "clusterTrustBundle", K::kMessage, false, false, 67, K::kString},
};
// k8s.io.api.core.v1.SecretProjection
constexpr FieldSpec kFields63[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "items", K::kMessage, true, false, 37, K::kString},
    {4, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.DownwardAPIProjection
constexpr FieldSpec kFields64[] = {
    {1, "items", K::kMessage, true, false, 49, K::kString},
};
// k8s.io.api.core.v1.ConfigMapProjection
constexpr FieldSpec kFields65[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "items", K::kMessage, true, false, 37, K::kString},
    {4, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ServiceAccountTokenProjection
constexpr FieldSpec kFields66[] = {
    {1, "audience", K::kString, false, false, -1, K::kString},
    {2, "expirationSeconds", K::kInt64, false, false, -1, K::kString},
    {3, "path", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ClusterTrustBundleProjection
constexpr FieldSpec kFields67[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "signerName", K::kString, false, false, -1, K::kString},
    {3, "labelSelector", K::kMessage, false, false, 68, K::kString},
    {4, "path", K::kString, false, false, -1, K::kString},
    {5, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector
constexpr FieldSpec kFields68[] = {
    {1, "matchLabels", K::kMap, false, false, -1, K::kString},
    {2, "matchExpressions", K::kMessage, true, false, 69, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement
constexpr FieldSpec kFields69[] = {
    {1, "key", K::kString, false, false, -1, K::kString},
    {2, "operator", K::kString, false, false, -1, K::kString},
    {3, "values", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.StorageOSVolumeSource
constexpr FieldSpec kFields70[] = {
    {1, "volumeName", K::kString, false, false, -1, K::kString},
    {2, "volumeNamespace", K::kString, false, false, -1, K::kString},
    {3, "fsType", K::kString, false, false, -1, K::kString},
    {4, "readOnly", K::kBool, false, false, -1, K::kString},
    {5, "secretRef", K::kMessage, false, false, 40, K::kString},
};
// k8s.io.api.core.v1.CSIVolumeSource
constexpr FieldSpec kFields71[] = {
    {1, "driver", K::kString, false, false, -1, K::kString},
    {2, "readOnly", K::kBool, false, false, -1, K::kString},
    {3, "fsType", K::kString, false, false, -1, K::kString},
    {4, "volumeAttributes", K::kMap, false, false, -1, K::kString},
    {5, "nodePublishSecretRef", K::kMessage, false, false, 40, K::kString},
};
// k8s.io.api.core.v1.EphemeralVolumeSource
constexpr FieldSpec kFields72[] = {
    {1, "volumeClaimTemplate", K::kMessage, false, false, 73, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaimTemplate
constexpr FieldSpec kFields73[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 74, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaimSpec
constexpr FieldSpec kFields74[] = {
    {1, "accessModes", K::kString, true, false, -1, K::kString},
    {2, "resources", K::kMessage, false, false, 75, K::kString},
    {3, "volumeName", K::kString, false, false, -1, K::kString},
    {4, "selector", K::kMessage, false, false, 68, K::kString},
    {5, "storageClassName", K::kString, false, false, -1, K::kString},
    {6, "volumeMode", K::kString, false, false, -1, K::kString},
    {7, "dataSource", K::kMessage, false, false, 76, K::kString},
    {8, "dataSourceRef", K::kMessage, false, false, 77, K::kString},
    {9, "volumeAttributesClassName", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VolumeResourceRequirements
constexpr FieldSpec kFields75[] = {
    {1, "limits", K::kMap, false, false, 15, K::kMessage},
    {2, "requests", K::kMap, false, false, 15, K::kMessage},
};
// k8s.io.api.core.v1.TypedLocalObjectReference
constexpr FieldSpec kFields76[] = {
    {1, "apiGroup", K::kString, false, false, -1, K::kString},
    {2, "kind", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.TypedObjectReference
constexpr FieldSpec kFields77[] = {
    {1, "apiGroup", K::kString, false, false, -1, K::kString},
    {2, "kind", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
    {4, "namespace", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ImageVolumeSource
constexpr FieldSpec kFields78[] = {
    {1, "reference", K::kString, false, false, -1, K::kString},
    {2, "pullPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Container
constexpr FieldSpec kFields79[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "image", K::kString, false, false, -1, K::kString},
    {3, "command", K::kString, true, false, -1, K::kString},
    {4, "args", K::kString, true, false, -1, K::kString},
    {5, "workingDir", K::kString, false, false, -1, K::kString},
    {6, "ports", K::kMessage, true, false, 80, K::kString},
    {7, "env", K::kMessage, true, false, 81, K::kString},
    {8, "resources", K::kMessage, false, false, 85, K::kString},
    {9, "volumeMounts", K::kMessage, true, false, 87, K::kString},
    {10, "livenessProbe", K::kMessage, false, false, 88, K::kString},
    {11, "readinessProbe", K::kMessage, false, false, 88, K::kString},
    {12, "lifecycle", K::kMessage, false, false, 96, K::kString},
    {13, "terminationMessagePath", K::kString, false, false, -1, K::kString},
    {14, "imagePullPolicy", K::kString, false, false, -1, K::kString},
    {15, "securityContext", K::kMessage, false, false, 99, K::kString},
    {16, "stdin", K::kBool, false, false, -1, K::kString},
    {17, "stdinOnce", K::kBool, false, false, -1, K::kString},
    {18, "tty", K::kBool, false, false, -1, K::kString},
    {19, "envFrom", K::kMessage, true, false, 105, K::kString},
    {20, "terminationMessagePolicy", K::kString, false, false, -1, K::kString},
    {21, "volumeDevices", K::kMessage, true, false, 108, K::kString},
    {22, "startupProbe", K::kMessage, false, false, 88, K::kString},
    {23, "resizePolicy", K::kMessage, true, false, 109, K::kString},
    {24, "restartPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerPort
constexpr FieldSpec kFields80[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "hostPort", K::kInt32, false, false, -1, K::kString},
    {3, "containerPort", K::kInt32, false, false, -1, K::kString},
    {4, "protocol", K::kString, false, false, -1, K::kString},
    {5, "hostIP", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EnvVar
constexpr FieldSpec kFields81[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "value", K::kString, false, false, -1, K::kString},
    {3, "valueFrom", K::kMessage, false, false, 82, K::kString},
};
// k8s.io.api.core.v1.EnvVarSource
constexpr FieldSpec kFields82[] = {
    {1, "fieldRef", K::kMessage, false, false, 50, K::kString},
    {2, "resourceFieldRef", K::kMessage, false, false, 51, K::kString},
    {3, "configMapKeyRef", K::kMessage, false, false, 83, K::kString},
    {4, "secretKeyRef", K::kMessage, false, false, 84, K::kString},
};
// k8s.io.api.core.v1.ConfigMapKeySelector
constexpr FieldSpec kFields83[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "key", K::kString, false, false, -1, K::kString},
    {3, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SecretKeySelector
constexpr FieldSpec kFields84[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "key", K::kString, false, false, -1, K::kString},
    {3, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ResourceRequirements
constexpr FieldSpec kFields85[] = {
    {1, "limits", K::kMap, false, false, 15, K::kMessage},
    {2, "requests", K::kMap, false, false, 15, K::kMessage},
    {3, "claims", K::kMessage, true, false, 86, K::kString},
};
// k8s.io.api.core.v1.ResourceClaim
constexpr FieldSpec kFields86[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "request", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VolumeMount
constexpr FieldSpec kFields87[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "readOnly", K::kBool, false, false, -1, K::kString},
    {3, "mountPath", K::kString, false, false, -1, K::kString},
    {4, "subPath", K::kString, false, false, -1, K::kString},
    {5, "mountPropagation", K::kString, false, false, -1, K::kString},
    {6, "subPathExpr", K::kString, false, false, -1, K::kString},
    {7, "recursiveReadOnly", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Probe
constexpr FieldSpec kFields88[] = {
    {1, "handler", K::kMessage, false, false, 89, K::kString, true},
    {2, "initialDelaySeconds", K::kInt32, false, false, -1, K::kString},
    {3, "timeoutSeconds", K::kInt32, false, false, -1, K::kString},
    {4, "periodSeconds", K::kInt32, false, false, -1, K::kString},
    {5, "successThreshold", K::kInt32, false, false, -1, K::kString},
    {6, "failureThreshold", K::kInt32, false, false, -1, K::kString},
    {7, "terminationGracePeriodSeconds", K::kInt64, false, true, -1, K::kString},
};
// k8s.io.api.core.v1.ProbeHandler
constexpr FieldSpec kFields89[] = {
    {1, "exec", K::kMessage, false, false, 90, K::kString},
    {2, "httpGet", K::kMessage, false, false, 91, K::kString},
    {3, "tcpSocket", K::kMessage, false, false, 94, K::kString},
    {4, "grpc", K::kMessage, false, false, 95, K::kString},
};
// k8s.io.api.core.v1.ExecAction
constexpr FieldSpec kFields90[] = {
    {1, "command", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.HTTPGetAction
constexpr FieldSpec kFields91[] = {
    {1, "path", K::kString, false, false, -1, K::kString},
    {2, "port", K::kMessage, false, false, 92, K::kString},
    {3, "host", K::kString, false, false, -1, K::kString},
    {4, "scheme", K::kString, false, false, -1, K::kString},
    {5, "httpHeaders", K::kMessage, true, false, 93, K::kString},
};
// k8s.io.api.core.v1.HTTPHeader
constexpr FieldSpec kFields93[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "value", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.TCPSocketAction
constexpr FieldSpec kFields94[] = {
    {1, "port", K::kMessage, false, false, 92, K::kString},
    {2, "host", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.GRPCAction
constexpr FieldSpec kFields95[] = {
    {1, "port", K::kInt32, false, false, -1, K::kString},
    {2, "service", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Lifecycle
constexpr FieldSpec kFields96[] = {
    {1, "postStart", K::kMessage, false, false, 97, K::kString},
    {2, "preStop", K::kMessage, false, false, 97, K::kString},
};
// k8s.io.api.core.v1.LifecycleHandler
constexpr FieldSpec kFields97[] = {
    {1, "exec", K::kMessage, false, false, 90, K::kString},
    {2, "httpGet", K::kMessage, false, false, 91, K::kString},
    {3, "tcpSocket", K::kMessage, false, false, 94, K::kString},
    {4, "sleep", K::kMessage, false, false, 98, K::kString},
};
// k8s.io.api.core.v1.SleepAction
constexpr FieldSpec kFields98[] = {
    {1, "seconds", K::kInt64, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SecurityContext
constexpr FieldSpec kFields99[] = {
    {1, "capabilities", K::kMessage, false, false, 100, K::kString},
    {2, "privileged", K::kBool, false, true, -1, K::kString},
    {3, "seLinuxOptions", K::kMessage, false, false, 101, K::kString},
    {4, "runAsUser", K::kInt64, false, true, -1, K::kString},
    {5, "runAsNonRoot", K::kBool, false, true, -1, K::kString},
    {6, "readOnlyRootFilesystem", K::kBool, false, true, -1, K::kString},
    {7, "allowPrivilegeEscalation", K::kBool, false, true, -1, K::kString},
    {8, "runAsGroup", K::kInt64, false, true, -1, K::kString},
    {9, "procMount", K::kString, false, false, -1, K::kString},
    {10, "windowsOptions", K::kMessage, false, false, 102, K::kString},
    {11, "seccompProfile", K::kMessage, false, false, 103, K::kString},
    {12, "appArmorProfile", K::kMessage, false, false, 104, K::kString},
};
// k8s.io.api.core.v1.Capabilities
constexpr FieldSpec kFields100[] = {
    {1, "add", K::kString, true, false, -1, K::kString},
    {2, "drop", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.SELinuxOptions
constexpr FieldSpec kFields101[] = {
    {1, "user", K::kString, false, false, -1, K::kString},
    {2, "role", K::kString, false, false, -1, K::kString},
    {3, "type", K::kString, false, false, -1, K::kString},
    {4, "level", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.WindowsSecurityContextOptions
constexpr FieldSpec kFields102[] = {
    {1, "gmsaCredentialSpecName", K::kString, false, false, -1, K::kString},
    {2, "gmsaCredentialSpec", K::kString, false, false, -1, K::kString},
    {3, "runAsUserName", K::kString, false, false, -1, K::kString},
    {4, "hostProcess", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SeccompProfile
constexpr FieldSpec kFields103[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "localhostProfile", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.AppArmorProfile
constexpr FieldSpec kFields104[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "localhostProfile", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EnvFromSource
constexpr FieldSpec kFields105[] = {
    {1, "prefix", K::kString, false, false, -1, K::kString},
    {2, "configMapRef", K::kMessage, false, false, 106, K::kString},
    {3, "secretRef", K::kMessage, false, false, 107, K::kString},
};
// k8s.io.api.core.v1.ConfigMapEnvSource
constexpr FieldSpec kFields106[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SecretEnvSource
constexpr FieldSpec kFields107[] = {
    {1, "localObjectReference", K::kMessage, false, false, 40, K::kString, true},
    {2, "optional", K::kBool, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VolumeDevice
constexpr FieldSpec kFields108[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "devicePath", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerResizePolicy
constexpr FieldSpec kFields109[] = {
    {1, "resourceName", K::kString, false, false, -1, K::kString},
    {2, "restartPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodSecurityContext
constexpr FieldSpec kFields110[] = {
    {1, "seLinuxOptions", K::kMessage, false, false, 101, K::kString},
    {2, "runAsUser", K::kInt64, false, true, -1, K::kString},
    {3, "runAsNonRoot", K::kBool, false, true, -1, K::kString},
    {4, "supplementalGroups", K::kInt64, true, false, -1, K::kString},
    {5, "fsGroup", K::kInt64, false, true, -1, K::kString},
    {6, "runAsGroup", K::kInt64, false, true, -1, K::kString},
    {7, "sysctls", K::kMessage, true, false, 111, K::kString},
    {8, "windowsOptions", K::kMessage, false, false, 102, K::kString},
    {9, "fsGroupChangePolicy", K::kString, false, false, -1, K::kString},
    {10, "seccompProfile", K::kMessage, false, false, 103, K::kString},
    {11, "appArmorProfile", K::kMessage, false, false, 104, K::kString},
    {12, "supplementalGroupsPolicy", K::kString, false, false, -1, K::kString},
    {13, "seLinuxChangePolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Sysctl
constexpr FieldSpec kFields111[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "value", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Affinity
constexpr FieldSpec kFields112[] = {
    {1, "nodeAffinity", K::kMessage, false, false, 113, K::kString},
    {2, "podAffinity", K::kMessage, false, false, 118, K::kString},
    {3, "podAntiAffinity", K::kMessage, false, false, 121, K::kString},
};
// k8s.io.api.core.v1.NodeAffinity
constexpr FieldSpec kFields113[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", K::kMessage, false, false, 114, K::kString},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", K::kMessage, true, false, 117, K::kString},
};
// k8s.io.api.core.v1.NodeSelector
constexpr FieldSpec kFields114[] = {
    {1, "nodeSelectorTerms", K::kMessage, true, false, 115, K::kString},
};
// k8s.io.api.core.v1.NodeSelectorTerm
constexpr FieldSpec kFields115[] = {
    {1, "matchExpressions", K::kMessage, true, false, 116, K::kString},
    {2, "matchFields", K::kMessage, true, false, 116, K::kString},
};
// k8s.io.api.core.v1.NodeSelectorRequirement
constexpr FieldSpec kFields116[] = {
    {1, "key", K::kString, false, false, -1, K::kString},
    {2, "operator", K::kString, false, false, -1, K::kString},
    {3, "values", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.PreferredSchedulingTerm
constexpr FieldSpec kFields117[] = {
    {1, "weight", K::kInt32, false, false, -1, K::kString},
    {2, "preference", K::kMessage, false, false, 115, K::kString},
};
// k8s.io.api.core.v1.PodAffinity
constexpr FieldSpec kFields118[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", K::kMessage, true, false, 119, K::kString},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", K::kMessage, true, false, 120, K::kString},
};
// k8s.io.api.core.v1.PodAffinityTerm
constexpr FieldSpec kFields119[] = {
    {1, "labelSelector", K::kMessage, false, false, 68, K::kString},
    {2, "namespaces", K::kString, true, false, -1, K::kString},
    {3, "topologyKey", K::kString, false, false, -1, K::kString},
    {4, "namespaceSelector", K::kMessage, false, false, 68, K::kString},
    {5, "matchLabelKeys", K::kString, true, false, -1, K::kString},
    {6, "mismatchLabelKeys", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.WeightedPodAffinityTerm
constexpr FieldSpec kFields120[] = {
    {1, "weight", K::kInt32, false, false, -1, K::kString},
    {2, "podAffinityTerm", K::kMessage, false, false, 119, K::kString},
};
// k8s.io.api.core.v1.PodAntiAffinity
constexpr FieldSpec kFields121[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution", K::kMessage, true, false, 119, K::kString},
    {2, "preferredDuringSchedulingIgnoredDuringExecution", K::kMessage, true, false, 120, K::kString},
};
// k8s.io.api.core.v1.Toleration
constexpr FieldSpec kFields122[] = {
    {1, "key", K::kString, false, false, -1, K::kString},
    {2, "operator", K::kString, false, false, -1, K::kString},
    {3, "value", K::kString, false, false, -1, K::kString},
    {4, "effect", K::kString, false, false, -1, K::kString},
    {5, "tolerationSeconds", K::kInt64, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.HostAlias
constexpr FieldSpec kFields123[] = {
    {1, "ip", K::kString, false, false, -1, K::kString},
    {2, "hostnames", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodDNSConfig
constexpr FieldSpec kFields124[] = {
    {1, "nameservers", K::kString, true, false, -1, K::kString},
    {2, "searches", K::kString, true, false, -1, K::kString},
    {3, "options", K::kMessage, true, false, 125, K::kString},
};
// k8s.io.api.core.v1.PodDNSConfigOption
constexpr FieldSpec kFields125[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "value", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodReadinessGate
constexpr FieldSpec kFields126[] = {
    {1, "conditionType", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.TopologySpreadConstraint
constexpr FieldSpec kFields127[] = {
    {1, "maxSkew", K::kInt32, false, false, -1, K::kString},
    {2, "topologyKey", K::kString, false, false, -1, K::kString},
    {3, "whenUnsatisfiable", K::kString, false, false, -1, K::kString},
    {4, "labelSelector", K::kMessage, false, false, 68, K::kString},
    {5, "minDomains", K::kInt32, false, false, -1, K::kString},
    {6, "nodeAffinityPolicy", K::kString, false, false, -1, K::kString},
    {7, "nodeTaintsPolicy", K::kString, false, false, -1, K::kString},
    {8, "matchLabelKeys", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.EphemeralContainer
constexpr FieldSpec kFields128[] = {
    {1, "ephemeralContainerCommon", K::kMessage, false, false, 129, K::kString, true},
    {2, "targetContainerName", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EphemeralContainerCommon
constexpr FieldSpec kFields129[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "image", K::kString, false, false, -1, K::kString},
    {3, "command", K::kString, true, false, -1, K::kString},
    {4, "args", K::kString, true, false, -1, K::kString},
    {5, "workingDir", K::kString, false, false, -1, K::kString},
    {6, "ports", K::kMessage, true, false, 80, K::kString},
    {7, "env", K::kMessage, true, false, 81, K::kString},
    {8, "resources", K::kMessage, false, false, 85, K::kString},
    {9, "volumeMounts", K::kMessage, true, false, 87, K::kString},
    {10, "livenessProbe", K::kMessage, false, false, 88, K::kString},
    {11, "readinessProbe", K::kMessage, false, false, 88, K::kString},
    {12, "lifecycle", K::kMessage, false, false, 96, K::kString},
    {13, "terminationMessagePath", K::kString, false, false, -1, K::kString},
    {14, "imagePullPolicy", K::kString, false, false, -1, K::kString},
    {15, "securityContext", K::kMessage, false, false, 99, K::kString},
    {16, "stdin", K::kBool, false, false, -1, K::kString},
    {17, "stdinOnce", K::kBool, false, false, -1, K::kString},
    {18, "tty", K::kBool, false, false, -1, K::kString},
    {19, "envFrom", K::kMessage, true, false, 105, K::kString},
    {20, "terminationMessagePolicy", K::kString, false, false, -1, K::kString},
    {21, "volumeDevices", K::kMessage, true, false, 108, K::kString},
    {22, "startupProbe", K::kMessage, false, false, 88, K::kString},
    {23, "resizePolicy", K::kMessage, true, false, 109, K::kString},
    {24, "restartPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodOS
constexpr FieldSpec kFields130[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodSchedulingGate
constexpr FieldSpec kFields131[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodResourceClaim
constexpr FieldSpec kFields132[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {3, "resourceClaimName", K::kString, false, false, -1, K::kString},
    {4, "resourceClaimTemplateName", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodStatus
constexpr FieldSpec kFields133[] = {
    {1, "phase", K::kString, false, false, -1, K::kString},
    {2, "conditions", K::kMessage, true, false, 134, K::kString},
    {3, "message", K::kString, false, false, -1, K::kString},
    {4, "reason", K::kString, false, false, -1, K::kString},
    {5, "hostIP", K::kString, false, false, -1, K::kString},
    {6, "podIP", K::kString, false, false, -1, K::kString},
    {7, "startTime", K::kMessage, false, false, 2, K::kString},
    {8, "containerStatuses", K::kMessage, true, false, 135, K::kString},
    {9, "qosClass", K::kString, false, false, -1, K::kString},
    {10, "initContainerStatuses", K::kMessage, true, false, 135, K::kString},
    {11, "nominatedNodeName", K::kString, false, false, -1, K::kString},
    {12, "podIPs", K::kMessage, true, false, 145, K::kString},
    {13, "ephemeralContainerStatuses", K::kMessage, true, false, 135, K::kString},
    {14, "resize", K::kString, false, false, -1, K::kString},
    {15, "resourceClaimStatuses", K::kMessage, true, false, 146, K::kString},
    {16, "hostIPs", K::kMessage, true, false, 147, K::kString},
};
// k8s.io.api.core.v1.PodCondition
constexpr FieldSpec kFields134[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "lastProbeTime", K::kMessage, false, false, 2, K::kString},
    {4, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {5, "reason", K::kString, false, false, -1, K::kString},
    {6, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerStatus
constexpr FieldSpec kFields135[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "state", K::kMessage, false, false, 136, K::kString},
    {3, "lastState", K::kMessage, false, false, 136, K::kString},
    {4, "ready", K::kBool, false, false, -1, K::kString},
    {5, "restartCount", K::kInt32, false, false, -1, K::kString},
    {6, "image", K::kString, false, false, -1, K::kString},
    {7, "imageID", K::kString, false, false, -1, K::kString},
    {8, "containerID", K::kString, false, false, -1, K::kString},
    {9, "started", K::kBool, false, false, -1, K::kString},
    {10, "allocatedResources", K::kMap, false, false, 15, K::kMessage},
    {11, "resources", K::kMessage, false, false, 85, K::kString},
    {12, "volumeMounts", K::kMessage, true, false, 140, K::kString},
    {13, "user", K::kMessage, false, false, 141, K::kString},
    {14, "allocatedResourcesStatus", K::kMessage, true, false, 143, K::kString},
};
// k8s.io.api.core.v1.ContainerState
constexpr FieldSpec kFields136[] = {
    {1, "waiting", K::kMessage, false, false, 137, K::kString},
    {2, "running", K::kMessage, false, false, 138, K::kString},
    {3, "terminated", K::kMessage, false, false, 139, K::kString},
};
// k8s.io.api.core.v1.ContainerStateWaiting
constexpr FieldSpec kFields137[] = {
    {1, "reason", K::kString, false, false, -1, K::kString},
    {2, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerStateRunning
constexpr FieldSpec kFields138[] = {
    {1, "startedAt", K::kMessage, false, false, 2, K::kString},
};
// k8s.io.api.core.v1.ContainerStateTerminated
constexpr FieldSpec kFields139[] = {
    {1, "exitCode", K::kInt32, false, false, -1, K::kString},
    {2, "signal", K::kInt32, false, false, -1, K::kString},
    {3, "reason", K::kString, false, false, -1, K::kString},
    {4, "message", K::kString, false, false, -1, K::kString},
    {5, "startedAt", K::kMessage, false, false, 2, K::kString},
    {6, "finishedAt", K::kMessage, false, false, 2, K::kString},
    {7, "containerID", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.VolumeMountStatus
constexpr FieldSpec kFields140[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "mountPath", K::kString, false, false, -1, K::kString},
    {3, "readOnly", K::kBool, false, false, -1, K::kString},
    {4, "recursiveReadOnly", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ContainerUser
constexpr FieldSpec kFields141[] = {
    {1, "linux", K::kMessage, false, false, 142, K::kString},
};
// k8s.io.api.core.v1.LinuxContainerUser
constexpr FieldSpec kFields142[] = {
    {1, "uid", K::kInt64, false, false, -1, K::kString},
    {2, "gid", K::kInt64, false, false, -1, K::kString},
    {3, "supplementalGroups", K::kInt64, true, false, -1, K::kString},
};
// k8s.io.api.core.v1.ResourceStatus
constexpr FieldSpec kFields143[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "resources", K::kMessage, true, false, 144, K::kString},
};
// k8s.io.api.core.v1.ResourceHealth
constexpr FieldSpec kFields144[] = {
    {1, "resourceID", K::kString, false, false, -1, K::kString},
    {2, "health", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodIP
constexpr FieldSpec kFields145[] = {
    {1, "ip", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodResourceClaimStatus
constexpr FieldSpec kFields146[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "resourceClaimName", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.HostIP
constexpr FieldSpec kFields147[] = {
    {1, "ip", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.PodTemplate
constexpr FieldSpec kFields148[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "template", K::kMessage, false, false, 149, K::kString},
};
// k8s.io.api.core.v1.PodTemplateSpec
constexpr FieldSpec kFields149[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 28, K::kString},
};
// k8s.io.api.core.v1.Event
constexpr FieldSpec kFields150[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "involvedObject", K::kMessage, false, false, 151, K::kString},
    {3, "reason", K::kString, false, false, -1, K::kString},
    {4, "message", K::kString, false, false, -1, K::kString},
    {5, "source", K::kMessage, false, false, 152, K::kString},
    {6, "firstTimestamp", K::kMessage, false, false, 2, K::kString},
    {7, "lastTimestamp", K::kMessage, false, false, 2, K::kString},
    {8, "count", K::kInt32, false, false, -1, K::kString},
    {9, "type", K::kString, false, false, -1, K::kString},
    {10, "eventTime", K::kMessage, false, false, 153, K::kString},
    {11, "series", K::kMessage, false, false, 154, K::kString},
    {12, "action", K::kString, false, false, -1, K::kString},
    {13, "related", K::kMessage, false, false, 151, K::kString},
    {14, "reportingComponent", K::kString, false, false, -1, K::kString},
    {15, "reportingInstance", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ObjectReference
constexpr FieldSpec kFields151[] = {
    {1, "kind", K::kString, false, false, -1, K::kString},
    {2, "namespace", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
    {4, "uid", K::kString, false, false, -1, K::kString},
    {5, "apiVersion", K::kString, false, false, -1, K::kString},
    {6, "resourceVersion", K::kString, false, false, -1, K::kString},
    {7, "fieldPath", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EventSource
constexpr FieldSpec kFields152[] = {
    {1, "component", K::kString, false, false, -1, K::kString},
    {2, "host", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.EventSeries
constexpr FieldSpec kFields154[] = {
    {1, "count", K::kInt32, false, false, -1, K::kString},
    {2, "lastObservedTime", K::kMessage, false, false, 153, K::kString},
};
// k8s.io.api.core.v1.ConfigMap
constexpr FieldSpec kFields155[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "data", K::kMap, false, false, -1, K::kString},
    {3, "binaryData", K::kMap, false, false, -1, K::kBytes},
    {4, "immutable", K::kBool, false, true, -1, K::kString},
};
// k8s.io.api.core.v1.Service
constexpr FieldSpec kFields156[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 157, K::kString},
    {3, "status", K::kMessage, false, false, 161, K::kString},
};
// k8s.io.api.core.v1.ServiceSpec
constexpr FieldSpec kFields157[] = {
    {1, "ports", K::kMessage, true, false, 158, K::kString},
    {2, "selector", K::kMap, false, false, -1, K::kString},
    {3, "clusterIP", K::kString, false, false, -1, K::kString},
    {4, "type", K::kString, false, false, -1, K::kString},
    {5, "externalIPs", K::kString, true, false, -1, K::kString},
    {7, "sessionAffinity", K::kString, false, false, -1, K::kString},
    {8, "loadBalancerIP", K::kString, false, false, -1, K::kString},
    {9, "loadBalancerSourceRanges", K::kString, true, false, -1, K::kString},
    {10, "externalName", K::kString, false, false, -1, K::kString},
    {11, "externalTrafficPolicy", K::kString, false, false, -1, K::kString},
    {12, "healthCheckNodePort", K::kInt32, false, false, -1, K::kString},
    {13, "publishNotReadyAddresses", K::kBool, false, false, -1, K::kString},
    {14, "sessionAffinityConfig", K::kMessage, false, false, 159, K::kString},
    {17, "ipFamilyPolicy", K::kString, false, false, -1, K::kString},
    {18, "clusterIPs", K::kString, true, false, -1, K::kString},
    {19, "ipFamilies", K::kString, true, false, -1, K::kString},
    {20, "allocateLoadBalancerNodePorts", K::kBool, false, true, -1, K::kString},
    {21, "loadBalancerClass", K::kString, false, false, -1, K::kString},
    {22, "internalTrafficPolicy", K::kString, false, false, -1, K::kString},
    {23, "trafficDistribution", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ServicePort
constexpr FieldSpec kFields158[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "protocol", K::kString, false, false, -1, K::kString},
    {3, "port", K::kInt32, false, false, -1, K::kString},
    {4, "targetPort", K::kMessage, false, false, 92, K::kString},
    {5, "nodePort", K::kInt32, false, false, -1, K::kString},
    {6, "appProtocol", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.SessionAffinityConfig
constexpr FieldSpec kFields159[] = {
    {1, "clientIP", K::kMessage, false, false, 160, K::kString},
};
// k8s.io.api.core.v1.ClientIPConfig
constexpr FieldSpec kFields160[] = {
    {1, "timeoutSeconds", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ServiceStatus
constexpr FieldSpec kFields161[] = {
    {1, "loadBalancer", K::kMessage, false, false, 162, K::kString},
    {2, "conditions", K::kMessage, true, false, 165, K::kString},
};
// k8s.io.api.core.v1.LoadBalancerStatus
constexpr FieldSpec kFields162[] = {
    {1, "ingress", K::kMessage, true, false, 163, K::kString},
};
// k8s.io.api.core.v1.LoadBalancerIngress
constexpr FieldSpec kFields163[] = {
    {1, "ip", K::kString, false, false, -1, K::kString},
    {2, "hostname", K::kString, false, false, -1, K::kString},
    {3, "ipMode", K::kString, false, false, -1, K::kString},
    {4, "ports", K::kMessage, true, false, 164, K::kString},
};
// k8s.io.api.core.v1.PortStatus
constexpr FieldSpec kFields164[] = {
    {1, "port", K::kInt32, false, false, -1, K::kString},
    {2, "protocol", K::kString, false, false, -1, K::kString},
    {3, "error", K::kString, false, false, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.Condition
constexpr FieldSpec kFields165[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "observedGeneration", K::kInt64, false, false, -1, K::kString},
    {4, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {5, "reason", K::kString, false, false, -1, K::kString},
    {6, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.Binding
constexpr FieldSpec kFields166[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "target", K::kMessage, false, false, 151, K::kString},
};
// k8s.io.api.core.v1.Secret
constexpr FieldSpec kFields167[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "data", K::kMap, false, false, -1, K::kBytes},
    {3, "type", K::kString, false, false, -1, K::kString},
    {4, "stringData", K::kMap, false, false, -1, K::kString},
    {5, "immutable", K::kBool, false, true, -1, K::kString},
};
// k8s.io.api.core.v1.ServiceAccount
constexpr FieldSpec kFields168[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "secrets", K::kMessage, true, false, 151, K::kString},
    {3, "imagePullSecrets", K::kMessage, true, false, 40, K::kString},
    {4, "automountServiceAccountToken", K::kBool, false, true, -1, K::kString},
};
// k8s.io.api.apps.v1.Deployment
constexpr FieldSpec kFields169[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 170, K::kString},
    {3, "status", K::kMessage, false, false, 173, K::kString},
};
// k8s.io.api.apps.v1.DeploymentSpec
constexpr FieldSpec kFields170[] = {
    {1, "replicas", K::kInt32, false, true, -1, K::kString},
    {2, "selector", K::kMessage, false, false, 68, K::kString},
    {3, "template", K::kMessage, false, false, 149, K::kString},
    {4, "strategy", K::kMessage, false, false, 171, K::kString},
    {5, "minReadySeconds", K::kInt32, false, false, -1, K::kString},
    {6, "revisionHistoryLimit", K::kInt32, false, true, -1, K::kString},
    {7, "paused", K::kBool, false, false, -1, K::kString},
    {9, "progressDeadlineSeconds", K::kInt32, false, true, -1, K::kString},
};
// k8s.io.api.apps.v1.DeploymentStrategy
constexpr FieldSpec kFields171[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "rollingUpdate", K::kMessage, false, false, 172, K::kString},
};
// k8s.io.api.apps.v1.RollingUpdateDeployment
constexpr FieldSpec kFields172[] = {
    {1, "maxUnavailable", K::kMessage, false, false, 92, K::kString},
    {2, "maxSurge", K::kMessage, false, false, 92, K::kString},
};
// k8s.io.api.apps.v1.DeploymentStatus
constexpr FieldSpec kFields173[] = {
    {1, "observedGeneration", K::kInt64, false, false, -1, K::kString},
    {2, "replicas", K::kInt32, false, false, -1, K::kString},
    {3, "updatedReplicas", K::kInt32, false, false, -1, K::kString},
    {4, "availableReplicas", K::kInt32, false, false, -1, K::kString},
    {5, "unavailableReplicas", K::kInt32, false, false, -1, K::kString},
    {6, "conditions", K::kMessage, true, false, 174, K::kString},
    {7, "readyReplicas", K::kInt32, false, false, -1, K::kString},
    {8, "collisionCount", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.DeploymentCondition
constexpr FieldSpec kFields174[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {4, "reason", K::kString, false, false, -1, K::kString},
    {5, "message", K::kString, false, false, -1, K::kString},
    {6, "lastUpdateTime", K::kMessage, false, false, 2, K::kString},
    {7, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
};
// k8s.io.api.apps.v1.ReplicaSet
constexpr FieldSpec kFields175[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 176, K::kString},
    {3, "status", K::kMessage, false, false, 177, K::kString},
};
// k8s.io.api.apps.v1.ReplicaSetSpec
constexpr FieldSpec kFields176[] = {
    {1, "replicas", K::kInt32, false, true, -1, K::kString},
    {2, "selector", K::kMessage, false, false, 68, K::kString},
    {3, "template", K::kMessage, false, false, 149, K::kString},
    {4, "minReadySeconds", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.ReplicaSetStatus
constexpr FieldSpec kFields177[] = {
    {1, "replicas", K::kInt32, false, false, -1, K::kString},
    {2, "fullyLabeledReplicas", K::kInt32, false, false, -1, K::kString},
    {3, "observedGeneration", K::kInt64, false, false, -1, K::kString},
    {4, "readyReplicas", K::kInt32, false, false, -1, K::kString},
    {5, "availableReplicas", K::kInt32, false, false, -1, K::kString},
    {6, "conditions", K::kMessage, true, false, 178, K::kString},
};
// k8s.io.api.apps.v1.ReplicaSetCondition
constexpr FieldSpec kFields178[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {4, "reason", K::kString, false, false, -1, K::kString},
    {5, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.StatefulSet
constexpr FieldSpec kFields179[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 180, K::kString},
    {3, "status", K::kMessage, false, false, 189, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetSpec
constexpr FieldSpec kFields180[] = {
    {1, "replicas", K::kInt32, false, true, -1, K::kString},
    {2, "selector", K::kMessage, false, false, 68, K::kString},
    {3, "template", K::kMessage, false, false, 149, K::kString},
    {4, "volumeClaimTemplates", K::kMessage, true, false, 181, K::kString},
    {5, "serviceName", K::kString, false, false, -1, K::kString},
    {6, "podManagementPolicy", K::kString, false, false, -1, K::kString},
    {7, "updateStrategy", K::kMessage, false, false, 185, K::kString},
    {8, "revisionHistoryLimit", K::kInt32, false, true, -1, K::kString},
    {9, "minReadySeconds", K::kInt32, false, false, -1, K::kString},
    {10, "persistentVolumeClaimRetentionPolicy", K::kMessage, false, false, 187, K::kString},
    {11, "ordinals", K::kMessage, false, false, 188, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaim
constexpr FieldSpec kFields181[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 74, K::kString},
    {3, "status", K::kMessage, false, false, 182, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaimStatus
constexpr FieldSpec kFields182[] = {
    {1, "phase", K::kString, false, false, -1, K::kString},
    {2, "accessModes", K::kString, true, false, -1, K::kString},
    {3, "capacity", K::kMap, false, false, 15, K::kMessage},
    {4, "conditions", K::kMessage, true, false, 183, K::kString},
    {5, "allocatedResources", K::kMap, false, false, 15, K::kMessage},
    {7, "allocatedResourceStatuses", K::kMap, false, false, -1, K::kString},
    {8, "currentVolumeAttributesClassName", K::kString, false, false, -1, K::kString},
    {9, "modifyVolumeStatus", K::kMessage, false, false, 184, K::kString},
};
// k8s.io.api.core.v1.PersistentVolumeClaimCondition
constexpr FieldSpec kFields183[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "lastProbeTime", K::kMessage, false, false, 2, K::kString},
    {4, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {5, "reason", K::kString, false, false, -1, K::kString},
    {6, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.core.v1.ModifyVolumeStatus
constexpr FieldSpec kFields184[] = {
    {1, "targetVolumeAttributesClassName", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetUpdateStrategy
constexpr FieldSpec kFields185[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "rollingUpdate", K::kMessage, false, false, 186, K::kString},
};
// k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy
constexpr FieldSpec kFields186[] = {
    {1, "partition", K::kInt32, false, true, -1, K::kString},
    {2, "maxUnavailable", K::kMessage, false, false, 92, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy
constexpr FieldSpec kFields187[] = {
    {1, "whenDeleted", K::kString, false, false, -1, K::kString},
    {2, "whenScaled", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetOrdinals
constexpr FieldSpec kFields188[] = {
    {1, "start", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetStatus
constexpr FieldSpec kFields189[] = {
    {1, "observedGeneration", K::kInt64, false, false, -1, K::kString},
    {2, "replicas", K::kInt32, false, false, -1, K::kString},
    {3, "readyReplicas", K::kInt32, false, false, -1, K::kString},
    {4, "currentReplicas", K::kInt32, false, false, -1, K::kString},
    {5, "updatedReplicas", K::kInt32, false, false, -1, K::kString},
    {6, "currentRevision", K::kString, false, false, -1, K::kString},
    {7, "updateRevision", K::kString, false, false, -1, K::kString},
    {9, "collisionCount", K::kInt32, false, false, -1, K::kString},
    {10, "conditions", K::kMessage, true, false, 190, K::kString},
    {11, "availableReplicas", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetCondition
constexpr FieldSpec kFields190[] = {
    {1, "type", K::kString, false, false, -1, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "lastTransitionTime", K::kMessage, false, false, 2, K::kString},
    {4, "reason", K::kString, false, false, -1, K::kString},
    {5, "message", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.autoscaling.v1.Scale
constexpr FieldSpec kFields191[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 192, K::kString},
    {3, "status", K::kMessage, false, false, 193, K::kString},
};
// k8s.io.api.autoscaling.v1.ScaleSpec
constexpr FieldSpec kFields192[] = {
    {1, "replicas", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.api.autoscaling.v1.ScaleStatus
constexpr FieldSpec kFields193[] = {
    {1, "replicas", K::kInt32, false, false, -1, K::kString},
    {2, "selector", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.policy.v1.PodDisruptionBudget
constexpr FieldSpec kFields194[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 195, K::kString},
    {3, "status", K::kMessage, false, false, 196, K::kString},
};
// k8s.io.api.policy.v1.PodDisruptionBudgetSpec
constexpr FieldSpec kFields195[] = {
    {1, "minAvailable", K::kMessage, false, false, 92, K::kString},
    {2, "selector", K::kMessage, false, false, 68, K::kString},
    {3, "maxUnavailable", K::kMessage, false, false, 92, K::kString},
    {4, "unhealthyPodEvictionPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.policy.v1.PodDisruptionBudgetStatus
constexpr FieldSpec kFields196[] = {
    {1, "observedGeneration", K::kInt64, false, false, -1, K::kString},
    {2, "disruptedPods", K::kMap, false, false, 2, K::kMessage},
    {3, "disruptionsAllowed", K::kInt32, false, false, -1, K::kString},
    {4, "currentHealthy", K::kInt32, false, false, -1, K::kString},
    {5, "desiredHealthy", K::kInt32, false, false, -1, K::kString},
    {6, "expectedPods", K::kInt32, false, false, -1, K::kString},
    {7, "conditions", K::kMessage, true, false, 165, K::kString},
};
// k8s.io.api.policy.v1.Eviction
constexpr FieldSpec kFields197[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "deleteOptions", K::kMessage, false, false, 198, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions
constexpr FieldSpec kFields198[] = {
    {1, "gracePeriodSeconds", K::kInt64, false, true, -1, K::kString},
    {2, "preconditions", K::kMessage, false, false, 199, K::kString},
    {3, "orphanDependents", K::kBool, false, true, -1, K::kString},
    {4, "propagationPolicy", K::kString, false, false, -1, K::kString},
    {5, "dryRun", K::kString, true, false, -1, K::kString},
    {6, "ignoreStoreReadErrorWithClusterBreakingPotential", K::kBool, false, false, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions
constexpr FieldSpec kFields199[] = {
    {1, "uid", K::kString, false, false, -1, K::kString},
    {2, "resourceVersion", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.coordination.v1.Lease
constexpr FieldSpec kFields200[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "spec", K::kMessage, false, false, 201, K::kString},
};
// k8s.io.api.coordination.v1.LeaseSpec
constexpr FieldSpec kFields201[] = {
    {1, "holderIdentity", K::kString, false, false, -1, K::kString},
    {2, "leaseDurationSeconds", K::kInt32, false, true, -1, K::kString},
    {3, "acquireTime", K::kMessage, false, false, 153, K::kString},
    {4, "renewTime", K::kMessage, false, false, 153, K::kString},
    {5, "leaseTransitions", K::kInt32, false, true, -1, K::kString},
    {6, "strategy", K::kString, false, false, -1, K::kString},
    {7, "preferredHolder", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.scheduling.v1.PriorityClass
constexpr FieldSpec kFields202[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "value", K::kInt32, false, false, -1, K::kString},
    {3, "globalDefault", K::kBool, false, false, -1, K::kString},
    {4, "description", K::kString, false, false, -1, K::kString},
    {5, "preemptionPolicy", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.rbac.v1.Role
constexpr FieldSpec kFields203[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "rules", K::kMessage, true, false, 204, K::kString},
};
// k8s.io.api.rbac.v1.PolicyRule
constexpr FieldSpec kFields204[] = {
    {1, "verbs", K::kString, true, false, -1, K::kString},
    {2, "apiGroups", K::kString, true, false, -1, K::kString},
    {3, "resources", K::kString, true, false, -1, K::kString},
    {4, "resourceNames", K::kString, true, false, -1, K::kString},
    {5, "nonResourceURLs", K::kString, true, false, -1, K::kString},
};
// k8s.io.api.rbac.v1.RoleBinding
constexpr FieldSpec kFields205[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "subjects", K::kMessage, true, false, 206, K::kString},
    {3, "roleRef", K::kMessage, false, false, 207, K::kString},
};
// k8s.io.api.rbac.v1.Subject
constexpr FieldSpec kFields206[] = {
    {1, "kind", K::kString, false, false, -1, K::kString},
    {2, "apiGroup", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
    {4, "namespace", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.rbac.v1.RoleRef
constexpr FieldSpec kFields207[] = {
    {1, "apiGroup", K::kString, false, false, -1, K::kString},
    {2, "kind", K::kString, false, false, -1, K::kString},
    {3, "name", K::kString, false, false, -1, K::kString},
};
// k8s.io.api.rbac.v1.ClusterRole
constexpr FieldSpec kFields208[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "rules", K::kMessage, true, false, 204, K::kString},
    {3, "aggregationRule", K::kMessage, false, false, 209, K::kString},
};
// k8s.io.api.rbac.v1.AggregationRule
constexpr FieldSpec kFields209[] = {
    {1, "clusterRoleSelectors", K::kMessage, true, false, 68, K::kString},
};
// k8s.io.api.rbac.v1.ClusterRoleBinding
constexpr FieldSpec kFields210[] = {
    {1, "metadata", K::kMessage, false, false, 1, K::kString},
    {2, "subjects", K::kMessage, true, false, 206, K::kString},
    {3, "roleRef", K::kMessage, false, false, 207, K::kString},
};
// k8s.io.api.core.v1.NamespaceList
constexpr FieldSpec kFields211[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 0, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta
constexpr FieldSpec kFields212[] = {
    {1, "selfLink", K::kString, false, false, -1, K::kString},
    {2, "resourceVersion", K::kString, false, false, -1, K::kString},
    {3, "continue", K::kString, false, false, -1, K::kString},
    {4, "remainingItemCount", K::kInt64, false, true, -1, K::kString},
};
// k8s.io.api.core.v1.NodeList
constexpr FieldSpec kFields213[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 9, K::kString},
};
// k8s.io.api.core.v1.PodList
constexpr FieldSpec kFields214[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 27, K::kString},
};
// k8s.io.api.core.v1.PodTemplateList
constexpr FieldSpec kFields215[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 148, K::kString},
};
// k8s.io.api.core.v1.EventList
constexpr FieldSpec kFields216[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 150, K::kString},
};
// k8s.io.api.core.v1.ConfigMapList
constexpr FieldSpec kFields217[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 155, K::kString},
};
// k8s.io.api.core.v1.ServiceList
constexpr FieldSpec kFields218[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 156, K::kString},
};
// k8s.io.api.core.v1.SecretList
constexpr FieldSpec kFields219[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 167, K::kString},
};
// k8s.io.api.core.v1.ServiceAccountList
constexpr FieldSpec kFields220[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 168, K::kString},
};
// k8s.io.api.apps.v1.DeploymentList
constexpr FieldSpec kFields221[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 169, K::kString},
};
// k8s.io.api.apps.v1.ReplicaSetList
constexpr FieldSpec kFields222[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 175, K::kString},
};
// k8s.io.api.apps.v1.StatefulSetList
constexpr FieldSpec kFields223[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 179, K::kString},
};
// k8s.io.api.policy.v1.PodDisruptionBudgetList
constexpr FieldSpec kFields224[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 194, K::kString},
};
// k8s.io.api.coordination.v1.LeaseList
constexpr FieldSpec kFields225[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 200, K::kString},
};
// k8s.io.api.scheduling.v1.PriorityClassList
constexpr FieldSpec kFields226[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 202, K::kString},
};
// k8s.io.api.rbac.v1.RoleList
constexpr FieldSpec kFields227[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 203, K::kString},
};
// k8s.io.api.rbac.v1.RoleBindingList
constexpr FieldSpec kFields228[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 205, K::kString},
};
// k8s.io.api.rbac.v1.ClusterRoleList
constexpr FieldSpec kFields229[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 208, K::kString},
};
// k8s.io.api.rbac.v1.ClusterRoleBindingList
constexpr FieldSpec kFields230[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "items", K::kMessage, true, false, 210, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.Status
constexpr FieldSpec kFields231[] = {
    {1, "metadata", K::kMessage, false, false, 212, K::kString},
    {2, "status", K::kString, false, false, -1, K::kString},
    {3, "message", K::kString, false, false, -1, K::kString},
    {4, "reason", K::kString, false, false, -1, K::kString},
    {5, "details", K::kMessage, false, false, 232, K::kString},
    {6, "code", K::kInt32, false, false, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails
constexpr FieldSpec kFields232[] = {
    {1, "name", K::kString, false, false, -1, K::kString},
    {2, "group", K::kString, false, false, -1, K::kString},
    {3, "kind", K::kString, false, false, -1, K::kString},
    {4, "causes", K::kMessage, true, false, 233, K::kString},
    {5, "retryAfterSeconds", K::kInt32, false, false, -1, K::kString},
    {6, "uid", K::kString, false, false, -1, K::kString},
};
// k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause
constexpr FieldSpec kFields233[] = {
    {1, "reason", K::kString, false, false, -1, K::kString},
    {2, "message", K::kString, false, false, -1, K::kString},
    {3, "field", K::kString, false, false, -1, K::kString},
};

}  // namespace

const MessageSpec kMessages[] = {
    {"k8s.io.api.core.v1.Namespace", Special::kNone, kFields0, sizeof(kFields0) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", Special::kNone, kFields1, sizeof(kFields1) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", Special::kTime, nullptr, 0},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference", Special::kNone, kFields3, sizeof(kFields3) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", Special::kNone, kFields4, sizeof(kFields4) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", Special::kRawJson, nullptr, 0},
    {"k8s.io.api.core.v1.NamespaceSpec", Special::kNone, kFields6, sizeof(kFields6) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NamespaceStatus", Special::kNone, kFields7, sizeof(kFields7) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NamespaceCondition", Special::kNone, kFields8, sizeof(kFields8) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Node", Special::kNone, kFields9, sizeof(kFields9) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeSpec", Special::kNone, kFields10, sizeof(kFields10) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Taint", Special::kNone, kFields11, sizeof(kFields11) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeConfigSource", Special::kNone, kFields12, sizeof(kFields12) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapNodeConfigSource", Special::kNone, kFields13, sizeof(kFields13) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeStatus", Special::kNone, kFields14, sizeof(kFields14) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.api.resource.Quantity", Special::kQuantity, nullptr, 0},
    {"k8s.io.api.core.v1.NodeCondition", Special::kNone, kFields16, sizeof(kFields16) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeAddress", Special::kNone, kFields17, sizeof(kFields17) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeDaemonEndpoints", Special::kNone, kFields18, sizeof(kFields18) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.DaemonEndpoint", Special::kNone, kFields19, sizeof(kFields19) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeSystemInfo", Special::kNone, kFields20, sizeof(kFields20) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerImage", Special::kNone, kFields21, sizeof(kFields21) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.AttachedVolume", Special::kNone, kFields22, sizeof(kFields22) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeConfigStatus", Special::kNone, kFields23, sizeof(kFields23) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeRuntimeHandler", Special::kNone, kFields24, sizeof(kFields24) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeRuntimeHandlerFeatures", Special::kNone, kFields25, sizeof(kFields25) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeFeatures", Special::kNone, kFields26, sizeof(kFields26) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Pod", Special::kNone, kFields27, sizeof(kFields27) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodSpec", Special::kNone, kFields28, sizeof(kFields28) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Volume", Special::kNone, kFields29, sizeof(kFields29) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeSource", Special::kNone, kFields30, sizeof(kFields30) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.HostPathVolumeSource", Special::kNone, kFields31, sizeof(kFields31) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EmptyDirVolumeSource", Special::kNone, kFields32, sizeof(kFields32) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.GCEPersistentDiskVolumeSource", Special::kNone, kFields33, sizeof(kFields33) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource", Special::kNone, kFields34, sizeof(kFields34) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.GitRepoVolumeSource", Special::kNone, kFields35, sizeof(kFields35) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecretVolumeSource", Special::kNone, kFields36, sizeof(kFields36) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.KeyToPath", Special::kNone, kFields37, sizeof(kFields37) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NFSVolumeSource", Special::kNone, kFields38, sizeof(kFields38) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ISCSIVolumeSource", Special::kNone, kFields39, sizeof(kFields39) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.LocalObjectReference", Special::kNone, kFields40, sizeof(kFields40) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.GlusterfsVolumeSource", Special::kNone, kFields41, sizeof(kFields41) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource", Special::kNone, kFields42, sizeof(kFields42) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.RBDVolumeSource", Special::kNone, kFields43, sizeof(kFields43) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.FlexVolumeSource", Special::kNone, kFields44, sizeof(kFields44) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.CinderVolumeSource", Special::kNone, kFields45, sizeof(kFields45) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.CephFSVolumeSource", Special::kNone, kFields46, sizeof(kFields46) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.FlockerVolumeSource", Special::kNone, kFields47, sizeof(kFields47) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.DownwardAPIVolumeSource", Special::kNone, kFields48, sizeof(kFields48) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.DownwardAPIVolumeFile", Special::kNone, kFields49, sizeof(kFields49) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ObjectFieldSelector", Special::kNone, kFields50, sizeof(kFields50) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ResourceFieldSelector", Special::kNone, kFields51, sizeof(kFields51) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.FCVolumeSource", Special::kNone, kFields52, sizeof(kFields52) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.AzureFileVolumeSource", Special::kNone, kFields53, sizeof(kFields53) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapVolumeSource", Special::kNone, kFields54, sizeof(kFields54) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource", Special::kNone, kFields55, sizeof(kFields55) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.QuobyteVolumeSource", Special::kNone, kFields56, sizeof(kFields56) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.AzureDiskVolumeSource", Special::kNone, kFields57, sizeof(kFields57) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource", Special::kNone, kFields58, sizeof(kFields58) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PortworxVolumeSource", Special::kNone, kFields59, sizeof(kFields59) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ScaleIOVolumeSource", Special::kNone, kFields60, sizeof(kFields60) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ProjectedVolumeSource", Special::kNone, kFields61, sizeof(kFields61) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeProjection", Special::kNone, kFields62, sizeof(kFields62) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecretProjection", Special::kNone, kFields63, sizeof(kFields63) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.DownwardAPIProjection", Special::kNone, kFields64, sizeof(kFields64) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapProjection", Special::kNone, kFields65, sizeof(kFields65) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceAccountTokenProjection", Special::kNone, kFields66, sizeof(kFields66) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ClusterTrustBundleProjection", Special::kNone, kFields67, sizeof(kFields67) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", Special::kNone, kFields68, sizeof(kFields68) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", Special::kNone, kFields69, sizeof(kFields69) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.StorageOSVolumeSource", Special::kNone, kFields70, sizeof(kFields70) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.CSIVolumeSource", Special::kNone, kFields71, sizeof(kFields71) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EphemeralVolumeSource", Special::kNone, kFields72, sizeof(kFields72) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaimTemplate", Special::kNone, kFields73, sizeof(kFields73) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaimSpec", Special::kNone, kFields74, sizeof(kFields74) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeResourceRequirements", Special::kNone, kFields75, sizeof(kFields75) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.TypedLocalObjectReference", Special::kNone, kFields76, sizeof(kFields76) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.TypedObjectReference", Special::kNone, kFields77, sizeof(kFields77) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ImageVolumeSource", Special::kNone, kFields78, sizeof(kFields78) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Container", Special::kNone, kFields79, sizeof(kFields79) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerPort", Special::kNone, kFields80, sizeof(kFields80) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EnvVar", Special::kNone, kFields81, sizeof(kFields81) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EnvVarSource", Special::kNone, kFields82, sizeof(kFields82) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapKeySelector", Special::kNone, kFields83, sizeof(kFields83) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecretKeySelector", Special::kNone, kFields84, sizeof(kFields84) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ResourceRequirements", Special::kNone, kFields85, sizeof(kFields85) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ResourceClaim", Special::kNone, kFields86, sizeof(kFields86) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeMount", Special::kNone, kFields87, sizeof(kFields87) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Probe", Special::kNone, kFields88, sizeof(kFields88) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ProbeHandler", Special::kNone, kFields89, sizeof(kFields89) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ExecAction", Special::kNone, kFields90, sizeof(kFields90) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.HTTPGetAction", Special::kNone, kFields91, sizeof(kFields91) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", Special::kIntOrString, nullptr, 0},
    {"k8s.io.api.core.v1.HTTPHeader", Special::kNone, kFields93, sizeof(kFields93) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.TCPSocketAction", Special::kNone, kFields94, sizeof(kFields94) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.GRPCAction", Special::kNone, kFields95, sizeof(kFields95) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Lifecycle", Special::kNone, kFields96, sizeof(kFields96) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.LifecycleHandler", Special::kNone, kFields97, sizeof(kFields97) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SleepAction", Special::kNone, kFields98, sizeof(kFields98) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecurityContext", Special::kNone, kFields99, sizeof(kFields99) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Capabilities", Special::kNone, kFields100, sizeof(kFields100) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SELinuxOptions", Special::kNone, kFields101, sizeof(kFields101) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.WindowsSecurityContextOptions", Special::kNone, kFields102, sizeof(kFields102) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SeccompProfile", Special::kNone, kFields103, sizeof(kFields103) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.AppArmorProfile", Special::kNone, kFields104, sizeof(kFields104) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EnvFromSource", Special::kNone, kFields105, sizeof(kFields105) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapEnvSource", Special::kNone, kFields106, sizeof(kFields106) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecretEnvSource", Special::kNone, kFields107, sizeof(kFields107) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeDevice", Special::kNone, kFields108, sizeof(kFields108) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerResizePolicy", Special::kNone, kFields109, sizeof(kFields109) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodSecurityContext", Special::kNone, kFields110, sizeof(kFields110) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Sysctl", Special::kNone, kFields111, sizeof(kFields111) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Affinity", Special::kNone, kFields112, sizeof(kFields112) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeAffinity", Special::kNone, kFields113, sizeof(kFields113) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeSelector", Special::kNone, kFields114, sizeof(kFields114) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeSelectorTerm", Special::kNone, kFields115, sizeof(kFields115) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeSelectorRequirement", Special::kNone, kFields116, sizeof(kFields116) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PreferredSchedulingTerm", Special::kNone, kFields117, sizeof(kFields117) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodAffinity", Special::kNone, kFields118, sizeof(kFields118) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodAffinityTerm", Special::kNone, kFields119, sizeof(kFields119) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.WeightedPodAffinityTerm", Special::kNone, kFields120, sizeof(kFields120) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodAntiAffinity", Special::kNone, kFields121, sizeof(kFields121) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Toleration", Special::kNone, kFields122, sizeof(kFields122) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.HostAlias", Special::kNone, kFields123, sizeof(kFields123) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodDNSConfig", Special::kNone, kFields124, sizeof(kFields124) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodDNSConfigOption", Special::kNone, kFields125, sizeof(kFields125) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodReadinessGate", Special::kNone, kFields126, sizeof(kFields126) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.TopologySpreadConstraint", Special::kNone, kFields127, sizeof(kFields127) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EphemeralContainer", Special::kNone, kFields128, sizeof(kFields128) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EphemeralContainerCommon", Special::kNone, kFields129, sizeof(kFields129) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodOS", Special::kNone, kFields130, sizeof(kFields130) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodSchedulingGate", Special::kNone, kFields131, sizeof(kFields131) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodResourceClaim", Special::kNone, kFields132, sizeof(kFields132) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodStatus", Special::kNone, kFields133, sizeof(kFields133) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodCondition", Special::kNone, kFields134, sizeof(kFields134) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerStatus", Special::kNone, kFields135, sizeof(kFields135) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerState", Special::kNone, kFields136, sizeof(kFields136) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerStateWaiting", Special::kNone, kFields137, sizeof(kFields137) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerStateRunning", Special::kNone, kFields138, sizeof(kFields138) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerStateTerminated", Special::kNone, kFields139, sizeof(kFields139) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.VolumeMountStatus", Special::kNone, kFields140, sizeof(kFields140) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ContainerUser", Special::kNone, kFields141, sizeof(kFields141) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.LinuxContainerUser", Special::kNone, kFields142, sizeof(kFields142) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ResourceStatus", Special::kNone, kFields143, sizeof(kFields143) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ResourceHealth", Special::kNone, kFields144, sizeof(kFields144) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodIP", Special::kNone, kFields145, sizeof(kFields145) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodResourceClaimStatus", Special::kNone, kFields146, sizeof(kFields146) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.HostIP", Special::kNone, kFields147, sizeof(kFields147) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodTemplate", Special::kNone, kFields148, sizeof(kFields148) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodTemplateSpec", Special::kNone, kFields149, sizeof(kFields149) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Event", Special::kNone, kFields150, sizeof(kFields150) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ObjectReference", Special::kNone, kFields151, sizeof(kFields151) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EventSource", Special::kNone, kFields152, sizeof(kFields152) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", Special::kMicroTime, nullptr, 0},
    {"k8s.io.api.core.v1.EventSeries", Special::kNone, kFields154, sizeof(kFields154) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMap", Special::kNone, kFields155, sizeof(kFields155) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Service", Special::kNone, kFields156, sizeof(kFields156) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceSpec", Special::kNone, kFields157, sizeof(kFields157) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServicePort", Special::kNone, kFields158, sizeof(kFields158) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SessionAffinityConfig", Special::kNone, kFields159, sizeof(kFields159) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ClientIPConfig", Special::kNone, kFields160, sizeof(kFields160) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceStatus", Special::kNone, kFields161, sizeof(kFields161) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.LoadBalancerStatus", Special::kNone, kFields162, sizeof(kFields162) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.LoadBalancerIngress", Special::kNone, kFields163, sizeof(kFields163) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PortStatus", Special::kNone, kFields164, sizeof(kFields164) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Condition", Special::kNone, kFields165, sizeof(kFields165) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Binding", Special::kNone, kFields166, sizeof(kFields166) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.Secret", Special::kNone, kFields167, sizeof(kFields167) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceAccount", Special::kNone, kFields168, sizeof(kFields168) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.Deployment", Special::kNone, kFields169, sizeof(kFields169) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.DeploymentSpec", Special::kNone, kFields170, sizeof(kFields170) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.DeploymentStrategy", Special::kNone, kFields171, sizeof(kFields171) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.RollingUpdateDeployment", Special::kNone, kFields172, sizeof(kFields172) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.DeploymentStatus", Special::kNone, kFields173, sizeof(kFields173) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.DeploymentCondition", Special::kNone, kFields174, sizeof(kFields174) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.ReplicaSet", Special::kNone, kFields175, sizeof(kFields175) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.ReplicaSetSpec", Special::kNone, kFields176, sizeof(kFields176) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.ReplicaSetStatus", Special::kNone, kFields177, sizeof(kFields177) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.ReplicaSetCondition", Special::kNone, kFields178, sizeof(kFields178) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSet", Special::kNone, kFields179, sizeof(kFields179) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetSpec", Special::kNone, kFields180, sizeof(kFields180) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaim", Special::kNone, kFields181, sizeof(kFields181) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaimStatus", Special::kNone, kFields182, sizeof(kFields182) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PersistentVolumeClaimCondition", Special::kNone, kFields183, sizeof(kFields183) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ModifyVolumeStatus", Special::kNone, kFields184, sizeof(kFields184) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetUpdateStrategy", Special::kNone, kFields185, sizeof(kFields185) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy", Special::kNone, kFields186, sizeof(kFields186) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy", Special::kNone, kFields187, sizeof(kFields187) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetOrdinals", Special::kNone, kFields188, sizeof(kFields188) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetStatus", Special::kNone, kFields189, sizeof(kFields189) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetCondition", Special::kNone, kFields190, sizeof(kFields190) / sizeof(FieldSpec)},
    {"k8s.io.api.autoscaling.v1.Scale", Special::kNone, kFields191, sizeof(kFields191) / sizeof(FieldSpec)},
    {"k8s.io.api.autoscaling.v1.ScaleSpec", Special::kNone, kFields192, sizeof(kFields192) / sizeof(FieldSpec)},
    {"k8s.io.api.autoscaling.v1.ScaleStatus", Special::kNone, kFields193, sizeof(kFields193) / sizeof(FieldSpec)},
    {"k8s.io.api.policy.v1.PodDisruptionBudget", Special::kNone, kFields194, sizeof(kFields194) / sizeof(FieldSpec)},
    {"k8s.io.api.policy.v1.PodDisruptionBudgetSpec", Special::kNone, kFields195, sizeof(kFields195) / sizeof(FieldSpec)},
    {"k8s.io.api.policy.v1.PodDisruptionBudgetStatus", Special::kNone, kFields196, sizeof(kFields196) / sizeof(FieldSpec)},
    {"k8s.io.api.policy.v1.Eviction", Special::kNone, kFields197, sizeof(kFields197) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions", Special::kNone, kFields198, sizeof(kFields198) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions", Special::kNone, kFields199, sizeof(kFields199) / sizeof(FieldSpec)},
    {"k8s.io.api.coordination.v1.Lease", Special::kNone, kFields200, sizeof(kFields200) / sizeof(FieldSpec)},
    {"k8s.io.api.coordination.v1.LeaseSpec", Special::kNone, kFields201, sizeof(kFields201) / sizeof(FieldSpec)},
    {"k8s.io.api.scheduling.v1.PriorityClass", Special::kNone, kFields202, sizeof(kFields202) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.Role", Special::kNone, kFields203, sizeof(kFields203) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.PolicyRule", Special::kNone, kFields204, sizeof(kFields204) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.RoleBinding", Special::kNone, kFields205, sizeof(kFields205) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.Subject", Special::kNone, kFields206, sizeof(kFields206) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.RoleRef", Special::kNone, kFields207, sizeof(kFields207) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.ClusterRole", Special::kNone, kFields208, sizeof(kFields208) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.AggregationRule", Special::kNone, kFields209, sizeof(kFields209) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.ClusterRoleBinding", Special::kNone, kFields210, sizeof(kFields210) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NamespaceList", Special::kNone, kFields211, sizeof(kFields211) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta", Special::kNone, kFields212, sizeof(kFields212) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.NodeList", Special::kNone, kFields213, sizeof(kFields213) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodList", Special::kNone, kFields214, sizeof(kFields214) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.PodTemplateList", Special::kNone, kFields215, sizeof(kFields215) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.EventList", Special::kNone, kFields216, sizeof(kFields216) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ConfigMapList", Special::kNone, kFields217, sizeof(kFields217) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceList", Special::kNone, kFields218, sizeof(kFields218) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.SecretList", Special::kNone, kFields219, sizeof(kFields219) / sizeof(FieldSpec)},
    {"k8s.io.api.core.v1.ServiceAccountList", Special::kNone, kFields220, sizeof(kFields220) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.DeploymentList", Special::kNone, kFields221, sizeof(kFields221) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.ReplicaSetList", Special::kNone, kFields222, sizeof(kFields222) / sizeof(FieldSpec)},
    {"k8s.io.api.apps.v1.StatefulSetList", Special::kNone, kFields223, sizeof(kFields223) / sizeof(FieldSpec)},
    {"k8s.io.api.policy.v1.PodDisruptionBudgetList", Special::kNone, kFields224, sizeof(kFields224) / sizeof(FieldSpec)},
    {"k8s.io.api.coordination.v1.LeaseList", Special::kNone, kFields225, sizeof(kFields225) / sizeof(FieldSpec)},
    {"k8s.io.api.scheduling.v1.PriorityClassList", Special::kNone, kFields226, sizeof(kFields226) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.RoleList", Special::kNone, kFields227, sizeof(kFields227) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.RoleBindingList", Special::kNone, kFields228, sizeof(kFields228) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.ClusterRoleList", Special::kNone, kFields229, sizeof(kFields229) / sizeof(FieldSpec)},
    {"k8s.io.api.rbac.v1.ClusterRoleBindingList", Special::kNone, kFields230, sizeof(kFields230) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Status", Special::kNone, kFields231, sizeof(kFields231) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails", Special::kNone, kFields232, sizeof(kFields232) / sizeof(FieldSpec)},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause", Special::kNone, kFields233, sizeof(kFields233) / sizeof(FieldSpec)},
};
const std::size_t kMessageCount = 234;

const RootKind kRootKinds[] = {
    {"v1", "Namespace", 0},
    {"v1", "Node", 9},
    {"v1", "Pod", 27},
    {"v1", "PodTemplate", 148},
    {"v1", "Event", 150},
    {"v1", "ConfigMap", 155},
    {"v1", "Service", 156},
    {"v1", "Binding", 166},
    {"v1", "Secret", 167},
    {"v1", "ServiceAccount", 168},
    {"apps/v1", "Deployment", 169},
    {"apps/v1", "ReplicaSet", 175},
    {"apps/v1", "StatefulSet", 179},
    {"autoscaling/v1", "Scale", 191},
    {"policy/v1", "PodDisruptionBudget", 194},
    {"policy/v1", "Eviction", 197},
    {"coordination.k8s.io/v1", "Lease", 200},
    {"scheduling.k8s.io/v1", "PriorityClass", 202},
    {"rbac.authorization.k8s.io/v1", "Role", 203},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", 205},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", 208},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", 210},
    {"v1", "NamespaceList", 211},
    {"v1", "NodeList", 213},
    {"v1", "PodList", 214},
    {"v1", "PodTemplateList", 215},
    {"v1", "EventList", 216},
    {"v1", "ConfigMapList", 217},
    {"v1", "ServiceList", 218},
    {"v1", "SecretList", 219},
    {"v1", "ServiceAccountList", 220},
    {"apps/v1", "DeploymentList", 221},
    {"apps/v1", "ReplicaSetList", 222},
    {"apps/v1", "StatefulSetList", 223},
    {"policy/v1", "PodDisruptionBudgetList", 224},
    {"coordination.k8s.io/v1", "LeaseList", 225},
    {"scheduling.k8s.io/v1", "PriorityClassList", 226},
    {"rbac.authorization.k8s.io/v1", "RoleList", 227},
    {"rbac.authorization.k8s.io/v1", "RoleBindingList", 228},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleList", 229},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBindingList", 230},
    {"v1", "Status", 231},
    {"v1", "DeleteOptions", 198},
    {"apps/v1", "DeleteOptions", 198},
    {"policy/v1", "DeleteOptions", 198},
    {"coordination.k8s.io/v1", "DeleteOptions", 198},
    {"rbac.authorization.k8s.io/v1", "DeleteOptions", 198},
    {"apiextensions.k8s.io/v1", "DeleteOptions", 198},
    {"meta.k8s.io/v1", "DeleteOptions", 198},
};
const std::size_t kRootKindCount = 49;

}  // namespace berth::kubesim::protobuf
