#include "report/document.h"

#include <cstdio>
#include <optional>

#include "base/built_in_model_record.h"
#include "base/document_kind.h"
#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/module_record_vocabulary.h"

namespace nnx::report {
namespace {

const json& null_json() {
  static const json value;
  return value;
}

void require_array(const json& value, const std::string& where) {
  if (!value.is_array()) throw ConformanceError(where + " is not a list");
}

}  // namespace

// The pages' three kinds over the one recognition rule (base/document_kind.h): both record formats are records.
DocumentKind document_kind(const json& document) {
  if (!document.is_object()) throw ConformanceError("the document is not a JSON object");
  const std::optional<nnx::DocumentKind> kind = document_kind_of(document);
  if (kind == nnx::DocumentKind::matrix) return DocumentKind::matrix;
  if (kind == nnx::DocumentKind::report) return DocumentKind::report;
  if (kind) return DocumentKind::record;
  throw ConformanceError("the document is neither a report, a record nor a runtime matrix (no \"profiles\", "
                         "\"profile\"/\"stages\" or format " + std::string(kMatrixFormat) + ")");
}

std::vector<MatrixRuntime> matrix_runtimes(const json& matrix) {
  const auto runtimes = matrix.find(rf::matrix_key::kRuntimes);
  if (runtimes == matrix.end()) throw ConformanceError("the matrix has no \"runtimes\"");
  require_array(*runtimes, "the matrix's \"runtimes\"");
  std::vector<MatrixRuntime> out;
  for (std::size_t i = 0; i < runtimes->size(); ++i) {
    const json& runtime = (*runtimes)[i];
    const std::string where = "runtimes[" + std::to_string(i) + "]";
    if (!runtime.is_object()) throw ConformanceError(where + " is not an object");
    MatrixRuntime entry;
    entry.version = runtime.contains(rf::matrix_runtime_key::kCell) ? text_of(runtime, rf::matrix_runtime_key::kCell)
                                                                     : text_of(runtime, rf::matrix_runtime_key::kVersion);
    entry.library_sha256 = text_of(runtime, rf::matrix_runtime_key::kLibrarySha256);
    entry.status = text_of(runtime, rf::matrix_runtime_key::kStatus);
    const auto records = runtime.find(rf::matrix_runtime_key::kRecords);
    if (records == runtime.end()) throw ConformanceError(where + " has no \"records\"");
    require_array(*records, where + ".records");
    for (const auto& record : *records) {
      if (!record.is_object()) throw ConformanceError(where + ".records holds a value that is not a record");
      entry.records.push_back(record);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<DriftRow> matrix_drift(const json& matrix) {
  std::vector<DriftRow> rows;
  const auto drift = matrix.find(rf::matrix_key::kDrift);
  if (drift == matrix.end() || !drift->is_object()) return rows;
  const json cases = drift->value(drift_key::kCases, json::array());
  const json beyond = drift->value(drift_key::kBeyondTolerance, json::array());
  require_array(cases, "the matrix's drift.cases");
  require_array(beyond, "the matrix's drift.beyond_tolerance");
  for (const auto& entry : cases) {
    if (!entry.is_object()) throw ConformanceError("the matrix's drift.cases holds a value that is not an object");
    DriftRow row;
    row.profile = text_of(entry, drift_key::kProfile);
    row.case_name = text_of(entry, drift_key::kCase);
    const json runtimes = entry.value(drift_key::kRuntimes, json::array());
    row.runtimes = runtimes.is_array() ? runtimes.size() : 0;
    row.max_abs_difference = entry.value(drift_key::kMaxAbsDifference, json());
    row.max_ulps = entry.value(drift_key::kMaxUlps, json());
    const json pair = entry.value(drift_key::kPair, json());
    if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string()) {
      row.pair = pair[0].get<std::string>() + " ↔ " + pair[1].get<std::string>();
    }
    if (row.max_ulps.is_number_integer() && row.max_ulps.get<long long>() == 0) row.pair = "all bit-identical";
    for (const auto& far : beyond) {
      if (far.is_object() && text_of(far, drift_key::kProfile) == row.profile &&
          text_of(far, drift_key::kCase) == row.case_name) {
        row.beyond.push_back(text_of(far, drift_key::kVersion));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<AxisRow> matrix_axes(const json& matrix) {
  std::vector<AxisRow> rows;
  const auto drift = matrix.find(rf::matrix_key::kDrift);
  if (drift == matrix.end() || !drift->is_object()) return rows;
  const json axes = drift->value(drift_key::kAxes, json::array());
  require_array(axes, "the matrix's drift.axes");
  for (const auto& entry : axes) {
    if (!entry.is_object()) throw ConformanceError("the matrix's drift.axes holds a value that is not an object");
    rows.push_back({text_of(entry, drift_key::kVersion), text_of(entry, drift_key::kAgainst),
                    text_of(entry, drift_key::kProfile), text_of(entry, drift_key::kCase),
                    entry.value(drift_key::kMaxAbsDifference, json()), entry.value(drift_key::kMaxUlps, json()),
                    entry.value(drift_key::kWithinTolerance, false) == true});
  }
  return rows;
}

std::vector<PageRecord> page_records(const json& document, std::string (*matrix_prefix)(const std::string& version)) {
  std::vector<PageRecord> out;
  if (document_kind(document) == DocumentKind::matrix) {
    for (const auto& runtime : matrix_runtimes(document)) {
      for (const auto& record : runtime.records) out.push_back({matrix_prefix(runtime.version), record, runtime.records});
    }
    return out;
  }
  const std::vector<json> records = document_records(document);
  for (const auto& record : records) out.push_back({"", record, records});
  return out;
}

std::vector<json> document_records(const json& document) {
  switch (document_kind(document)) {
    case DocumentKind::record: return {document};
    case DocumentKind::report: {
      const json& profiles = document[rf::report_key::kProfiles];
      require_array(profiles, "the report's \"profiles\"");
      std::vector<json> out;
      for (const auto& record : profiles) {
        if (!record.is_object()) throw ConformanceError("the report's \"profiles\" holds a value that is not a record");
        out.push_back(record);
      }
      return out;
    }
    case DocumentKind::matrix: {
      std::vector<json> out;
      for (auto& runtime : matrix_runtimes(document)) {
        for (auto& record : runtime.records) out.push_back(std::move(record));
      }
      return out;
    }
  }
  return {};
}

std::string text_of(const json& record, const char* key) {
  if (!record.is_object()) return "";
  const auto it = record.find(key);
  if (it == record.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return value_text(*it);
}

const json& stage_of(const json& record, const char* stage) {
  if (!record.is_object()) return null_json();
  const auto stages = record.find(rf::kStages);
  if (stages == record.end() || !stages->is_object()) return null_json();
  const auto it = stages->find(stage);
  return it == stages->end() ? null_json() : *it;
}

std::string stage_status(const json& record, const char* stage) {
  const std::string status = text_of(stage_of(record, stage), stage_key::kStatus);
  return status.empty() ? rf::kNotRun : status;
}

const json& triangulation_of(const json& record, const std::string& case_name) {
  const json& parity = stage_of(record, kStageNames[stage_index(Stage::parity)]);
  if (!parity.is_object()) return null_json();
  const auto detail = parity.find(stage_key::kDetail);
  if (detail == parity.end() || !detail->is_object()) return null_json();
  const auto entries = detail->find(rf::detail_key::kTriangulation);
  if (entries == detail->end() || !entries->is_array()) return null_json();
  for (const auto& entry : *entries) {
    if (entry.is_object() && entry.value(triangulation_key::kCase, json()) == case_name) return entry;
  }
  return null_json();
}

const json& case_margin(const json& record, const std::string& case_name) {
  const json& entry = triangulation_of(record, case_name);
  if (!entry.is_object()) return null_json();
  const auto margin = entry.find(triangulation_key::kMargin);
  return margin == entry.end() ? null_json() : *margin;
}

const ModelKindFacts& record_kind_facts(const json& record) {
  return model_kind_facts(model_kind_of_record(record).value_or(ModelKind::feed_forward));
}

json built_in_keys(const json& record) {
  const json& own = is_built_in_model_record(record) ? json_member(record, rf::kModel) : record;
  return {{rf::kConfig, json_member(own, rf::kConfig)}, {rf::kDtype, json_member(own, rf::kDtype)}};
}

std::optional<NamedModel> named_model(const json& record) {
  const ModelKindFacts& kind = record_kind_facts(record);
  if (kind.model_member.empty()) return std::nullopt;
  const std::string section(kind.model_member);
  const std::string key(kind.model_label_key);
  return NamedModel{std::string(kind.model_label),
                    record.is_object() ? text_of(record.value(section, json::object()), key.c_str()) : std::string()};
}

std::optional<std::string> case_inputs_text(const json& record, const json& c) {
  switch (record_kind_facts(record).form) {
    case RecordForm::named_tensors: return inputs_text(c.value(rf::module_case_key::kInputs, json()));
    case RecordForm::brief: return std::nullopt;
  }
  return std::nullopt;
}

std::string inputs_text(const json& inputs) {
  if (!inputs.is_array()) return "";
  std::string out;
  for (const auto& input : inputs) {
    if (!input.is_object()) continue;
    out += (out.empty() ? "" : "; ") + text_of(input, rf::input_key::kName) + " " +
           text_of(input, rf::input_key::kDtype) + " " + value_text(input.value(rf::input_key::kShape, json()));
  }
  return out;
}

std::string shown_text(const json& value) {
  if (!value.is_number_float()) return value_text(value);
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value.get<double>());
  return text;
}

bool case_not_run(const json& input_case) {
  return input_case.is_object() && input_case.value(case_key::kOutcome, json()).is_null() &&
         input_case.value(case_key::kFailure, json()).is_null();
}

std::string status_label(const std::string& status) {
  return status == rf::kNotRun ? "not run" : status;
}

std::string value_text(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_number_float()) return python_float_repr(value.get<double>());
  if (value.is_string()) return value.get<std::string>();
  return display_json(value);
}

}  // namespace nnx::report
