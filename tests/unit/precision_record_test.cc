// A module record's precision (doc/record-format.md §10, "Precision"; src/record/validate_precision.cc): a
// record whose tolerances name float16-torch, its export's and parity's details, is valid as the writer makes
// it, and each rule refuses its own break, naming where.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "base/module_record_vocabulary.h"
#include "base/precision.h"
#include "record/record.h"
#include "record/validate_record.h"
#include "support/engine_record.h"
#include "support/module_record.h"

namespace nnx {
namespace {

using test_support::joined;

// The support record (every match case's max_abs_error 2.38e-06, within 1e-4/1e-5) in float16-torch.
json float16_record() {
  Record r = test_support::module_record(Stage::parity);
  r.tolerances.precision = Precision::float16_torch;
  json matched = json::array();
  for (const RecordCase& c : r.input_cases) {
    if (c.outcome == rf::kOutcomeMatch) matched.push_back(c.name);
  }
  r.stage(Stage::export_model).detail["precision"] = {{"name", "float16-torch"}, {"converter", "torch 2.13.0 .half()"}};
  r.stage(Stage::parity).detail["precision"] = {{"name", "float16-torch"},
                                                {"float32_tolerance", {{"rtol", r.tolerances.rtol.to_json()},
                                                                       {"atol", r.tolerances.atol.to_json()}}},
                                                {"cases_within_float32", matched},
                                                {"cases_beyond_float32", json::array()}};
  return r.to_json();
}

void expect_refused(const std::function<void(json&)>& change, const std::string& needle) {
  json r = float16_record();
  change(r);
  const std::string all = joined(record_problems(r));
  EXPECT_NE(all.find(needle), std::string::npos) << "wanted: " << needle << "\ngot:" << all;
}

json& verdict(json& r) { return r["stages"]["parity"]["detail"]["precision"]; }

TEST(PrecisionRecord, TheWritersRecordIsValidAndStatesThePrecisionsTolerance) {
  const json r = float16_record();
  EXPECT_TRUE(record_problems(r).empty()) << joined(record_problems(r));
  EXPECT_EQ(r["tolerances"]["precision"]["rtol"], 0.015625);
  EXPECT_EQ(r["tolerances"]["precision"]["name"], "float16-torch");
  EXPECT_EQ(Record::from_json(r).tolerances.judging().atol, 0.015625);
}

TEST(PrecisionRecord, AFloat32RecordHasNoPrecisionKey) {
  const json r = test_support::module_record(Stage::parity).to_json();
  EXPECT_FALSE(r["tolerances"].contains("precision"));
  EXPECT_EQ(Record::from_json(r).tolerances.judging().atol, r["tolerances"]["atol"].get<double>());
}

TEST(PrecisionRecord, AWrongToleranceForTheNamedPrecisionIsRefused) {
  expect_refused([](json& r) { r["tolerances"]["precision"]["rtol"] = 0.125; },
                 "tolerances.precision: rtol and atol must be float16-torch's (0.015625, 0.015625)");
  expect_refused([](json& r) { r["tolerances"]["precision"]["why"] = "close enough"; }, "tolerances.precision.why: must be");
}

TEST(PrecisionRecord, AnUnknownPrecisionOrFloat32IsRefused) {
  expect_refused([](json& r) { r["tolerances"]["precision"]["name"] = "float8"; },
                 "tolerances.precision.name: must be one of float16-torch, float16-graph, bfloat16");
  expect_refused([](json& r) { r["tolerances"]["precision"]["name"] = "float32"; }, "float32 leaves the key out");
  expect_refused([](json& r) { r["tolerances"]["precision"]["extra"] = 1; }, "tolerances.precision");
}

TEST(PrecisionRecord, AVerdictEntryNamingNoCaseOrACaseTwiceIsRefused) {
  expect_refused([](json& r) { verdict(r)["cases_within_float32"].push_back("batch-9"); }, "must name a compared case");
  expect_refused([](json& r) { verdict(r)["cases_beyond_float32"].push_back(verdict(r)["cases_within_float32"][0]); },
                 "each once in both lists");
  expect_refused([](json& r) { verdict(r)["cases_within_float32"] = json::array(); },
                 "names neither within nor beyond float32 the compared case");
}

TEST(PrecisionRecord, ACaseWithinTheFloat32AtolCannotBeBeyondIt) {
  expect_refused([](json& r) {
    verdict(r)["cases_beyond_float32"].push_back(verdict(r)["cases_within_float32"][0]);
    verdict(r)["cases_within_float32"].erase(0);
  }, "within the float32 atol 1e-05: it cannot be beyond that tolerance");
}

TEST(PrecisionRecord, TheVerdictStatesTheRecordsOwnFloat32Tolerance) {
  expect_refused([](json& r) { verdict(r)["float32_tolerance"]["rtol"] = 0.5; },
                 "float32_tolerance: must be the record's tolerances' rtol and atol");
  expect_refused([](json& r) { verdict(r)["name"] = "bfloat16"; }, "must be float16-torch, the tolerances'");
}

TEST(PrecisionRecord, MissingDetailsOrDetailsWithoutAPrecisionAreRefused) {
  expect_refused([](json& r) { r["stages"]["parity"]["detail"].erase("precision"); }, "stages.parity.detail.precision: missing");
  expect_refused([](json& r) { r["stages"]["export"]["detail"].erase("precision"); }, "stages.export.detail.precision: missing");
  expect_refused([](json& r) { r["tolerances"].erase("precision"); },
                 "stages.parity.detail.precision: only a record whose tolerances name a precision has it");
  expect_refused([](json& r) { r["stages"]["export"]["detail"]["precision"]["converter"] = ""; },
                 "stages.export.detail.precision.converter");
}

}  // namespace
}  // namespace nnx
