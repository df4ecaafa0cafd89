// python_float_repr / dumps_canonical / dumps_pretty: the exact bytes Python's json.dumps writes
// (expected texts below were produced by CPython 3.11).
#include "base/json_python.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "base/json_strict.h"

namespace nnx {
namespace {

TEST(PythonFloatRepr, MatchesPythonReprTable) {
  const struct {
    double value;
    const char* repr;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {-2.5, "-2.5"},
      {0.1, "0.1"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e-05, "1e-05"},
      {0.0001, "0.0001"},
      {0.00012345, "0.00012345"},
      {1.5e-07, "1.5e-07"},
      {123.0, "123.0"},
      {1e15, "1000000000000000.0"},
      {1234567890123456.0, "1234567890123456.0"},
      {9999999999999998.0, "9999999999999998.0"},
      {1e16, "1e+16"},
      {1.5e16, "1.5e+16"},
      {12345678901234568.0, "1.2345678901234568e+16"},
      {5e-324, "5e-324"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {1e22, "1e+22"},
      {1e100, "1e+100"},
      {9007199254740993.0, "9007199254740992.0"},
      {1.0 / 3.0, "0.3333333333333333"},
      {2.0 / 3.0, "0.6666666666666666"},
      {100.0, "100.0"},
      {0.5, "0.5"},
      {-1e-10, "-1e-10"},
  };
  for (const auto& c : cases) EXPECT_EQ(python_float_repr(c.value), c.repr) << c.repr;
}

TEST(PythonFloatRepr, RefusesNonFiniteValues) {
  EXPECT_THROW(python_float_repr(std::numeric_limits<double>::quiet_NaN()), JsonError);
  EXPECT_THROW(python_float_repr(std::numeric_limits<double>::infinity()), JsonError);
  EXPECT_THROW(python_float_repr(-std::numeric_limits<double>::infinity()), JsonError);
  EXPECT_THROW(dumps_canonical(json::array({1.0, std::nan("")})), JsonError);
}

TEST(PythonFloatRepr, RoundTripsRandomDoublesAndAlwaysShowsAFloat) {
  std::mt19937_64 random(42);
  int checked = 0;
  while (checked < 100000) {
    const std::uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) continue;
    const std::string text = python_float_repr(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
    EXPECT_NE(text.find_first_of(".e"), std::string::npos) << text;  // never reads back as an integer
    ++checked;
  }
}

TEST(PythonFloatRepr, ParsedBackStaysAFloat) {
  for (double v : {0.0, -0.0, 17.0, 1e16, 5e-324}) {
    const json back = parse_strict_json(python_float_repr(v));
    ASSERT_TRUE(back.is_number_float()) << v;
    EXPECT_EQ(back.get<double>(), v);
    EXPECT_EQ(std::signbit(back.get<double>()), std::signbit(v));
  }
}

TEST(DumpsCanonical, ReproducesTheTorchscriptSettingsText) {
  // record-format §3: the canonical settings text of feedfwd-fp32-torchscript.
  const std::string text =
      R"({"artifact directory": "feedfwd-fp32-torchscript", "dtype": "float32", "exporter options": )"
      R"({"dynamic_batch": true, "dynamo": false, "export_batch": 2, "exporter": "torchscript", )"
      R"("input_names": ["features"], "opset_version": 17, "output_names": ["logits"]}, "input cases": )"
      R"([{"expect": "match", "name": "batch-1", "seed": 1001, "shape": [1, 4]}, {"expect": "match", )"
      R"("name": "batch-2", "seed": 1002, "shape": [2, 4]}, {"expect": "match", "name": "batch-3", "seed": )"
      R"(1003, "shape": [3, 4]}, {"expect": "match", "name": "batch-7", "seed": 1007, "shape": [7, 4]}, )"
      R"({"expect": "rejected", "name": "width-5", "seed": 2000, "shape": [3, 5]}], "model config": )"
      R"({"activation": "relu", "dropout": 0.0, "hidden_dims": [8], "input_dim": 4, "net": "feed_fwd", )"
      R"("output_dim": 2, "weights": {"distribution": "normal", "generator": "torch.Generator", "seed": 0, )"
      R"("std": 0.5}}, "runtime": ["onnxruntime", "CPUExecutionProvider"], "tolerances": {"atol": 1e-05, )"
      R"("rtol": 0.0001}})";
  EXPECT_EQ(dumps_canonical(parse_strict_json(text)), text);

  // Built in memory, keys inserted out of order: same text.
  json tolerances;
  tolerances["rtol"] = 1e-4;
  tolerances["atol"] = 1e-5;
  EXPECT_EQ(dumps_canonical(tolerances), R"({"atol": 1e-05, "rtol": 0.0001})");
}

TEST(DumpsCanonical, KeepsIntegerFloatAndBooleanApart) {
  const json v = {{"a", 17}, {"b", 17.0}, {"c", true}, {"d", 1}, {"e", nullptr}, {"f", -0.0}};
  EXPECT_EQ(dumps_canonical(v), R"({"a": 17, "b": 17.0, "c": true, "d": 1, "e": null, "f": -0.0})");
}

TEST(DumpsCanonical, WritesInt64AndUint64Extremes) {
  const json v = json::array({std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                              std::numeric_limits<std::uint64_t>::max(), std::uint64_t{9007199254740993}});
  EXPECT_EQ(dumps_canonical(v),
            "[-9223372036854775808, 9223372036854775807, 18446744073709551615, 9007199254740993]");
}

TEST(DumpsCanonical, EscapesLikeEnsureAscii) {
  // Python: json.dumps('"\\/\b\f\n\r\t\x00\x1f\x7f é€😀')
  const std::string s = std::string("\"\\/\b\f\n\r\t") + std::string(1, '\0') +
                        "\x1f\x7f \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
  EXPECT_EQ(dumps_canonical(json(s)),
            R"("\"\\/\b\f\n\r\t\u0000\u001f\u007f \u00e9\u20ac\ud83d\ude00")");
}

TEST(DumpsCanonical, SortsKeysByCodePoint) {
  json v = json::object();
  for (const char* key : {"b", "a", "B", "\xC3\xA9", "\xEF\xBF\xBF", "\xF0\x9F\x98\x80", "aa", ""}) v[key] = 0;
  EXPECT_EQ(dumps_canonical(v),
            R"({"": 0, "B": 0, "a": 0, "aa": 0, "b": 0, "\u00e9": 0, "\uffff": 0, "\ud83d\ude00": 0})");
}

TEST(DumpsCanonical, WritesEmptyContainersAndScalars) {
  EXPECT_EQ(dumps_canonical(json::array()), "[]");
  EXPECT_EQ(dumps_canonical(json::object()), "{}");
  EXPECT_EQ(dumps_canonical(json::array({json::array(), json::object()})), "[[], {}]");
  EXPECT_EQ(dumps_canonical(json(nullptr)), "null");
  EXPECT_EQ(dumps_canonical(json("x")), R"("x")");
  EXPECT_EQ(dumps_canonical(json(false)), "false");
}

TEST(DumpsPretty, MatchesPythonIndentTwo) {
  const json v = parse_strict_json(R"({"b": [1, 2.5, {"x": null}], "a": "s", "c": [], "d": {}, "e": [[]]})");
  // Python: json.dumps(v, sort_keys=True, indent=2)
  const char* expected =
      "{\n"
      "  \"a\": \"s\",\n"
      "  \"b\": [\n"
      "    1,\n"
      "    2.5,\n"
      "    {\n"
      "      \"x\": null\n"
      "    }\n"
      "  ],\n"
      "  \"c\": [],\n"
      "  \"d\": {},\n"
      "  \"e\": [\n"
      "    []\n"
      "  ]\n"
      "}";
  EXPECT_EQ(dumps_pretty(v), expected);
}

TEST(DumpsPretty, WritesEmptyContainersAndScalarsOnOneLine) {
  EXPECT_EQ(dumps_pretty(json::array()), "[]");
  EXPECT_EQ(dumps_pretty(json::object()), "{}");
  EXPECT_EQ(dumps_pretty(json(1e-05)), "1e-05");
  EXPECT_EQ(dumps_pretty(json("\xC3\xA9")), R"("\u00e9")");
}

TEST(JsonWriter, RefusesInvalidUtf8InStringsAndKeys) {
  for (const char* bad : {"\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "a\x80", "\xE2\x82", "\xFF"}) {
    EXPECT_THROW(dumps_canonical(json(bad)), JsonError) << bad;
    json object = json::object();
    object[bad] = 1;
    EXPECT_THROW(dumps_pretty(object), JsonError) << bad;
  }
}

TEST(JsonWriter, RefusesBinaryValues) {
  EXPECT_THROW(dumps_canonical(json::binary({1, 2})), JsonError);
}

TEST(JsonWriter, RefusesNestingBeyondWhatTheReaderAccepts) {
  json v = json::array();
  for (std::size_t i = 1; i < kMaxJsonDepth; ++i) v = json::array({v});
  const std::string text = dumps_canonical(v);
  EXPECT_EQ(parse_strict_json(text), v);
  v = json::array({v});
  EXPECT_THROW(dumps_canonical(v), JsonError);
  EXPECT_THROW(dumps_pretty(v), JsonError);
}

TEST(JsonWriter, OutputReadsBackAsTheSameValue) {
  const json v = parse_strict_json(
      R"({"k": [0, -1, 18446744073709551615, -9223372036854775808, 0.1, -0.0, 1e+300, "\u00e9\ud83d\ude00\n"],)"
      R"( "n": {"m": {"": [true, false, null]}}})");
  EXPECT_EQ(parse_strict_json(dumps_canonical(v)), v);
  EXPECT_EQ(parse_strict_json(dumps_pretty(v)), v);
}

// check_writable: exactly what dumps_canonical throws, found without writing (validate_record's strict check).
std::string writer_refusal(const json& value) {
  try {
    dumps_canonical(value);
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

std::string check_refusal(const json& value) {
  try {
    check_writable(value);
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckWritable, RefusesExactlyWhatTheWriterRefusesWithItsWords) {
  json deep = "leaf";
  for (int i = 0; i < 129; ++i) deep = json::array({deep});
  json at_limit = "leaf";
  for (int i = 0; i < 128; ++i) at_limit = json::array({at_limit});
  const json values[] = {
      json{{"a", 1}, {"b", json::array({1.5, -0.0, "x"})}},
      json{{"a", std::string("ok")}, {"b", std::string("\xff\xfe")}},
      json{{std::string("k\xc0\x80"), 1}},                           // an overlong key
      json::array({std::string("\xed\xa0\x80")}),                  // an encoded surrogate
      json{{"x", std::numeric_limits<double>::infinity()}},
      json::binary({1, 2}),
      deep,
      at_limit,
      json{{"a", std::string("\xff")}, {"b", deep}},                 // the first in writing order wins
      json{{"a", deep}, {"b", std::string("\xff")}},
  };
  for (const json& v : values) EXPECT_EQ(check_refusal(v), writer_refusal(v)) << v.dump(-1, ' ', true, json::error_handler_t::replace).substr(0, 80);
  EXPECT_EQ(check_refusal(at_limit), "");
  EXPECT_NE(check_refusal(deep), "");
}

TEST(SameCanonical, AgreesWithComparingTheCanonicalTexts) {
  const json values[] = {json(17), json(17u), json(17.0), json(true), json(1), json(1u), json(0.0), json(-0.0),
                         json(nullptr), json("17"), json::array({1, 2}), json::array({1u, 2.0}),
                         json{{"a", 1}}, json{{"a", 1u}}, json{{"a", 1}, {"b", 2}}, json{{"b", 1}},
                         json(std::numeric_limits<double>::quiet_NaN()), json(-std::numeric_limits<double>::quiet_NaN()),
                         json(-1), json(std::numeric_limits<std::uint64_t>::max()), json::object(), json::array()};
  for (const json& a : values) {
    for (const json& b : values) {
      EXPECT_EQ(same_canonical(a, b), display_json(a) == display_json(b)) << display_json(a) << " vs " << display_json(b);
    }
  }
}

}  // namespace
}  // namespace nnx
