// The matrix's settings axes (matrix/cell_settings.h) and a run's name (record/run_name.h): the product's
// order, the brief's settings named by the version alone, the encoding read back strictly, the cells' order,
// provider options every cell's provider's and refused for the CPU provider.
#include <gtest/gtest.h>

#include "base/error.h"
#include "matrix/cell_settings.h"
#include "record/run_name.h"

namespace nnx::matrix {
namespace {

TEST(CellSettings, TheProductRunsLevelsThenThreadsThenProvidersAndAnAxisLeftOutHoldsTheBriefsValue) {
  const auto product = settings_product({"ORT_DISABLE_ALL", "ORT_ENABLE_ALL"}, {1, 2}, {}, {{"k", "v"}}, {});
  ASSERT_EQ(product.size(), 4u);
  std::vector<std::string> names;
  for (const auto& s : product) names.push_back(cell_name("1.30.0", s));
  EXPECT_EQ(names, (std::vector<std::string>{"1.30.0 (ORT_DISABLE_ALL, k=v)", "1.30.0 (ORT_DISABLE_ALL, 2 threads, k=v)",
                                             "1.30.0 (k=v)", "1.30.0 (2 threads, k=v)"}));
  const auto brief = settings_product({}, {}, {}, {}, {});
  ASSERT_EQ(brief.size(), 1u);
  EXPECT_TRUE(brief[0].tested());
  EXPECT_EQ(cell_name("1.30.0", brief[0]), "1.30.0");  // the cell a matrix without axes runs
}

TEST(CellSettings, AValueOutsideItsAxisOrNamedTwiceIsAUsageErrorNamingIt) {
  EXPECT_THROW(settings_product({"ORT_ENABLE_FAST"}, {}, {}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {0}, {}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {257}, {}, {}, {}), UsageError);
  EXPECT_THROW(settings_product({}, {}, {""}, {}, {}), UsageError);
  try {
    settings_product({}, {2, 2}, {}, {}, {});
    FAIL() << "a thread count named twice was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--intra-op-threads 2 is named twice"), std::string::npos) << e.what();
  }
}

TEST(CellSettings, ItsEncodingReadsBackAndAnythingElseIsRefused) {
  CellSettings s = settings_product({"ORT_ENABLE_BASIC"}, {4}, {"XnnpackExecutionProvider"}, {{"a", "1"}}, {})[0];
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
    return settings_product({level}, {threads}, {provider}, {}, {})[0];
  };
  EXPECT_LT(compare_settings(at("ORT_DISABLE_ALL", 2, "CPUExecutionProvider"), at("ORT_ENABLE_BASIC", 1, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_LAYOUT", 1, "CPUExecutionProvider"), at("ORT_ENABLE_ALL", 1, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_ALL", 1, "XnnpackExecutionProvider"), at("ORT_ENABLE_ALL", 2, "CPUExecutionProvider")), 0);
  EXPECT_LT(compare_settings(at("ORT_ENABLE_ALL", 1, "CPUExecutionProvider"), at("ORT_ENABLE_ALL", 1, "AExecutionProvider")), 0);
  EXPECT_EQ(compare_settings(CellSettings{}, CellSettings{}), 0);
}

TEST(RunName, TheBriefsSettingsAreNamedByTheVersionAloneAndAnyOtherSaysWhatDiffers) {
  SessionOptions session;
  EXPECT_EQ(run_name("1.32.0", session, "CPUExecutionProvider", {}), "1.32.0");
  session.inter_op_num_threads = 2;
  session.config["session.set_denormal_as_zero"] = "1";
  EXPECT_EQ(run_name("1.32.0", session, "OpenVINOExecutionProvider", {}),
            "1.32.0 (2 inter-op threads, session.set_denormal_as_zero=1, OpenVINOExecutionProvider)");
}

TEST(CellSettings, ProviderOptionsAreEveryCellsAndNamedAfterTheProvider) {
  const auto product = settings_product({"ORT_DISABLE_ALL", "ORT_ENABLE_ALL"}, {}, {"OpenVINOExecutionProvider"}, {},
                                        {{"precision", "FP32"}, {"num_of_threads", "2"}});
  ASSERT_EQ(product.size(), 2u);
  for (const auto& s : product) {
    EXPECT_EQ(s.provider_options, (std::map<std::string, std::string>{{"num_of_threads", "2"}, {"precision", "FP32"}}));
    EXPECT_FALSE(s.tested());
  }
  EXPECT_EQ(cell_name("1.24.1", product[1]), "1.24.1 (OpenVINOExecutionProvider num_of_threads=2 precision=FP32)");
  EXPECT_EQ(product[0].as_override().provider_options, product[0].provider_options);
  EXPECT_NE(compare_settings(product[1], settings_product({}, {}, {"OpenVINOExecutionProvider"}, {}, {})[0]), 0);
}

TEST(CellSettings, ProviderOptionsForTheCpuProviderAreAUsageErrorSayingItTakesNone) {
  const std::map<std::string, std::string> options{{"precision", "FP32"}};
  for (const std::vector<std::string>& providers : {std::vector<std::string>{},
                                                    std::vector<std::string>{"OpenVINOExecutionProvider", "CPUExecutionProvider"}}) {
    try {
      settings_product({}, {}, providers, {}, options);
      FAIL() << "provider options were given to the CPU provider";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("CPUExecutionProvider takes no options"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(settings_product({}, {}, {"OpenVINOExecutionProvider"}, {}, {{"", "FP32"}}), UsageError);
}

TEST(CellSettings, ProviderOptionsReadBackStrictly) {
  const CellSettings s = settings_product({}, {}, {"OpenVINOExecutionProvider"}, {}, {{"precision", "FP32"}})[0];
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["provider_options"], (nlohmann::json{{"precision", "FP32"}}));
  EXPECT_EQ(CellSettings::from_json(j, "here"), s);
  EXPECT_FALSE(settings_product({}, {}, {"OpenVINOExecutionProvider"}, {}, {})[0].to_json().contains("provider_options"));
  auto refused = [&j](const char* what, const nlohmann::json& value) {
    nlohmann::json bad = j;
    bad["provider_options"] = value;
    try {
      CellSettings::from_json(bad, "here");
      ADD_FAILURE() << "taken: " << bad.dump();
    } catch (const ConformanceError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused("non-empty object of strings", nlohmann::json::object());
  refused("non-empty object of strings", {{"precision", 32}});
  refused("non-empty object of strings", nlohmann::json::array({"precision=FP32"}));
  refused("non-empty object of strings", {{"", "FP32"}});
  nlohmann::json on_cpu = j;
  on_cpu["provider"] = "CPUExecutionProvider";
  on_cpu["graph_optimization_level"] = "ORT_DISABLE_ALL";
  EXPECT_THROW(CellSettings::from_json(on_cpu, "here"), ConformanceError);
}

TEST(RunName, ProviderOptionsFollowTheProviderInKeyOrder) {
  const SessionOptions session;
  EXPECT_EQ(run_name("1.24.1", session, "OpenVINOExecutionProvider", {{"precision", "FP32"}, {"device_type", "CPU"}}),
            "1.24.1 (OpenVINOExecutionProvider device_type=CPU precision=FP32)");
}

}  // namespace
}  // namespace nnx::matrix
