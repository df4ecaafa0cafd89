#include "base/failure.h"

namespace nnx {
namespace {

struct FailureRow {
  FailureClass failure;
  std::string_view name;
  Stage stage;
  int exit_code;
};

constexpr std::array<FailureRow, 10> kFailureTable = {{
    {FailureClass::missing_dependency, "missing-dependency", Stage::dependencies, 10},
    {FailureClass::export_error, "export-error", Stage::export_model, 11},
    {FailureClass::state_changed, "state-changed", Stage::export_model, 12},
    {FailureClass::checker_error, "checker-error", Stage::check, 13},
    {FailureClass::hash_mismatch, "hash-mismatch", Stage::load, 14},
    {FailureClass::load_error, "load-error", Stage::load, 15},
    {FailureClass::mismatch, "mismatch", Stage::parity, 16},
    {FailureClass::input_contract, "input-contract", Stage::parity, 17},
    {FailureClass::runtime_error, "runtime-error", Stage::parity, 18},
    {FailureClass::tool_error, "tool-error", Stage::export_model, 19},
}};


const FailureRow& row(FailureClass failure) {
  for (const auto& r : kFailureTable) {
    if (r.failure == failure) return r;
  }
  throw std::logic_error("unknown failure class");
}

}  // namespace

std::string_view failure_name(FailureClass failure) { return row(failure).name; }
Stage failure_stage(FailureClass failure) { return row(failure).stage; }
int exit_code(FailureClass failure) { return row(failure).exit_code; }
bool is_v1_failure(FailureClass failure) { return row(failure).exit_code <= 18; }

std::optional<FailureClass> parse_failure(std::string_view name) {
  for (const auto& r : kFailureTable) {
    if (r.name == name) return r.failure;
  }
  return std::nullopt;
}

StageFailure::StageFailure(FailureClass failure, json detail)
    : std::runtime_error(std::string(failure_name(failure))), failure_(failure), detail_(std::move(detail)) {}

}  // namespace nnx
