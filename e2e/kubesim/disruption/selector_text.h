// e2e/kubesim/disruption/selector_text.h
//
// Go's %v rendering of a *metav1.LabelSelector, quoted by the disruption controller's
// UnmanagedPods event. Matching itself uses berth::shim::LabelSelector.
#pragma once

#include <string>

#include <rapidjson/document.h>

namespace berth::kubesim::disruption {

// DescribeLabelSelector renders a selector as Go prints it ("&LabelSelector{MatchLabels:
// map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}", or "nil").
std::string DescribeLabelSelector(const rapidjson::Value* selector);

}  // namespace berth::kubesim::disruption
