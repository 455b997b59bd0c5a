// write_errors: the node named by the apiserver's "already assigned" answer to a Binding, and
// nothing for any other error (malformed or truncated messages included).
#include "controllers/common/write_errors.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

Error Conflict(std::string message) {
  return Error{ErrorCode::kConflict, std::move(message), 409, "Conflict", std::nullopt};
}

TEST(WriteErrorsTest, AlreadyAssignedNamesTheNodeOfTheApiserversAnswer) {
  // kube-apiserver's pod binding storage (and kubesim's) wording.
  auto node = AlreadyAssignedNode(Conflict(
      "Operation cannot be fulfilled on pods/binding \"web-1\": pod web-1 is already assigned to node \"node-2\""));
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(*node, "node-2");
}

TEST(WriteErrorsTest, OtherConflictsAndMalformedMessagesAreNotAlreadyAssigned) {
  EXPECT_FALSE(AlreadyAssignedNode(Conflict(
      "Operation cannot be fulfilled on pods \"web-1\": the object has been modified; please apply your changes "
      "to the latest version and try again")));
  EXPECT_FALSE(AlreadyAssignedNode(Conflict(
      "Operation cannot be fulfilled on pods/binding \"web-1\": precondition failed: UID mismatch")));
  EXPECT_FALSE(AlreadyAssignedNode(Conflict(
      "Operation cannot be fulfilled on pods/binding \"web-1\": pod web-1 is being deleted, cannot be assigned to a host")));
  EXPECT_FALSE(AlreadyAssignedNode(Conflict("pod web-1 is already assigned to node \"node-2")));  // unterminated
  EXPECT_FALSE(AlreadyAssignedNode(Conflict("pod web-1 is already assigned to node \"\"")));      // empty node
  EXPECT_FALSE(AlreadyAssignedNode(Conflict("")));
  // The same words under another code are not the binding storage's answer.
  Error internal{ErrorCode::kInternal, "pod web-1 is already assigned to node \"node-2\"", 500, "InternalError",
                 std::nullopt};
  EXPECT_FALSE(AlreadyAssignedNode(internal));
}

TEST(WriteErrorsTest, OnlyNotFoundIsGone) {
  EXPECT_TRUE(IsGone(Error{ErrorCode::kNotFound, "gone", 404, "NotFound", std::nullopt}));
  for (ErrorCode code : {ErrorCode::kConflict, ErrorCode::kTooManyRequests, ErrorCode::kInternal,
                         ErrorCode::kTimeout, ErrorCode::kTransport, ErrorCode::kForbidden}) {
    EXPECT_FALSE(IsGone(Error{code, "x", 0, "", std::nullopt}));
  }
}

}  // namespace
}  // namespace berth::controllers
