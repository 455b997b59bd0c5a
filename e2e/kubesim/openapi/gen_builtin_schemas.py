#!/usr/bin/python3
"""Generates builtin_schemas_data.cc: OpenAPI v3 component schemas for the built-in kinds kubesim serves.

kubesim has no kube-apiserver to copy schemas from, so they are derived from the model classes of
Debian's python3-kubernetes (client generated from the release-1.22 OpenAPI document): each class
carries `openapi_types` (python type names), `attribute_map` (python -> JSON names), property
docstrings (descriptions) and setters that raise on None for required fields.

The classes are renamed to the apiserver's definition names (io.k8s.api.core.v1.Pod, ...), the
special apimachinery types (Time, MicroTime, Quantity, IntOrString, FieldsV1, RawExtension, the
apiextensions JSON helpers) get their upstream shapes, and fields added to these kinds after 1.22
(EXTRA_FIELDS) are appended so strict field validation does not reject current manifests.

Regenerate (from the repository root):
    /usr/bin/python3 e2e/kubesim/openapi/gen_builtin_schemas.py > e2e/kubesim/openapi/builtin_schemas_data.cc
"""

import inspect
import json
import re
import sys

import kubernetes.client.models as models

CORE = "io.k8s.api.core.v1"
APPS = "io.k8s.api.apps.v1"
AUTOSCALING = "io.k8s.api.autoscaling.v1"
POLICY = "io.k8s.api.policy.v1"
COORDINATION = "io.k8s.api.coordination.v1"
RBAC = "io.k8s.api.rbac.v1"
APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"

