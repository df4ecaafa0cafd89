// render_junit (report/render.h): the JUnit XML schema most consumers read (Jenkins, GitLab, GitHub
// test reporters): <testsuites> of <testsuite name tests failures skipped> of <testcase classname name>,
// a failure as <failure type message>detail</failure>, a stage that did not run and a case never compared
// as <skipped/>. A failed stage of a module or successor-format record opens its failure with the
// diagnosis (base/failure_diagnosis.h), its message ending with the first cause. Numbers exact (value_text), as the record holds them.
#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "base/failure_diagnosis.h"
#include "report/document.h"
#include "report/markup.h"
#include "report/render.h"

namespace nnx::report {
namespace {

struct Counts {
  std::size_t tests = 0, failures = 0, skipped = 0;
};

std::string testcase(const std::string& classname, const std::string& name, const std::string& body) {
  return "    <testcase classname=\"" + escape_xml(classname) + "\" name=\"" + escape_xml(name) + "\"" +
         (body.empty() ? "/>\n" : ">\n" + body + "    </testcase>\n");
}

std::string failure(const std::string& type, const std::string& message, const std::string& detail) {
  return "      <failure type=\"" + escape_xml(type) + "\" message=\"" + escape_xml(message) + "\">" + escape_xml(detail) +
         "</failure>\n";
}

// "inputs <name dtype shape; ...>, " for a module record's case (doc/record-format.md §10), else "".
std::string case_inputs(const json& record, const json& c) {
  const auto inputs = case_inputs_text(record, c);
  return inputs ? "inputs " + *inputs + ", " : "";
}

// The record's diagnosis (base/failure_diagnosis.h), one line each, then a blank line; "" when it has none.
std::string diagnosis_text(const json& record, const std::vector<json>& siblings) {
  std::string text;
  for (const auto& line : diagnosis_lines(diagnose(record, siblings))) text += line + "\n";
  return text.empty() ? text : text + "\n";
}

// The first cause's sentence (" — <sentence>"), for a failure's message; "" when none.
std::string first_cause(const json& record, const std::vector<json>& siblings) {
  const Diagnosis diagnosis = diagnose(record, siblings);
  return diagnosis.causes.empty() ? "" : " — " + diagnosis.causes.front().sentence;
}

std::string suite(const json& record, const std::string& suite_name, Counts& total, const std::vector<json>& siblings) {
  Counts counts;
  std::string cases;
  for (const char* stage : kStageNames) {
    const std::string status = stage_status(record, stage);
    const json& entry = stage_of(record, stage);
    std::string body;
    ++counts.tests;
    if (status == rf::kFailed) {
      ++counts.failures;
      const json detail = entry.value(stage_key::kDetail, json());
      const std::string text = detail.is_string() ? detail.get<std::string>() : dumps_pretty(detail);
      const std::string cls = text_of(entry, stage_key::kFailure);
      body = failure(cls, stage + std::string(" failed: ") + cls + first_cause(record, siblings),
                     diagnosis_text(record, siblings) + text);
    } else if (status != rf::kPassed) {
      ++counts.skipped;
      body = "      <skipped message=\"" + escape_xml(status) + "\"/>\n";
    }
    cases += testcase(suite_name + ".stages", stage, body);
  }
  const json input_cases = record.value(rf::kInputCases, json::array());
  if (input_cases.is_array()) {
    for (const auto& c : input_cases) {
      ++counts.tests;
      std::string body;
      if (case_not_run(c)) {  // never compared: its stage did not run (report/document.h)
        ++counts.skipped;
        body = "      <skipped message=\"" + escape_xml(status_label(rf::kNotRun)) + "\"/>\n";
      } else if (c.value(case_key::kPassed, false) != true) {
        ++counts.failures;
        const std::string cls = text_of(c, case_key::kFailure);
        body = failure(cls.empty() ? "not-passed" : cls,
                       text_of(c, case_key::kName) + ": " + (cls.empty() ? text_of(c, case_key::kOutcome) : cls),
                       case_inputs(record, c) + "expect " + text_of(c, case_key::kExpect) + ", outcome " +
                           text_of(c, case_key::kOutcome) +
                           ", max_abs_error " + value_text(c.value(case_key::kMaxAbsError, json())) +
                           ", max_rel_error " + value_text(c.value(case_key::kMaxRelError, json())) + "\n" +
                           text_of(c, case_key::kDetail));
      } else if (!triangulation_of(record, text_of(c, case_key::kName)).is_null()) {
        body = "      <system-out>margin " + escape_xml(value_text(case_margin(record, text_of(c, case_key::kName)))) +
               ", max_abs_error " + escape_xml(value_text(c.value(case_key::kMaxAbsError, json()))) + "</system-out>\n";
      }
      cases += testcase(suite_name + ".cases", text_of(c, case_key::kName), body);
    }
  }
  total.tests += counts.tests;
  total.failures += counts.failures;
  total.skipped += counts.skipped;
  return "  <testsuite name=\"" + escape_xml(suite_name) + "\" tests=\"" + std::to_string(counts.tests) +
         "\" failures=\"" + std::to_string(counts.failures) + "\" errors=\"0\" skipped=\"" +
         std::to_string(counts.skipped) + "\">\n" + cases + "  </testsuite>\n";
}

}  // namespace

std::string render_junit(const json& document) {
  const DocumentKind kind = document_kind(document);
  Counts total;
  std::string suites;
  if (kind == DocumentKind::matrix) {
    for (const auto& runtime : matrix_runtimes(document)) {
      for (const auto& record : runtime.records) {
        suites += suite(record, "onnxruntime-" + runtime.version + "." + text_of(record, rf::kProfile), total,
                        runtime.records);
      }
    }
  } else {
    const std::vector<json> records = document_records(document);
    for (const auto& record : records) suites += suite(record, text_of(record, rf::kProfile), total, records);
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nnx-conformance\" tests=\"" +
         std::to_string(total.tests) + "\" failures=\"" + std::to_string(total.failures) + "\" errors=\"0\" skipped=\"" +
         std::to_string(total.skipped) + "\">\n" + suites + "</testsuites>\n";
}

}  // namespace nnx::report
