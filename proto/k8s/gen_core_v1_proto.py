#!/usr/bin/python3
"""Generates proto/k8s/core_v1.proto: every message of k8s.io/api/core/v1 that a Pod's or a Node's
spec and status reach, with upstream's names and field numbers, read from the descriptors compiled
into kubectl (the reader of e2e/kubesim/protobuf/gen_message_tables.py).

Why whole specs and statuses: the JSON informer caches spec and status whole (DefaultTransform), and
berth copies a pod's spec into a migration's Reservation template, so a pod decoded from protobuf
must carry every field JSON would. ObjectMeta stays the hand-written subset in meta_v1.proto: it
declares exactly the metadata fields DefaultTransform keeps.

Go pointer scalars (KEEP_ZERO: `*int32`, `*bool`, `*string` ...) are on the wire only when set, so a
zero there is kept; so is a zero of a field Go writes without omitempty (NO_OMITEMPTY:
restartCount, ready, exitCode, ...); every other zero scalar is a non-pointer Go zero value that
`omitempty` drops.
INLINE fields are Go structs embedded with `json:",inline"`.

Regenerate (from the repository root):
    /usr/bin/python3 proto/k8s/gen_core_v1_proto.py [/path/to/kubectl] > proto/k8s/core_v1.proto
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "gen_message_tables", os.path.join(HERE, "..", "..", "e2e", "kubesim", "protobuf", "gen_message_tables.py"))
tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tables)

CORE = "k8s.io.api.core.v1."
META = "k8s.io.apimachinery.pkg.apis.meta.v1."
# Messages written whole from the descriptors (and everything they reach in core/v1).
ROOTS = [CORE + n for n in ("PodSpec", "PodStatus", "NodeSpec", "NodeStatus")]
# Messages of other packages, declared by hand in the files imported below.
EXTERNAL = {
    META + "Time", META + "ObjectMeta", META + "LabelSelector", META + "ListMeta",
    "k8s.io.apimachinery.pkg.api.resource.Quantity", "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
}

KEEP_ZERO = {
    "PodSpec": {"terminationGracePeriodSeconds", "activeDeadlineSeconds", "automountServiceAccountToken",
                "shareProcessNamespace", "priority", "preemptionPolicy", "runtimeClassName",
                "enableServiceLinks", "setHostnameAsFQDN", "hostUsers"},
    "Container": {"restartPolicy"},
    "EphemeralContainerCommon": {"restartPolicy"},
    "SecurityContext": {"privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem",
                        "allowPrivilegeEscalation", "procMount"},
    "PodSecurityContext": {"runAsUser", "runAsGroup", "runAsNonRoot", "fsGroup", "fsGroupChangePolicy",
                           "supplementalGroupsPolicy", "seLinuxChangePolicy"},
    "WindowsSecurityContextOptions": {"gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName",
                                      "hostProcess"},
    "SeccompProfile": {"localhostProfile"},
    "AppArmorProfile": {"localhostProfile"},
    "Probe": {"terminationGracePeriodSeconds"},
    "GRPCAction": {"service"},
    "ConfigMapKeySelector": {"optional"},
    "SecretKeySelector": {"optional"},
    "ConfigMapEnvSource": {"optional"},
    "SecretEnvSource": {"optional"},
    "HostPathVolumeSource": {"type"},
    "SecretVolumeSource": {"defaultMode", "optional"},
    "ConfigMapVolumeSource": {"defaultMode", "optional"},
    "KeyToPath": {"mode"},
    "ProjectedVolumeSource": {"defaultMode"},
    "ConfigMapProjection": {"optional"},
    "SecretProjection": {"optional"},
    "ServiceAccountTokenProjection": {"expirationSeconds"},
    "ClusterTrustBundleProjection": {"name", "signerName", "optional"},
    "DownwardAPIVolumeSource": {"defaultMode"},
    "DownwardAPIVolumeFile": {"mode"},
    "CSIVolumeSource": {"readOnly", "fsType"},
    "AzureDiskVolumeSource": {"cachingMode", "fsType", "readOnly", "kind"},
    "ISCSIVolumeSource": {"initiatorName"},
    "VolumeMount": {"mountPropagation", "recursiveReadOnly"},
    "Toleration": {"tolerationSeconds"},
    "TopologySpreadConstraint": {"minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy"},
    "PodDNSConfigOption": {"value"},
    "PodResourceClaim": {"resourceClaimName", "resourceClaimTemplateName"},
    "PodResourceClaimStatus": {"resourceClaimName"},
    "ContainerStatus": {"started"},
    "PersistentVolumeClaimSpec": {"storageClassName", "volumeMode", "volumeAttributesClassName"},
    "TypedLocalObjectReference": {"apiGroup"},
    "TypedObjectReference": {"apiGroup", "namespace"},
    "NodeFeatures": {"supplementalGroupsPolicy"},
    # *metav1.Time: absent when unset (a non-pointer Time is written as null when zero).
    "Taint": {"timeAdded"},
    "PodStatus": {"startTime"},
    "NodeRuntimeHandlerFeatures": {"recursiveReadOnlyMounts", "userNamespaces"},
}
# Non-pointer fields Go writes without omitempty (`json:"restartCount"`): gogo always puts them on
# the wire and JSON always has them, zero included, so they are kept like pointers.
NO_OMITEMPTY = {
    "Container": {"name"}, "EphemeralContainerCommon": {"name"}, "ContainerPort": {"containerPort"},
    "EnvVar": {"name"}, "VolumeMount": {"name", "mountPath"}, "VolumeDevice": {"name", "devicePath"},
    "Volume": {"name"}, "KeyToPath": {"key", "path"},
    "ContainerStatus": {"name", "ready", "restartCount", "image", "imageID"},
    "ContainerStateTerminated": {"exitCode"},
    "PodCondition": {"type", "status"}, "NodeCondition": {"type", "status"}, "NodeAddress": {"type", "address"},
    "NodeSelectorRequirement": {"key", "operator"}, "PreferredSchedulingTerm": {"weight"},
    "WeightedPodAffinityTerm": {"weight"}, "PodAffinityTerm": {"topologyKey"},
    "TopologySpreadConstraint": {"maxSkew", "topologyKey", "whenUnsatisfiable"}, "Taint": {"key", "effect"},
    "ObjectFieldSelector": {"fieldPath"}, "ResourceFieldSelector": {"resource"},
    "ConfigMapKeySelector": {"key"}, "SecretKeySelector": {"key"}, "HTTPHeader": {"name", "value"},
    "GRPCAction": {"port"}, "ContainerImage": {"names"}, "DaemonEndpoint": {"Port"},
    "NodeSystemInfo": {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
                       "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"},
    "PodIP": {"ip"}, "HostIP": {"ip"}, "HostPathVolumeSource": {"path"},
    "PersistentVolumeClaimVolumeSource": {"claimName"}, "ServiceAccountTokenProjection": {"path"},
    "DownwardAPIVolumeFile": {"path"}, "PodReadinessGate": {"conditionType"}, "PodSchedulingGate": {"name"},
    "PodResourceClaim": {"name"}, "ResourceClaim": {"name"}, "Sysctl": {"name", "value"},
    "SeccompProfile": {"type"}, "AppArmorProfile": {"type"}, "ContainerResizePolicy": {"resourceName", "restartPolicy"},
    "AttachedVolume": {"name", "devicePath"}, "LinuxContainerUser": {"uid", "gid"},
}
INLINE = {("Probe", "handler"), ("Volume", "volumeSource"), ("EphemeralContainer", "ephemeralContainerCommon")}
INLINE_NAMES = {"localObjectReference"}

SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool", 9: "string", 12: "bytes",
           13: "uint32", 14: "int32", 17: "sint32", 18: "sint64"}


def main():
    binary = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/kubectl")
    messages = tables.collect(tables.read_descriptors(binary))
    order = []

    def visit(name):
        if name in order or name in EXTERNAL:
            return
        if not name.startswith(CORE):
            raise SystemExit(f"{name} is outside core/v1 and not declared by hand (EXTERNAL)")
        if name not in messages:
            raise SystemExit(f"message {name} not found in {binary}")
        order.append(name)
        for _, _, _, ftype, type_name in messages[name][0]:
            if ftype != 11:
                continue
            entry = messages.get(type_name)
            if entry and entry[1]:
                value = [e for e in entry[0] if e[0] == 2][0]
                if value[3] == 11:
                    visit(value[4])
            else:
                visit(type_name)

    for root in ROOTS:
        visit(root)
    for short, names in NO_OMITEMPTY.items():
        KEEP_ZERO[short] = KEEP_ZERO.get(short, set()) | names
    for short, keep in KEEP_ZERO.items():
        if CORE + short not in messages:
            raise SystemExit(f"KEEP_ZERO: no message {short}")
        names = {e[1] for e in messages[CORE + short][0]}
        if not keep <= names:
            raise SystemExit(f"KEEP_ZERO: {short} has no {keep - names}")

    def type_of(ftype, type_name):
        if ftype == 11:
            return type_name[len(CORE):] if type_name.startswith(CORE) else type_name
        return SCALARS[ftype]

    out = [
        "// proto/k8s/core_v1.proto -- GENERATED by proto/k8s/gen_core_v1_proto.py, do not edit.\n",
        "//\n",
        "// k8s.io/api/core/v1 generated.proto: Pod, Node and their lists with the hand-written ObjectMeta\n",
        "// subset (meta_v1.proto), and every message their spec and status reach, with upstream's names\n",
        f"// and field numbers read from the descriptors compiled into kubectl ({os.path.basename(binary)}).\n",
        "// (berth.kubeproto.keep_zero) marks Go pointer scalars, (berth.kubeproto.json_inline) structs\n",
        "// embedded with `json:\",inline\"`, (berth.kubeproto.map_entries) upstream's maps as their\n",
        "// entries (json_options.proto, map_entries.proto).\n",
        "syntax = \"proto2\";\n\n",
        "package k8s.io.api.core.v1;\n\n",
        "import \"proto/k8s/intstr.proto\";\n",
        "import \"proto/k8s/json_options.proto\";\n",
        "import \"proto/k8s/map_entries.proto\";\n",
        "import \"proto/k8s/meta_v1.proto\";\n",
        "import \"proto/k8s/resource.proto\";\n\n",
    ]
    for kind in ("Pod", "Node"):
        out.append(f"message {kind} {{\n"
                   f"  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;\n"
                   f"  optional {kind}Spec spec = 2;\n"
                   f"  optional {kind}Status status = 3;\n}}\n\n"
                   f"message {kind}List {{\n"
                   f"  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;\n"
                   f"  repeated {kind} items = 2;\n}}\n\n")
    for name in order:
        short = name[len(CORE):]
        keep = KEEP_ZERO.get(short, set())
        out.append(f"message {short} {{\n")
        for number, fname, label, ftype, type_name in messages[name][0]:
            entry = messages.get(type_name) if ftype == 11 else None
            if entry and entry[1]:
                key = [e for e in entry[0] if e[0] == 1][0]
                value = [e for e in entry[0] if e[0] == 2][0]
                if key[3] != 9:
                    raise SystemExit(f"{name}.{fname}: map key is not a string")
                # A map as its wire form (map_entries.proto: a reused message keeps the entries).
                entry_type = {"string": "StringEntry",
                              "k8s.io.apimachinery.pkg.api.resource.Quantity": "QuantityEntry"}.get(
                                  type_of(value[3], value[4]))
                if not entry_type:
                    raise SystemExit(f"{name}.{fname}: map of {type_of(value[3], value[4])} has no entry message")
                out.append(f"  repeated berth.kubeproto.{entry_type} {fname} = {number}"
                           " [(berth.kubeproto.map_entries) = true];\n")
                continue
            options = []
            if fname in keep:
                options.append("(berth.kubeproto.keep_zero) = true")
            if (short, fname) in INLINE or fname in INLINE_NAMES:
                options.append("(berth.kubeproto.json_inline) = true")
            opts = f" [{', '.join(options)}]" if options else ""
            label_text = "repeated" if label == 3 else "optional"
            out.append(f"  {label_text} {type_of(ftype, type_name)} {fname} = {number}{opts};\n")
        out.append("}\n\n")
    sys.stdout.write("".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
