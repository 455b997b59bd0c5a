#!/usr/bin/python3
"""Generates message_tables_data.cc: protobuf field tables of the built-in kinds kubesim serves.

kubectl's typed clients POST `application/vnd.kubernetes.protobuf` bodies. Their field numbers and
names are those of k8s.io/api's generated.proto files; a kubectl binary carries them compiled in, as
the gzipped FileDescriptorProtos that the gogo-generated packages register. This script reads those
descriptors out of the kubectl binary (so the numbers are upstream's, not transcribed by hand) and
emits one table per message reachable from the served kinds (ROOTS).

The proto field names of k8s.io/api are the JSON names, so they are used as is. Go pointer scalars
(KEEP_ZERO) are on the wire only when set, so a zero there is kept; every other zero scalar is the
Go zero value of a non-pointer field and is dropped, as `omitempty` drops it in JSON.

Regenerate (from the repository root):
    /usr/bin/python3 e2e/kubesim/protobuf/gen_message_tables.py [/path/to/kubectl] \
        > e2e/kubesim/protobuf/message_tables_data.cc
"""

import os
import re
import sys
import zlib

# (apiVersion, kind, proto message): the kinds kubesim serves and a protobuf body may carry.
ROOTS = [
    ("v1", "Namespace", "k8s.io.api.core.v1.Namespace"),
    ("v1", "Node", "k8s.io.api.core.v1.Node"),
    ("v1", "Pod", "k8s.io.api.core.v1.Pod"),
    ("v1", "PodTemplate", "k8s.io.api.core.v1.PodTemplate"),
    ("v1", "Event", "k8s.io.api.core.v1.Event"),
    ("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap"),
    ("v1", "Service", "k8s.io.api.core.v1.Service"),
    ("v1", "Binding", "k8s.io.api.core.v1.Binding"),
    ("v1", "Secret", "k8s.io.api.core.v1.Secret"),
    ("v1", "ServiceAccount", "k8s.io.api.core.v1.ServiceAccount"),
    ("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment"),
    ("apps/v1", "ReplicaSet", "k8s.io.api.apps.v1.ReplicaSet"),
    ("apps/v1", "StatefulSet", "k8s.io.api.apps.v1.StatefulSet"),
    ("autoscaling/v1", "Scale", "k8s.io.api.autoscaling.v1.Scale"),
    ("policy/v1", "PodDisruptionBudget", "k8s.io.api.policy.v1.PodDisruptionBudget"),
    ("policy/v1", "Eviction", "k8s.io.api.policy.v1.Eviction"),
    ("coordination.k8s.io/v1", "Lease", "k8s.io.api.coordination.v1.Lease"),
    ("scheduling.k8s.io/v1", "PriorityClass", "k8s.io.api.scheduling.v1.PriorityClass"),
    ("rbac.authorization.k8s.io/v1", "Role", "k8s.io.api.rbac.v1.Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "k8s.io.api.rbac.v1.RoleBinding"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "k8s.io.api.rbac.v1.ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "k8s.io.api.rbac.v1.ClusterRoleBinding"),
]
# The List kinds kubesim answers GET (list) with in protobuf: {1 metadata ListMeta, 2 items}.
ROOTS += [(gv, kind + "List", proto + "List") for gv, kind, proto in list(ROOTS)
          if kind not in ("Binding", "Scale", "Eviction")]
# Status: the object of a watch ERROR event.
ROOTS += [("v1", "Status", "k8s.io.apimachinery.pkg.apis.meta.v1.Status")]
# Typed clients send a DELETE's DeleteOptions body in their own group-version (client-go
# registers it in every one), so each served group-version decodes it.
ROOTS += [(gv, "DeleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions")
          for gv in ("v1", "apps/v1", "policy/v1", "coordination.k8s.io/v1", "rbac.authorization.k8s.io/v1",
                     "apiextensions.k8s.io/v1", "meta.k8s.io/v1")]

META = "k8s.io.apimachinery.pkg.apis.meta.v1."
SPECIAL = {
    META + "Time": "kTime",
    META + "MicroTime": "kMicroTime",
    META + "FieldsV1": "kRawJson",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "kRawJson",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "kQuantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "kIntOrString",
}

