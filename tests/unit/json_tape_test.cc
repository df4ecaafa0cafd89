// JsonTape (base/json_tape.h): a value recorded flat builds the value the strict parser reads from its text.
#include "base/json_tape.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "base/json_python.h"
#include "base/json_strict.h"

namespace nnx {
namespace {

// Records `value` on a tape as a front end would (objects' members in the order given).
void record(const json& value, JsonTape& tape) {
  switch (value.type()) {
    case json::value_t::null: tape.null(); return;
    case json::value_t::boolean: tape.boolean(value.get<bool>()); return;
    case json::value_t::number_integer: tape.integer(value.get<std::int64_t>()); return;
    case json::value_t::number_unsigned: tape.unsigned_integer(value.get<std::uint64_t>()); return;
    case json::value_t::number_float: tape.number(value.get<double>()); return;
    case json::value_t::string: tape.string(value.get_ref<const std::string&>()); return;
    case json::value_t::array: {
      const std::size_t slot = tape.open_array();
      for (const auto& item : value) record(item, tape);
      tape.close(slot, value.size());
      return;
    }
    case json::value_t::object: {
      const std::size_t slot = tape.open_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        tape.string(it.key());
        record(*it, tape);
      }
      tape.close(slot, value.size());
      return;
    }
    default: FAIL() << "not a JSON value";
  }
}

TEST(JsonTape, BuildsTheValueTheStrictParserReadsFromItsText) {
  const std::string text =
      R"({"a": [1, -2, 18446744073709551615, -9223372036854775808, 0.5, -0.0, 1e-05, 17.0, true, false, null],)"
      R"( "b": {"": "", "nested": {"deep": [[[]], {}]}}, "s": "caf\u00e9 \ud83d\ude00 \"q\" \\"})";
  const json expected = parse_strict_json(text);
  JsonTape tape;
  record(expected, tape);
  const json built = tape.to_json();
  EXPECT_EQ(dumps_canonical(built), dumps_canonical(expected));
  EXPECT_TRUE(same_canonical(built, expected));
  EXPECT_TRUE(built["a"][0].is_number_unsigned()) << "1 reads as unsigned, as the parser reads it";
  EXPECT_TRUE(built["a"][1].is_number_integer() && !built["a"][1].is_number_unsigned());
  EXPECT_TRUE(std::signbit(built["a"][5].get<double>())) << "-0.0 stays negative";
  EXPECT_TRUE(built["a"][7].is_number_float()) << "17.0 stays a float";
}

TEST(JsonTape, AReusedTapeRecordsTheNextValueAlone) {
  JsonTape tape;
  record(json{{"first", json::array({1, 2, 3})}}, tape);
  tape.clear();
  EXPECT_TRUE(tape.empty());
  EXPECT_TRUE(tape.to_json().is_null()) << "an empty tape is null";
  record(json::array({"second"}), tape);
  EXPECT_EQ(dumps_canonical(tape.to_json()), R"(["second"])");
}

TEST(JsonTape, ARepeatedKeyKeepsTheLastValueAsAPythonDictDoes) {
  JsonTape tape;
  const std::size_t slot = tape.open_object();
  tape.string("k");
  tape.integer(-1);
  tape.string("k");
  tape.integer(-2);
  tape.close(slot, 2);
  EXPECT_EQ(dumps_canonical(tape.to_json()), R"({"k": -2})");
}

TEST(JsonTape, BuildsOneMemberAloneAndSkipsTheOthersWhole) {
  const json value = parse_strict_json(
      R"({"a": {"x": [1, {"y": [2, 3]}], "z": {}}, "artifacts": {"files": [{"path": "m"}]}, "b": [[], [[4]]]})");
  JsonTape tape;
  record(value, tape);
  EXPECT_EQ(dumps_canonical(tape.member_to_json("artifacts")), R"({"artifacts": {"files": [{"path": "m"}]}})");
  EXPECT_EQ(dumps_canonical(tape.member_to_json("b")), R"({"b": [[], [[4]]]})");
  EXPECT_EQ(dumps_canonical(tape.member_to_json("absent")), "{}");
  JsonTape list;
  record(json::array({1, 2}), list);
  EXPECT_EQ(dumps_canonical(list.member_to_json("artifacts")), "[1, 2]") << "not an object: the whole value";
}

}  // namespace
}  // namespace nnx
