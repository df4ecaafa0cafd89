// The nearest flag or command to a mistyped one (cli/help_text.h, nearest_name): a letter added, dropped,
// changed or two neighbours swapped count one edit each; at most two, and fewer than half the typed letters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/help_text.h"

namespace nnx::cli {
namespace {

const std::vector<std::string> kFlags = {"--output", "--artifacts", "--profile", "--profile-file", "--jobs",
                                         "--force", "--memory-limit"};
const std::vector<std::string> kCommands = {"run", "validate", "verify", "execute", "report", "matrix",
                                            "matrix-merge"};

TEST(NearestName, TwoSwappedNeighboursAreOneEdit) {
  EXPECT_EQ(nearest_name("--proflie", kFlags), "--profile");
  EXPECT_EQ(nearest_name("rnu", kCommands), "run");
  EXPECT_EQ(nearest_name("exeucte", kCommands), "execute");
}

TEST(NearestName, ALetterAddedDroppedOrChangedIsFound) {
  EXPECT_EQ(nearest_name("--outptu", kFlags), "--output");
  EXPECT_EQ(nearest_name("--profil", kFlags), "--profile");
  EXPECT_EQ(nearest_name("--forcee", kFlags), "--force");
  EXPECT_EQ(nearest_name("valdate", kCommands), "validate");
  EXPECT_EQ(nearest_name("verfy", kCommands), "verify");
}

TEST(NearestName, TheValueAfterAnEqualsSignIsNotPartOfTheFlag) {
  EXPECT_EQ(nearest_name("--jbos=3", kFlags), "--jobs");
}

TEST(NearestName, AWordFarFromEveryKnownOneGetsNoGuess) {
  EXPECT_EQ(nearest_name("--zzzzzz", kFlags), std::nullopt);
  EXPECT_EQ(nearest_name("frobnicate", kCommands), std::nullopt);
  EXPECT_EQ(nearest_name("xy", kCommands), std::nullopt) << "two edits of a three-letter command is a guess";
}

TEST(NearestName, TheClosestOfSeveralWins) {
  EXPECT_EQ(nearest_name("matrix-merg", kCommands), "matrix-merge");
  EXPECT_EQ(nearest_name("matrx", kCommands), "matrix");
}

}  // namespace
}  // namespace nnx::cli
