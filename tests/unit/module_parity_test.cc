// The parity stage (stages/parity.cc) on a module record, behind the seams: the record of
// tests/support/module_record.h (an image model, three batches to match, three refusal cases) with its stored
// tensors as TensorProto files in a temporary folder, listed as the record lists them and read by parity one at
// a time (StageContext::stored, stages/stored_tensors.h), and a typed fake
// session (tests/fakes/fake_runtime.h) answering named tensors. The same path as the feed-forward net's
// (parity_stage_test.cc): inputs fed by name, outputs compared by name with the stored reference, the stored
// float64 oracle triangulating, the blame. The end-to-end tests run it on ONNX Runtime; these replace none.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "artifacts/layout.h"
#include "base/module_record_vocabulary.h"
#include "base/sha256.h"
#include "fakes/fake_runtime.h"
#include "onnx_file/tensor_proto.h"
#include "record/record.h"
#include "stages/stages.h"
#include "support/module_record.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

using Outputs = std::vector<Tensor>;
using Inputs = std::span<const Tensor>;

Tensor float64_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<double>& values) {
  Tensor t{std::move(name), DType::float64, std::move(shape), std::vector<std::byte>(values.size() * sizeof(double))};
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

// Writes `t` as a stored tensor file at <folder>/<file> and lists it, as the record's artifacts do.
void keep(const std::filesystem::path& folder, std::vector<ArtifactEntry>& listed, const std::string& file,
          const Tensor& t) {
  const std::string bytes = encode_tensor_proto(t);
  std::filesystem::create_directories((folder / file).parent_path());
  std::ofstream(folder / file, std::ios::binary) << bytes;
  listed.push_back({file, stored_tensor_role(file), bytes.size(), sha256_hex(bytes)});
}

class ModuleParityStage : public ::testing::Test {
 protected:
  ModuleParityStage() {
    context_.reference = ReferenceKind::stored;
    context_.graph_input_names = {"image"};
    for (const RecordCase& c : record_.input_cases) {
      for (const CaseTensor& in : c.module()->inputs) {
        keep(folder_.path(), listed_, in.file, Tensor::float32(in.name, in.shape, std::vector<float>(count(in.shape), 0.5f)));
      }
      if (!c.module()->outputs) continue;
      const CaseTensor& out = c.module()->outputs->front();
      std::vector<float> logits(count(out.shape));
      for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i + c.seed));
      keep(folder_.path(), listed_, out.file, Tensor::float32(out.name, out.shape, logits));
      keep(folder_.path(), listed_, *out.oracle_file,
           float64_tensor(out.name, out.shape, std::vector<double>(logits.begin(), logits.end())));
      logits_[c.module()->inputs.front().shape] = logits;
    }
    context_.stored = StoredTensors(folder_.path(), listed_);
  }

  static std::size_t count(const std::vector<std::int64_t>& shape) {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }

  // The stored reference's logits for a batch, `delta` added to the first; a refusal for a case's wrong sizes.
  Outputs answer(Inputs inputs, float delta = 0.0f, const std::string& name = "logits") const {
    const auto found = logits_.find(inputs.front().shape);
    if (found == logits_.end()) throw RuntimeFailure(true, "INVALID_ARGUMENT", "Got invalid dimensions for input: image");
    std::vector<float> logits = found->second;
    logits[0] += delta;
    return {Tensor::float32(name, {inputs.front().shape[0], 1000}, logits)};
  }

  bool run(fakes::SessionAnswer session_answer) {
    auto session = std::make_unique<fakes::FakeSession>(std::move(session_answer));
    session_ = session.get();
    context_.session = std::move(session);
    return run_parity_stage(context_);
  }
  bool run() {
    return run([this](Inputs inputs) { return answer(inputs); });
  }

  const RecordCase& case_named(const std::string& name) const {
    for (const auto& c : record_.input_cases) {
      if (c.name == name) return c;
    }
    throw std::logic_error("no case " + name);
  }
  const StageEntry& stage() const { return record_.stage(Stage::parity); }

  test_support::TempDir folder_{"nnx-module-parity"};  // the profile folder: the stored tensors as files
  std::vector<ArtifactEntry> listed_;                  // and the record's listing of them
  Record record_ = test_support::module_record(Stage::load);
  StageContext context_{record_, "no-artifacts-root", nullptr};
  std::map<std::vector<std::int64_t>, std::vector<float>> logits_;
  fakes::FakeSession* session_ = nullptr;
};

