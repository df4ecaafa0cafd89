"""Issue 28, crashes: a file named as the ONNX Runtime library is checked before this process loads it, and
tried in a short-lived child first (src/runtime/library_file.h, library_probe.h): a truncated library, a
FIFO, a folder, a text file, an ELF file of another machine or class, a library without OrtGetApiBase, one
whose constructor crashes, exits or blocks, and one whose version string is NULL are each refused as
missing-dependency (exit 10) naming the file and why — never a signal, a silent exit 0 or a hang.

The libraries are real files: a truncated copy of the real libonnxruntime, the real one with its ELF header
patched, and tiny libraries compiled here with `cc -shared`. Each is given to the real CLI's `execute` of a
real report (conftest.both_profiles).
"""
import os
import shutil
import subprocess
import time

import pytest

from conftest import BUNDLED_ORT, CLI

ORT_BASE = "const void* OrtGetApiBase(void) { return 0; }\n"
SOURCES = {
    "segv-constructor": "#include <signal.h>\n__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }\n"
                        + ORT_BASE,
    "exit-constructor": "#include <stdlib.h>\n__attribute__((constructor)) static void leave(void) { exit(0); }\n"
                        + ORT_BASE,
    "blocking-constructor": "#include <unistd.h>\n__attribute__((constructor)) static void block(void) { sleep(3600); }\n"
                            + ORT_BASE,
    "null-version": "typedef struct { const void* (*get_api)(unsigned); const char* (*version)(void); } Base;\n"
                    "static const void* no_api(unsigned v) { (void)v; return 0; }\n"
                    "static const char* no_version(void) { return 0; }\n"
                    "static const Base base = {no_api, no_version};\n"
                    "const Base* OrtGetApiBase(void) { return &base; }\n",
    "no-entry-point": "int not_onnx_runtime(void) { return 1; }\n",
}


def compiled(tmp_path, name):
    source = tmp_path / f"{name}.c"
    source.write_text(SOURCES[name])
    library = tmp_path / f"lib{name}.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return library


def real_copy(tmp_path, name):
    library = tmp_path / name
    shutil.copyfile(os.path.realpath(BUNDLED_ORT), library)
    return library


def truncated(tmp_path):
    library = real_copy(tmp_path, "libtruncated.so")
    os.truncate(library, os.path.getsize(library) // 2)
    return library


def patched(tmp_path, name, offset, value):
    library = real_copy(tmp_path, name)
    with open(library, "r+b") as f:
        f.seek(offset)
        f.write(value)
    return library


def fifo(tmp_path):
    library = tmp_path / "libfifo.so"
    os.mkfifo(library)  # nobody writes to it: an open for reading the usual way blocks for ever
    return library


def folder(tmp_path):
    library = tmp_path / "libfolder.so"
    library.mkdir()
    return library


def text_file(tmp_path):
    library = tmp_path / "libtext.so"
    library.write_text("INPUT(libonnxruntime.so.1)\n")
    return library


CASES = {
    "truncated-copy": (truncated, "is truncated or damaged: its segments end past its"),
    "fifo": (fifo, "is a FIFO, not a regular library file"),
    "folder": (folder, "is a folder, not a regular library file"),
    "text-file": (text_file, "is not an ELF file"),
    "aarch64-machine": (lambda t: patched(t, "libarm.so", 18, (183).to_bytes(2, "little")),
                        "is an ELF file for AArch64; this machine is x86-64"),
    "32-bit-class": (lambda t: patched(t, "lib32.so", 4, b"\x01"),
                     "is a 32-bit ELF file; this machine loads 64-bit libraries"),
    "no-entry-point": (lambda t: compiled(t, "no-entry-point"), "does not export OrtGetApiBase"),
    "segv-constructor": (lambda t: compiled(t, "segv-constructor"),
                         "loading it killed the process with SIGSEGV (a constructor that crashes?)"),
    "exit-constructor": (lambda t: compiled(t, "exit-constructor"),
                         "loading it called exit(0) (a constructor that ends the process?)"),
    "blocking-constructor": (lambda t: compiled(t, "blocking-constructor"),
                             "loading it did not finish within 10 s (a constructor that blocks?); the child was killed"),
    "null-version": (lambda t: compiled(t, "null-version"),
                     "it gives no version string (GetVersionString() returned NULL)"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_library_is_refused_by_name_as_missing_dependency(both_profiles, tmp_path, case):
    done, report, root = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    make, reason = CASES[case]
    library = make(tmp_path)
    started = time.monotonic()
    executed = subprocess.run([str(CLI), "execute", str(root.parent / "report.json"), str(root), "--onnxruntime",
                               str(library), "--output", str(tmp_path / "again.json")],
                              capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 30, "a probe is bounded by 10 s"
    assert executed.returncode == 10, f"exit {executed.returncode}: {executed.stdout}{executed.stderr}"
    assert f"\n  {library}: " in executed.stderr and reason in executed.stderr, executed.stderr
    assert "install it with `make bootstrap`" in executed.stderr
    assert not (tmp_path / "again.json").exists()
