// The load stage (stages/load.cc; doc/record-format.md §4 load) driven behind the runtime seam: a real
// profile folder in a temporary artifacts root holds a hand-written model.onnx (tests/support/onnx_bytes.h)
// listed in the record with its hash; the runtime is the in-memory fake (tests/fakes/fake_runtime.h), and
// the reference model the tiny one (tests/fakes/tiny_model.h). Verified first (a hash mismatch loads
// nothing), then a session from the verified bytes; a refusal or another first provider is load-error. The
// end-to-end tests (tests/e2e/) run the same stage on ONNX Runtime; these replace none of them.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "fakes/fake_runtime.h"
#include "fakes/tiny_model.h"
#include "profile/profile.h"
#include "record/record.h"
#include "stages/stages.h"
#include "support/engine_record.h"
#include "support/files.h"
#include "support/onnx_bytes.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;
using test_support::write_file;

std::vector<Tensor> no_outputs(std::span<const Tensor>) {
  return {};
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> out(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) out[i] = static_cast<std::byte>(text[i]);
  return out;
}

// A record whose stages up to check passed, its profile folder holding model.onnx (the tiny model's
// weights as initializers) and the record listing it as build_manifest lists it.
class LoadStage : public ::testing::Test {
 protected:
  LoadStage() {
    fs::create_directories(folder());
    write_file(folder() / "model.onnx", model_bytes_);
    record_.artifacts.files.clear();
    for (const auto& entry : build_manifest(folder(), {}, RecordForm::brief)) record_.artifacts.files.push_back(entry);
  }

  fs::path folder() const { return profile_folder(root_.path(), record_.artifacts.directory); }

  // Runs the stage on `runtime`, which the test keeps to see what it was asked.
  bool run(std::shared_ptr<fakes::FakeRuntime> runtime) {
    runtime_ = std::move(runtime);
    context_.runtime = runtime_;
    return run_load_stage(context_);
  }
  static std::shared_ptr<fakes::FakeRuntime> runtime(std::vector<std::string> providers = {"CPUExecutionProvider"},
                                                     std::optional<RuntimeFailure> refusal = std::nullopt) {
    return std::make_shared<fakes::FakeRuntime>(no_outputs, std::move(providers), std::move(refusal));
  }
  const StageEntry& stage() const { return record_.stage(Stage::load); }

  test_support::TempDir root_{"nnx-load-stage"};
  Profile profile_ = *tested_profile(kTorchscriptProfile);
  Record record_ = Record::from_json(test_support::engine_record(profile_, Stage::check));
  fakes::TinyModel model_{profile_.feed_forward().model.input_dim, profile_.feed_forward().model.output_dim};
  std::string model_bytes_ = test_support::onnx_model_bytes(model_.parameters());
  StageContext context_{record_, root_.path(), &model_};
  std::shared_ptr<fakes::FakeRuntime> runtime_;
};

TEST_F(LoadStage, VerifiedBytesBecomeASessionOnTheDeclaredProviderWithTheRecordsOptions) {
  ASSERT_TRUE(run(runtime())) << stage().detail.dump();
  EXPECT_EQ(stage().status, StageStatus::passed);
  EXPECT_EQ(stage().detail, (json{{"providers", {"CPUExecutionProvider"}}}));
  ASSERT_NE(context_.session, nullptr);
  ASSERT_EQ(runtime_->requests().size(), 1u);
  const fakes::SessionRequest& asked = runtime_->requests()[0];
  EXPECT_EQ(asked.model, bytes_of(model_bytes_));  // the bytes hashed are the bytes handed over
  EXPECT_TRUE(asked.external.empty());
  EXPECT_EQ(asked.settings.provider, "CPUExecutionProvider");
  EXPECT_EQ(asked.settings.intra_op_num_threads, 1);
  EXPECT_EQ(asked.settings.inter_op_num_threads, 1);
  EXPECT_EQ(asked.settings.graph_optimization_level, "ORT_ENABLE_ALL");
  // The weights check read the same model: it stores the tiny model's weights.
  EXPECT_EQ(context_.weights.match, true) << context_.weights.problem;
}

