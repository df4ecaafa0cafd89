// The load and parity stages, shared by run and execute (record-format §4).
//
// `run_load` verifies the record's artifacts against the folder FIRST (any problem: hash-mismatch and
// nothing is loaded), then creates a session from the verified bytes on the declared provider (failure, or
// a first provider other than the declared one: load-error). `run_parity` runs every input case of the
// record and compares each valid batch with the native model. Both write their outcome into the record
// and return normally; the session is returned for parity only when load passed.
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "model/feedfwd.h"
#include "runtime/onnx_runtime.h"

namespace nnx {

using json = nlohmann::json;

std::unique_ptr<InferenceSession> run_load(json& record, const std::filesystem::path& root,
                                           const std::shared_ptr<OrtLibrary>& library);

void run_parity(json& record, InferenceSession& session, const FeedFwdNN& native);

// Resets every input case to blank (outcome null, passed false, errors and detail null).
void reset_input_cases(json& record);

}  // namespace nnx
