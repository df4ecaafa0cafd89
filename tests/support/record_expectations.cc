// What the validate_record units expect of a record (record_expectations.h).
#include "support/record_expectations.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "base/failure.h"
#include "record/record.h"
#include "record/validate_record.h"
#include "support/engine_record.h"

namespace nnx::test_support {
namespace {

// The record recorded flat with every object's members in reverse key order, as a Python dict may hold them.
JsonTape reversed_tape(const json& value) {
  struct Writer {
    JsonTape tape;
    void write(const json& v) {
      if (v.is_object()) {
        const std::size_t slot = tape.open_object();
        std::vector<std::pair<const std::string*, const json*>> members;
        for (auto it = v.begin(); it != v.end(); ++it) members.emplace_back(&it.key(), &*it);
        for (auto it = members.rbegin(); it != members.rend(); ++it) {
          tape.string(*it->first);
          write(*it->second);
        }
        tape.close(slot, v.size());
      } else if (v.is_array()) {
        const std::size_t slot = tape.open_array();
        for (const auto& item : v) write(item);
        tape.close(slot, v.size());
      } else {
        write_scalar(v);
      }
    }
    void write_scalar(const json& v) {
      if (v.is_string()) return tape.string(v.get_ref<const std::string&>());
      if (v.is_boolean()) return tape.boolean(v.get<bool>());
      if (v.is_number_unsigned()) return tape.unsigned_integer(v.get<std::uint64_t>());
      if (v.is_number_integer()) return tape.integer(v.get<std::int64_t>());
      if (v.is_number_float()) return tape.number(v.get<double>());
      tape.null();
    }
  } writer;
  writer.write(value);
  return std::move(writer.tape);
}

// The rules read from a tape in another key order find the same problems, but for strict JSON, which a
// tape's writer refuses before (validate_record.h).
void expect_same_problems_in_place(const json& record, const std::vector<std::string>& problems) {
  std::vector<std::string> without_strict;
  for (const auto& p : problems) {
    if (p.rfind("not strict JSON", 0) != 0) without_strict.push_back(p);
  }
  const JsonTape tape = reversed_tape(record);
  EXPECT_EQ(record_problems(JsonView(tape)), without_strict);
}

}  // namespace

json passed_record(const std::string& name) {
  return engine_record(named_profile(name), Stage::parity);
}

void expect_accepted(const json& record) {
  const auto problems = record_problems(record);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_NO_THROW(validate_record(record));
  expect_same_problems_in_place(record, problems);
}

void expect_refused(const json& record, const std::string& substring) {
  const auto problems = record_problems(record);
  expect_same_problems_in_place(record, problems);
  bool named = false;
  for (const auto& p : problems) named = named || p.find(substring) != std::string::npos;
  EXPECT_TRUE(named) << "no problem names \"" << substring << "\"; problems:" << joined(problems);
  try {
    validate_record(record);
    ADD_FAILURE() << "validate_record accepted a record refused for \"" << substring << "\"";
  } catch (const ConformanceError& e) {
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

json failed_parity_record() {
  json r = passed_record();
  json& mismatch = r["input_cases"][0];
  mismatch["outcome"] = "mismatch";
  mismatch["failure"] = "mismatch";
  mismatch["passed"] = false;
  mismatch["max_abs_error"] = 0.5;
  mismatch["max_rel_error"] = 2.0;
  json& refused = r["input_cases"][3];
  refused["outcome"] = "rejected";
  refused["failure"] = "input-contract";
  refused["passed"] = false;
  refused["max_abs_error"] = nullptr;
  refused["max_rel_error"] = nullptr;
  refused["detail"] = "refused as an invalid argument: static batch";
  set_stage_failed(r, Stage::parity, FailureClass::mismatch, json{{"failed_cases", {"batch-1", "batch-7"}}});
  finalize_record(r);
  return r;
}

json custom_profile_record() {
  Profile p;
  p.name = "feedfwd-static-1-5";
  p.feed_forward().dynamic_batch = false;
  p.feed_forward().batches = {1, 5};
  return engine_record(p, Stage::parity);
}

}  // namespace nnx::test_support
