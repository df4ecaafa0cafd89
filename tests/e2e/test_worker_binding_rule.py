"""The worker's one binding rule (worker/nnx_worker_bind.py; doc/profile-files.md, "Inputs bound by name") on
real nn.Modules and their real signatures (inspect.signature in this process, as the worker's child reads
them): by name (keyword after an unbound parameter), labels by position (stated where they reach a
defaulted parameter), *args/**kwargs by position, and each refusal with what it names."""
import sys

import pytest
import torch
from torch import nn

from conftest import REPO

sys.path.insert(0, str(REPO / "worker"))
from nnx_worker_bind import BindProblem, bind_inputs  # noqa: E402


class MaskOrScale(nn.Module):
    def forward(self, x, mask=None, scale=None):
        return x


class KeywordOnly(nn.Module):
    def forward(self, x, *, scale):
        return x


class Anything(nn.Module):
    def forward(self, *args, **kwargs):
        return args[0]


def test_names_bind_by_name_and_a_parameter_after_an_unbound_one_goes_by_keyword():
    binding = bind_inputs(MaskOrScale(), ["x", "scale"])
    assert (binding.positional, binding.keyword, binding.stated()) == ([0], [("scale", 1)], True)
    a, b = torch.ones(1), torch.full((1,), 2.0)
    assert binding.args([a, b]) == (a,) and binding.kwargs([a, b]) == {"scale": b}


def test_names_given_out_of_order_go_to_their_own_parameters():
    binding = bind_inputs(MaskOrScale(), ["mask", "x"])
    assert (binding.positional, binding.keyword, binding.graph_order()) == ([1, 0], [], [1, 0])
    assert binding.describe(["mask", "x"]) == [{"input": "mask", "parameter": "mask", "passed": "position"},
                                               {"input": "x", "parameter": "x", "passed": "position"}]


def test_leading_names_in_order_are_plain_and_unstated():
    binding = bind_inputs(MaskOrScale(), ["x", "mask"])
    assert binding.plain() and not binding.stated()


def test_a_keyword_only_parameter_is_passed_by_keyword():
    assert bind_inputs(KeywordOnly(), ["x", "scale"]).keyword == [("scale", 1)]


def test_labels_bind_by_position_and_are_stated_where_they_reach_a_default():
    only_required = bind_inputs(MaskOrScale(), ["image"])
    assert only_required.plain() and not only_required.stated() and only_required.parameters == ["x"]
    into_default = bind_inputs(MaskOrScale(), ["input_0", "input_1"])
    assert into_default.plain() and into_default.stated() and into_default.parameters == ["x", "mask"]
    assert bind_inputs(nn.Linear(2, 2), ["features"]).parameters == ["input"]


def test_a_forward_of_args_and_kwargs_keeps_positional_binding():
    binding = bind_inputs(Anything(), ["b", "a"])
    assert binding.plain() and binding.parameters == [None, None]


@pytest.mark.parametrize("module, names, words, unknown", [
    (MaskOrScale(), ["x", "scael"], "the inputs ['scael'] are no parameters of the module's "
                                    "forward(x, mask=None, scale=None)", ["scael"]),
    (MaskOrScale(), ["a", "b", "c", "d"], "the inputs ['a', 'b', 'c', 'd'] are no parameters", ["a", "b", "c", "d"]),
    (MaskOrScale(), ["mask"], "needs 'x', which no input is named", []),
    (KeywordOnly(), ["x"], "needs 'scale', which no input is named", []),
])
def test_inputs_the_forward_cannot_take_are_refused_naming_its_signature(module, names, words, unknown):
    with pytest.raises(BindProblem) as refused:
        bind_inputs(module, names)
    assert words in str(refused.value)
    assert refused.value.detail["unknown"] == unknown and "x" in refused.value.detail["parameters"]
