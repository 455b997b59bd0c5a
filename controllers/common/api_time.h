// controllers/common/api_time.h
//
// metav1.Time fields of the objects the controllers read and write (RFC 3339), and the status
// conditions that carry them, shared by the reservation, migration and provisioning codecs so that
// each reads and writes them alike.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "reconcile/reservation/types.h"

namespace berth::controllers {

// ReadTime: the timestamp at `path` under `root`, or nullopt when it is absent, empty or not RFC 3339.
std::optional<reconcile::Time> ReadTime(const rapidjson::Value& root, std::initializer_list<std::string_view> path);

// ReadCreationTime: metadata.creationTimestamp. The API server always sets it, so an absent one (a
// hand-built object) reads as the epoch; one present but not RFC 3339 is appended to `errors` as a
// field error, so the object is reported invalid instead of counting its TTL from the epoch.
reconcile::Time ReadCreationTime(const rapidjson::Value& object, std::vector<std::string>& errors);

// FormatTime: `t` as metav1.Time is written.
std::string FormatTime(reconcile::Time t);

// ConditionsJson: `conditions` as a status's `conditions` array (empty reason, message and unset
// times left out, as the API's omitempty fields).
rapidjson::Value ConditionsJson(const std::vector<reconcile::Condition>& conditions,
                                rapidjson::Document::AllocatorType& a);

}  // namespace berth::controllers
