#include "base/failure.h"

namespace nnx {
namespace {

struct FailureRow {
  FailureClass failure;
  std::string_view name;
  Stage stage;
  int exit_code;
};

constexpr std::array<FailureRow, 9> kFailureTable = {{
    {FailureClass::missing_dependency, "missing-dependency", Stage::dependencies, 10},
    {FailureClass::export_error, "export-error", Stage::export_model, 11},
    {FailureClass::state_changed, "state-changed", Stage::export_model, 12},
    {FailureClass::checker_error, "checker-error", Stage::check, 13},
    {FailureClass::hash_mismatch, "hash-mismatch", Stage::load, 14},
    {FailureClass::load_error, "load-error", Stage::load, 15},
    {FailureClass::mismatch, "mismatch", Stage::parity, 16},
    {FailureClass::input_contract, "input-contract", Stage::parity, 17},
    {FailureClass::runtime_error, "runtime-error", Stage::parity, 18},
}};

constexpr std::array<std::string_view, 5> kStageNames = {"dependencies", "export", "check", "load", "parity"};
constexpr std::array<std::string_view, 3> kLevelNames = {"executed", "structural", "none"};

const FailureRow& row(FailureClass failure) {
  for (const auto& r : kFailureTable) {
    if (r.failure == failure) return r;
  }
  throw std::logic_error("unknown failure class");
}

}  // namespace

std::string_view stage_name(Stage stage) { return kStageNames[stage_index(stage)]; }
std::size_t stage_index(Stage stage) { return static_cast<std::size_t>(stage); }

std::optional<Stage> parse_stage(std::string_view name) {
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    if (kStageNames[i] == name) return kStages[i];
  }
  return std::nullopt;
}

std::string_view failure_name(FailureClass failure) { return row(failure).name; }
Stage failure_stage(FailureClass failure) { return row(failure).stage; }
int exit_code(FailureClass failure) { return row(failure).exit_code; }

std::optional<FailureClass> parse_failure(std::string_view name) {
  for (const auto& r : kFailureTable) {
    if (r.name == name) return r.failure;
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

StageFailure::StageFailure(FailureClass failure, json detail)
    : std::runtime_error(std::string(failure_name(failure))), failure_(failure), detail_(std::move(detail)) {}

}  // namespace nnx
