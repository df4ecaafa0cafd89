// The matrix's settings axes (matrix/cell_settings.h) and a run's name (record/run_name.h): the product's
// order, the brief's settings named by the version alone, the encoding read back strictly, the cells' order.
#include <gtest/gtest.h>

#include "base/error.h"
#include "matrix/cell_settings.h"
#include "record/run_name.h"

namespace nnx::matrix {
namespace {

TEST(CellSettings, TheProductRunsLevelsThenThreadsThenProvidersAndAnAxisLeftOutHoldsTheBriefsValue) {
  const auto product = settings_product({"ORT_DISABLE_ALL", "ORT_ENABLE_ALL"}, {1, 2}, {}, {{"k", "v"}});
  ASSERT_EQ(product.size(), 4u);
  std::vector<std::string> names;
  for (const auto& s : product) names.push_back(cell_name("1.30.0", s));
  EXPECT_EQ(names, (std::vector<std::string>{"1.30.0 (ORT_DISABLE_ALL, k=v)", "1.30.0 (ORT_DISABLE_ALL, 2 threads, k=v)",
                                             "1.30.0 (k=v)", "1.30.0 (2 threads, k=v)"}));
  const auto brief = settings_product({}, {}, {}, {});
  ASSERT_EQ(brief.size(), 1u);
  EXPECT_TRUE(brief[0].tested());
  EXPECT_EQ(cell_name("1.30.0", brief[0]), "1.30.0");  // the cell a matrix without axes runs
}

TEST(CellSettings, AValueOutsideItsAxisOrNamedTwiceIsAUsageErrorNamingIt) {
  EXPECT_THROW(settings_product({"ORT_ENABLE_FAST"}, {}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {0}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {257}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {}, {""}, {}), UsageError);
  try {
    settings_product({}, {2, 2}, {}, {});
    FAIL() << "a thread count named twice was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--intra-op-threads 2 is named twice"), std::string::npos) << e.what();
  }
}

TEST(CellSettings, ItsEncodingReadsBackAndAnythingElseIsRefused) {
  CellSettings s = settings_product({"ORT_ENABLE_BASIC"}, {4}, {"XnnpackExecutionProvider"}, {{"a", "1"}})[0];
  EXPECT_EQ(CellSettings::from_json(s.to_json(), "here"), s);
  auto refused = [](nlohmann::json j) { EXPECT_THROW(CellSettings::from_json(j, "here"), ConformanceError) << j.dump(); };
  nlohmann::json j = s.to_json();
  j["extra"] = 1;
  refused(j);
  j = s.to_json();
  j.erase("provider");
  refused(j);
  j = s.to_json();
  j["intra_op_num_threads"] = 0;
  refused(j);
  j = s.to_json();
  j["inter_op_num_threads"] = 2;
  refused(j);
  j = s.to_json();
  j["config"] = {{"a", 1}};
  refused(j);
  refused(CellSettings{}.to_json());  // the brief's settings are stated by holding none
}

TEST(CellSettings, CellsOrderByLevelInOnnxRuntimesOrderThenThreadsThenTheCpuProviderFirst) {
  const auto at = [](const char* level, std::int64_t threads, const char* provider) {
    return settings_product({level}, {threads}, {provider}, {})[0];
  };
  EXPECT_LT(compare_settings(at("ORT_DISABLE_ALL", 2, "CPUExecutionProvider"), at("ORT_ENABLE_BASIC", 1, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_LAYOUT", 1, "CPUExecutionProvider"), at("ORT_ENABLE_ALL", 1, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_ALL", 1, "XnnpackExecutionProvider"), at("ORT_ENABLE_ALL", 2, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_ALL", 1, "CPUExecutionProvider"), at("ORT_ENABLE_ALL", 1, "AExecutionProvider")), 0);
  EXPECT_EQ(compare_settings(CellSettings{}, CellSettings{}), 0);
}

TEST(RunName, TheBriefsSettingsAreNamedByTheVersionAloneAndAnyOtherSaysWhatDiffers) {
  SessionOptions session;
  EXPECT_EQ(run_name("1.32.0", session, "CPUExecutionProvider"), "1.32.0");
  session.inter_op_num_threads = 2;
  session.config["session.set_denormal_as_zero"] = "1";
  EXPECT_EQ(run_name("1.32.0", session, "OpenVINOExecutionProvider"),
            "1.32.0 (2 inter-op threads, session.set_denormal_as_zero=1, OpenVINOExecutionProvider)");
}

}  // namespace
}  // namespace nnx::matrix
