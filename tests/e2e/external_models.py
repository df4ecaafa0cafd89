"""Hostile models for tests/e2e/test_hostile_external_data.py (this module holds no tests).

Each is the feed-forward model.onnx of a real torchscript run, rebuilt with onnx's own helpers so that its
weights (or one more tensor) keep their data in an external file at a place ONNX Runtime does not take
from memory: an If branch's initializer, a Loop body's Constant, a sparse initializer's values, a Constant
of a model-local function, a tensor attribute of a main-graph node (ConstantOfShape's `value`). One more
place, a main-graph Constant, is one ONNX Runtime does take from memory. `craft(kind, model)` returns the
rebuilt model and the "real" bytes of its external file: the model computes the original logits from
them. The test writes zeros of the same length as the verified file and the real bytes where the process
runs; doc/external-data.md says why neither may ever be read from the working directory.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LOCATION = "w.bin"
OUTPUT = "logits"
INNER = "inner_logits"  # the original output's name inside a subgraph or function (no shadowing)


class ExternalFile:
    """The bytes of one external file, growing as tensors are moved into it."""

    def __init__(self, location=LOCATION):
        self.location, self.data = location, bytearray()

    def move(self, tensor: TensorProto) -> TensorProto:
        """`tensor` (raw_data) with its data moved to the end of the file."""
        moved = TensorProto()
        moved.CopyFrom(tensor)
        raw = numpy_helper.to_array(tensor).tobytes()
        moved.ClearField("raw_data")
        moved.ClearField("float_data")
        moved.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", str(len(self.data))), ("length", str(len(raw)))):
            moved.external_data.add(key=key, value=value)
        self.data += raw
        return moved


def renamed_output(nodes, old=OUTPUT, new=INNER):
    """Copies of `nodes` with the value `old` renamed `new`."""
    out = []
    for node in nodes:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.output[:] = [new if name == old else name for name in copy.output]
        copy.input[:] = [new if name == old else name for name in copy.input]
        out.append(copy)
    return out


def constants(weights, file):
    """One Constant node a weight, its value external."""
    return [helper.make_node("Constant", [], [w.name], value=file.move(w), name=f"const_{w.name}") for w in weights]


def rebuilt(model, nodes, initializer=(), sparse=(), functions=(), domains=()):
    """A model of the original's inputs, outputs and opsets with other nodes and tensors."""
    graph = helper.make_graph(nodes, "hostile", list(model.graph.input), list(model.graph.output),
                              initializer=list(initializer), sparse_initializer=list(sparse))
    opsets = list(model.opset_import) + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=opsets, functions=list(functions), ir_version=model.ir_version)


def inner_output(model):
    value = onnx.ValueInfoProto()
    value.CopyFrom(model.graph.output[0])
    value.name = INNER
    return value


def if_branch_initializer(model, file):
    weights = list(model.graph.initializer)
    then_branch = helper.make_graph(renamed_output(model.graph.node), "then", [], [inner_output(model)],
                                    initializer=[file.move(w) for w in weights])
    zeros = numpy_helper.from_array(np.zeros([1, 2], np.float32), "else_zeros")
    else_branch = helper.make_graph([helper.make_node("Constant", [], [INNER], value=zeros)], "else", [],
                                    [inner_output(model)])
    cond = numpy_helper.from_array(np.array(True), "cond")
    node = helper.make_node("If", ["cond"], [OUTPUT], then_branch=then_branch, else_branch=else_branch, name="if")
    return rebuilt(model, [node], initializer=[cond])


def loop_body_constant(model, file):
    weights = list(model.graph.initializer)
    body = helper.make_graph(
        constants(weights, file) + renamed_output(model.graph.node)
        + [helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), inner_output(model)])
    tensors = [numpy_helper.from_array(np.array(1, np.int64), "trips"), numpy_helper.from_array(np.array(True), "go"),
               numpy_helper.from_array(np.array([0], np.int64), "axis0")]
    nodes = [helper.make_node("Loop", ["trips", "go"], ["scanned"], body=body, name="loop"),
             helper.make_node("Squeeze", ["scanned", "axis0"], [OUTPUT])]
    return rebuilt(model, nodes, initializer=tensors)


def sparse_initializer(model, file):
    sparse = []
    for w in model.graph.initializer:
        values = numpy_helper.to_array(w).reshape(-1)
        moved = file.move(numpy_helper.from_array(values, w.name))
        indices = numpy_helper.from_array(np.arange(values.size, dtype=np.int64), w.name + "_indices")
        sparse.append(helper.make_sparse_tensor(moved, indices, list(w.dims)))
    return rebuilt(model, list(model.graph.node), sparse=sparse)


def function_constant(model, file):
    weights = list(model.graph.initializer)
    net = helper.make_function("local", "Net", [model.graph.input[0].name], [OUTPUT],
                               constants(weights, file) + list(model.graph.node), list(model.opset_import))
    node = helper.make_node("Net", [model.graph.input[0].name], [OUTPUT], domain="local", name="net")
    return rebuilt(model, [node], functions=[net], domains=["local"])


def attribute_tensor(model, file):
    one = file.move(numpy_helper.from_array(np.array([1.0], np.float32), "scale"))
    nodes = renamed_output(model.graph.node) + [
        helper.make_node("Shape", [INNER], ["logits_shape"]),
        helper.make_node("ConstantOfShape", ["logits_shape"], ["ones"], value=one, name="scale"),
        helper.make_node("Mul", [INNER, "ones"], [OUTPUT])]
    return rebuilt(model, nodes, initializer=list(model.graph.initializer))


def main_graph_constant(model, file):
    return rebuilt(model, constants(list(model.graph.initializer), file) + list(model.graph.node))


def secret_in_a_branch(model, file):
    """logits = original * 0 + the first two bytes of `file`'s location as uint8, from an If branch."""
    secret = file.move(numpy_helper.from_array(np.zeros([2], np.uint8), "secret"))
    then_branch = helper.make_graph([helper.make_node("Constant", [], ["leak"], value=secret, name="leak")], "then",
                                    [], [helper.make_tensor_value_info("leak", TensorProto.UINT8, [2])])
    else_branch = helper.make_graph(
        [helper.make_node("Constant", [], ["leak"], value=numpy_helper.from_array(np.zeros([2], np.uint8)))],
        "else", [], [helper.make_tensor_value_info("leak", TensorProto.UINT8, [2])])
    tensors = [numpy_helper.from_array(np.array(True), "cond"), numpy_helper.from_array(np.float32(0), "zero")]
    nodes = renamed_output(model.graph.node) + [
        helper.make_node("If", ["cond"], ["leaked"], then_branch=then_branch, else_branch=else_branch, name="if"),
        helper.make_node("Cast", ["leaked"], ["leaked_float"], to=TensorProto.FLOAT),
        helper.make_node("Mul", [INNER, "zero"], ["nothing"]),
        helper.make_node("Add", ["nothing", "leaked_float"], [OUTPUT])]
    return rebuilt(model, nodes, initializer=list(model.graph.initializer) + tensors)


KINDS = {"if-branch-initializer": if_branch_initializer, "loop-body-constant": loop_body_constant,
         "sparse-initializer": sparse_initializer, "function-constant": function_constant,
         "attribute-tensor": attribute_tensor, "main-graph-constant": main_graph_constant,
         "secret-in-a-branch": secret_in_a_branch}


def craft(kind, model, location=LOCATION):
    """(the rebuilt model, and the real bytes of its external file at `location`)."""
    file = ExternalFile(location)
    return KINDS[kind](model, file), bytes(file.data)
