"""Build the compiled engines (``<game>_env/_engine.pyx``, see :mod:`setgames.engine`), the
games' other compiled parts (``<game>_env/_*.pyx``: the batched engines ``_batch.pyx``, see
:mod:`setgames.batch`, and the compiled bots), the batch core (``setgames/batch/_*.pyx``) and
the compiled seed hashing (``setgames/_seedhash.pyx``, see :mod:`setgames.seeding`).

Everything else about the package is in ``pyproject.toml``. The extensions are
optional: without a C compiler the install still succeeds and the envs step
the pure-Python rules layer (slower, same games). The batched engines split a
batch over threads with their own small pthread pool (``setgames/batch/_pool.pxd``,
no OpenMP needed).

Compiler flags are chosen by asking the compiler, never by assuming one:

- ``-pthread`` for the batched engines where the compiler is gcc-like and the
  platform has pthreads;
- ``-mpopcnt`` (the kernels count bits in every step; without the flag gcc and
  clang call a table-driven library routine: 8% of Bharg's step under greedy
  play) only when the environment variable ``SETGAMES_POPCNT`` allows it:
  ``1`` adds it whenever the compiler accepts it (a build for a known CPU),
  ``0`` never adds it (portable wheels: the cibuildwheel configuration sets
  it), unset adds it for a build on this machine when the compiler accepts it
  and this machine's x86-64 CPU reports the instruction (Linux's
  ``/proc/cpuinfo`` when it can be read; elsewhere the flag stays off);
- MSVC gets ``setgames/_msvc_compat.h`` forced in, which gives it the gcc
  builtins the engines use, and C11 atomics.
"""

import os
import platform
import sys
import tempfile
from glob import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_SOURCES = sorted(glob("*_env/_*.pyx") + glob("setgames/_*.pyx") + glob("setgames/batch/_*.pyx")
                  + glob("setgames/search/_*.pyx"))
POPCNT_ENV_VAR = "SETGAMES_POPCNT"


def _cpu_reports_popcnt() -> bool:
    """Whether this machine's x86-64 CPU reports ``popcnt`` (read where the OS says it:
    Linux's ``/proc/cpuinfo``); False when it cannot tell."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((line.split(":", 1)[1].split() for line in fh if line.startswith("flags")), [])
    except OSError:
        return False
    return "popcnt" in flags


def _accepts(compiler, flag: str) -> bool:
    """Whether ``compiler`` compiles a trivial C file with ``flag``."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as fh:
            fh.write("int main(void) { return __builtin_popcountll(3ULL) - 2; }\n")
        try:
            compiler.compile([src], output_dir=tmp, extra_postargs=[flag])
        except Exception:
            return False
    return True


class BuildExt(build_ext):
    """``build_ext`` that picks the flags by asking the compiler in use (see the module doc)."""

    def build_extensions(self) -> None:
        """Add the flags this compiler and this build allow, then build as usual."""
        msvc = self.compiler.compiler_type == "msvc"
        compile_args: list[str] = []
        link_args: list[str] = []
        if msvc:
            compat = os.path.abspath(os.path.join("setgames", "_msvc_compat.h"))
            compile_args += [f"/FI{compat}", "/std:c11", "/experimental:c11atomics"]
        else:
            wanted = os.environ.get(POPCNT_ENV_VAR, "").strip()
            if wanted not in ("", "0", "1"):
                raise SystemExit(f"{POPCNT_ENV_VAR} must be 0, 1 or unset, not {wanted!r}")
            popcnt = wanted == "1" or (wanted == "" and _cpu_reports_popcnt())
            if popcnt and _accepts(self.compiler, "-mpopcnt"):
                compile_args.append("-mpopcnt")
        for ext in self.extensions:
            threaded = ext.name.endswith("._batch") and not msvc and sys.platform != "win32"
            ext.extra_compile_args = list(ext.extra_compile_args or []) + compile_args
            ext.extra_compile_args += ["-pthread"] if threaded else []
            ext.extra_link_args = list(ext.extra_link_args or []) + link_args
            ext.extra_link_args += ["-pthread"] if threaded else []
        super().build_extensions()


def _extension(path: str) -> Extension:
    return Extension(path[:-4].replace("/", "."), [path], optional=True, include_dirs=[numpy.get_include()],
                     define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])


setup(ext_modules=cythonize([_extension(p) for p in _SOURCES], language_level=3, quiet=True),
      cmdclass={"build_ext": BuildExt})
