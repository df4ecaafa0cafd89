// worker_command_test.cc — how the worker's command and timeout are found (worker/worker_process.h:
// default_worker_command, resolve_worker_command, default_worker_timeout), and the real worker/nnx_worker.py
// spoken to with the default command (ops that need neither torch nor onnx).
#include "worker/worker_process.h"

#include <stdlib.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "base/build_info.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(WorkerCommandSearch, ExplicitThenEnvironmentThenSourceTree) {
  {
    ScopedEnv python("NNX_PYTHON", nullptr), script("NNX_WORKER_SCRIPT", nullptr);
    WorkerCommand command = default_worker_command();
    fs::path venv = fs::path(build_checkout_dir()) / ".venv" / "bin" / "python";
    EXPECT_EQ(command.python, fs::exists(venv) ? venv : fs::path("python3"));
    EXPECT_EQ(command.script, fs::path(build_checkout_dir()) / "worker" / "nnx_worker.py");
  }
  {
    ScopedEnv python("NNX_PYTHON", "/opt/py"), script("NNX_WORKER_SCRIPT", "/opt/w.py");
    WorkerCommand command = default_worker_command();
    EXPECT_EQ(command.python, "/opt/py");
    EXPECT_EQ(command.script, "/opt/w.py");
    WorkerCommand given = resolve_worker_command(WorkerCommand{"/explicit/python", "", {}});
    EXPECT_EQ(given.python, "/explicit/python");
    EXPECT_EQ(given.script, "/opt/w.py");
  }
}

TEST(WorkerCommandSearch, TimeoutFromEnvironment) {
  {
    ScopedEnv timeout("NNX_WORKER_TIMEOUT_SECONDS", nullptr);
    EXPECT_EQ(default_worker_timeout(), 600s);
  }
  {
    ScopedEnv timeout("NNX_WORKER_TIMEOUT_SECONDS", "2.5");
    EXPECT_EQ(default_worker_timeout(), 2500ms);
  }
  for (const char* bad : {"0", "-1", "soon", "1e400", "nan"}) {
    ScopedEnv timeout("NNX_WORKER_TIMEOUT_SECONDS", bad);
    EXPECT_THROW(default_worker_timeout(), std::invalid_argument) << bad;
  }
}

TEST(RealWorker, PingDependenciesAndProtocolErrors) {
  // The real worker/nnx_worker.py with the default interpreter; these ops import neither torch nor onnx.
  WorkerProcess worker(default_worker_command());
  EXPECT_EQ(worker.request({{"op", "ping"}}, 60s), json({{"ok", true}}));
  json deps = worker.request({{"op", "dependencies"}, {"modules", {"json", "nnx_no_such_module"}}}, 60s);
  ASSERT_EQ(deps["ok"], true) << deps.dump();
  EXPECT_TRUE(deps["versions"].contains("json"));
  ASSERT_EQ(deps["problems"].size(), 1u) << deps.dump();
  EXPECT_NE(deps["problems"][0].get<std::string>().find("nnx_no_such_module: ModuleNotFoundError"), std::string::npos);
  EXPECT_NE(deps["problems"][0].get<std::string>().find("pip install nnx_no_such_module"), std::string::npos);
  EXPECT_TRUE(deps["environment"]["python"].is_string());
  json unknown = worker.request({{"op", "no-such-op"}}, 60s);
  EXPECT_EQ(unknown["ok"], false);
  EXPECT_NE(unknown["error"].get<std::string>().find("no-such-op"), std::string::npos);
  EXPECT_TRUE(worker.running());
}

}  // namespace
}  // namespace nnx
