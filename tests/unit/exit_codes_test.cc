// The one table of failure classes: stage and exit code of each (record-format §1).
#include <gtest/gtest.h>

#include "base/failure.h"

namespace nnx {
namespace {

TEST(ExitCodes, EveryClassHasItsStageAndCode) {
  struct Row { const char* name; const char* stage; int code; };
  const Row rows[] = {{"missing-dependency", "dependencies", 10}, {"export-error", "export", 11},
                      {"state-changed", "export", 12},           {"checker-error", "check", 13},
                      {"hash-mismatch", "load", 14},             {"load-error", "load", 15},
                      {"mismatch", "parity", 16},                {"input-contract", "parity", 17},
                      {"runtime-error", "parity", 18}};
  for (const auto& row : rows) {
    auto f = parse_failure(row.name);
    ASSERT_TRUE(f) << row.name;
    EXPECT_EQ(failure_name(*f), row.name);
    EXPECT_EQ(stage_name(failure_stage(*f)), row.stage);
    EXPECT_EQ(exit_code(*f), row.code);
  }
  EXPECT_FALSE(parse_failure("skipped"));
  EXPECT_FALSE(parse_stage("deploy"));
}

}  // namespace
}  // namespace nnx
