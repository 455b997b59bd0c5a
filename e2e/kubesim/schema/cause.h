// e2e/kubesim/schema/cause.h
//
// Cause: one field-level validation failure, shaped like metav1.StatusCause so the API layer can
// copy it into a 422 Status (details.causes[]) unchanged. Messages follow apimachinery's
// field.Error.ErrorBody() wording; FormatInvalidMessage builds the Status.message that kubectl
// prints after "Error from server (Invalid): ".
// Example:
//   std::vector<Cause> causes = Validate(schema, object);
//   if (!causes.empty())
//     status.message = FormatInvalidMessage("Reservation.scheduling.koordinator.sh", "r1", causes);
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace berth::kubesim::schema {

// metav1.CauseType values (field.ErrorType) used by the schema code.
inline constexpr std::string_view kCauseRequired = "FieldValueRequired";
inline constexpr std::string_view kCauseInvalid = "FieldValueInvalid";
inline constexpr std::string_view kCauseNotSupported = "FieldValueNotSupported";
inline constexpr std::string_view kCauseTypeInvalid = "FieldValueTypeInvalid";
inline constexpr std::string_view kCauseTooLong = "FieldValueTooLong";
inline constexpr std::string_view kCauseTooMany = "FieldValueTooMany";
inline constexpr std::string_view kCauseForbidden = "FieldValueForbidden";

// Cause mirrors metav1.StatusCause: `message` is the error body without the field
// ("Invalid value: 0: spec.owners in body should have at least 1 items").
struct Cause {
  std::string type;     // a metav1.CauseType string, e.g. "FieldValueInvalid"
  std::string field;    // "spec.owners", "spec.owners[0].object"
  std::string message;  // field.Error.ErrorBody()

  bool operator==(const Cause&) const = default;
};

// MakeCause builds a Cause the way field.Error does: the message is the type's display text
// ("Invalid value", "Required value", ...), then ": <bad value>" when `bad_value` is non-empty
// (already rendered, e.g. by GoBadValue), then ": <detail>" when `detail` is non-empty.
Cause MakeCause(std::string_view type, std::string field, std::string_view bad_value,
                std::string_view detail);

// CauseTypeText returns field.ErrorType.String() ("FieldValueInvalid" → "Invalid value").
std::string_view CauseTypeText(std::string_view type);

// FormatCause returns field.Error.Error(): "<field>: <message>".
std::string FormatCause(const Cause& cause);

// FormatInvalidMessage returns the Status message of apierrors.NewInvalid:
//   `<qualified kind> "<name>" is invalid: <cause>` for one distinct cause,
//   `<qualified kind> "<name>" is invalid: [<cause>, <cause>]` for several,
//   `<qualified kind> "<name>" is invalid` for none.
// `qualified_kind` is GroupKind.String(): "Reservation.scheduling.koordinator.sh" (just "Pod" for
// the core group). Causes whose formatted text repeats are listed once, as ToAggregate does.
std::string FormatInvalidMessage(std::string_view qualified_kind, std::string_view name,
                                 const std::vector<Cause>& causes);

}  // namespace berth::kubesim::schema
