#include "base/record_vocabulary.h"

#include <array>
#include <utility>

#include "base/model_record_vocabulary.h"

namespace nnx {

// kStages lists the stages in their enum order, so that stage_index(kStages[i]) == i, and every stage has
// its name: a stage added without one fails the build.
static_assert([] {
  for (std::size_t i = 0; i < kStageCount; ++i) {
    if (stage_index(kStages[i]) != i || kStageNames[i] == nullptr || kStageNames[i][0] == '\0') return false;
  }
  return true;
}());

std::string_view stage_name(Stage stage) { return kStageNames[stage_index(stage)]; }

std::optional<Stage> parse_stage(std::string_view name) {
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    if (kStageNames[i] == name) return kStages[i];
  }
  return std::nullopt;
}

std::string_view level_name(Level level) { return kLevelNames[static_cast<std::size_t>(level)]; }

std::optional<Level> parse_level(std::string_view name) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
    if (kLevelNames[i] == name) return static_cast<Level>(i);
  }
  return std::nullopt;
}

}  // namespace nnx
