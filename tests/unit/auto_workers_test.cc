// Without --jobs the run sizes its worker pool from its profiles alone (app/run_profiles.h, auto_workers):
// one worker, plus one per worker start-up the warm exports would pay for, at most one per core.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/run_profiles.h"

namespace nnx {
namespace {

std::vector<Profile> profiles_of(int torchscript, int dynamo) {
  std::vector<Profile> profiles;
  for (int i = 0; i < torchscript + dynamo; ++i) {
    Profile p;
    p.name = "p" + std::to_string(i);
    p.exporter = i < torchscript ? "torchscript" : "dynamo";
    profiles.push_back(p);
  }
  return profiles;
}

TEST(AutoWorkers, BothTestedProfilesRunOnOneWorker) {
  EXPECT_EQ(auto_workers(tested_profiles(), 2), 1u);
  EXPECT_EQ(auto_workers(tested_profiles(), 64), 1u);
}

TEST(AutoWorkers, ManyShortTorchScriptExportsDoNotPayForASecondWorker) {
  EXPECT_EQ(auto_workers(profiles_of(16, 0), 2), 1u);
  EXPECT_EQ(auto_workers(profiles_of(100, 0), 8), 2u);  // 7 s of warm exports: one more 2.5 s start pays
}

TEST(AutoWorkers, ManyDynamoExportsUseAWorkerPerCoreAtMost) {
  EXPECT_EQ(auto_workers(profiles_of(0, 4), 2), 1u);
  EXPECT_EQ(auto_workers(profiles_of(0, 16), 2), 2u);
  EXPECT_EQ(auto_workers(profiles_of(0, 16), 8), 2u);  // 19.2 s of warm exports pay for two 6.5 s starts
  EXPECT_EQ(auto_workers(profiles_of(0, 64), 8), 8u);
}

TEST(AutoWorkers, NoCoreCountStillGivesOneWorker) {
  EXPECT_EQ(auto_workers(profiles_of(0, 64), 0), 1u);
  EXPECT_EQ(auto_workers({}, 2), 1u);
}

}  // namespace
}  // namespace nnx
