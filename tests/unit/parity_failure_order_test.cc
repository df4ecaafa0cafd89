// A failed parity's class (record/record_format.h parity_failure_class, doc/record-format.md §4 parity): the
// first of runtime-error, mismatch, input-contract among the failing cases' classes, whatever their order;
// nothing when none of the three is there.
#include <gtest/gtest.h>

#include <vector>

#include "record/record_format.h"

namespace nnx {
namespace {

std::optional<FailureClass> class_of(const std::vector<FailureClass>& failures) {
  return parity_failure_class(failures);
}

TEST(ParityFailureOrder, ARuntimeErrorComesBeforeAMismatchAndAnInputContract) {
  EXPECT_EQ(class_of({FailureClass::input_contract, FailureClass::mismatch, FailureClass::runtime_error}),
            FailureClass::runtime_error);
}

TEST(ParityFailureOrder, AMismatchComesBeforeAnInputContract) {
  EXPECT_EQ(class_of({FailureClass::input_contract, FailureClass::mismatch, FailureClass::input_contract}),
            FailureClass::mismatch);
}

TEST(ParityFailureOrder, AnInputContractAloneNamesTheStage) {
  EXPECT_EQ(class_of({FailureClass::input_contract}), FailureClass::input_contract);
}

TEST(ParityFailureOrder, NoFailingCaseOrOnlyOtherClassesNameNothing) {
  EXPECT_EQ(class_of({}), std::nullopt);
  EXPECT_EQ(class_of({FailureClass::load_error, FailureClass::hash_mismatch}), std::nullopt);
}

TEST(ParityFailureOrder, TheOrderIsTheTableOfTheFormat) {
  for (const FailureClass cls : rf::kParityFailureOrder) EXPECT_EQ(class_of({cls}), cls);
  EXPECT_EQ(class_of({rf::kParityFailureOrder.rbegin(), rf::kParityFailureOrder.rend()}),
            rf::kParityFailureOrder.front());
}

}  // namespace
}  // namespace nnx
