// fuzz/reservation_annotations_fuzz.cc — the codecs that read annotations off API objects
// (controllers/reservation/reservation_codec, controllers/scheduler/scheduler_codec): the input
// is the value of every annotation they parse, on a pod (reservation-allocated,
// reservation-affinity) and on a Reservation (reservation-restricted-options,
// berth.dev/pre-allocated-pods), and the pod's pre-allocatable priority.
// Property: no crash; malformed values never abort a read (they are skipped or recorded as errors).
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/base/json.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/pre_allocation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "fuzz/fuzz_check.h"

namespace json = berth::json;
namespace controllers = berth::controllers;

namespace {

json::Document ObjectWithAnnotations(const char* skeleton, std::string_view value,
                                     std::initializer_list<std::string_view> keys) {
  auto doc = json::Parse(skeleton);
  FUZZ_CHECK(doc.has_value());
  json::Value& annotations = json::EnsureObject(json::EnsureObject(*doc, "metadata", doc->GetAllocator()),
                                                "annotations", doc->GetAllocator());
  for (std::string_view key : keys) json::SetString(annotations, key, value, doc->GetAllocator());
  return std::move(*doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view value = berth::fuzz::AsText(data, size);
  const json::Document pod = ObjectWithAnnotations(
      R"({"metadata":{"name":"p","namespace":"default","uid":"u1"},
          "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})",
      value,
      {controllers::kReservationAllocatedAnnotation, "scheduling.koordinator.sh/reservation-affinity",
       "pod.koordinator.sh/pre-allocatable-priority"});
  (void)controllers::AllocatedReservation(pod);
  (void)controllers::ReadConsumerPod(pod);
  (void)controllers::ReadPodView(pod);
  (void)controllers::ReadPreAllocatablePod(pod, "pod.koordinator.sh/pre-allocatable-priority");

  const json::Document reservation = ObjectWithAnnotations(
      R"({"metadata":{"name":"r","uid":"r1"},
          "spec":{"preAllocation":true,"allocateOnce":false,
                  "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}},
                  "owners":[{"object":{"name":"p","namespace":"default"}}]}})",
      value, {controllers::kReservationRestrictedOptionsAnnotation, controllers::kPreAllocatedPodsAnnotation});
  (void)controllers::ReadReservationView(reservation);
  (void)controllers::ReadPreAllocatedPods(reservation);
  (void)controllers::ReadReservation(reservation);
  return 0;
}
