// find_frozen_sizes (src/onnx_file/frozen_sizes.h) on a real model file written once per test process by
// onnx's own Python API with the Python of .venv (NNX_ONNX_PYTHON, set by CMake), as onnx_value_info_test.cc
// writes its files: a Reshape whose shape is an int64 initializer holding the export batch 2, an Expand whose
// shape is a Concat of an int32 raw Constant holding 7 and a value computed at run time, a Slice whose bounds
// hold 1 and 9 (never reported: a Slice's bounds are indices, and 1 too common), and an initializer outside
// any shape operand holding 5.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.h"
#include "onnx_file/frozen_sizes.h"
#include "support/files.h"
#include "support/onnx_writer.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

constexpr const char* kWriteModel = R"PY(
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

shape = numpy_helper.from_array(np.array([2, -1], np.int64), "shape")
weight = numpy_helper.from_array(np.full((5, 5), 5, np.int64), "weight")
seven = numpy_helper.from_array(np.array([7], np.int32), "seven_value")
nodes = [
    helper.make_node("Reshape", ["x", "shape"], ["flat"], name="/head/Reshape"),
    helper.make_node("Shape", ["flat"], ["flat_shape"]),
    helper.make_node("Constant", [], ["seven"], value=seven),
    helper.make_node("Cast", ["seven"], ["seven64"], to=TensorProto.INT64),
    helper.make_node("Concat", ["flat_shape", "seven64"], ["grown"], axis=0, name="/grow/Concat"),
    helper.make_node("Expand", ["flat", "grown"], ["big"], name="/grow/Expand"),
    helper.make_node("Slice", ["big", "one", "nine"], ["y"], name="/cut/Slice"),
]
one = numpy_helper.from_array(np.array([1], np.int64), "one")
nine = numpy_helper.from_array(np.array([9], np.int64), "nine")
graph = helper.make_graph(nodes, "frozen", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [shape, weight, one, nine])
onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), sys.argv[1] + "/m.onnx")
)PY";

class FrozenSizesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new test_support::TempDir("nnx-frozen-sizes");
    test_support::write_with_onnx_python(folder_->path(), "write_model.py", kWriteModel);
  }
  static void TearDownTestSuite() { delete folder_; }
  static std::map<std::int64_t, FrozenSize> find(const std::vector<std::int64_t>& sizes) {
    const auto bytes = test_support::read_byte_vector(folder_->path() / "m.onnx");
    return find_frozen_sizes(bytes, sizes);
  }
  static test_support::TempDir* folder_;
};
test_support::TempDir* FrozenSizesTest::folder_ = nullptr;

TEST_F(FrozenSizesTest, AReshapeShapeInitializerFreezesTheExportSize) {
  const auto frozen = find({2});
  ASSERT_EQ(frozen.count(2), 1u);
  EXPECT_EQ(frozen.at(2).node, "/head/Reshape");
  EXPECT_EQ(frozen.at(2).op_type, "Reshape");
}

TEST_F(FrozenSizesTest, AConstantReachedThroughCastAndConcatIsFound) {
  const auto frozen = find({7});
  ASSERT_EQ(frozen.count(7), 1u);
  EXPECT_EQ(frozen.at(7).node, "/grow/Expand");
}

TEST_F(FrozenSizesTest, SizesBelowTwoSliceBoundsAndConstantsOutsideShapesAreNotReported) {
  EXPECT_TRUE(find({1, 9, 5, 3}).empty());  // 1, 9: the Slice's bounds; 5: no shape operand; 3: nowhere
}

TEST(FrozenSizes, BytesThatAreNoModelAreRefused) {
  const std::vector<std::byte> junk(16, std::byte{0xff});
  EXPECT_THROW(find_frozen_sizes(junk, {2}), ConformanceError);
}

}  // namespace
}  // namespace nnx
