// Each front end's words for what the caller can change come from one table (base/front_end.h): the command
// line names its flags, Python its arguments, and a message built while one front end owns the process never
// names the other's.
#include <gtest/gtest.h>

#include <string>

#include "base/front_end.h"

namespace nnx {
namespace {

// Sets a front end for one test and puts the command line (the default) back after it.
class AsFrontEnd {
 public:
  explicit AsFrontEnd(FrontEnd front_end) { set_front_end(front_end); }
  ~AsFrontEnd() { set_front_end(FrontEnd::command_line); }
};

TEST(FrontEnd, TheCommandLineIsTheDefault) { EXPECT_EQ(front_end(), FrontEnd::command_line); }

TEST(FrontEnd, TheCommandLineSpellsItsFlags) {
  const AsFrontEnd cli(FrontEnd::command_line);
  EXPECT_EQ(spelled(Argument::force), "--force");
  EXPECT_EQ(spelled(Argument::onnxruntime), "--onnxruntime PATH");
  EXPECT_EQ(spelled(Argument::jobs), "--jobs");
  EXPECT_EQ(spelled(Argument::memory_limit), "--memory-limit MIB");
  EXPECT_EQ(spelled(Argument::matrix_release), "--onnxruntime-version");
  EXPECT_EQ(hint(ErrorKind::folder_in_use), "; use --force to clear the chosen profiles' folders");
  EXPECT_EQ(hint(ErrorKind::runtime_unavailable), "\n  (--onnxruntime PATH names the library for this run)");
}

TEST(FrontEnd, PythonSpellsItsArgumentsAndNoFlag) {
  const AsFrontEnd python(FrontEnd::python);
  EXPECT_EQ(spelled(Argument::force), "force=True");
  EXPECT_EQ(spelled(Argument::onnxruntime), "onnxruntime=PATH");
  EXPECT_EQ(spelled(Argument::jobs), "jobs");
  EXPECT_EQ(spelled(Argument::memory_limit), "") << "Python has no memory limit argument to name";
  EXPECT_EQ(hint(ErrorKind::folder_in_use), "; pass force=True to clear it");
  EXPECT_EQ(hint(ErrorKind::runtime_unavailable), "\n  (onnxruntime=PATH names the library for this call)");
  EXPECT_EQ(hint(ErrorKind::interrupted), "");
  for (Argument a : {Argument::force, Argument::onnxruntime, Argument::jobs, Argument::memory_limit,
                     Argument::matrix_runtimes, Argument::matrix_library, Argument::matrix_release}) {
    EXPECT_EQ(std::string(spelled(a)).find("--"), std::string::npos) << spelled(a);
  }
  for (ErrorKind k : {ErrorKind::folder_in_use, ErrorKind::runtime_unavailable, ErrorKind::interrupted}) {
    EXPECT_EQ(hint(k).find("--"), std::string::npos) << hint(k);
  }
}

TEST(FrontEnd, AKindWithNoWayOutHasNoHint) {
  EXPECT_EQ(hint(ErrorKind::refused), "");
  EXPECT_EQ(hint(ErrorKind::io), "");
}

}  // namespace
}  // namespace nnx
