// The host facts a runtime matrix cell records (base/host_facts.h): read from /proc/cpuinfo and /etc/os-release
// texts, written and read back strictly, and two hosts' differences said in words; and this machine's own.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "base/error.h"
#include "base/host_facts.h"
#include "matrix/matrix_document.h"

namespace nnx {
namespace {

const char* kCpuinfo =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor @ 2.00GHz\n"
    "flags\t\t: fpu sse2 avx2 avx512f fma avx2\n\nprocessor\t: 1\nmodel name\t: Another CPU\nflags\t\t: fpu\n";

TEST(HostFacts, TheFirstProcessorsModelAndItsFlagsSortedOnceAndThePrettyNameUnquoted) {
  const HostFacts host = host_from_texts(kCpuinfo, "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n");
  EXPECT_EQ(host.cpu, "Intel(R) Xeon(R) Processor @ 2.00GHz");
  EXPECT_EQ(host.cpu_flags, (std::vector<std::string>{"avx2", "avx512f", "fma", "fpu", "sse2"}));
  EXPECT_EQ(host.os, "Debian GNU/Linux 13 (trixie)");
  const HostFacts none = host_from_texts("", "");
  EXPECT_EQ(none.cpu, "");
  EXPECT_TRUE(none.cpu_flags.empty());
}

TEST(HostFacts, ThisMachineGivesItsCpuMachineKernelAndLibc) {
  const HostFacts host = this_host();
  std::ifstream in("/proc/cpuinfo");
  const std::string cpuinfo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(cpuinfo.find(host.cpu), std::string::npos);
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_FALSE(host.cpu_flags.empty());
  EXPECT_EQ(host.machine, "x86_64");
  EXPECT_FALSE(host.kernel.empty());
  EXPECT_EQ(host.libc.rfind("glibc 2.", 0), 0u) << host.libc;
}

TEST(HostFacts, WrittenAndReadBackStrictly) {
  const HostFacts host = this_host();
  EXPECT_EQ(HostFacts::from_json(host.to_json(), "host"), host);
  nlohmann::json extra = host.to_json();
  extra["gpu"] = "none";
  EXPECT_THROW(HostFacts::from_json(extra, "host"), ConformanceError);
  nlohmann::json unsorted = host.to_json();
  unsorted["cpu_flags"] = {"sse2", "avx2"};
  EXPECT_THROW(HostFacts::from_json(unsorted, "host"), ConformanceError);
  nlohmann::json missing = host.to_json();
  missing.erase("libc");
  EXPECT_THROW(HostFacts::from_json(missing, "host"), ConformanceError);
}

TEST(HostFacts, DifferencesNameEachFactAndTheFlagsOnlyOneHas) {
  HostFacts a = host_from_texts(kCpuinfo, "PRETTY_NAME=Debian\n");
  HostFacts b = a;
  EXPECT_EQ(host_differences(a, b), "");
  b.cpu = "AMD EPYC";
  b.cpu_flags = {"avx2", "fpu", "sse2", "sse4a"};
  b.libc = "glibc 2.36";
  EXPECT_EQ(host_differences(a, b),
            "cpu \"Intel(R) Xeon(R) Processor @ 2.00GHz\" vs \"AMD EPYC\"; cpu flags only the first has: avx512f fma; "
            "cpu flags only the second has: sse4a; libc \"\" vs \"glibc 2.36\"");
}

TEST(HostFacts, AMatrixCellKeepsItsHostAndACellWithoutOneReadsBackWithoutOne) {
  matrix::MatrixDocument doc;
  doc.report_path = "report.json";
  doc.report_sha256 = std::string(64, 'a');
  {
    matrix::MatrixCell cell;
    cell.version = "1.30.0";
    cell.library_sha256 = std::string(64, 'b');
    cell.host = this_host();
    doc.cells.push_back(std::move(cell));
  }
  {
    matrix::MatrixCell cell;
    cell.version = "1.32.0";
    cell.library_sha256 = std::string(64, 'c');
    doc.cells.push_back(std::move(cell));
  }
  const nlohmann::json written = matrix::matrix_to_json(doc);
  EXPECT_TRUE(written["runtimes"][0].contains("host"));
  EXPECT_FALSE(written["runtimes"][1].contains("host"));
  const matrix::MatrixDocument read = matrix::matrix_from_json(written);
  EXPECT_EQ(read.cells[0].host, this_host());
  EXPECT_FALSE(read.cells[1].host.has_value());
  nlohmann::json bad = written;
  bad["runtimes"][0]["host"]["cpu"] = 7;
  EXPECT_THROW(matrix::matrix_from_json(bad), ConformanceError);
}

}  // namespace
}  // namespace nnx

namespace nnx {
namespace {

TEST(HostFacts, TheEnvironmentRecordedIsEveryNumericVariableSetAndNothingElse) {
  const auto set = numeric_environment([](const char* name) -> const char* {
    const std::string n = name;
    return n == "OMP_NUM_THREADS" ? "3" : n == "MKL_CBWR" ? "COMPATIBLE" : nullptr;
  });
  EXPECT_EQ(set, (std::map<std::string, std::string>{{"MKL_CBWR", "COMPATIBLE"}, {"OMP_NUM_THREADS", "3"}}));
  HostFacts host = this_host();
  host.environment = set;
  EXPECT_EQ(HostFacts::from_json(host.to_json(), "host"), host);
  HostFacts older = host;
  older.environment.reset();  // a document made before the environment was recorded
  EXPECT_FALSE(older.to_json().contains("environment"));
  EXPECT_EQ(HostFacts::from_json(older.to_json(), "host"), older);
  nlohmann::json unknown = host.to_json();
  unknown["environment"]["PATH"] = "/bin";
  EXPECT_THROW(HostFacts::from_json(unknown, "host"), ConformanceError);
  HostFacts other = host;
  other.environment = std::map<std::string, std::string>{{"OMP_NUM_THREADS", "1"}};
  EXPECT_NE(host_differences(host, other).find("environment"), std::string::npos);
}

}  // namespace
}  // namespace nnx