# Go pointer scalars (`*int32`, `*bool`, ...) of these messages: present on the wire only when set.
KEEP_ZERO = {
    "k8s.io.api.apps.v1.DeploymentSpec": {"replicas", "revisionHistoryLimit", "progressDeadlineSeconds"},
    "k8s.io.api.apps.v1.ReplicaSetSpec": {"replicas"},
    "k8s.io.api.apps.v1.StatefulSetSpec": {"replicas", "revisionHistoryLimit"},
    "k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy": {"partition"},
    "k8s.io.api.core.v1.ConfigMap": {"immutable"},
    "k8s.io.api.core.v1.Secret": {"immutable"},
    "k8s.io.api.core.v1.ServiceAccount": {"automountServiceAccountToken"},
    "k8s.io.api.core.v1.PodSpec": {"terminationGracePeriodSeconds", "activeDeadlineSeconds",
                                   "automountServiceAccountToken", "shareProcessNamespace", "priority",
                                   "enableServiceLinks", "setHostnameAsFQDN", "hostUsers"},
    "k8s.io.api.core.v1.SecurityContext": {"privileged", "runAsUser", "runAsGroup", "runAsNonRoot",
                                           "readOnlyRootFilesystem", "allowPrivilegeEscalation"},
    "k8s.io.api.core.v1.PodSecurityContext": {"runAsUser", "runAsGroup", "runAsNonRoot", "fsGroup"},
    "k8s.io.api.core.v1.ServiceSpec": {"allocateLoadBalancerNodePorts"},
    "k8s.io.api.core.v1.Probe": {"terminationGracePeriodSeconds"},
    META + "ObjectMeta": {"deletionGracePeriodSeconds"},
    META + "OwnerReference": {"controller", "blockOwnerDeletion"},
    META + "DeleteOptions": {"gracePeriodSeconds", "orphanDependents"},
    META + "ListMeta": {"remainingItemCount"},
    "k8s.io.api.coordination.v1.LeaseSpec": {"leaseDurationSeconds", "leaseTransitions"},
}

# Go structs embedded with `json:",inline"`: one message field on the wire, their fields flat in the
# parent's JSON object.
INLINE = {
    ("k8s.io.api.core.v1.Probe", "handler"),
    ("k8s.io.api.core.v1.Volume", "volumeSource"),
    ("k8s.io.api.core.v1.EphemeralContainer", "ephemeralContainerCommon"),
    ("k8s.io.api.core.v1.PersistentVolumeSpec", "persistentVolumeSource"),
}
# LocalObjectReference is embedded inline wherever k8s.io/api uses it as a field of this name
# (ConfigMapKeySelector, SecretEnvSource, ConfigMapVolumeSource, ...).
INLINE_NAMES = {"localObjectReference"}

TYPES = {1: "kDouble", 2: "kFloat", 3: "kInt64", 4: "kUint64", 5: "kInt32", 8: "kBool", 9: "kString",
         11: "kMessage", 12: "kBytes", 13: "kUint32", 14: "kInt32", 17: "kSint32", 18: "kSint64"}


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise SystemExit(f"unexpected wire type {w} in a descriptor")
        out.append((f, v))
    return out


def read_descriptors(binary):
    data = open(binary, "rb").read()
    files = []
    for m in re.finditer(b"\x1f\x8b\x08\x00\x00\x00\x00\x00", data):
        try:
            out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[m.start():m.start() + 4000000])
        except zlib.error:
            continue
        if out[:1] == b"\x0a" and b"generated.proto" in out[:200] and b"k8s.io" in out[:200]:
            files.append(out)
    return files


def collect(files):
    """Returns {full message name: (fields [(number, name, label, type, type_name)], is_map_entry)}."""
    messages = {}

    def walk(b, prefix):
        fs = fields(b)
        full = prefix + "." + [v for f, v in fs if f == 1][0].decode()
        entries, map_entry = [], False
        for f, v in fs:
            if f == 2:
                d = dict(fields(v))
                entries.append((d[3], d[1].decode(), d[4], d[5], d.get(6, b"").decode().lstrip(".")))
            elif f == 3:
                walk(v, full)
            elif f == 7:
                map_entry = any(g == 7 and x for g, x in fields(v))
        messages[full] = (sorted(entries), map_entry)

    for b in files:
        fs = fields(b)
        package = [v for f, v in fs if f == 2][0].decode()
        for f, v in fs:
            if f == 4:
                walk(v, package)
    return messages


