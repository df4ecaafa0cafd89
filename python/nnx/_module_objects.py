"""A module object where a factory goes (doc/python-api.md, "Your own model from Python"): a
:class:`ModuleProfile`'s ``module``, and a module profile dict's handed to ``run_profile``/``run_profiles``, may be
an ``nn.Module`` or a callable of no argument returning one instead of a ``FILE.py:FACTORY`` string. When the
profile runs, the module (the callable's result) is saved under the run's root exactly as :func:`check_module`
saves it (``root/.nnx-modules/<name>/module.pt`` beside a generated ``factory.py``), and that factory is the
profile's ``module``: the record is the one a profile file naming it would make. Anything else is refused
naming :func:`check_module`. torch is never imported here: an object is an ``nn.Module`` only when torch is
already imported."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from typing import Any, Optional

from . import _core
from ._boundary import _dumps
from ._errors import UsageError

#: What a module object stands as while the core checks the rest of its profile: a package factory the
#: core accepts without importing anything (src/profile/module_factory.h).
PLACEHOLDER_FACTORY = "nnx_module_object:module"


def is_nn_module(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.nn.Module)


def holds_object(module: Any) -> bool:
    """Whether a profile's ``module`` is an object rather than the factory's text."""
    return not isinstance(module, str)


def module_object_problem(value: Any) -> Optional[str]:
    """Why ``value`` cannot stand where a factory goes, or None for an ``nn.Module`` or a zero-argument
    callable."""
    if is_nn_module(value):
        return None
    if callable(value):
        try:
            inspect.signature(value).bind()
            return None
        except TypeError:
            return (f"module: the callable {getattr(value, '__qualname__', type(value).__name__)} needs arguments, and "
                    f"a factory takes none: pass the nn.Module itself, a function of no argument returning it, or "
                    f"check the module object with check_module(module, example_inputs, ...)")
        except ValueError:  # no signature to read (a builtin): it may still take none
            return None
    return (f"module: must be FILE.py:FACTORY, package.module:FACTORY, an nn.Module or a callable of no argument "
            f"returning one, not {type(value).__name__}; check_module(module, example_inputs, ...) checks a module "
            f"object")


def refuse_bad_object(module: Any) -> None:
    problem = module_object_problem(module) if holds_object(module) else None
    if problem is not None:
        raise UsageError(problem, [problem])


def saved_factory(module: Any, root: Any, name: str, force: bool) -> str:
    """The ``FILE.py:load`` factory of the module object saved under ``root`` as check_module saves it."""
    from ._module_check import _module_folder, _save  # noqa: PLC0415 - _module_check runs profiles: imported late

    built = module if is_nn_module(module) else module()
    if not is_nn_module(built):
        problem = (f"module: the callable returned {type(built).__module__}.{type(built).__qualname__}, not an "
                   f"nn.Module; a factory returns the module (check_module checks a module object)")
        raise UsageError(problem, [problem])
    return _save(built, _module_folder(root, name), force)


def runnable_item(item: Any, root: Any, force: bool) -> Any:
    """``item`` ready for the core: a module profile (a ModuleProfile or its dict) holding a module object gets
    the object saved under ``root`` and its factory in its place; anything else is returned as it is."""
    from ._module_profiles import ModuleProfile  # noqa: PLC0415 - it imports this file

    if isinstance(item, Mapping) and "module" in item and holds_object(item["module"]) and _core.profile_kind(
            _dumps({**item, "module": PLACEHOLDER_FACTORY}, "the profile")) == "module":
        item = ModuleProfile.from_json(item)
    if isinstance(item, ModuleProfile) and holds_object(item.module):
        return item.with_module(saved_factory(item.module, root, item.name, force))
    return item
