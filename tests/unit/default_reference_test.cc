// The one rule for the reference a record is executed with (stages/reference_kind.h reference_for): a
// module record's default is its stored outputs from every front end, so executing it imports none of its code
// unless the caller asks for torch; a feed-forward record's default is the native forward, PyTorch from Python
// (the original's execute); "native" of a module record is its stored outputs; "stored" of a feed-forward
// record is a usage error naming the two it has.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "base/error.h"
#include "stages/reference_kind.h"

namespace nnx {
namespace {

constexpr FrontEnd kFrontEnds[] = {FrontEnd::command_line, FrontEnd::python};

TEST(DefaultReference, AModuleRecordIsComparedWithItsStoredOutputsFromEveryFrontEnd) {
  for (FrontEnd front_end : kFrontEnds) {
    EXPECT_EQ(reference_for(RecordReference::module_outputs, std::nullopt, front_end), ReferenceKind::stored);
  }
}

TEST(DefaultReference, AFeedForwardRecordUsesTheNativeForwardExceptFromPython) {
  EXPECT_EQ(reference_for(RecordReference::feed_forward_network, std::nullopt, FrontEnd::command_line),
            ReferenceKind::native);
  EXPECT_EQ(reference_for(RecordReference::feed_forward_network, std::nullopt, FrontEnd::python),
            ReferenceKind::torch);
}

TEST(DefaultReference, TorchIsUsedOnlyWhenAskedForAModuleRecord) {
  for (FrontEnd front_end : kFrontEnds) {
    EXPECT_EQ(reference_for(RecordReference::module_outputs, ReferenceKind::torch, front_end), ReferenceKind::torch);
    EXPECT_EQ(reference_for(RecordReference::module_outputs, ReferenceKind::native, front_end), ReferenceKind::stored);
    EXPECT_EQ(reference_for(RecordReference::module_outputs, ReferenceKind::stored, front_end), ReferenceKind::stored);
  }
}

TEST(DefaultReference, AFeedForwardRecordTakesWhatIsAskedAndRefusesStored) {
  for (FrontEnd front_end : kFrontEnds) {
    EXPECT_EQ(reference_for(RecordReference::feed_forward_network, ReferenceKind::native, front_end),
              ReferenceKind::native);
    EXPECT_EQ(reference_for(RecordReference::feed_forward_network, ReferenceKind::torch, front_end),
              ReferenceKind::torch);
    try {
      reference_for(RecordReference::feed_forward_network, ReferenceKind::stored, front_end);
      ADD_FAILURE() << "stored was accepted for a feed-forward record";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("stores no reference outputs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("\"native\""), std::string::npos) << e.what();
    }
  }
}

TEST(DefaultReference, EveryKindHasTheNameItIsParsedFrom) {
  for (ReferenceKind kind : {ReferenceKind::torch, ReferenceKind::native, ReferenceKind::stored}) {
    EXPECT_EQ(parse_reference(reference_name(kind)), kind);
  }
  EXPECT_EQ(reference_name(ReferenceKind::stored), "stored");
  EXPECT_THROW(reference_named("jax"), UsageError);
}

}  // namespace
}  // namespace nnx
