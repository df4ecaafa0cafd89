// worker_answer_test.cc — one worker answer line read strictly (src/worker/worker_answer.h).
#include "worker/worker_answer.h"

#include <gtest/gtest.h>

#include <string>

#include "worker/worker_error.h"

namespace nnx {
namespace {

std::string refusal(const std::string& line) {
  try {
    parse_worker_answer(line, "'export'");
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.kind(), WorkerError::Kind::malformed);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << line;
  return {};
}

TEST(WorkerAnswer, AnObjectWithABooleanOkIsReturnedAsItIs) {
  const auto answer = parse_worker_answer(R"({"ok":false,"error":"unknown op","n":17})", "'ping'");
  EXPECT_EQ(answer["ok"], false);
  EXPECT_EQ(answer["error"], "unknown op");
  EXPECT_TRUE(answer["n"].is_number_unsigned());
}

TEST(WorkerAnswer, NestingDeeperThanTheStrictReadersBoundIsMalformed) {
  const std::string deep = R"({"ok":false,"error":)" + std::string(200000, '[') + std::string(200000, ']') + "}";
  const std::string why = refusal(deep);
  EXPECT_NE(why.find("malformed response to 'export' (not JSON: "), std::string::npos) << why;
  EXPECT_NE(why.find("nesting deeper than 128 levels"), std::string::npos) << why;
  EXPECT_NE(why.find(R"(; first bytes: "{\x22ok\x22:false)"), std::string::npos) << why;
}

TEST(WorkerAnswer, ADuplicateKeyNanOrBadUtf8IsMalformed) {
  EXPECT_NE(refusal(R"({"ok":true,"ok":false})").find("duplicate"), std::string::npos);
  EXPECT_NE(refusal(R"({"ok":true,"x":NaN})").find("not JSON"), std::string::npos);
  EXPECT_NE(refusal("{\"ok\":true,\"x\":\"\xff\"}").find("not JSON"), std::string::npos);
}

TEST(WorkerAnswer, AnythingButAnObjectWithABooleanOkIsMalformed) {
  for (const char* line : {"[]", "7", R"({"ok":1})", R"({"error":"x"})"}) {
    EXPECT_NE(refusal(line).find(R"((not an object with a boolean "ok"))"), std::string::npos) << line;
  }
}

TEST(WorkerAnswer, QuotedBytesShowPrintableAsciiAndEscapeTheRest) {
  EXPECT_EQ(quote_bytes("a\"b\\\n\xff", 64), R"("a\x22b\x5c\x0a\xff")");
  EXPECT_EQ(quote_bytes("abcdef", 3), R"("abc" ...)");
}

}  // namespace
}  // namespace nnx
