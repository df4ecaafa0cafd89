// Which reference a record is compared with (reference_kind.h).
#include "stages/reference_kind.h"

#include <string>

#include "base/error.h"
#include "base/record_vocabulary.h"

namespace nnx {

std::string_view reference_name(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::torch: return rf::kReferenceTorch;
    case ReferenceKind::native: return rf::kReferenceNative;
    case ReferenceKind::stored: return rf::kReferenceStored;
  }
  return rf::kReferenceNative;  // unreachable: every kind is named above
}

std::optional<ReferenceKind> parse_reference(std::string_view name) {
  for (ReferenceKind kind : {ReferenceKind::torch, ReferenceKind::native, ReferenceKind::stored}) {
    if (name == reference_name(kind)) return kind;
  }
  return std::nullopt;
}

ReferenceKind reference_named(std::string_view name) {
  if (const auto kind = parse_reference(name)) return *kind;
  throw UsageError("reference must be \"" + std::string(rf::kReferenceTorch) + "\", \"" +
                   std::string(rf::kReferenceNative) + "\" or \"" + std::string(rf::kReferenceStored) +
                   "\", not \"" + std::string(name) + "\"");
}

ReferenceKind reference_for(RecordReference record, std::optional<ReferenceKind> asked, FrontEnd front_end) {
  switch (record) {
    case RecordReference::module_outputs:
      return asked == ReferenceKind::torch ? ReferenceKind::torch : ReferenceKind::stored;
    case RecordReference::feed_forward_network:
      if (asked == ReferenceKind::stored) {
        throw UsageError("a feed-forward record stores no reference outputs: its reference is \"" +
                         std::string(rf::kReferenceNative) + "\" (the C++ forward) or \"" +
                         std::string(rf::kReferenceTorch) + "\" (PyTorch)");
      }
      if (asked) return *asked;
      return front_end == FrontEnd::python ? ReferenceKind::torch : ReferenceKind::native;
  }
  return ReferenceKind::stored;  // unreachable: every record is named above
}

}  // namespace nnx
