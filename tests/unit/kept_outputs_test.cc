// The kept outputs a run writes for `rejudge` (stages/kept_outputs.h): written and read back to the same tensors
// (an oracle with gaps included), refused when a file was changed, when they belong to another document or
// when the folder holds something else; the folder's name is the one rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/error.h"
#include "stages/kept_outputs.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

class KeptOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("nnx-kept-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  static KeptOutputs sample() {
    const float a[] = {1.0f, 2.0f, 3.0f, 4.0f};
    const float b[] = {1.0f, 2.0f, 3.0f, 4.5f};
    Tensor oracle{"y", DType::float64, {2, 2}, std::vector<std::byte>(32, std::byte{0})};
    KeptCase one{"case-1", {Tensor::float32("y", {2, 2}, a), Tensor::float32("z", {4}, a)},
                 {Tensor::float32("y", {2, 2}, b), Tensor::float32("z", {4}, b)}, {oracle, std::nullopt}};
    KeptCase two{"case-2", {Tensor::float32("y", {2, 2}, b)}, {Tensor::float32("y", {2, 2}, b)}, {}};
    return KeptOutputs{std::string(64, 'a'), {KeptRecord{"1.32.0", "p", {one, two}}, KeptRecord{"1.24.4", "p", {}}}};
  }

  fs::path folder_;
};

TEST_F(KeptOutputsTest, WrittenAndReadBackToTheSameTensorsWithTheOraclesGapsKept) {
  write_kept_outputs(folder_, sample());
  const KeptOutputs back = read_kept_outputs(folder_, std::string(64, 'a'));
  ASSERT_EQ(back.records.size(), 2u);
  const KeptRecord& first = back.records[0];
  EXPECT_EQ(first.runtime, "1.32.0");
  ASSERT_EQ(first.cases.size(), 2u);
  const KeptCase& one = first.cases[0];
  EXPECT_EQ(one.name, "case-1");
  EXPECT_EQ(one.outputs[1].name, "z");
  EXPECT_EQ(one.references[0].float32_values()[3], 4.5f);
  ASSERT_EQ(one.oracle.size(), 2u);
  EXPECT_TRUE(one.oracle[0] && one.oracle[0]->dtype == DType::float64);
  EXPECT_FALSE(one.oracle[1]);
  EXPECT_TRUE(first.cases[1].oracle.empty());
  EXPECT_TRUE(back.records[1].cases.empty());
}

TEST_F(KeptOutputsTest, AChangedFileIsRefusedNamingIt) {
  write_kept_outputs(folder_, sample());
  std::ofstream(folder_ / "r0/c0/runtime-0.pb", std::ios::app) << "x";
  try {
    read_kept_outputs(folder_, std::string(64, 'a'));
    FAIL() << "a changed file was read";
  } catch (const ConformanceError& e) {
    EXPECT_NE(std::string(e.what()).find("r0/c0/runtime-0.pb: its sha256 is not the one"), std::string::npos) << e.what();
  }
}

TEST_F(KeptOutputsTest, AnotherDocumentsOutputsAreRefused) {
  write_kept_outputs(folder_, sample());
  EXPECT_THROW(read_kept_outputs(folder_, std::string(64, 'b')), ConformanceError);
}

TEST_F(KeptOutputsTest, AFolderHoldingAnythingElseIsNeverReplaced) {
  fs::create_directories(folder_);
  std::ofstream(folder_ / "mine.txt") << "mine";
  EXPECT_THROW(write_kept_outputs(folder_, sample()), UsageError);
  EXPECT_TRUE(fs::exists(folder_ / "mine.txt"));
  fs::remove(folder_ / "mine.txt");
  write_kept_outputs(folder_, sample());  // empty: written
  write_kept_outputs(folder_, KeptOutputs{std::string(64, 'c'), {}});  // ours: replaced, nothing stale
  EXPECT_FALSE(fs::exists(folder_ / "r0"));
  EXPECT_TRUE(read_kept_outputs(folder_, std::string(64, 'c')).records.empty());
}

TEST(KeptOutputsFolder, IsTheDocumentsStemWithOutputsBesideIt) {
  EXPECT_EQ(kept_outputs_folder("out/ex.json"), fs::path("out/ex-outputs"));
  EXPECT_EQ(kept_outputs_folder("m.json"), fs::path("m-outputs"));
}

}  // namespace
}  // namespace nnx
