// The one-line form (cli/commands.h check_profile_object; profile/profile_file.h profile_from_flags): the
// words after check's own flags are one profile object, each --KEY VALUE a key and its JSON value (a bare word a
// string), read by the profile file's reader with paths relative to the given folder and problems named as
// flags (a near miss of the command's own flag answered with it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "cli/commands.h"
#include "profile/profile_file.h"

namespace nnx::cli {
namespace {

std::string usage_message(const std::vector<std::string>& words) {
  try {
    (void)check_profile_object(words);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

std::string flags_message(const nlohmann::json& object, const std::vector<std::string>& command_flags = {}) {
  try {
    (void)profile_from_flags(object, std::filesystem::temp_directory_path(), command_flags);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckFlags, EachValueIsItsJsonAndABareWordIsAString) {
  const auto object = check_profile_object({"--name", "gru", "--rtol", "1e-3", "--dims", R"({"batch": [2, 1]})",
                                            "--dynamic_batch=false", "--exporter", "\"17\""});
  EXPECT_EQ(object, nlohmann::json::parse(R"({"name": "gru", "rtol": 1e-3, "dims": {"batch": [2, 1]},
                                              "dynamic_batch": false, "exporter": "17"})"));
}

TEST(CheckFlags, WordsThatAreNotOneObjectAreUsageErrors) {
  EXPECT_NE(usage_message({"--name", "a", "--name", "b"}).find("--name is given twice"), std::string::npos);
  EXPECT_NE(usage_message({"--inputs", "[{name}]"}).find("--inputs: [{name}] is not JSON"), std::string::npos);
  EXPECT_NE(usage_message({"--name"}).find("--name needs a value"), std::string::npos);
  EXPECT_NE(usage_message({"name", "a"}).find("--KEY VALUE pairs"), std::string::npos);
  EXPECT_NE(usage_message({}).find("check names its profile by flags"), std::string::npos);
}

TEST(CheckFlags, TheReaderNamesAMissingKeyAndAMistypedOneAsFlags) {
  const auto object = nlohmann::json::parse(
      R"({"exporter": "torchscript", "module": "m.py:make", "inputs": [{"name": "x", "shape": [3]}], "dim": {}})");
  const std::string message = flags_message(object);
  EXPECT_NE(message.find("bad profile flags:"), std::string::npos) << message;
  EXPECT_NE(message.find("  - --name: missing"), std::string::npos) << message;
  EXPECT_NE(message.find("  - --dim: unknown key; did you mean --dims?"), std::string::npos) << message;
}

TEST(CheckFlags, AnUnknownKeyNearNoneOfTheProfilesIsAnsweredWithTheCommandsFlagNearIt) {
  const auto object = nlohmann::json::parse(R"({"name": "m", "exporter": "torchscript", "outptu": "r.json",
                                                "outputs": ["y"], "module": "m.py:make"})");
  const std::string message = flags_message(object, {"--output", "--jobs"});
  EXPECT_NE(message.find("  - --outptu: unknown key; did you mean --output?"), std::string::npos) << message;
  EXPECT_EQ(message.find("--outputs: unknown key"), std::string::npos) << message;  // a key of the profile's
}

TEST(CheckFlags, ARelativeFactoryIsRelativeToTheGivenFolder) {
  const auto folder = std::filesystem::temp_directory_path() / "nnx-check-flags-test";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "m.py") << "def make():\n    pass\n";
  const auto object = nlohmann::json::parse(R"({"name": "m", "exporter": "torchscript", "module": "m.py:make",
                                                "inputs": [{"name": "x", "shape": [3]}]})");
  const Profile profile = profile_from_flags(object, folder);
  ASSERT_TRUE(profile.module_spec() != nullptr);
  EXPECT_EQ(profile.module_spec()->factory, (folder / "m.py").string() + ":make");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace nnx::cli