def main():
    binary = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/kubectl")
    messages = collect(read_descriptors(binary))
    order, index = [], {}

    def visit(name):
        if name in index:
            return
        if name not in messages:
            raise SystemExit(f"message {name} not found in {binary}")
        index[name] = len(order)
        order.append(name)
        if name in SPECIAL:
            return
        for number, fname, label, ftype, type_name in messages[name][0]:
            if ftype == 11:
                entry = messages.get(type_name)
                if entry and entry[1]:  # map: key 1 is a string in every k8s.io map
                    value = [e for e in entry[0] if e[0] == 2][0]
                    if value[3] == 11:
                        visit(value[4])
                else:
                    visit(type_name)

    for _, _, root in ROOTS:
        visit(root)
    for name, keep in KEEP_ZERO.items():
        names = {e[1] for e in messages[name][0]}
        if not keep <= names:
            raise SystemExit(f"KEEP_ZERO: {name} has no {keep - names}")

    out = []
    out.append("// e2e/kubesim/protobuf/message_tables_data.cc -- GENERATED, do not edit.\n//\n")
    out.append("// Protobuf field tables of the built-in kinds kubesim serves, read from the descriptors of\n")
    out.append(f"// k8s.io/api's generated.proto compiled into kubectl ({os.path.basename(binary)}). Regenerate with:\n")
    out.append("//   /usr/bin/python3 e2e/kubesim/protobuf/gen_message_tables.py > "
               "e2e/kubesim/protobuf/message_tables_data.cc\n")
    out.append("#include \"e2e/kubesim/protobuf/message_tables.h\"\n\n")
    out.append("namespace berth::kubesim::protobuf {\nnamespace {\n\n")
    out.append("using K = FieldKind;\n\n")
    for i, name in enumerate(order):
        if name in SPECIAL:
            continue
        rows = []
        keep = KEEP_ZERO.get(name, set())
        for number, fname, label, ftype, type_name in messages[name][0]:
            repeated = label == 3
            kind, msg, value_kind = TYPES[ftype], -1, "kString"
            if ftype == 11:
                entry = messages.get(type_name)
                if entry and entry[1]:
                    key = [e for e in entry[0] if e[0] == 1][0]
                    value = [e for e in entry[0] if e[0] == 2][0]
                    if key[3] != 9:
                        raise SystemExit(f"{name}.{fname}: map key is not a string")
                    kind, repeated, value_kind = "kMap", False, TYPES[value[3]]
                    msg = index[value[4]] if value[3] == 11 else -1
                else:
                    msg = index[type_name]
            inline = ", true" if (name, fname) in INLINE or fname in INLINE_NAMES else ""
            rows.append(f"    {{{number}, \"{fname}\", K::{kind}, {str(repeated).lower()}, "
                        f"{str(fname in keep).lower()}, {msg}, K::{value_kind}{inline}}},\n")
        out.append(f"// {name}\nconstexpr FieldSpec kFields{i}[] = {{\n" + "".join(rows) + "};\n")
    out.append("\n}  // namespace\n\n")
    out.append("const MessageSpec kMessages[] = {\n")
    for i, name in enumerate(order):
        special = SPECIAL.get(name, "kNone")
        if name in SPECIAL:
            out.append(f"    {{\"{name}\", Special::{special}, nullptr, 0}},\n")
        else:
            out.append(f"    {{\"{name}\", Special::{special}, kFields{i}, "
                       f"sizeof(kFields{i}) / sizeof(FieldSpec)}},\n")
    out.append("};\n")
    out.append(f"const std::size_t kMessageCount = {len(order)};\n\n")
    out.append("const RootKind kRootKinds[] = {\n")
    for api_version, kind, root in ROOTS:
        out.append(f"    {{\"{api_version}\", \"{kind}\", {index[root]}}},\n")
    out.append("};\n")
    out.append(f"const std::size_t kRootKindCount = {len(ROOTS)};\n\n")
    out.append("}  // namespace berth::kubesim::protobuf\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
