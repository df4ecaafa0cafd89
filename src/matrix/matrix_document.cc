#include "matrix/matrix_document.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/error.h"
#include "base/json_fields.h"
#include "base/matrix_vocabulary.h"
#include "base/sha256.h"
#include "matrix/parting.h"
#include "record/report.h"
#include "record/validate_record.h"

namespace nnx::matrix {
namespace {

namespace doc_key = rf::matrix_key;           // the document's own keys
namespace cell_key = rf::matrix_runtime_key;  // runtimes[i] and its outputs

void refuse(const std::string& where, const std::string& problem) {
  throw ConformanceError("runtime matrix: " + where + ": " + problem);
}

void only_keys(const json& object, const std::string& where, const std::vector<std::string>& keys) {
  if (!object.is_object()) refuse(where, "is not an object");
  for (const auto& [key, _] : object.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) refuse(where, "unknown key \"" + key + "\"");
  }
  for (const auto& key : keys) {
    if (!object.contains(key)) refuse(where, "missing key \"" + key + "\"");
  }
}

const std::string& text(const json& object, const char* key, const std::string& where) {
  const json& value = object.at(key);
  if (!value.is_string()) refuse(where + "." + key, "is not a string");
  return value.get_ref<const std::string&>();
}

}  // namespace

std::string cell_name_of(const json& runtime) {
  return runtime.value(cell_key::kCell, runtime.at(cell_key::kVersion).get<std::string>());
}

json outputs_to_json(const RuntimeOutputs& outputs) {
  json out = json::object();
  for (const auto& [profile, cases] : outputs.profiles) {
    json list = json::array();
    for (const auto& c : cases) {
      json values = json::array();
      for (float v : c.values) values.push_back(static_cast<double>(v));
      list.push_back(
          {{cell_key::kCase, c.case_name}, {cell_key::kShape, c.shape}, {cell_key::kValues, std::move(values)}});
    }
    out[profile] = std::move(list);
  }
  return out;
}

RuntimeOutputs outputs_from_json(const json& outputs, const std::string& version, const std::string& where) {
  RuntimeOutputs out{version, {}, "", true};
  if (!outputs.is_object()) refuse(where, "is not an object");
  for (const auto& [profile, cases] : outputs.items()) {
    if (!cases.is_array()) refuse(where + "." + profile, "is not a list");
    out.profiles[profile];  // a profile whose cases computed nothing stays, as an empty list
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string at = where + "." + profile + "[" + std::to_string(i) + "]";
      only_keys(cases[i], at, {cell_key::kCase, cell_key::kShape, cell_key::kValues});
      CaseOutput c;
      c.case_name = text(cases[i], cell_key::kCase, at);
      const json& shape = cases[i][cell_key::kShape];
      const json& values = cases[i][cell_key::kValues];
      if (!shape.is_array() || !values.is_array()) refuse(at, "shape and values must be lists");
      std::int64_t count = 1;
      for (const auto& d : shape) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > (1 << 24)) {
          refuse(at + ".shape", "holds a value that is not a dimension");
        }
        c.shape.push_back(d.get<std::int64_t>());
        count *= c.shape.back();
        if (count > (1 << 24)) refuse(at + ".shape", "is too large");
      }
      if (static_cast<std::int64_t>(values.size()) != count) refuse(at + ".values", "does not hold shape's count");
      for (const auto& v : values) {
        if (!v.is_number() || v.is_boolean()) refuse(at + ".values", "holds a value that is not a number");
        const double d = v.get<double>();
        const float f = static_cast<float>(d);
        if (static_cast<double>(f) != d) refuse(at + ".values", "holds a value that is not a float32");
        c.values.push_back(f);
      }
      out.profiles[profile].push_back(std::move(c));
    }
  }
  return out;
}

bool cell_before(const MatrixCell& a, const MatrixCell& b) {
  const int by_version = compare_versions(a.version, b.version);
  return by_version != 0 ? by_version < 0 : compare_settings(a.settings, b.settings) < 0;
}

bool cell_passed(const MatrixCell& cell) { return !cell.records.empty() && exit_code_for(cell.records) == 0; }

