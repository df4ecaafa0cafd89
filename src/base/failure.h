// Failure classes and exit codes of nnx.export-conformance/1 (doc/record-format.md §1); the stage list and
// the level names they refer to are the record vocabulary's (base/record_vocabulary.h).
//
// This is the one place that maps a failure class to its stage and to the command line's exit code.
// A stage that did not pass is a StageFailure inside the stages layer (recorded, never shown to a user);
// refusals are base/error.h's Error.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/record_vocabulary.h"

namespace nnx {

using json = nlohmann::json;

// §1's nine (exit 10-18), then the classes allocated from 19 up (doc/record-format.md §11, its table of new
// failure classes and exit codes), which only successor-format and module records hold: tool_error (19), a
// step of the tool's own that failed (storing the case tensors, reading the worker's answer), never the
// exporter's.
enum class FailureClass {
  missing_dependency, export_error, state_changed, checker_error, hash_mismatch,
  load_error, mismatch, input_contract, runtime_error, tool_error,
};
inline constexpr std::array<FailureClass, 10> kFailureClasses = {
    FailureClass::missing_dependency, FailureClass::export_error, FailureClass::state_changed,
    FailureClass::checker_error,      FailureClass::hash_mismatch, FailureClass::load_error,
    FailureClass::mismatch,           FailureClass::input_contract, FailureClass::runtime_error,
    FailureClass::tool_error};
// Whether a class is one of §1's nine, the only ones a record of nnx.export-conformance/1 may hold (the
// published original's validator knows no other).
bool is_v1_failure(FailureClass failure);

inline constexpr int kExitPassed = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

std::string_view failure_name(FailureClass failure);
std::optional<FailureClass> parse_failure(std::string_view name);
Stage failure_stage(FailureClass failure);
int exit_code(FailureClass failure);

// A stage that did not pass: its class and the record's stage detail.
class StageFailure : public std::runtime_error {
 public:
  StageFailure(FailureClass failure, json detail);
  FailureClass failure() const { return failure_; }
  const json& detail() const { return detail_; }

 private:
  FailureClass failure_;
  json detail_;
};

}  // namespace nnx
