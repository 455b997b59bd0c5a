// e2e/kubesim/disruption/api_status.h
//
// metav1.Status bodies exactly as kube-apiserver serializes them for the eviction subresource
// (field order kind, apiVersion, metadata, status, message, reason, details, code; empty fields
// omitted as Go's omitempty does).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::disruption {

// StatusCause is one metav1.StatusCause ("reason" on the wire is the Go field Type).
struct StatusCause {
  std::string reason;
  std::string message;
};

// StatusDetails is metav1.StatusDetails; empty members are omitted.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
};

// SuccessStatus: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":N}.
rapidjson::Document SuccessStatus(int code);

// FailureStatus builds a Failure Status; `reason` "" and null details are omitted.
rapidjson::Document FailureStatus(int code, std::string_view reason, std::string_view message,
                                  const std::optional<StatusDetails>& details);

// GoQuote renders a string as Go's %q would for plain names (quotes and backslashes escaped).
std::string GoQuote(std::string_view s);

}  // namespace berth::kubesim::disruption
