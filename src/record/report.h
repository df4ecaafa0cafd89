// The report file (doc/record-format.md §8): {format, status, profiles}, status `passed` iff non-empty and every
// record passed. Every record is validated before anything is written; the file is written atomically
// (a temporary file in the same folder, flushed, fsynced and renamed), sorted keys, 2-space indent, one
// newline at the end, so a reader sees either the old report or the new one, never a mix.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

using json = nlohmann::json;

json make_report(const std::vector<json>& records);
void save_report(const json& report, const std::filesystem::path& path);

// `<profile>: <status>[ (<failure>)]; level=<level>; exporter=...; n/m input cases passed`, and for a module
// record whose parity states a vacuous tolerance `; the tolerance cannot fail for <outputs> (...)`; under a
// failed module or successor-format record, its diagnosis, one indented line each (base/failure_diagnosis.h).
std::vector<std::string> summary_lines(const std::vector<json>& records);
// 0 when every record passed (and there is one); else the class code of the FIRST failing record;
// 1 for no records or an unknown failure value.
int exit_code_for(const std::vector<json>& records);

}  // namespace nnx
