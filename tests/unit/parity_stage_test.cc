// The parity stage (stages/parity.cc; doc/record-format.md §4 parity, its case table) driven behind the
// seams: a fake session (tests/fakes/fake_runtime.h) answers each input case as the test says, the tiny
// reference model (tests/fakes/tiny_model.h) is what the triangulation measures against, and the
// reference's outputs are handed to the stage as prepare_parity hands them (StageContext::prepared_parity).
// Every row of the case table, the non-finite and incomparable outputs, a missing reference and the stage's
// class when several cases fail, in milliseconds. The end-to-end tests (tests/e2e/) run the same stage on
// ONNX Runtime and PyTorch; these replace none of them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fakes/fake_runtime.h"
#include "fakes/tiny_model.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "profile/profile.h"
#include "record/record.h"
#include "stages/stages.h"
#include "support/engine_record.h"

namespace nnx {
namespace {

using fakes::SessionAnswer;
using Outputs = std::vector<Tensor>;
using Inputs = std::span<const Tensor>;

Tensor float_output(std::string name, std::vector<std::int64_t> shape, const std::vector<float>& values) {
  return Tensor::float32(std::move(name), std::move(shape), values);
}

const char* const kInvalidDimensions = "Got invalid dimensions for input: features";

// A record whose stages up to load passed (the torchscript profile: batch-1, -2, -3, -7 expect a match,
// width-5 a refusal), a session answering each case by its name, and the reference's outputs of the tiny
// model for the cases expected to match.
class ParityStage : public ::testing::Test {
 protected:
  ParityStage() {
    context_.reference = ReferenceKind::native;
    PreparedParity prepared;
    for (const auto& c : record_.input_cases) {
      prepared.inputs.push_back(draw_randn(c.shape(), c.seed));
      if (c.expect != rf::kExpectMatch) continue;
      prepared.references.push_back(model_.forward(prepared.inputs.back(), c.shape()[0]));
    }
    context_.prepared_parity = std::move(prepared);
  }

  // What the runtime does with a valid batch: the model's own outputs; with the wrong width: a refusal.
  Outputs faithful(Inputs inputs) const {
    const std::vector<std::int64_t>& shape = inputs.front().shape;
    if (shape[1] != model_.config().input_dim) throw RuntimeFailure(true, "INVALID_ARGUMENT", kInvalidDimensions);
    return {float_output("logits", {shape[0], model_.output_width()},
                         model_.forward(inputs.front().float32_values(), shape[0]))};
  }
  // The faithful outputs with `delta` added to the first value.
  SessionAnswer off_by(float delta) const {
    return [this, delta](Inputs inputs) {
      Outputs out = faithful(inputs);
      std::vector<float> values(out[0].float32_values().begin(), out[0].float32_values().end());
      values[0] += delta;
      out[0] = float_output(out[0].name, out[0].shape, values);
      return out;
    };
  }
  static SessionAnswer returns(Outputs outputs) {
    return [outputs](Inputs) { return outputs; };
  }
  static SessionAnswer throws(bool invalid_argument, const std::string& code, const std::string& message) {
    return [=](Inputs) -> Outputs {
      throw RuntimeFailure(invalid_argument, code, message);
    };
  }

  // Runs the stage with the session answering the cases named in `answers` so, the others faithfully.
  bool run(std::map<std::string, SessionAnswer> answers = {}) {
    auto by_case = [this, answers](Inputs inputs) {
      for (const auto& c : record_.input_cases) {
        if (c.shape() == inputs.front().shape && answers.count(c.name)) return answers.at(c.name)(inputs);
      }
      return faithful(inputs);
    };
    auto session = std::make_unique<fakes::FakeSession>(by_case);
    session_ = session.get();
    context_.session = std::move(session);
    return run_parity_stage(context_);
  }

  const RecordCase& named(const std::string& name) const {
    for (const auto& c : record_.input_cases) {
      if (c.name == name) return c;
    }
    throw std::logic_error("no case " + name);
  }
  const StageEntry& stage() const { return record_.stage(Stage::parity); }