TEST_F(LoadStage, AHashMismatchLoadsNothing) {
  write_file(folder() / "model.onnx", model_bytes_ + "changed after the check");
  EXPECT_FALSE(run(runtime()));
  EXPECT_EQ(stage().status, StageStatus::failed);
  EXPECT_EQ(stage().failure, FailureClass::hash_mismatch);
  EXPECT_EQ(stage().detail.at("loaded"), false);
  EXPECT_FALSE(stage().detail.at("problems").empty());
  EXPECT_TRUE(runtime_->requests().empty());
  EXPECT_EQ(context_.session, nullptr);
  EXPECT_FALSE(context_.weights.match.has_value());  // model.onnx was not read
}

TEST_F(LoadStage, AMissingFileIsAHashMismatchToo) {
  fs::remove(folder() / "model.onnx");
  EXPECT_FALSE(run(runtime()));
  EXPECT_EQ(stage().failure, FailureClass::hash_mismatch);
  EXPECT_TRUE(runtime_->requests().empty());
}

TEST_F(LoadStage, TheRuntimeRefusingTheModelIsALoadError) {
  EXPECT_FALSE(run(runtime({"CPUExecutionProvider"}, RuntimeFailure(false, "INVALID_GRAPH", "no such graph"))));
  EXPECT_EQ(stage().failure, FailureClass::load_error);
  EXPECT_EQ(stage().detail,
            (json{{"error", "no such graph"}, {"code", "INVALID_GRAPH"}, {"provider", "CPUExecutionProvider"}}));
  EXPECT_EQ(runtime_->requests().size(), 1u);
  EXPECT_EQ(context_.session, nullptr);
}

TEST_F(LoadStage, ASessionOnAnotherFirstProviderIsALoadErrorAndIsLetGo) {
  EXPECT_FALSE(run(runtime({"OtherExecutionProvider", "CPUExecutionProvider"})));
  EXPECT_EQ(stage().failure, FailureClass::load_error);
  EXPECT_EQ(stage().detail.at("error"), "the session's first provider is not CPUExecutionProvider");
  EXPECT_EQ(stage().detail.at("providers"), (json{"OtherExecutionProvider", "CPUExecutionProvider"}));
  EXPECT_EQ(context_.session, nullptr);
}

TEST_F(LoadStage, AModelTheReaderRefusesIsALoadErrorBeforeTheRuntimeSeesIt) {
  write_file(folder() / "model.onnx", "not a model");
  record_.artifacts.files.clear();
  for (const auto& entry : build_manifest(folder(), {}, RecordForm::brief)) record_.artifacts.files.push_back(entry);
  EXPECT_FALSE(run(runtime()));
  EXPECT_EQ(stage().failure, FailureClass::load_error);
  EXPECT_NE(stage().detail.at("error").get<std::string>().find("not an ONNX model"), std::string::npos)
      << stage().detail.dump();
  EXPECT_TRUE(runtime_->requests().empty());
}

TEST_F(LoadStage, ALocationHoldingANulIsNamedWholeInTheDetailWithTheNulEscaped) {
  // A thrown message is read back as a C string: a raw NUL would cut the detail at the location.
  write_file(folder() / "model.onnx", test_support::onnx_model_external_bytes(std::string("w\0x.bin", 7)));
  record_.artifacts.files.clear();
  for (const auto& entry : build_manifest(folder(), {}, RecordForm::brief)) record_.artifacts.files.push_back(entry);
  EXPECT_FALSE(run(runtime()));
  EXPECT_EQ(stage().failure, FailureClass::load_error);
  EXPECT_EQ(stage().detail.at("error").get<std::string>(),
            "external data location \"w\\u0000x.bin\" of model.onnx is not a valid artifact path (contains a NUL "
            "byte)")
      << stage().detail.dump();
  EXPECT_TRUE(runtime_->requests().empty());
}

}  // namespace
}  // namespace nnx