json matrix_to_json(const MatrixDocument& matrix) {
  std::vector<const MatrixCell*> cells;
  for (const auto& c : matrix.cells) cells.push_back(&c);
  std::stable_sort(cells.begin(), cells.end(), [](const MatrixCell* a, const MatrixCell* b) { return cell_before(*a, *b); });
  json runtimes = json::array();
  std::vector<RuntimeOutputs> outputs;
  ProfileTolerances tolerances;
  bool passed = !cells.empty();
  for (const MatrixCell* cell : cells) {
    runtimes.push_back({{cell_key::kVersion, cell->version},
                        {cell_key::kLibrarySha256, cell->library_sha256},
                        {cell_key::kStatus, cell_passed(*cell) ? rf::kPassed : rf::kFailed},
                        {cell_key::kRecords, cell->records},
                        {cell_key::kOutputs, outputs_to_json(cell->outputs)}});
    if (!cell->settings.tested()) {
      runtimes.back()[cell_key::kSettings] = cell->settings.to_json();
      runtimes.back()[cell_key::kCell] = cell->name();  // what the pages and the drift call it
    }
    if (cell->host) runtimes.back()[cell_key::kHost] = cell->host->to_json();
    if (cell->seconds) runtimes.back()[cell_key::kSeconds] = *cell->seconds;
    passed = passed && cell_passed(*cell);
    outputs.push_back(cell->outputs);
    outputs.back().version = cell->name();
    outputs.back().release = cell->version;
    outputs.back().tested = cell->settings.tested();
    for (const auto& record : cell->records) {
      const json& t = record.at(rf::kTolerances);
      const std::string profile = record.at(rf::kProfile).get<std::string>();
      if (std::none_of(tolerances.begin(), tolerances.end(), [&](const auto& p) { return p.first == profile; })) {
        tolerances.emplace_back(profile, Tolerance{t.at(rf::tolerance_key::kRtol).get<double>(),
                                                   t.at(rf::tolerance_key::kAtol).get<double>()});
      }
    }
  }
  json out{{doc_key::kFormat, kMatrixFormat},
           {doc_key::kReport,
            {{doc_key::kReportPath, matrix.report_path}, {doc_key::kReportSha256, matrix.report_sha256}}},
           {doc_key::kStatus, passed ? rf::kPassed : rf::kFailed},
           {doc_key::kRuntimes, std::move(runtimes)},
           {doc_key::kDrift, compute_drift(outputs, tolerances)}};
  if (matrix.shard) out[doc_key::kShard] = shard_text(*matrix.shard);
  if (matrix.balanced_by) out[doc_key::kBalancedBy] = *matrix.balanced_by;
  if (!matrix.partings.empty()) out[doc_key::kPartings] = matrix.partings;
  return out;
}

