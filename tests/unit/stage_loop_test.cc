// The one stage loop (stages/stages.h run_stages) and its per-stage hook (what `run --timings` uses,
// app/run_profile.cc):
//  * every unit runs in order while each passes, the hook told before and after each with a start <= end;
//  * a unit after one that did not pass does not run, and the hook hears nothing of it;
//  * an empty hook is allowed.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/reference_model.h"
#include "profile/profile.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

std::vector<std::string> ran;  // the units' own log, in the order they ran

bool passes(StageContext&) {
  ran.push_back("ran");
  return true;
}
bool fails(StageContext&) {
  ran.push_back("ran");
  return false;
}

struct Loop {
  const Profile& profile = tested_profiles().front();
  std::unique_ptr<ReferenceModel> model = make_reference_model(profile.feed_forward().model);
  Record record = blank_record_of(profile, SourceInfo{}, model->weights_sha256());
  StageContext context{record, "unused-root", model.get(), &profile};
  std::vector<std::string> told;

  StageHook hook() {
    StageHook h;
    h.before = [this](Stage s) { told.push_back("before " + std::string(stage_name(s))); };
    h.after = [this](Stage s, StageHook::Clock::time_point start, StageHook::Clock::time_point end) {
      EXPECT_LE(start, end);
      told.push_back("after " + std::string(stage_name(s)));
    };
    return h;
  }
};

TEST(StageLoop, EveryUnitRunsInOrderWithTheHookAroundEach) {
  ran.clear();
  Loop loop;
  const std::vector<StageUnit> units = {{Stage::dependencies, passes}, {Stage::export_model, passes}};
  EXPECT_TRUE(run_stages(loop.context, units, loop.hook()));
  EXPECT_EQ(ran.size(), 2u);
  EXPECT_EQ(loop.told, (std::vector<std::string>{"before dependencies", "after dependencies", "before export",
                                                 "after export"}));
}

TEST(StageLoop, AUnitAfterOneThatDidNotPassDoesNotRun) {
  ran.clear();
  Loop loop;
  const std::vector<StageUnit> units = {{Stage::load, fails}, {Stage::parity, passes}};
  EXPECT_FALSE(run_stages(loop.context, units, loop.hook()));
  EXPECT_EQ(ran.size(), 1u);
  EXPECT_EQ(loop.told, (std::vector<std::string>{"before load", "after load"}));
}

TEST(StageLoop, AnEmptyHookIsAllowed) {
  ran.clear();
  Loop loop;
  const std::vector<StageUnit> units = {{Stage::check, passes}, {Stage::load, fails}, {Stage::parity, passes}};
  EXPECT_FALSE(run_stages(loop.context, units));
  EXPECT_EQ(ran.size(), 2u);
}

}  // namespace
}  // namespace nnx
