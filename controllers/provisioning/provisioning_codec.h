// controllers/provisioning/provisioning_codec.h
//
// The edge between API objects and reconcile/provisioning's plain structs: reading a
// ProvisioningRequest (fields of the wrong type become spec_errors naming the field, never a
// crash or a silent zero), reading a PodTemplate (a quantity that does not parse is an error
// naming the field), writing the status-subresource body, and building the booking Reservation
// (scheduling.koordinator.sh/v1alpha1) for one booked node.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/transform.h"
#include "reconcile/provisioning/types.h"

namespace berth::controllers {

inline constexpr char kProvisioningGroup[] = "autoscaling.x-k8s.io";
inline constexpr char kProvisioningVersion[] = "v1";
inline constexpr char kProvisioningRequestsPath[] = "/apis/autoscaling.x-k8s.io/v1/provisioningrequests";
// The deprecated version, the only one served by Cluster Autoscaler's CRD before 1.31 (and by
// such a cloud provider's): same schema, so berth reads and writes it alike when v1 is not served.
inline constexpr char kProvisioningVersionV1beta1[] = "v1beta1";
// The finalizer that keeps a request until its booking Reservations are gone (they are
// cluster-scoped, so they cannot carry an ownerReference to the namespaced request).
inline constexpr char kBookingFinalizer[] = "berth.dev/provisioning-request-booking";
// Labels on booking Reservations (`kubectl get reservations -l ...`); the name label is set
// only when the name is a valid label value (≤ 63 characters), the annotation
// berth.dev/provisioning-request always holds "<namespace>/<name>".
inline constexpr char kBookingNamespaceLabel[] = "berth.dev/provisioning-request-namespace";
inline constexpr char kBookingNameLabel[] = "berth.dev/provisioning-request-name";
inline constexpr char kBookingUidLabel[] = "berth.dev/provisioning-request-uid";

// PodTemplateTransform: the informer transform for podtemplates. The default transform keeps
// metadata, spec and status only; a PodTemplate's pod is its top-level `template`, which stays.
shim::Transform PodTemplateTransform();

// ReadProvisioningRequest fills everything but `booking` and `bound_consumers`.
reconcile::provisioning::ProvisioningRequestView ReadProvisioningRequest(const rapidjson::Value& object);

// ReadPodTemplate: a v1/PodTemplate: its `template` read as a pod, and container resources.
reconcile::provisioning::PodTemplateView ReadPodTemplate(const rapidjson::Value& object);

// StatusBody: the status-subresource PUT body: apiVersion, kind, metadata (name, namespace, uid,
// resourceVersion as the precondition), and `status` = the current status with `conditions`
// replaced (other status fields, e.g. provisioningClassDetails, are kept).
rapidjson::Document StatusBody(const rapidjson::Value& object,
                               const std::vector<reconcile::provisioning::Condition>& conditions,
                               std::string_view version = kProvisioningVersion);


// BookingReservationName: "provreq-<request uid>-<16 hex digits of FNV-1a of the node>":
// deterministic, so a pass that repeats after a lost status write finds the same objects.
std::string BookingReservationName(std::string_view request_uid, std::string_view node);

// BookingReservation: a Reservation pinned to slice.node_name (template.spec.nodeName, tolerating
// every taint: the request's pods were already checked against the node), requesting the
// slice's resources, allocateOnce false, owners the request's pods (controller reference to the
// request), annotated for the request's consumer pods, labelled for kubectl, ttl
// `ttl_seconds` as a safety net should berth stop before releasing it.
rapidjson::Document BookingReservation(const reconcile::provisioning::ProvisioningRequestView& request,
                                       const reconcile::provisioning::BookedSlice& slice,
                                       std::string_view scheduler_name, int64_t ttl_seconds);

// ReadBookedSlice: a booking Reservation as a slice (name, uid, node from template.spec.nodeName,
// resources from its template requests).
reconcile::provisioning::BookedSlice ReadBookedSlice(const rapidjson::Value& reservation);

}  // namespace berth::controllers
