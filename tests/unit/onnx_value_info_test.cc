// The graph inputs and outputs read_onnx_model returns (src/onnx_file/onnx_model_file.h), on a real model
// file written once per test process by onnx's own Python API (helper.make_tensor_value_info and friends,
// onnx.save_model) with the Python of .venv (NNX_ONNX_PYTHON, set by CMake), as onnx_model_file_test.cc
// writes its files: fixed, named and unknown dimensions, a scalar, no shape, an element type the core does
// not support, a non-tensor type, and an initializer also listed as an input (IR version 3).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "onnx_file/onnx_model_file.h"
#include "support/files.h"
#include "support/onnx_writer.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

constexpr const char* kWriteValueInfoModel = R"PY(
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

W = numpy_helper.from_array(np.ones((3, 2), dtype=np.float32), "W")
inputs = [
    helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 3]),
    helper.make_tensor_value_info("W", TensorProto.FLOAT, [3, 2]),  # an initializer, listed as IR 3 does
    helper.make_tensor_value_info("ids", TensorProto.INT64, [None, 4]),
    helper.make_tensor_value_info("half", TensorProto.BFLOAT16, [2]),
    helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
    helper.make_tensor_value_info("anything", TensorProto.DOUBLE, None),
    helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None),
]
outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 2]),
           helper.make_tensor_value_info("count", TensorProto.INT32, [1])]
nodes = [helper.make_node("MatMul", ["X", "W"], ["Y"]),
         helper.make_node("Constant", [], ["count"], value=numpy_helper.from_array(np.array([1], np.int32)))]
graph = helper.make_graph(nodes, "io", inputs, outputs, [W])
model = helper.make_model(graph, ir_version=3, opset_imports=[helper.make_opsetid("", 9)])
onnx.save_model(model, sys.argv[1] + "/io.onnx")
)PY";

class OnnxValueInfoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new test_support::TempDir("nnx-onnx-io");
    test_support::write_with_onnx_python(folder_->path(), "write_model.py", kWriteValueInfoModel);
  }
  static void TearDownTestSuite() { delete folder_; }
  static OnnxModelFile read() {
    const auto bytes = test_support::read_byte_vector(folder_->path() / "io.onnx");
    return read_onnx_model(bytes, nullptr);
  }
  static test_support::TempDir* folder_;
};
test_support::TempDir* OnnxValueInfoTest::folder_ = nullptr;

OnnxDimension fixed(std::int64_t size) { return {size, std::nullopt}; }
OnnxDimension named(const std::string& param) { return {std::nullopt, param}; }
const OnnxDimension kUnknown{};

TEST_F(OnnxValueInfoTest, InputsLeaveOutInitializersAndKeepFileOrder) {
  const OnnxModelFile file = read();
  std::vector<std::string> names;
  for (const auto& input : file.graph_inputs) names.push_back(input.name);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "ids", "half", "flag", "anything", "seq"}));
  ASSERT_EQ(file.initializers.size(), 1u);
  EXPECT_EQ(file.initializers[0].name, "W");
}

TEST_F(OnnxValueInfoTest, DimensionsAreFixedNamedOrUnknown) {
  const OnnxModelFile file = read();
  ASSERT_EQ(file.graph_inputs.size(), 6u);
  const OnnxValueInfo& x = file.graph_inputs[0];
  EXPECT_EQ(x.dtype, DType::float32);
  EXPECT_EQ(x.element_type, 1);
  EXPECT_TRUE(x.has_shape);
  EXPECT_EQ(x.shape, (std::vector<OnnxDimension>{named("batch"), fixed(3)}));
  const OnnxValueInfo& ids = file.graph_inputs[1];
  EXPECT_EQ(ids.dtype, DType::int64);
  EXPECT_EQ(ids.shape, (std::vector<OnnxDimension>{kUnknown, fixed(4)}));
}

TEST_F(OnnxValueInfoTest, AScalarAShapelessValueAndUnsupportedTypesAreTold) {
  const OnnxModelFile file = read();
  ASSERT_EQ(file.graph_inputs.size(), 6u);
  const OnnxValueInfo& half = file.graph_inputs[2];
  EXPECT_EQ(half.dtype, DType::bfloat16);
  EXPECT_EQ(half.element_type, 16);
  EXPECT_EQ(half.shape, std::vector<OnnxDimension>{fixed(2)});
  const OnnxValueInfo& flag = file.graph_inputs[3];
  EXPECT_EQ(flag.dtype, DType::boolean);
  EXPECT_TRUE(flag.has_shape);  // a scalar: a shape of rank 0
  EXPECT_TRUE(flag.shape.empty());
  const OnnxValueInfo& anything = file.graph_inputs[4];
  EXPECT_EQ(anything.dtype, DType::float64);
  EXPECT_FALSE(anything.has_shape);
  const OnnxValueInfo& seq = file.graph_inputs[5];  // a sequence, not a tensor
  EXPECT_FALSE(seq.dtype.has_value());
  EXPECT_EQ(seq.element_type, 0);
  EXPECT_FALSE(seq.has_shape);
}

TEST_F(OnnxValueInfoTest, OutputsAreListedInFileOrder) {
  const OnnxModelFile file = read();
  ASSERT_EQ(file.graph_outputs.size(), 2u);
  EXPECT_EQ(file.graph_outputs[0].name, "Y");
  EXPECT_EQ(file.graph_outputs[0].shape, (std::vector<OnnxDimension>{named("batch"), fixed(2)}));
  EXPECT_EQ(file.graph_outputs[1].name, "count");
  EXPECT_EQ(file.graph_outputs[1].dtype, DType::int32);
  EXPECT_EQ(file.graph_outputs[1].shape, std::vector<OnnxDimension>{fixed(1)});
}

}  // namespace
}  // namespace nnx