TEST_F(ModuleParityStage, StoredInputsFedByNameAndOutputsEqualToTheStoredReferencePass) {
  ASSERT_TRUE(run());
  EXPECT_EQ(stage().detail.at("reference"), "stored");
  EXPECT_EQ(stage().detail.at("compared"), 3);
  EXPECT_EQ(stage().detail.at("unused_inputs"), nlohmann::json::array());
  for (const char* name : {"batch-2", "batch-1", "batch-3"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(case_named(name).outcome, rf::kOutcomeMatch);
    EXPECT_EQ(case_named(name).max_abs_error->value(), 0.0);
  }
  EXPECT_EQ(case_named("image-axis2-65").outcome, rf::kOutcomeRejected);
  // Every kind's entry against a stored oracle: the case, its margin and both sides' departures.
  const nlohmann::json& t = stage().detail.at("triangulation").at(0);
  EXPECT_EQ(t.at("case"), "batch-2");
  EXPECT_EQ(t.at("runtime_vs_oracle").at("max_abs_error"), 0.0);
  EXPECT_FALSE(t.contains("native_vs_reference"));  // the feed-forward net's own entry has it
  ASSERT_EQ(session_->runs().size(), 6u);
  EXPECT_EQ(session_->runs()[0].input_name, "image");
}

TEST_F(ModuleParityStage, ARuntimeDepartingWhileTheOracleAgreesWithTheReferenceIsBlamedOnTheRuntime) {
  EXPECT_FALSE(run([this](Inputs inputs) { return answer(inputs, inputs.front().shape[0] == 3 ? 1.0f : 0.0f); }));
  EXPECT_EQ(case_named("batch-3").outcome, rf::kOutcomeMismatch);
  EXPECT_NEAR(case_named("batch-3").max_abs_error->value(), 1.0, 1e-6);
  EXPECT_EQ(stage().failure, FailureClass::mismatch);
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ModuleParityStage, AnOutputUnderAnotherNameIsAMismatchNamingWhatTheRuntimeReturned) {
  EXPECT_FALSE(run([this](Inputs inputs) { return answer(inputs, 0.0f, "output_0"); }));
  EXPECT_EQ(case_named("batch-1").detail, "the runtime returned no output named logits (it returned: output_0)");
  EXPECT_EQ(stage().detail.at("blame"), "runtime-or-graph");
}

TEST_F(ModuleParityStage, AStoredReferenceThatIsNotTheRecordsIsAMismatchBlamedOnTheReference) {
  const std::string file = case_named("batch-1").module()->outputs->front().file;
  std::erase_if(listed_, [&](const ArtifactEntry& e) { return e.path == file; });
  context_.stored = StoredTensors(folder_.path(), listed_);
  EXPECT_FALSE(run());
  EXPECT_EQ(case_named("batch-1").outcome, rf::kOutcomeMismatch);
  EXPECT_EQ(case_named("batch-2").outcome, rf::kOutcomeMatch);
  EXPECT_EQ(stage().detail.at("blame"), "reference");
}

TEST_F(ModuleParityStage, AStoredReferenceChangedAfterTheLoadStageVerifiedItIsNotComparedAndSaysSo) {
  // Parity reads each stored tensor when it uses it and checks it against the listing again: a file swapped
  // after load is never compared as if it were the record's.
  const std::string file = case_named("batch-3").module()->outputs->front().file;
  std::ofstream(folder_.path() / file, std::ios::binary | std::ios::app) << "x";
  EXPECT_FALSE(run());
  EXPECT_EQ(case_named("batch-3").outcome, rf::kOutcomeMismatch);
  const std::string detail = case_named("batch-3").detail.value_or("");
  EXPECT_NE(detail.find("changed since the load stage verified it"), std::string::npos) << detail;
  EXPECT_EQ(case_named("batch-2").outcome, rf::kOutcomeMatch);
}

TEST_F(ModuleParityStage, AnInputTheGraphDoesNotTakeIsNotFedAndIsNamed) {
  context_.graph_input_names = {"pixels"};
  EXPECT_FALSE(run([](Inputs inputs) -> Outputs {
    if (!inputs.empty()) ADD_FAILURE() << "fed " << inputs.front().name;
    throw RuntimeFailure(true, "INVALID_ARGUMENT", "Missing Input: pixels");
  }));
  EXPECT_EQ(stage().detail.at("unused_inputs"), nlohmann::json::array({"image"}));
}

}  // namespace
}  // namespace nnx
