"""One cell of a runtime matrix in its own process (src/matrix/cell_child.h): what ``runtime_matrix`` starts
as ``python -m nnx._matrix_cell REPORT ROOT --onnxruntime LIB --cell-dir DIR --first I [--settings JSON]``
(the cell's settings when they are not the brief's, src/matrix/cell_settings.h). The core does the work; this
only reads the arguments the core's cell runner passes."""
import sys

from . import _core


def main(argv: list[str]) -> int:
    report, root, flag_library, library, flag_dir, cell_dir, flag_first, first, *rest = argv
    settings = ""
    if len(rest) == 2 and rest[0] == "--settings":
        settings = rest[1]
    elif rest:
        raise SystemExit(f"nnx._matrix_cell: unexpected arguments {argv}")
    if (flag_library, flag_dir, flag_first) != ("--onnxruntime", "--cell-dir", "--first"):
        raise SystemExit(f"nnx._matrix_cell: unexpected arguments {argv}")
    return _core.matrix_cell(report, root, library, cell_dir, int(first), settings)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
