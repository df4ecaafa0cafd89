// parse_strict_json / read_strict_json_file: what strict JSON accepts, what it refuses and how the
// refusal is named (problem and byte offset).
#include "base/json_strict.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include "support/files.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

// The JsonError parse_strict_json throws for `text` (fails the test when it parses).
JsonError refusal(std::string_view text) {
  try {
    parse_strict_json(text);
  } catch (const JsonError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return JsonError("accepted");
}

std::string message(std::string_view text) { return refusal(text).what(); }

bool all_ascii(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

using test_support::TempDir;
using test_support::write_file;

TEST(StrictJson, ParsesEveryKindOfValue) {
  const json v = parse_strict_json(R"( {"a": [1, -2, 2.5, "x", true, false, null, {}, []], "b": {"c": "d"}} )");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.size(), 2u);
  const json& a = v.at("a");
  ASSERT_EQ(a.size(), 9u);
  EXPECT_TRUE(a[0].is_number_unsigned());
  EXPECT_EQ(a[0].get<std::uint64_t>(), 1u);
  EXPECT_TRUE(a[1].is_number_integer() && !a[1].is_number_unsigned());
  EXPECT_EQ(a[1].get<std::int64_t>(), -2);
  EXPECT_DOUBLE_EQ(a[2].get<double>(), 2.5);
  EXPECT_EQ(a[3], "x");
  EXPECT_EQ(a[4], true);
  EXPECT_EQ(a[5], false);
  EXPECT_TRUE(a[6].is_null());
  EXPECT_TRUE(a[7].is_object() && a[7].empty());
  EXPECT_TRUE(a[8].is_array() && a[8].empty());
  EXPECT_EQ(v.at("b").at("c"), "d");
}

TEST(StrictJson, ParsesTopLevelScalars) {
  EXPECT_EQ(parse_strict_json("17"), json(17));
  EXPECT_EQ(parse_strict_json("\"s\""), json("s"));
  EXPECT_TRUE(parse_strict_json(" null\n").is_null());
}

TEST(StrictJson, KeepsIntegersApartFromFloats) {
  const json integer = parse_strict_json("17");
  const json floating = parse_strict_json("17.0");
  EXPECT_TRUE(integer.is_number_integer());
  EXPECT_FALSE(integer.is_number_float());
  EXPECT_TRUE(floating.is_number_float());
  EXPECT_NE(integer.type(), floating.type());
  EXPECT_TRUE(parse_strict_json("1e2").is_number_float());
  EXPECT_TRUE(parse_strict_json("-3").is_number_integer());
}

TEST(StrictJson, KeepsNegativeZero) {
  const json v = parse_strict_json("-0.0");
  ASSERT_TRUE(v.is_number_float());
  EXPECT_EQ(v.get<double>(), 0.0);
  EXPECT_TRUE(std::signbit(v.get<double>()));
  EXPECT_FALSE(std::signbit(parse_strict_json("0.0").get<double>()));
}

TEST(StrictJson, AcceptsInt64AndUint64Extremes) {
  using limits = std::numeric_limits<std::int64_t>;
  EXPECT_EQ(parse_strict_json("-9223372036854775808").get<std::int64_t>(), limits::min());
  EXPECT_EQ(parse_strict_json("9223372036854775807").get<std::int64_t>(), limits::max());
  const json top = parse_strict_json("18446744073709551615");
  ASSERT_TRUE(top.is_number_unsigned());
  EXPECT_EQ(top.get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
}

TEST(StrictJson, RefusesIntegerBeyondUint64NamingIt) {
  const JsonError e = refusal("[1, 18446744073709551616]");
  EXPECT_NE(std::string(e.what()).find("18446744073709551616"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  EXPECT_EQ(e.byte_offset(), 4u);
}

TEST(StrictJson, RefusesIntegerBelowInt64NamingIt) {
  const JsonError e = refusal("-9223372036854775809");  // ends the text: no byte read past it
  EXPECT_NE(std::string(e.what()).find("-9223372036854775809"), std::string::npos) << e.what();
  EXPECT_EQ(e.byte_offset(), 0u);
}

TEST(StrictJson, RefusesNumberOverflowingDouble) {
  for (const char* text : {"1e999", "-1e999", "[0, 1.5e309]"}) {
    const std::string m = message(text);
    EXPECT_NE(m.find("out of range"), std::string::npos) << m;
  }
  EXPECT_NE(message("1e999").find("1e999"), std::string::npos);
  EXPECT_EQ(refusal("[0, 1.5e309]").byte_offset(), 4u);
}

TEST(StrictJson, RefusesNaNAndInfinityLiterals) {
  for (const char* text : {"NaN", "Infinity", "-Infinity", "[1, NaN]", "{\"a\": Infinity}", "nan", "inf"}) {
    const JsonError e = refusal(text);
    EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << e.what();
  }
  EXPECT_NE(message("[1, NaN]").find("NaN and Infinity"), std::string::npos);
  EXPECT_EQ(refusal("[1, NaN]").byte_offset(), 4u);
  EXPECT_EQ(refusal("{\"a\": -Infinity}").byte_offset(), 6u);
}

TEST(StrictJson, RefusesDuplicateKeyNamingIt) {
  const JsonError e = refusal(R"({"alpha": 1, "alpha": 2})");
  const std::string m = e.what();
  EXPECT_NE(m.find("duplicate"), std::string::npos) << m;
  EXPECT_NE(m.find("\"alpha\""), std::string::npos) << m;
  EXPECT_EQ(e.byte_offset(), 13u);
  EXPECT_NE(m.find("byte offset 13"), std::string::npos) << m;
}

TEST(StrictJson, RefusesDuplicateKeyAtAnyDepth) {
  const JsonError e = refusal(R"([{"x": {"k\"q": 1, "k\"q": 2}}])");
  EXPECT_NE(std::string(e.what()).find(R"("k\"q")"), std::string::npos) << e.what();
  EXPECT_EQ(e.byte_offset(), 19u);
}

TEST(StrictJson, AcceptsSameKeyInSeparateObjects) {
  const json v = parse_strict_json(R"({"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]})");
  EXPECT_EQ(v.at("b").at(1).at("a"), 3);
}