# Top-level kinds: (python class, package, group, version, kind). List kinds are found by name.
ROOTS = [
    ("V1Namespace", CORE, "", "v1", "Namespace"),
    ("V1Node", CORE, "", "v1", "Node"),
    ("V1Pod", CORE, "", "v1", "Pod"),
    ("V1PodTemplate", CORE, "", "v1", "PodTemplate"),
    ("CoreV1Event", CORE, "", "v1", "Event"),
    ("V1ConfigMap", CORE, "", "v1", "ConfigMap"),
    ("V1Service", CORE, "", "v1", "Service"),
    ("V1Secret", CORE, "", "v1", "Secret"),
    ("V1ServiceAccount", CORE, "", "v1", "ServiceAccount"),
    ("V1Binding", CORE, "", "v1", "Binding"),
    ("V1Deployment", APPS, "apps", "v1", "Deployment"),
    ("V1ReplicaSet", APPS, "apps", "v1", "ReplicaSet"),
    ("V1StatefulSet", APPS, "apps", "v1", "StatefulSet"),
    ("V1Scale", AUTOSCALING, "autoscaling", "v1", "Scale"),
    ("V1PodDisruptionBudget", POLICY, "policy", "v1", "PodDisruptionBudget"),
    ("V1Eviction", POLICY, "policy", "v1", "Eviction"),
    ("V1Lease", COORDINATION, "coordination.k8s.io", "v1", "Lease"),
    ("V1Role", RBAC, "rbac.authorization.k8s.io", "v1", "Role"),
    ("V1RoleBinding", RBAC, "rbac.authorization.k8s.io", "v1", "RoleBinding"),
    ("V1ClusterRole", RBAC, "rbac.authorization.k8s.io", "v1", "ClusterRole"),
    ("V1ClusterRoleBinding", RBAC, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    ("V1CustomResourceDefinition", APIEXT, "apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
    ("V1Status", META, "", "v1", "Status"),
    ("V1DeleteOptions", META, "", "v1", "DeleteOptions"),
    ("V1APIResourceList", META, "", "v1", "APIResourceList"),
    ("V1WatchEvent", META, "", "v1", "WatchEvent"),
]

# Every group-version served; meta kinds such as DeleteOptions are registered in each of them.
SERVED_GVS = [("", "v1"), ("apps", "v1"), ("autoscaling", "v1"), ("policy", "v1"),
              ("coordination.k8s.io", "v1"), ("rbac.authorization.k8s.io", "v1"), ("apiextensions.k8s.io", "v1")]

META_CLASSES = {
    "V1ObjectMeta", "V1ListMeta", "V1OwnerReference", "V1ManagedFieldsEntry", "V1LabelSelector",
    "V1LabelSelectorRequirement", "V1Status", "V1StatusDetails", "V1StatusCause", "V1DeleteOptions",
    "V1Preconditions", "V1APIResourceList", "V1APIResource", "V1Condition", "V1WatchEvent",
}
# Core types first reached from another group's kind (BFS would otherwise file them there).
CORE_CLASSES = {"V1PersistentVolumeClaim", "V1PersistentVolumeClaimStatus",
                "V1PersistentVolumeClaimCondition", "V1PersistentVolumeClaimSpec"}
# Definitions renamed since the 1.22 models.
RENAMES = {"V1Handler": "LifecycleHandler"}

# Fields whose python type lost the upstream type: (class, json name) -> schema.
FIELD_OVERRIDES = {
    ("V1ServicePort", "targetPort"): {"$ref": INT_OR_STRING},
    ("V1HTTPGetAction", "port"): {"$ref": INT_OR_STRING},
    ("V1TCPSocketAction", "port"): {"$ref": INT_OR_STRING},
    ("V1RollingUpdateDeployment", "maxSurge"): {"$ref": INT_OR_STRING},
    ("V1RollingUpdateDeployment", "maxUnavailable"): {"$ref": INT_OR_STRING},
    ("V1RollingUpdateStatefulSetStrategy", "maxUnavailable"): {"$ref": INT_OR_STRING},
    ("V1PodDisruptionBudgetSpec", "maxUnavailable"): {"$ref": INT_OR_STRING},
    ("V1PodDisruptionBudgetSpec", "minAvailable"): {"$ref": INT_OR_STRING},
    ("V1ManagedFieldsEntry", "fieldsV1"): {"$ref": META + ".FieldsV1"},
    ("V1Secret", "data"): {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
    ("V1WatchEvent", "object"): {"$ref": RAW_EXTENSION},
    ("V1JSONSchemaProps", "additionalItems"): {"$ref": APIEXT + ".JSONSchemaPropsOrBool"},
    ("V1JSONSchemaProps", "additionalProperties"): {"$ref": APIEXT + ".JSONSchemaPropsOrBool"},
    ("V1JSONSchemaProps", "default"): {"$ref": APIEXT + ".JSON"},
    ("V1JSONSchemaProps", "example"): {"$ref": APIEXT + ".JSON"},
    ("V1JSONSchemaProps", "enum"): {"type": "array", "items": {"$ref": APIEXT + ".JSON"}},
    ("V1JSONSchemaProps", "items"): {"$ref": APIEXT + ".JSONSchemaPropsOrArray"},
    ("V1JSONSchemaProps", "dependencies"): {
        "type": "object", "additionalProperties": {"$ref": APIEXT + ".JSONSchemaPropsOrStringArray"}},
    ("V1CustomResourceSubresources", "status"): {"$ref": APIEXT + ".CustomResourceSubresourceStatus"},
    ("V1ResourceRequirements", "limits"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1ResourceRequirements", "requests"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1NodeStatus", "capacity"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1NodeStatus", "allocatable"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1PodSpec", "overhead"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1PersistentVolumeClaimStatus", "capacity"): {"type": "object", "additionalProperties": {"$ref": QUANTITY}},
    ("V1EmptyDirVolumeSource", "sizeLimit"): {"$ref": QUANTITY},
    ("V1ResourceFieldSelector", "divisor"): {"$ref": QUANTITY},
}

# MicroTime fields (all other datetime fields are meta.v1.Time).
MICRO_TIME_FIELDS = {("CoreV1Event", "eventTime"), ("CoreV1EventSeries", "lastObservedTime"),
                     ("V1LeaseSpec", "acquireTime"), ("V1LeaseSpec", "renewTime")}

NOTE = " (Field added after the 1.22 client models this schema is generated from.)"


def _obj(props, required=None, description=""):
    s = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    if description:
        s["description"] = description
    return s


STR = {"type": "string"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}

# Definitions added after 1.22 (fields of EXTRA_FIELDS refer to them).
EXTRA_DEFINITIONS = {
    CORE + ".GRPCAction": _obj({"port": {"type": "integer", "format": "int32"}, "service": STR}, ["port"]),
    CORE + ".PodOS": _obj({"name": STR}, ["name"]),
    CORE + ".PodSchedulingGate": _obj({"name": STR}, ["name"]),
    CORE + ".PodResourceClaim": _obj({"name": STR, "resourceClaimName": STR,
                                      "resourceClaimTemplateName": STR}, ["name"]),
    CORE + ".ContainerResizePolicy": _obj({"resourceName": STR, "restartPolicy": STR},
                                          ["resourceName", "restartPolicy"]),
    CORE + ".SleepAction": _obj({"seconds": {"type": "integer", "format": "int64"}}, ["seconds"]),
    CORE + ".AppArmorProfile": _obj({"type": STR, "localhostProfile": STR}, ["type"]),
    CORE + ".HostIP": _obj({"ip": STR}),
    CORE + ".ResourceClaim": _obj({"name": STR, "request": STR}, ["name"]),
    APPS + ".StatefulSetPersistentVolumeClaimRetentionPolicy": _obj({"whenDeleted": STR, "whenScaled": STR}),
    APPS + ".StatefulSetOrdinals": _obj({"start": {"type": "integer", "format": "int32"}}),
    APIEXT + ".ValidationRule": _obj({"rule": STR, "message": STR, "messageExpression": STR, "reason": STR,
                                      "fieldPath": STR, "optionalOldSelf": BOOL}, ["rule"]),
    APIEXT + ".SelectableField": _obj({"jsonPath": STR}, ["jsonPath"]),
}


def _ref(name):
    return {"$ref": name}


def _arr(items):
    return {"type": "array", "items": items}


EXTRA_FIELDS = {
    "V1PodSpec": {"os": _ref(CORE + ".PodOS"), "hostUsers": BOOL,
                  "schedulingGates": _arr(_ref(CORE + ".PodSchedulingGate")),
                  "resourceClaims": _arr(_ref(CORE + ".PodResourceClaim")),
                  "resources": _ref(CORE + ".ResourceRequirements")},
    "V1Container": {"resizePolicy": _arr(_ref(CORE + ".ContainerResizePolicy")), "restartPolicy": STR},
    "V1EphemeralContainer": {"resizePolicy": _arr(_ref(CORE + ".ContainerResizePolicy")), "restartPolicy": STR},
    "V1ResourceRequirements": {"claims": _arr(_ref(CORE + ".ResourceClaim"))},
    "V1Probe": {"grpc": _ref(CORE + ".GRPCAction")},
    "V1Handler": {"sleep": _ref(CORE + ".SleepAction")},
    "V1SecurityContext": {"appArmorProfile": _ref(CORE + ".AppArmorProfile")},
    "V1PodSecurityContext": {"appArmorProfile": _ref(CORE + ".AppArmorProfile"),
                             "supplementalGroupsPolicy": STR},
    "V1TopologySpreadConstraint": {"minDomains": INT, "nodeAffinityPolicy": STR, "nodeTaintsPolicy": STR,
                                   "matchLabelKeys": _arr(STR)},
    "V1PodAffinityTerm": {"matchLabelKeys": _arr(STR), "mismatchLabelKeys": _arr(STR)},
    "V1PodStatus": {"hostIPs": _arr(_ref(CORE + ".HostIP")), "resize": STR},
    "V1ServiceSpec": {"trafficDistribution": STR},
    "V1StatefulSetSpec": {
        "persistentVolumeClaimRetentionPolicy": _ref(APPS + ".StatefulSetPersistentVolumeClaimRetentionPolicy"),
        "ordinals": _ref(APPS + ".StatefulSetOrdinals")},
    "V1PodDisruptionBudgetSpec": {"unhealthyPodEvictionPolicy": STR},
    "V1LeaseSpec": {"strategy": STR, "preferredHolder": STR},
    "V1JSONSchemaProps": {"x-kubernetes-validations": _arr(_ref(APIEXT + ".ValidationRule"))},
    "V1CustomResourceDefinitionVersion": {"selectableFields": _arr(_ref(APIEXT + ".SelectableField"))},
}

# Definitions with no model class, in the apiserver's v3 shapes.
SPECIAL = {
    META + ".Time": {"type": "string", "format": "date-time",
                     "description": "Time is a wrapper around time.Time which supports correct marshaling to YAML "
                                    "and JSON.  Wrappers are provided for many of the factory methods that the "
                                    "time package offers."},
    META + ".MicroTime": {"type": "string", "format": "date-time",
                          "description": "MicroTime is version of Time with microsecond level precision."},
    META + ".FieldsV1": {"type": "object",
                         "description": "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON "
                                        "format."},
    META + ".Patch": {"type": "object",
                      "description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH "
                                     "request body."},
    QUANTITY: {"oneOf": [{"type": "string"}, {"type": "number"}],
               "description": "Quantity is a fixed-point representation of a number. It provides convenient "
                              "marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() "
                              "accessors. Examples: 100m, 1.5Gi, 2."},
    INT_OR_STRING: {"format": "int-or-string", "x-kubernetes-int-or-string": True,
                    "oneOf": [{"type": "integer"}, {"type": "string"}],
                    "description": "IntOrString is a type that can hold an int32 or a string.  When used in JSON or "
                                   "YAML marshalling and unmarshalling, it produces or consumes the inner type.  "
                                   "This allows you to have, for example, a JSON field that can accept a name or "
                                   "number."},
    RAW_EXTENSION: {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                    "description": "RawExtension is used to hold extensions in external versions."},
    APIEXT + ".CustomResourceSubresourceStatus": {
        "type": "object",
        "description": "CustomResourceSubresourceStatus defines how to serve the status subresource for "
                       "CustomResources."},
    APIEXT + ".JSON": {"x-kubernetes-preserve-unknown-fields": True,
                       "description": "JSON represents any valid JSON value. These types are supported: bool, "
                                      "int64, float64, string, []interface{}, map[string]interface{} and nil."},
    APIEXT + ".JSONSchemaPropsOrBool": {
        "x-kubernetes-preserve-unknown-fields": True,
        "description": "JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true "
                       "for the boolean property."},
    APIEXT + ".JSONSchemaPropsOrArray": {
        "x-kubernetes-preserve-unknown-fields": True,
        "description": "JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an "
                       "array of JSONSchemaProps. Mainly here for serialization purposes."},
    APIEXT + ".JSONSchemaPropsOrStringArray": {
        "x-kubernetes-preserve-unknown-fields": True,
        "description": "JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array."},
}

KIND_DESCRIPTIONS = {
    "Pod": "Pod is a collection of containers that can run on a host. This resource is created by clients "
           "and scheduled onto hosts.",
    "Namespace": "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
    "Node": "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. "
            "in etcd).",
    "PodTemplate": "PodTemplate describes a template for creating copies of a predefined pod.",
    "Event": "Event is a report of an event somewhere in the cluster.  Events have a limited retention time "
             "and triggers and messages may evolve with time.",
    "ConfigMap": "ConfigMap holds configuration data for pods to consume.",
    "Service": "Service is a named abstraction of software service (for example, mysql) consisting of local "
               "port (for example 3306) that the proxy listens on, and the selector that determines which pods "
               "will answer requests sent through the proxy.",
    "Binding": "Binding ties one object to another; for example, a pod is bound to a node by a scheduler.",
    "Deployment": "Deployment enables declarative updates for Pods and ReplicaSets.",
    "ReplicaSet": "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
    "StatefulSet": "StatefulSet represents a set of pods with consistent identities.",
    "Scale": "Scale represents a scaling request for a resource.",
    "PodDisruptionBudget": "PodDisruptionBudget is an object to define the max disruption that can be caused "
                           "to a collection of pods",
    "Eviction": "Eviction evicts a pod from its node subject to certain policies and safety constraints. This "
                "is a subresource of Pod.  A request to cause such an eviction is created by POSTing to "
                ".../pods/<pod name>/evictions.",
    "Lease": "Lease defines a lease concept.",
    "Secret": "Secret holds secret data of a certain type. The total bytes of the values in the Data field must "
              "be less than MaxSecretSize bytes.",
    "ServiceAccount": "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral "
                      "systems, for an identity * a principal that can be authenticated and authorized * a set of "
                      "secrets",
    "Role": "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a "
            "RoleBinding.",
    "RoleBinding": "RoleBinding references a role, but does not contain it.  It can reference a Role in the same "
                   "namespace or a ClusterRole in the global namespace. It adds who information via Subjects and "
                   "namespace information by which namespace it exists in.  RoleBindings in a given namespace only "
                   "have effect in that namespace.",
    "ClusterRole": "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a "
                   "unit by a RoleBinding or ClusterRoleBinding.",
    "ClusterRoleBinding": "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a "
                          "ClusterRole in the global namespace, and adds who information via Subject.",
    "CustomResourceDefinition": "CustomResourceDefinition represents a resource that should be exposed on the "
                                "API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.",
    "Status": "Status is a return value for calls that don't return other objects.",
    "DeleteOptions": "DeleteOptions may be provided when deleting an API object.",
    "APIResourceList": "APIResourceList is a list of APIResource, it is used to expose the name of the "
                       "resources supported in a specific group and version, and if the resource is namespaced.",
    "WatchEvent": "Event represents a single event to a watched resource.",
    "ObjectMeta": "ObjectMeta is metadata that all persisted resources must have, which includes all objects "
                  "users must create.",
    "ListMeta": "ListMeta describes metadata that synthetic resources must have, including lists and various "
                "status objects. A resource may have only one of {ObjectMeta, ListMeta}.",
}

CLASS_TYPE = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def class_of(name):
    return getattr(models, name)


def definition_name(cls_name, package):
    short = RENAMES.get(cls_name)
    if short is None:
        short = re.sub(r"^(CoreV1|ApiextensionsV1|V1)", "", cls_name)
    return package + "." + short


# The models drop the description of fields that refer to another type; these are the standard ones.
def generic_description(cls_name, json_name):
    kind = definition_name(cls_name, "x").rsplit(".", 1)[1]
    conv = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
    if json_name == "metadata":
        if kind.endswith("List"):
            return f"Standard list metadata. More info: {conv}#types-kinds"
        return f"Standard object's metadata. More info: {conv}#metadata"
    if json_name == "spec" and kind in KIND_DESCRIPTIONS:
        return f"Specification of the desired behavior of the {kind}. More info: {conv}#spec-and-status"
    if json_name == "status" and kind in KIND_DESCRIPTIONS:
        return (f"Most recently observed status of the {kind}. This data may not be up to date. "
                f"Populated by the system. Read-only. More info: {conv}#spec-and-status")
    return ""


def describe(cls, attr):
    prop = getattr(cls, attr, None)
    doc = inspect.getdoc(prop.fget) if isinstance(prop, property) else ""
    lines = []
    for line in (doc or "").splitlines()[1:]:
        if line.startswith(":return:") or line.startswith(":rtype:"):
            break
        lines.append(line.replace("# noqa: E501", "").strip())
    return "\n".join(l for l in lines).strip()


def is_required(cls, attr):
    prop = getattr(cls, attr, None)
    if not isinstance(prop, property) or prop.fset is None:
        return False
    return "must not be `None`" in inspect.getsource(prop.fset)


class Generator:
    def __init__(self):
        self.package_of = {}  # python class -> package
        self.queue = []
        self.schemas = {}

    def enqueue(self, cls_name, package):
        if cls_name in self.package_of:
            return
        if cls_name in META_CLASSES:
            package = META
        elif cls_name in CORE_CLASSES:
            package = CORE
        self.package_of[cls_name] = package
        self.queue.append(cls_name)

    def type_schema(self, owner, json_name, py_type):
        override = FIELD_OVERRIDES.get((owner, json_name))
        if override is not None:
            return json.loads(json.dumps(override))
        if py_type == "str":
            return {"type": "string"}
        if py_type == "int":
            return {"type": "integer"}
        if py_type == "float":
            return {"type": "number", "format": "double"}
        if py_type == "bool":
            return {"type": "boolean"}
        if py_type == "date":
            return {"type": "string", "format": "date"}
        if py_type == "datetime":
            micro = (owner, json_name) in MICRO_TIME_FIELDS
            return {"$ref": META + (".MicroTime" if micro else ".Time")}
        if py_type == "object":
            sys.stderr.write(f"warning: untyped field {owner}.{json_name}\n")
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        m = re.match(r"^list\[(.*)\]$", py_type)
        if m:
            return {"type": "array", "items": self.type_schema(owner, "", m.group(1))}
        m = re.match(r"^dict\(str, (.*)\)$", py_type)
        if m:
            return {"type": "object", "additionalProperties": self.type_schema(owner, "", m.group(1))}
        if CLASS_TYPE.match(py_type):
            self.enqueue(py_type, self.package_of[owner])
            return {"$ref": definition_name(py_type, self.package_of[py_type])}
        raise SystemExit(f"unknown python type {py_type!r} in {owner}.{json_name}")

    def build_class(self, cls_name):
        cls = class_of(cls_name)
        props, required = {}, []
        for attr, py_type in cls.openapi_types.items():
            json_name = cls.attribute_map[attr]
            schema = self.type_schema(cls_name, json_name, py_type)
            desc = describe(cls, attr) or generic_description(cls_name, json_name)
            if desc:
                if "$ref" in schema:
                    schema = {"allOf": [schema]}
                schema["description"] = desc
            props[json_name] = schema
            if is_required(cls, attr):
                required.append(json_name)
        for json_name, extra in EXTRA_FIELDS.get(cls_name, {}).items():
            schema = json.loads(json.dumps(extra))
            if "$ref" in schema:
                schema = {"allOf": [schema]}
            schema["description"] = NOTE.strip()
            props[json_name] = schema
        out = {"type": "object", "properties": dict(sorted(props.items()))}
        if required:
            out["required"] = sorted(required)
        return out

    def run(self):
        gvk_of = {}
        for cls_name, package, group, version, kind in ROOTS:
            self.enqueue(cls_name, package)
            gvk_of[definition_name(cls_name, package)] = [(group, version, kind)]
            list_cls = cls_name + "List"
            if hasattr(models, list_cls):
                self.enqueue(list_cls, package)
                gvk_of[definition_name(list_cls, package)] = [(group, version, kind + "List")]
        for name in (META + ".DeleteOptions", META + ".Status", META + ".WatchEvent"):
            kind = name.rsplit(".", 1)[1]
            gvk_of[name] = [(g, v, kind) for g, v in SERVED_GVS]
        while self.queue:
            cls_name = self.queue.pop(0)
            self.schemas[definition_name(cls_name, self.package_of[cls_name])] = self.build_class(cls_name)
        self.schemas.update(SPECIAL)
        for name, schema in EXTRA_DEFINITIONS.items():
            self.schemas[name] = {k: v for k, v in schema.items()}
            self.schemas[name]["properties"] = self.schemas[name]["properties"]
        for name, schema in self.schemas.items():
            for prop in schema.get("properties", {}).values():
                fix_refs(prop)
            if name in gvk_of:
                schema["x-kubernetes-group-version-kind"] = [
                    {"group": g, "kind": k, "version": v} for g, v, k in gvk_of[name]]
        return dict(sorted(self.schemas.items()))


def fix_refs(node):
    """Turns bare definition names into v3 component references."""
    if isinstance(node, dict):
        if "$ref" in node and not node["$ref"].startswith("#/"):
            node["$ref"] = "#/components/schemas/" + node["$ref"]
        for value in node.values():
            fix_refs(value)
    elif isinstance(node, list):
        for value in node:
            fix_refs(value)


# Strategic-merge-patch and list-type extensions (x-kubernetes-patch-strategy / -patch-merge-key /
# -list-type / -list-map-keys) of the list fields, as the apiserver's OpenAPI carries them from the
# patchStrategy / patchMergeKey / listType / listMapKey tags of k8s.io/api. kubectl's client-side
# apply reads them to compute its 3-way strategic merge patch; without them every list is atomic.
# Mirrors e2e/kubesim/patch/builtin_schema.cc (what kubesim's own strategic merge uses).
# (definition, field) -> (patch strategy or None, merge key or None, list type, list map keys or None)
def _map(strategy, key, keys=None):
    return (strategy, key, "map", keys or [key])


_CONTAINER_LISTS = {
    "ports": _map("merge", "containerPort", ["containerPort", "protocol"]),
    "env": _map("merge", "name"),
    "volumeMounts": _map("merge", "mountPath"),
    "volumeDevices": _map("merge", "devicePath"),
}
_CONDITIONS = {"conditions": _map("merge", "type")}

LIST_EXTENSIONS = {
    META + ".ObjectMeta": {"finalizers": ("merge", None, "set", None),
                           "ownerReferences": _map("merge", "uid")},
    CORE + ".PodSpec": {
        "containers": _map("merge", "name"),
        "initContainers": _map("merge", "name"),
        "ephemeralContainers": _map("merge", "name"),
        "volumes": _map("merge,retainKeys", "name"),
        "imagePullSecrets": _map("merge", "name"),
        "hostAliases": _map("merge", "ip"),
        "topologySpreadConstraints": _map("merge", "topologyKey", ["topologyKey", "whenUnsatisfiable"]),
        "schedulingGates": _map("merge", "name"),
        "resourceClaims": _map("merge,retainKeys", "name"),
        "tolerations": (None, None, "atomic", None),
    },
    CORE + ".Container": _CONTAINER_LISTS,
    CORE + ".EphemeralContainer": _CONTAINER_LISTS,
    CORE + ".PodStatus": {**_CONDITIONS,
                          "podIPs": _map("merge", "ip"),
                          "hostIPs": ("merge", "ip", "atomic", None)},
    CORE + ".NodeSpec": {"podCIDRs": ("merge", None, "set", None)},
    CORE + ".NodeStatus": {**_CONDITIONS, "addresses": _map("merge", "type")},
    CORE + ".NamespaceStatus": _CONDITIONS,
    CORE + ".ServiceSpec": {"ports": _map("merge", "port", ["port", "protocol"])},
    CORE + ".ServiceStatus": _CONDITIONS,
    CORE + ".ServiceAccount": {"secrets": _map("merge", "name")},
    RBAC + ".Role": {"rules": (None, None, "atomic", None)},
    RBAC + ".ClusterRole": {"rules": (None, None, "atomic", None)},
    RBAC + ".RoleBinding": {"subjects": (None, None, "atomic", None)},
    RBAC + ".ClusterRoleBinding": {"subjects": (None, None, "atomic", None)},
    APPS + ".DeploymentStatus": _CONDITIONS,
    APPS + ".ReplicaSetStatus": _CONDITIONS,
    APPS + ".StatefulSetStatus": _CONDITIONS,
    POLICY + ".PodDisruptionBudgetStatus": _CONDITIONS,
}


def add_list_extensions(schemas):
    """Puts LIST_EXTENSIONS on the list properties; a table entry without its property is a bug."""
    for name, fields in LIST_EXTENSIONS.items():
        props = schemas[name]["properties"]
        for field, (strategy, key, list_type, map_keys) in fields.items():
            prop = props.get(field)
            if prop is None or prop.get("type") != "array":
                raise SystemExit(f"LIST_EXTENSIONS: {name}.{field} is not a list property")
            if map_keys:
                prop["x-kubernetes-list-map-keys"] = list(map_keys)
            prop["x-kubernetes-list-type"] = list_type
            if key:
                prop["x-kubernetes-patch-merge-key"] = key
            if strategy:
                prop["x-kubernetes-patch-strategy"] = strategy


def add_type_descriptions(schemas):
    """The models keep no type docstrings: kinds get KIND_DESCRIPTIONS. Other types stay without
    one; borrowing a referring field's text made `kubectl explain` print it twice."""
    for name, schema in schemas.items():
        if "description" in schema:
            continue
        short = name.rsplit(".", 1)[1]
        if short in KIND_DESCRIPTIONS:
            schema["description"] = KIND_DESCRIPTIONS[short]
        elif short.endswith("List") and short[:-4] in KIND_DESCRIPTIONS:
            schema["description"] = f"{short} is a list of {short[:-4]} objects."


def emit(schemas):
    text = json.dumps(schemas, separators=(",", ":"), sort_keys=False)
    chunks, size = [], 60000
    pos = 0
    while pos < len(text):
        end = min(pos + size, len(text))
        # Never split inside the raw-string delimiter; the JSON has no ')"' since it never contains it
        chunks.append(text[pos:end])
        pos = end
    for c in chunks:
        if ")kubesim\"" in c:
            raise SystemExit("delimiter collision")
    out = []
    out.append("// e2e/kubesim/openapi/builtin_schemas_data.cc -- GENERATED, do not edit.\n//\n")
    out.append("// OpenAPI v3 component schemas of the built-in kinds kubesim serves, as compact JSON split into\n")
    out.append("// raw-string chunks under 64 KB. Regenerate from the repository root with:\n")
    out.append("//   /usr/bin/python3 e2e/kubesim/openapi/gen_builtin_schemas.py > e2e/kubesim/openapi/builtin_schemas_data.cc\n")
    out.append("#include \"e2e/kubesim/openapi/builtin_schemas_data.h\"\n\n")
    out.append("namespace berth::kubesim::openapi {\n\n")
    out.append("namespace {\n")
    for i, c in enumerate(chunks):
        out.append(f"constexpr char kChunk{i}[] = R\"kubesim({c})kubesim\";\n")
    out.append("}  // namespace\n\n")
    out.append(f"const std::string_view kBuiltinSchemaChunks[] = {{\n")
    for i, _ in enumerate(chunks):
        out.append(f"    std::string_view(kChunk{i}, sizeof(kChunk{i}) - 1),\n")
    out.append("};\n")
    out.append(f"const std::size_t kBuiltinSchemaChunkCount = {len(chunks)};\n\n")
    out.append("}  // namespace berth::kubesim::openapi\n")
    sys.stdout.write("".join(out))


def main():
    gen = Generator()
    schemas = gen.run()
    add_type_descriptions(schemas)
    add_list_extensions(schemas)
    emit(schemas)


if __name__ == "__main__":
    main()