MatrixDocument matrix_from_json(const json& document) {
  if (!document.is_object()) refuse("the document", "is not an object");
  std::vector<std::string> keys{doc_key::kFormat, doc_key::kReport, doc_key::kStatus, doc_key::kRuntimes,
                                doc_key::kDrift};
  for (const char* optional : {doc_key::kShard, doc_key::kBalancedBy, doc_key::kPartings}) {
    if (document.contains(optional)) keys.push_back(optional);
  }
  only_keys(document, "the document", keys);
  if (document[doc_key::kFormat] != kMatrixFormat) refuse(doc_key::kFormat, std::string("is not ") + kMatrixFormat);
  MatrixDocument out;
  const json& report = document[doc_key::kReport];
  only_keys(report, doc_key::kReport, {doc_key::kReportPath, doc_key::kReportSha256});
  out.report_path = text(report, doc_key::kReportPath, doc_key::kReport);
  out.report_sha256 = text(report, doc_key::kReportSha256, doc_key::kReport);
  if (!is_sha256_hex(out.report_sha256)) refuse("report.sha256", "is not a sha256");
  if (document.contains(doc_key::kShard)) {
    if (!document[doc_key::kShard].is_string()) refuse(doc_key::kShard, "is not a string");
    out.shard = parse_shard(document[doc_key::kShard].get<std::string>());
  }
  if (document.contains(doc_key::kBalancedBy)) {
    const json& by = document[doc_key::kBalancedBy];
    if (!by.is_string() || !is_sha256_hex(by.get<std::string>())) refuse(doc_key::kBalancedBy, "is not a sha256");
    if (!out.shard) refuse(doc_key::kBalancedBy, "is only in a part made with --shard");
    out.balanced_by = by.get<std::string>();
  }
  if (document.contains(doc_key::kPartings)) out.partings = partings_from_json(document[doc_key::kPartings]);
  const json& runtimes = document[doc_key::kRuntimes];
  if (!runtimes.is_array()) refuse(doc_key::kRuntimes, "is not a list");
  for (std::size_t i = 0; i < runtimes.size(); ++i) {
    const std::string where = "runtimes[" + std::to_string(i) + "]";
    const json& runtime = runtimes[i];
    std::vector<std::string> cell_keys{cell_key::kVersion, cell_key::kLibrarySha256, cell_key::kStatus,
                                       cell_key::kRecords, cell_key::kOutputs};
    for (const char* optional : {cell_key::kSettings, cell_key::kCell, cell_key::kHost, cell_key::kSeconds}) {
      if (runtime.is_object() && runtime.contains(optional)) cell_keys.push_back(optional);
    }
    only_keys(runtime, where, cell_keys);
    MatrixCell cell;
    if (runtime.contains(cell_key::kSettings)) {
      cell.settings = CellSettings::from_json(runtime[cell_key::kSettings], "runtime matrix: " + where + ".settings");
    }
    if (runtime.contains(cell_key::kHost)) cell.host = HostFacts::from_json(runtime[cell_key::kHost], where + ".host");
    if (runtime.contains(cell_key::kSeconds)) {
      double seconds = 0.0;
      if (!json_number(runtime[cell_key::kSeconds], seconds) || !(seconds >= 0.0)) {
        refuse(where + ".seconds", "is not a number of seconds >= 0");
      }
      cell.seconds = seconds;
    }
    cell.version = text(runtime, cell_key::kVersion, where);
    cell.library_sha256 = text(runtime, cell_key::kLibrarySha256, where);
    if (!runtime[cell_key::kRecords].is_array()) refuse(where + ".records", "is not a list");
    for (std::size_t r = 0; r < runtime[cell_key::kRecords].size(); ++r) {
      const json& record = runtime[cell_key::kRecords][r];
      const auto problems = record_problems(record);
      if (!problems.empty()) refuse(where + ".records[" + std::to_string(r) + "]", problems.front());
      cell.records.push_back(record);
    }
    if (runtime.contains(cell_key::kSettings) != runtime.contains(cell_key::kCell) ||
        (runtime.contains(cell_key::kCell) && runtime[cell_key::kCell] != cell.name())) {
      refuse(where + ".cell", "must be \"" + cell.name() + "\", beside settings (and only there)");
    }
    cell.outputs = outputs_from_json(runtime[cell_key::kOutputs], cell.name(), where + ".outputs");
    if (text(runtime, cell_key::kStatus, where) != (cell_passed(cell) ? rf::kPassed : rf::kFailed)) {
      refuse(where + ".status", "contradicts its records");
    }
    out.cells.push_back(std::move(cell));
  }
  return out;
}

std::vector<std::string> matrix_problems(const json& document) {
  MatrixDocument matrix;
  try {
    matrix = matrix_from_json(document);
  } catch (const ConformanceError& e) {
    return {e.what()};
  }
  const json recomputed = matrix_to_json(matrix);
  std::vector<std::string> problems;
  for (const char* key : {doc_key::kStatus, doc_key::kDrift}) {
    if (recomputed[key] != document[key]) {
      problems.push_back("runtime matrix: " + std::string(key) + ": is not what its runtimes' records and outputs "
                         "give (" + recomputed[key].dump().substr(0, 200) + ")");
    }
  }
  return problems;
}

std::vector<std::string> matrix_summary_lines(const json& matrix) {
  std::vector<std::string> lines;
  std::vector<std::string> profiles;
  for (const auto& runtime : matrix.at(doc_key::kRuntimes)) {
    const std::string version = cell_name_of(runtime);
    const auto records = runtime.at(cell_key::kRecords).get<std::vector<json>>();
    for (const auto& line : summary_lines(records)) lines.push_back("onnxruntime " + version + "  " + line);
    for (const auto& record : records) {
      const std::string profile = record.value(rf::kProfile, "");
      if (std::find(profiles.begin(), profiles.end(), profile) == profiles.end()) profiles.push_back(profile);
    }
  }
  for (const auto& line : drift_summary_lines(matrix.at(doc_key::kDrift), profiles)) lines.push_back(line);
  for (const auto& line : parting_lines(matrix.value(doc_key::kPartings, json::array()))) lines.push_back(line);
  return lines;
}

int matrix_exit_code(const MatrixDocument& matrix) {
  std::vector<const MatrixCell*> cells;
  for (const auto& c : matrix.cells) cells.push_back(&c);
  std::stable_sort(cells.begin(), cells.end(), [](const MatrixCell* a, const MatrixCell* b) { return cell_before(*a, *b); });
  std::vector<json> records;
  for (const MatrixCell* cell : cells) records.insert(records.end(), cell->records.begin(), cell->records.end());
  return exit_code_for(records);
}

}  // namespace nnx::matrix
