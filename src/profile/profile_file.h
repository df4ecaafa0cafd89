// `run --profile-file FILE`, `check`'s one-line form and the Python package's profile lists (doc/record-format.md §3, §9).
//
// A profile file holds a JSON list of objects with Profile's fields (profile/profile.h), or a module
// profile's (an object with `module`: profile_module.h): `name` and `exporter` are required, every other
// field is optional with its kind's default (`model` may be partial); the opset and tolerances have one
// spelling for both kinds and an alias (profile_spelling.h). A tested name with
// the tested settings is the tested profile; with other settings it is refused. `profiles_from_json` names
// every bad entry by its index ("profiles[2].exporter: ...") and throws one UsageError (exit 2) listing them
// all, before anything runs or is written; a name given twice is refused too. The file is read as strict
// JSON (base/json_strict.h, as a record is): a duplicate key, NaN or a number that overflows (1e400) is a
// UsageError naming the file and the byte offset. Every path a profile names (a module's FILE.py factory, an
// imported file's onnx and data) is relative to the profile file's folder: `profiles_from_file` makes them
// absolute before any check (module_factory.h, the one path rule); `profiles_from_json` given no folder leaves
// them relative to the current folder.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile.h"

namespace nnx {

std::vector<Profile> profiles_from_json(const nlohmann::json& list,
                                        const std::optional<std::filesystem::path>& factory_folder = std::nullopt);
std::vector<Profile> profiles_from_file(const std::filesystem::path& file);

// The one-line form (`check`, cli/check_command.cc): one profile object built from `--KEY VALUE` flags, read
// with every check of a profile file's entry and every path it names relative to `folder` (the current
// folder). Its problems are one UsageError naming each flag ("--name: missing"; "--dim: unknown key; did you
// mean --dims?"); an unknown key near none of the profile's but near one of `command_flags` (the command's
// own, "--output") is answered with that flag.
Profile profile_from_flags(const nlohmann::json& object, const std::filesystem::path& folder,
                           const std::vector<std::string>& command_flags = {});

}  // namespace nnx
