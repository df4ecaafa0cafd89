// Artifact manifests and verification against real files in a temporary folder (record-format §4, §7).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifact_path.h"
#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "base/failure.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

class ArtifactFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "p" / "data");
    write("p/model.onnx", "model bytes");
    write("p/data/weights.bin", "0123456789");
    write("p/notes.txt", "a sidecar");
  }
  void write(const std::string& rel, const std::string& text) { test_support::write_file(root_ / rel, text); }
  json record() {
    json files = json::array();
    for (const auto& e : build_manifest(root_ / "p", {"data/weights.bin"}, RecordForm::brief)) files.push_back(e.to_json());
    return json{{"artifacts", {{"directory", "p"}, {"model", "model.onnx"}, {"files", files}}}};
  }

  test_support::TempDir dir_{"nnx-artifacts"};  // removed with everything in it after the test
  fs::path root_ = dir_.path();
};

TEST(ArtifactPath, NormalisesAndRefusesEscapes) {
  EXPECT_EQ(*normalize_artifact_path("a/./b//c"), "a/b/c");
  EXPECT_EQ(*normalize_artifact_path("a/../model.onnx"), "model.onnx");
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", ".", "a/..", "a\\b", "c:x"}) {
    std::string why;
    EXPECT_FALSE(normalize_artifact_path(bad, &why)) << bad;
    EXPECT_FALSE(why.empty());
  }
}

TEST_F(ArtifactFolder, ManifestGivesEachFileItsRoleSizeAndHash) {
  const auto manifest = build_manifest(root_ / "p", {"data/weights.bin"}, RecordForm::brief);
  ASSERT_EQ(manifest.size(), 3u);
  EXPECT_EQ(manifest[0].path, "data/weights.bin");
  EXPECT_EQ(manifest[0].role, "external-data");
  EXPECT_EQ(manifest[0].bytes, 10u);
  EXPECT_EQ(manifest[0].sha256, "84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882");
  EXPECT_EQ(manifest[1].path, "model.onnx");
  EXPECT_EQ(manifest[1].role, "model");
  EXPECT_EQ(manifest[2].role, "sidecar");
}

TEST_F(ArtifactFolder, ManifestRefusesAMissingExternalLocationAndSymlinks) {
  try {
    build_manifest(root_ / "p", {"absent.bin"}, RecordForm::brief);
    FAIL() << "no error";
  } catch (const StageFailure& f) {
    EXPECT_EQ(f.failure(), FailureClass::checker_error);
    EXPECT_NE(f.detail().get<std::string>().find("absent.bin"), std::string::npos);
  }
  fs::create_symlink("/etc/hostname", root_ / "p" / "link");
  EXPECT_THROW(build_manifest(root_ / "p", {}, RecordForm::brief), StageFailure);
}

TEST_F(ArtifactFolder, UntouchedFolderVerifies) {
  const auto out = verify_artifacts(record(), root_, true);
  EXPECT_TRUE(out.ok());
  EXPECT_EQ(out.contents.at("data/weights.bin").size(), 10u);
}

TEST_F(ArtifactFolder, EveryProblemIsNamedTogether) {
  const json r = record();
  write("p/model.onnx", "model bytez");            // same size, other bytes
  fs::remove(root_ / "p" / "notes.txt");           // missing
  write("p/extra.bin", "x");                       // unlisted
  write("p/data/weights.bin", "01234567890");      // larger than recorded
  const auto out = verify_artifacts(r, root_);
  const std::vector<std::string> expected = {"model.onnx: hash mismatch", "notes.txt: missing",
                                             "extra.bin: not in the record", "data/weights.bin: hash mismatch"};
  for (const auto& e : expected) {
    bool found = false;
    for (const auto& p : out.problems) found = found || p.rfind(e, 0) == 0;
    EXPECT_TRUE(found) << e;
  }
  EXPECT_TRUE(out.contents.empty());
}

TEST_F(ArtifactFolder, ASymlinkedFileNeverVerifiesEvenWithTheRightBytes) {
  const json r = record();
  fs::rename(root_ / "p" / "notes.txt", root_ / "notes.txt");
  fs::create_symlink(root_ / "notes.txt", root_ / "p" / "notes.txt");
  const auto out = verify_artifacts(r, root_);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0], "notes.txt: a symlink");
}

TEST_F(ArtifactFolder, ASymlinkedProfileFolderNeverVerifies) {
  const json r = record();
  fs::rename(root_ / "p", root_ / "real");
  fs::create_symlink(root_ / "real", root_ / "p");
  const auto out = verify_artifacts(r, root_);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0], "p: a symlink");
}

TEST_F(ArtifactFolder, AFifoIsRefusedWithoutBlocking) {
  const json r = record();
  fs::remove(root_ / "p" / "notes.txt");
  ASSERT_EQ(::mkfifo((root_ / "p" / "notes.txt").c_str(), 0600), 0);
  const auto out = verify_artifacts(r, root_);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0], "notes.txt: not a regular file");
}

TEST_F(ArtifactFolder, DirectoryOutsideTheRootIsAMalformedRecord) {
  json r = record();
  r["artifacts"]["directory"] = "../elsewhere";
  EXPECT_THROW(verify_artifacts(r, root_), ConformanceError);
  r = record();
  r["artifacts"]["files"][0]["path"] = "../escape";
  EXPECT_THROW(verify_artifacts(r, root_), ConformanceError);
}

// A chain of `levels` folders "c/c/..." under p/, and the relative path of its deepest folder.
std::string folder_chain(const fs::path& profile, std::size_t levels) {
  std::string relative = "c";
  for (std::size_t i = 1; i < levels; ++i) relative += "/c";
  fs::create_directories(profile / relative);
  return relative;
}

TEST_F(ArtifactFolder, AChainOfSixtyFourFoldersIsListedToItsEnd) {
  const std::string deepest = folder_chain(root_ / "p", kMaxFolderDepth);
  const auto entries = list_folder(root_ / "p");
  EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [&](const FolderEntry& e) {
    return e.path == deepest && e.kind == EntryKind::directory;
  }));
}

TEST_F(ArtifactFolder, AFolderSixtyFiveLevelsDeepIsRefusedByName) {
  const json r = record();
  const std::string deepest = folder_chain(root_ / "p", kMaxFolderDepth + 1);
  try {
    list_folder(root_ / "p");
    FAIL() << "a 65-level chain was listed";
  } catch (const ArtifactIoError& e) {
    EXPECT_EQ(std::string(e.what()), (root_ / "p" / deepest).string() +
                                         ": folders nested deeper than 64 levels (a profile folder holds at most "
                                         "64 levels of folders; remove the deeper ones)");
  }
  EXPECT_THROW(verify_artifacts(r, root_), ArtifactIoError);
  EXPECT_THROW(build_manifest(root_ / "p", {}, RecordForm::brief), StageFailure);  // the check stage's checker-error
}

TEST(Layout, TheFoldersStoredTensorsLieInAreTheLayoutsOwn) {
  for (const char* ours : {"test_data_set_0", "test_data_set_12", "oracle_data_set_3", "refusal_cases",
                           "refusal_cases/image-axis2-65"}) {
    EXPECT_TRUE(is_stored_tensor_folder(ours)) << ours;
  }
  for (const char* other : {"test_data_set_", "test_data_set_01", "data", "factory", "refusal_cases/a/b",
                            "refusal_cases/..", "oracle_data_set_x"}) {
    EXPECT_FALSE(is_stored_tensor_folder(other)) << other;
  }
}

}  // namespace
}  // namespace nnx
