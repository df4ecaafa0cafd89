// JsonView (base/json_view.h): a value read where it lies on its tape answers as the built nlohmann::json.
#include "base/json_view.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/json_strict.h"

namespace nnx {
namespace {

const json kValues = parse_strict_json(
    R"([null, true, false, 0, -3, 17, 17.0, 18446744073709551615, -9223372036854775808, 0.1, -0.0, "", "x",
        "é", [], {}, [1, [2, {"a": 3}]], {"b": [1, 2], "a": {"c": null}}, {"a": 1}, {"a": 1.0}, [1, 2], [2, 1]])");

TEST(JsonView, AnswersTypeQuestionsAsTheBuiltValue) {
  for (const json& value : kValues) {
    SCOPED_TRACE(value.dump());
    const JsonTape tape = JsonTape::from_json(value);
    const JsonView view(tape);
    EXPECT_TRUE(view.exists());
    EXPECT_EQ(view.is_null(), value.is_null());
    EXPECT_EQ(view.is_boolean(), value.is_boolean());
    EXPECT_EQ(view.is_number_integer(), value.is_number_integer());
    EXPECT_EQ(view.is_number_unsigned(), value.is_number_unsigned());
    EXPECT_EQ(view.is_number_float(), value.is_number_float());
    EXPECT_EQ(view.is_string(), value.is_string());
    EXPECT_EQ(view.is_object(), value.is_object());
    EXPECT_EQ(view.is_array(), value.is_array());
    EXPECT_EQ(json_type_name(view), json_type_name(value));
    if (value.is_structured()) {
      EXPECT_EQ(view.size(), value.size());
    }
    if (value.is_number_integer()) {
      EXPECT_EQ(view.integer(), value.get<std::int64_t>());
    }
    if (value.is_string()) {
      EXPECT_EQ(view.string(), value.get<std::string>());
    }
    EXPECT_EQ(view.to_json(), value);
  }
}

TEST(JsonView, FindsMembersInTheirRecordedOrderAndPassesOverNestedValuesWhole) {
  JsonTape tape;
  const std::size_t slot = tape.open_object();
  tape.string("z");
  const std::size_t inner = tape.open_array();
  for (int i = 0; i < 3; ++i) {
    const std::size_t nested = tape.open_object();
    tape.string("a");
    tape.integer(i);
    tape.close(nested, 1);
  }
  tape.close(inner, 3);
  tape.string("a");
  tape.string("after");
  tape.close(slot, 2);
  const JsonView view(tape);
  EXPECT_EQ(view["a"].string(), "after");  // not the nested "a" members
  EXPECT_EQ(view["z"].size(), 3u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : view.members()) keys.emplace_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a"}));
  std::int64_t sum = 0;
  for (const JsonView item : view["z"].items()) sum += item["a"].integer();
  EXPECT_EQ(sum, 3);
}

TEST(JsonView, AMissingMemberIsAbsentAndReadsAsNull) {
  const JsonTape tape = JsonTape::from_json(json{{"a", {{"b", 1}}}, {"n", nullptr}});
  const JsonView view(tape);
  EXPECT_FALSE(view["missing"].exists());
  EXPECT_TRUE(view["missing"].is_null());
  EXPECT_TRUE(view["n"].exists());
  EXPECT_TRUE(view["n"].is_null());
  EXPECT_FALSE(view["a"]["b"]["deeper"].exists());  // asked of an integer
  EXPECT_FALSE(view["a"]["missing"]["deeper"].exists());
  EXPECT_EQ(json_type_name(view["missing"]), "null");
  EXPECT_TRUE(view["missing"].to_json().is_null());
}

TEST(JsonView, ComparesAsNlohmannAndAsTheCanonicalText) {
  for (const json& a : kValues) {
    for (const json& b : kValues) {
      SCOPED_TRACE(a.dump() + " vs " + b.dump());
      const JsonTape ta = JsonTape::from_json(a);
      const JsonTape tb = JsonTape::from_json(b);
      EXPECT_EQ(JsonView(ta) == JsonView(tb), a == b);
      EXPECT_EQ(same_canonical(JsonView(ta), b), same_canonical(a, b));
      EXPECT_EQ(same_canonical(JsonView(ta), JsonView(tb)), same_canonical(a, b));  // both in place
    }
  }
}

TEST(JsonView, ComparesObjectsByKeyWhateverOrderTheTapeHoldsThem) {
  JsonTape reversed;
  const std::size_t slot = reversed.open_object();
  reversed.string("b");
  reversed.integer(2);
  reversed.string("a");
  reversed.integer(1);
  reversed.close(slot, 2);
  const json value = {{"a", 1}, {"b", 2}};
  const JsonTape sorted = JsonTape::from_json(value);
  EXPECT_TRUE(JsonView(reversed) == JsonView(sorted));
  EXPECT_TRUE(same_canonical(JsonView(reversed), value));
  EXPECT_FALSE(same_canonical(JsonView(reversed), json{{"a", 1}, {"b", 3}}));
  EXPECT_TRUE(same_canonical(JsonView(reversed), JsonView(sorted)));
  EXPECT_TRUE(same_canonical(JsonView(sorted), JsonView(reversed)));
  const JsonTape other = JsonTape::from_json(json{{"a", 1}, {"c", 2}});  // same size, another key
  EXPECT_FALSE(same_canonical(JsonView(reversed), JsonView(other)));
}

}  // namespace
}  // namespace nnx