  Profile profile_ = *tested_profile(kTorchscriptProfile);
  Record record_ = Record::from_json(test_support::engine_record(profile_, Stage::load));
  fakes::TinyModel model_{profile_.feed_forward().model.input_dim, profile_.feed_forward().model.output_dim};
  StageContext context_{record_, "no-artifacts-root", &model_};
  fakes::FakeSession* session_ = nullptr;
};

// The fields of a case that did not compare values: its outcome, class and detail, errors null.
void expect_uncompared(const RecordCase& c, const char* outcome, std::optional<FailureClass> failure,
                       const std::string& detail) {
  SCOPED_TRACE(c.name);
  EXPECT_EQ(c.outcome, outcome);
  EXPECT_EQ(c.failure, failure);
  EXPECT_EQ(c.passed, !failure);
  EXPECT_EQ(c.detail, detail);
  EXPECT_FALSE(c.max_abs_error.has_value());
  EXPECT_FALSE(c.max_rel_error.has_value());
}

std::vector<std::string> failed_cases(const StageEntry& stage) {
  return stage.detail.at("failed_cases").get<std::vector<std::string>>();
}

// ---- the case table ----------------------------------------------------------------------------------------

TEST_F(ParityStage, EveryCaseAsExpectedPassesWithTheRecordsErrorsAndDetail) {
  ASSERT_TRUE(run());
  EXPECT_EQ(stage().status, StageStatus::passed);
  EXPECT_FALSE(stage().failure.has_value());
  EXPECT_EQ(stage().detail.at("reference"), "native");
  EXPECT_EQ(stage().detail.at("cases"), 5);
  EXPECT_EQ(stage().detail.at("compared"), 4);
  EXPECT_EQ(stage().detail.at("triangulation").size(), 4u);
  EXPECT_FALSE(stage().detail.contains("blame"));
  for (const char* name : {"batch-1", "batch-2", "batch-3", "batch-7"}) {
    const RecordCase& c = named(name);
    SCOPED_TRACE(name);
    EXPECT_EQ(c.outcome, rf::kOutcomeMatch);
    EXPECT_TRUE(c.passed);
    EXPECT_FALSE(c.failure.has_value());
    EXPECT_FALSE(c.detail.has_value());
    EXPECT_EQ(c.max_abs_error->value(), 0.0);
    EXPECT_EQ(c.max_rel_error->value(), 0.0);
  }
  // A wrong-size case refused as an invalid argument, as expected: rejected, and it passes.
  expect_uncompared(named("width-5"), rf::kOutcomeRejected, std::nullopt,
                    std::string("refused as an invalid argument: ") + kInvalidDimensions);
  ASSERT_EQ(session_->runs().size(), 5u);
  EXPECT_EQ(session_->runs()[0].input_name, "features");  // the record's exporter input name
  EXPECT_EQ(session_->runs()[4].shape, (std::vector<std::int64_t>{3, 5}));
}

TEST_F(ParityStage, AValidBatchRefusedAsAnInvalidArgumentIsAnInputContractFailure) {
  EXPECT_FALSE(run({{"batch-2", throws(true, "INVALID_ARGUMENT", "no")}}));
  expect_uncompared(named("batch-2"), rf::kOutcomeRejected, FailureClass::input_contract,
                    "refused as an invalid argument: no");
  EXPECT_EQ(stage().failure, FailureClass::input_contract);
  EXPECT_EQ(failed_cases(stage()), std::vector<std::string>{"batch-2"});
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ParityStage, ARuntimeErrorIsErrorAndRuntimeErrorWhateverTheCaseExpects) {
  EXPECT_FALSE(run({{"batch-1", throws(false, "RUNTIME_EXCEPTION", "it broke")},
                    {"width-5", throws(false, "FAIL", "also broke")}}));
  expect_uncompared(named("batch-1"), rf::kOutcomeError, FailureClass::runtime_error,
                    "runtime failed (RUNTIME_EXCEPTION): it broke");
  expect_uncompared(named("width-5"), rf::kOutcomeError, FailureClass::runtime_error,
                    "runtime failed (FAIL): also broke");
  EXPECT_EQ(stage().status, StageStatus::failed);
  EXPECT_EQ(stage().failure, FailureClass::runtime_error);
  EXPECT_EQ(failed_cases(stage()), (std::vector<std::string>{"batch-1", "width-5"}));
}

TEST_F(ParityStage, AWrongSizeCaseTheRuntimeRanIsAcceptedAndAnInputContractFailure) {
  EXPECT_FALSE(run({{"width-5", returns({float_output("logits", {3, 2}, std::vector<float>(6, 0.0f))})}}));
  expect_uncompared(named("width-5"), rf::kOutcomeAccepted, FailureClass::input_contract,
                    "a refusal was expected, but the runtime ran it (output logits [3, 2])");
  EXPECT_EQ(stage().failure, FailureClass::input_contract);
  EXPECT_EQ(failed_cases(stage()), std::vector<std::string>{"width-5"});
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ParityStage, ADifferenceWithinTheToleranceMatchesAndStatesItsErrors) {
  ASSERT_TRUE(run({{"batch-3", off_by(1e-6f)}}));
  const RecordCase& c = named("batch-3");
  EXPECT_EQ(c.outcome, rf::kOutcomeMatch);
  EXPECT_TRUE(c.passed);
  EXPECT_GT(c.max_abs_error->value(), 0.0);
  EXPECT_LE(c.max_abs_error->value(), 1e-5);
}

TEST_F(ParityStage, ADifferenceBeyondTheToleranceIsAMismatchWithItsErrors) {
  EXPECT_FALSE(run({{"batch-7", off_by(1.0f)}}));
  const RecordCase& c = named("batch-7");
  EXPECT_EQ(c.outcome, rf::kOutcomeMismatch);
  EXPECT_EQ(c.failure, FailureClass::mismatch);
  EXPECT_FALSE(c.passed);
  EXPECT_FALSE(c.detail.has_value());
  EXPECT_NEAR(c.max_abs_error->value(), 1.0, 1e-6);
  EXPECT_GT(c.max_rel_error->value(), 0.0);
  EXPECT_EQ(stage().failure, FailureClass::mismatch);
  EXPECT_EQ(failed_cases(stage()), std::vector<std::string>{"batch-7"});
  // The runtime departs from the oracle, the reference does not.
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
  const json& t = stage().detail.at("triangulation").at(3);
  EXPECT_EQ(t.at("case"), "batch-7");
  EXPECT_GT(t.at("margin").get<double>(), 1.0);
}

TEST_F(ParityStage, NonFiniteRuntimeValuesAreAMismatchWithoutErrors) {
  EXPECT_FALSE(run({{"batch-2", off_by(std::numeric_limits<float>::quiet_NaN())}}));
  expect_uncompared(named("batch-2"), rf::kOutcomeMismatch, FailureClass::mismatch,
                    "output logits: 1 runtime and 0 reference values are not finite");
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ParityStage, NonFiniteReferenceValuesAreAMismatchBlamedOnTheReference) {
  context_.prepared_parity->references[0][1] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(run());
  expect_uncompared(named("batch-1"), rf::kOutcomeMismatch, FailureClass::mismatch,
                    "output logits: 0 runtime and 1 reference values are not finite");
  EXPECT_EQ(stage().detail.at("blame"), "reference");
}

TEST_F(ParityStage, OutputsThatCannotBeComparedAreAMismatchNamingWhy) {
  const Outputs wrong_shape = {float_output("logits", {2, 3}, std::vector<float>(6, 0.0f))};
  const Outputs wrong_dtype = {Tensor{"logits", DType::float64, {3, 2}, std::vector<std::byte>(6 * sizeof(double))}};
  const Outputs renamed = {float_output("scores", {7, 2}, std::vector<float>(14, 0.0f))};
  EXPECT_FALSE(run({{"batch-2", returns(wrong_shape)}, {"batch-3", returns(wrong_dtype)}, {"batch-7", returns(renamed)}}));
  expect_uncompared(named("batch-2"), rf::kOutcomeMismatch, FailureClass::mismatch,
                    "output logits has shape [2, 3], not the reference's [2, 2]");
  expect_uncompared(named("batch-3"), rf::kOutcomeMismatch, FailureClass::mismatch,
                    "output logits is float64, not PyTorch's float32 (a dtype finding: stages.parity.detail.dtype_differs)");
  expect_uncompared(named("batch-7"), rf::kOutcomeMismatch, FailureClass::mismatch,
                    "the runtime returned no output named logits (it returned: scores)");
  EXPECT_EQ(failed_cases(stage()), (std::vector<std::string>{"batch-2", "batch-3", "batch-7"}));
  EXPECT_EQ(stage().detail.at("dtype_differs").size(), 1u);  // the finding the message names is there
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ParityStage, AMissingReferenceIsAMismatchOfEveryCaseThatWouldCompare) {
  context_.prepared_parity->references.clear();
  context_.prepared_parity->missing = "the torch reference could not be computed: gone";
  EXPECT_FALSE(run());
  for (const char* name : {"batch-1", "batch-2", "batch-3", "batch-7"}) {
    expect_uncompared(named(name), rf::kOutcomeMismatch, FailureClass::mismatch,
                      "not compared: the torch reference could not be computed: gone");
  }
  expect_uncompared(named("width-5"), rf::kOutcomeRejected, std::nullopt,
                    std::string("refused as an invalid argument: ") + kInvalidDimensions);
  EXPECT_EQ(stage().failure, FailureClass::mismatch);
  EXPECT_EQ(stage().detail.at("blame"), "reference");
}

// ---- the stage's class when several cases fail: runtime-error, then mismatch, then input-contract -----------

TEST_F(ParityStage, ARuntimeErrorComesBeforeAMismatchAndAnInputContractFailure) {
  EXPECT_FALSE(run({{"batch-1", throws(true, "INVALID_ARGUMENT", "no")},
                    {"batch-2", off_by(1.0f)},
                    {"batch-3", throws(false, "FAIL", "broke")}}));
  EXPECT_EQ(stage().failure, FailureClass::runtime_error);
  EXPECT_EQ(failed_cases(stage()), (std::vector<std::string>{"batch-1", "batch-2", "batch-3"}));
}

TEST_F(ParityStage, AMismatchComesBeforeAnInputContractFailure) {
  EXPECT_FALSE(run({{"batch-1", throws(true, "INVALID_ARGUMENT", "no")}, {"batch-7", off_by(1.0f)}}));
  EXPECT_EQ(named("batch-1").failure, FailureClass::input_contract);
  EXPECT_EQ(named("batch-7").failure, FailureClass::mismatch);
  EXPECT_EQ(stage().failure, FailureClass::mismatch);
}

// ---- the feed-forward kind's reference provider (feedfwd_parity.cc prepare) ------------------------------

TEST_F(ParityStage, PrepareDrawsEveryCaseAndComputesTheNativeReferenceOfTheMatchCases) {
  const PreparedParity expected = *context_.prepared_parity;
  context_.prepared_parity.reset();
  prepare_parity(context_);
  ASSERT_TRUE(context_.prepared_parity.has_value());
  EXPECT_EQ(context_.prepared_parity->inputs, expected.inputs);  // each case's draw, in case order
  EXPECT_EQ(context_.prepared_parity->references, expected.references);  // the 4 match cases', native
  EXPECT_EQ(context_.prepared_parity->references.size(), 4u);
  EXPECT_TRUE(context_.prepared_parity->missing.empty());
}

TEST_F(ParityStage, ATorchReferenceWithoutAWorkerIsMissingSoEveryMatchCaseIsNotCompared) {
  context_.reference = ReferenceKind::torch;
  context_.prepared_parity.reset();
  EXPECT_FALSE(run());
  EXPECT_TRUE(context_.prepared_parity->references.empty());
  EXPECT_EQ(named("batch-1").outcome, rf::kOutcomeMismatch);
  EXPECT_EQ(stage().detail.at("blame"), "reference");
}

TEST_F(ParityStage, ARerunStartsFromBlankCases) {
  EXPECT_FALSE(run({{"batch-7", off_by(1.0f)}}));
  ASSERT_TRUE(run());
  EXPECT_EQ(named("batch-7").outcome, rf::kOutcomeMatch);
  EXPECT_EQ(stage().status, StageStatus::passed);
}

}  // namespace
}  // namespace nnx
