"""A module file whose import fails (a package that does not exist): the dependencies stage names it."""
import nnx_no_such_package  # noqa: F401  (the point of this file)


def model():
    raise AssertionError("never reached: the import above fails")
