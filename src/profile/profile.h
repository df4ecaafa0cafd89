// A conformance profile: everything a parity claim depends on (doc/record-format.md §3).
//
// A Profile is plain data with the spec's defaults. `problems()` names every violation of the limits,
// including a Profile that reuses a tested name with other settings and a name longer than a folder's
// (artifacts/layout.h kMaxFolderNameBytes, 255); nothing may run unless it is empty.
// The tested profiles are `feedfwd-fp32-torchscript` and `feedfwd-fp32-dynamo`; a tested name stands
// for its exact canonical settings text. `tested_profile_named` is the one refusal of a name that is not
// tested, for every front end: a UsageError (exit 2) naming the tested profiles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifacts/layout.h"
#include "base/record_vocabulary.h"
#include "model/model_config.h"
#include "base/model_kind.h"
#include "base/model_record_vocabulary.h"
#include "profile/module_spec.h"
#include "profile/onnx_file_spec.h"

namespace nnx {

using json = nlohmann::json;

// The built-in net's case input: one [batch, width] tensor drawn from the case's seed.
using CaseShape = std::vector<std::int64_t>;

struct InputCase {
  std::string name;
  std::uint64_t seed = 0;
  std::string expect;  // rf::kExpectMatch or rf::kExpectRejected
  // Its inputs as its profile's kind gives them: the built-in net's shape, or a module's (and an ONNX file's)
  // named tensors by their dims (profile/module_spec.h).
  std::variant<CaseShape, ModuleCase> inputs;

  // The built-in net's case shape (std::bad_variant_access for another kind's case).
  const CaseShape& shape() const { return std::get<CaseShape>(inputs); }
  // A module's or an ONNX file's case; null for the built-in net's.
  const ModuleCase* module() const { return std::get_if<ModuleCase>(&inputs); }
};

// The built-in net's own parts (doc/record-format.md §2, §3): its config, dtype and the brief's case rule.
struct FeedForwardParts {
  std::int64_t export_batch = 2;
  bool dynamic_batch = true;
  std::vector<std::int64_t> batches = {1, 2, 3, 7};
  std::string dtype = "float32";
  ModelConfig model;
};

// A module profile's own part (§10): the user's module, its inputs, dims, outputs and cases.
struct ModuleParts {
  ModuleSpec spec;
};

// An ONNX-file profile's (§11): the user's own model.onnx and data sets (profile/onnx_file_profile.h), and the
// graph's signature as a module spec (its factory the module it is checked against, if any); the cases are
// the data sets' (or drawn).
struct OnnxFileParts {
  ModuleSpec signature;
  OnnxFileSpec file;
};

struct Profile {
  std::string name;
  std::string exporter = rf::kExporterTorchscript;  // rf::kExporterTorchscript | rf::kExporterDynamo
  std::int64_t opset_version = 17;
  double rtol = 1e-4;
  double atol = 1e-5;
  std::string runtime = "onnxruntime";
  std::string provider = rf::runtime_key::kRequiredProvider;
  // The kind's own parts: which alternative it holds is the profile's kind (kind()), and every member below
  // that differs by kind dispatches on it with a switch.
  std::variant<FeedForwardParts, ModuleParts, OnnxFileParts> parts;

  ModelKind kind() const;
  // The built-in net's parts (std::bad_variant_access for another kind: ask kind() first).
  FeedForwardParts& feed_forward() { return std::get<FeedForwardParts>(parts); }
  const FeedForwardParts& feed_forward() const { return std::get<FeedForwardParts>(parts); }
  // A module profile's spec, or an ONNX file's signature; null for the built-in net.
  const ModuleSpec* module_spec() const;
  ModuleSpec* module_spec() { return const_cast<ModuleSpec*>(std::as_const(*this).module_spec()); }
  // An ONNX-file profile's file and data sets; null for any other kind.
  const OnnxFileSpec* onnx_file_spec() const;
  OnnxFileSpec* onnx_file_spec() { return const_cast<OnnxFileSpec*>(std::as_const(*this).onnx_file_spec()); }

  bool dynamo() const { return exporter == rf::kExporterDynamo; }
  // The record's exporter options: exactly 7 keys.
  json exporter_options() const;
  // Every field by its name, as profile_from_json reads it back (the Python package's Profile).
  json to_json() const;
  // Python modules the worker must import, plus "onnxruntime" (the runtime library, checked by the core).
  std::vector<std::string> requirements() const;
  // One `batch-<b>` case per batch (seed 1000+b, expect match), then `width-<input_dim+1>` (seed 2000).
  std::vector<InputCase> input_cases() const;
  // The record's model variant (doc/record-format.md §11): an imported ONNX file's `model` fields; null for a
  // kind whose record has none.
  json model_variant() const;
  // The settings compared as canonical text (doc/record-format.md §3).
  json settings() const;
  std::string canonical_settings_text() const;

  // Every problem with this profile; empty when it may run.
  std::vector<std::string> problems() const;
};

inline constexpr const char* kTorchscriptProfile = "feedfwd-fp32-torchscript";
inline constexpr const char* kDynamoProfile = "feedfwd-fp32-dynamo";

// The tested profiles in run order (torchscript, then dynamo).
const std::vector<Profile>& tested_profiles();
std::optional<Profile> tested_profile(const std::string& name);
// The tested profile of that name; else UsageError `unknown profile "<name>" (tested profiles: a, b)`.
Profile tested_profile_named(const std::string& name);
bool is_tested_name(const std::string& name);

// The kind of profile a JSON value describes, the one rule every reader and front end asks: an ONNX file when
// it is an object naming "onnx", a module when it names "module", else the built-in net (doc/profile-files.md).
// (How the Python front end names it: model_kind_facts(kind).profile_class.)
ModelKind profile_kind_of_json(const json& value);

// Builds a Profile from a JSON object with the field names above (missing fields take their defaults;
// `model` may be partial), or with a module's or an ONNX file's (profile_kind_of_json). Type errors and
// unknown keys are appended to `problems`.
Profile profile_from_json(const json& value, std::vector<std::string>& problems);

// Throws ConformanceError naming every problem when the profile may not run.
void require_valid(const Profile& profile);

}  // namespace nnx