TEST(StrictJson, RefusesTrailingData) {
  for (const char* text : {"{} x", "1 2", "{}{}", "[1]]", "\"a\" \"b\"", "null,"}) {
    const std::string m = message(text);
    EXPECT_NE(m.find("end of input"), std::string::npos) << text << ": " << m;
  }
  EXPECT_EQ(refusal("{}  x").byte_offset(), 4u);
  EXPECT_NO_THROW(parse_strict_json("{} \n\t\r "));
}

TEST(StrictJson, RefusesInvalidUtf8) {
  const char* cases[] = {
      "\"\xC0\x80\"",          // overlong NUL
      "\"\xC1\xBF\"",          // overlong
      "\"\xE0\x80\xAF\"",      // overlong 3-byte
      "\"\xF0\x80\x80\xAF\"",  // overlong 4-byte
      "\"\xED\xA0\x80\"",      // encoded surrogate U+D800
      "\"\xF4\x90\x80\x80\"",  // above U+10FFFF
      "\"\x80\"",              // lone continuation byte
      "\"\xE2\x82\"",          // truncated sequence
      "\"\xFF\"",
  };
  for (const char* text : cases) {
    const JsonError e = refusal(text);
    const std::string m = e.what();
    EXPECT_NE(m.find("invalid UTF-8"), std::string::npos) << m;
    EXPECT_TRUE(all_ascii(m)) << "message carries raw bytes: " << m;
    EXPECT_GE(e.byte_offset(), 1u);
  }
  EXPECT_EQ(refusal("[\"ok\", \"\xC0\x80\"]").byte_offset(), 8u);
}

TEST(StrictJson, AcceptsWellFormedUtf8AndEscapes) {
  const char* text = "\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80";  // é日😀
  EXPECT_EQ(parse_strict_json("\"" + std::string(text) + "\""), json(text));
  EXPECT_EQ(parse_strict_json(R"("\ud83d\ude00")"), json("\xF0\x9F\x98\x80"));
  EXPECT_EQ(parse_strict_json(R"("\u00e9\n\u0000")"), json(std::string("\xC3\xA9\n\0", 4)));
}

TEST(StrictJson, RefusesLoneSurrogateEscapes) {
  for (const char* text :
       {R"("\ud800")", R"("\udc00")", R"("\ud800\u0041")", R"("a\udbff")", R"("\ude00\ud83d")"}) {
    const std::string m = message(text);
    EXPECT_NE(m.find("surrogate"), std::string::npos) << text << ": " << m;
  }
}

TEST(StrictJson, RefusesUnescapedControlCharacters) {
  EXPECT_NO_THROW(parse_strict_json("\"a\\tb\""));
  refusal("\"a\tb\"");
  refusal(std::string_view("\"a\0b\"", 5));
}

TEST(StrictJson, RefusesByteOrderMark) {
  const JsonError e = refusal("\xEF\xBB\xBF{}");
  EXPECT_NE(std::string(e.what()).find("byte order mark"), std::string::npos);
  EXPECT_EQ(e.byte_offset(), 0u);
}

