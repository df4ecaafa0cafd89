// Test support (tests only): model files written by onnx's own Python API. `write_with_onnx_python` writes
// `script` into `dir` as `name` and runs it with the Python of .venv (NNX_ONNX_PYTHON, defined for the unit
// tests by cmake/tests.cmake), `dir` its one argument; a gtest failure when that Python is missing or the
// script fails. Header-only: the macro is the unit test target's own.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/files.h"

namespace nnx::test_support {

inline void write_with_onnx_python(const std::filesystem::path& dir, const std::string& name, const std::string& script) {
  write_file(dir / name, script);
  const std::string python = NNX_ONNX_PYTHON;
  ASSERT_TRUE(std::filesystem::exists(python)) << python << " is missing: run make bootstrap (the tests need onnx)";
  const std::string command = "'" + python + "' '" + (dir / name).string() + "' '" + dir.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace nnx::test_support