TEST(StrictJson, RefusesNonJsonSyntax) {
  for (const char* text : {"", "   ", "{", "[1,]", "{\"a\":1,}", "// c\n1", "/* c */ 1", "'a'", "{a: 1}", "01",
                           "+1", ".5", "1.", "0x10", "True", "[1 2]", "{\"a\" 1}"}) {
    const JsonError e = refusal(text);
    EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << text << ": " << e.what();
  }
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(StrictJson, AcceptsNestingUpToTheLimit) {
  const json v = parse_strict_json(nested_arrays(kMaxJsonDepth));
  std::size_t depth = 0;
  const json* at = &v;
  while (at->is_array()) {
    ++depth;
    if (at->empty()) break;
    at = &(*at)[0];
  }
  EXPECT_EQ(depth, kMaxJsonDepth);
}

TEST(StrictJson, RefusesNestingBeyondTheLimit) {
  const JsonError e = refusal(nested_arrays(kMaxJsonDepth + 1));
  EXPECT_NE(std::string(e.what()).find("nesting deeper than 128"), std::string::npos) << e.what();
  EXPECT_EQ(e.byte_offset(), kMaxJsonDepth);

  std::string objects;
  for (std::size_t i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"k\": ";
  EXPECT_NE(message(objects).find("nesting deeper"), std::string::npos);
}

TEST(StrictJson, RefusesAMillionOpenBracketsWithoutCrashing) {
  const std::string text(1'000'000, '[');
  EXPECT_NE(message(text).find("nesting deeper"), std::string::npos);
}

TEST(StrictJson, RefusesTextOverTheSizeLimit) {
  std::string text(kMaxJsonTextBytes + 1, ' ');
  text[0] = '0';
  const std::string m = message(text);
  EXPECT_NE(m.find("larger than the limit"), std::string::npos) << m;
  text.pop_back();
  EXPECT_EQ(parse_strict_json(text), json(0));  // exactly at the limit is fine
}

TEST(StrictJson, SurvivesRandomMutationsOfAValidDocument) {
  const std::string base =
      R"({"a": [1, -2.5e-3, "x\u00e9\ud83d\ude00", true, null], "b": {"c": {"d": [[], {}]}}, )"
      R"("e": 18446744073709551615})";
  std::mt19937 random(12345);
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int k = 0; k < edits; ++k) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = static_cast<char>(random() % 256); break;
        case 1: text.erase(at, 1 + random() % 3); break;
        default: text.insert(at, 1, "{}[]\",:\\0e-"[random() % 11]);
      }
      if (text.empty()) text = "x";
    }
    try {
      parse_strict_json(text);
      ++accepted;
    } catch (const JsonError& e) {
      EXPECT_TRUE(all_ascii(e.what())) << e.what();
      EXPECT_LE(e.byte_offset(), text.size());
    }
  }
  EXPECT_LT(accepted, 20000);
}

TEST(StrictJsonFile, ReadsAFile) {
  TempDir dir;
  const auto path = dir.path() / "v.json";
  write_file(path, "{\"a\": [1, 2.0]}\n");
  const json v = read_strict_json_file(path);
  EXPECT_TRUE(v.at("a").at(0).is_number_integer());
  EXPECT_TRUE(v.at("a").at(1).is_number_float());
}

TEST(StrictJsonFile, NamesTheOsErrorForAMissingFile) {
  TempDir dir;
  try {
    read_strict_json_file(dir.path() / "absent.json");
    FAIL() << "read a missing file";
  } catch (const JsonError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("absent.json"), std::string::npos) << m;
    EXPECT_NE(m.find("No such file or directory"), std::string::npos) << m;
  }
}

TEST(StrictJsonFile, RefusesADirectory) {
  TempDir dir;
  EXPECT_THROW(read_strict_json_file(dir.path()), JsonError);
}

TEST(StrictJsonFile, RefusesAFileOverTheLimitBeforeReadingIt) {
  TempDir dir;
  const auto path = dir.path() / "huge.json";
  write_file(path, "0");
  std::filesystem::resize_file(path, kMaxJsonTextBytes + 1);  // sparse: no disk space used
  try {
    read_strict_json_file(path);
    FAIL() << "read an oversized file";
  } catch (const JsonError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(std::to_string(kMaxJsonTextBytes + 1) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("huge.json"), std::string::npos) << m;
  }
}

TEST(StrictJsonFile, NamesThePathAndOffsetOfAParseError) {
  TempDir dir;
  const auto path = dir.path() / "dup.json";
  write_file(path, R"({"a": 1, "a": 2})");
  try {
    read_strict_json_file(path);
    FAIL() << "accepted a duplicate key";
  } catch (const JsonError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("dup.json"), std::string::npos) << m;
    EXPECT_NE(m.find("duplicate object key \"a\""), std::string::npos) << m;
    EXPECT_EQ(e.byte_offset(), 9u);
  }
}

}  // namespace
}  // namespace nnx
