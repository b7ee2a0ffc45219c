"""Build the compiled engines (``<game>_env/_engine.pyx``, see :mod:`setgames.engine`), the
games' other compiled parts (``<game>_env/_*.pyx``: the batched engines ``_batch.pyx``, see
:mod:`setgames.batch`, and the compiled bots), the batch core (``setgames/batch/_*.pyx``) and
the compiled seed hashing (``setgames/_seedhash.pyx``, see :mod:`setgames.seeding`).

Everything else about the package is in ``pyproject.toml``. The extensions are
optional: without a C compiler the install still succeeds and the envs step
the pure-Python rules layer (slower, same games). The batched engines split a
batch over threads with their own small pthread pool (``setgames/batch/_pool.pxd``,
no OpenMP needed).
"""

import os
import sys
from glob import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

_SOURCES = sorted(glob("*_env/_*.pyx") + glob("setgames/_*.pyx") + glob("setgames/batch/_*.pyx"))


def _popcnt_flags() -> list[str]:
    """``-mpopcnt`` where this machine's x86-64 CPU has the instruction (Linux reports it in
    /proc/cpuinfo): the kernels count bits in every step, and without the flag gcc calls a
    table-driven library routine for ``__builtin_popcountll`` (8% of Bharg's step under greedy
    play). The build is for this machine (an editable or source install), so its CPU decides."""
    if sys.platform != "linux":
        return []
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((line.split(":", 1)[1].split() for line in fh if line.startswith("flags")), [])
    except OSError:
        return []
    return ["-mpopcnt"] if "popcnt" in flags else []


def _extension(path: str) -> Extension:
    threaded = os.path.basename(path) == "_batch.pyx" and sys.platform != "win32"
    return Extension(path[:-4].replace("/", "."), [path], optional=True, include_dirs=[numpy.get_include()],
                     define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                     extra_compile_args=(["-pthread"] if threaded else []) + _popcnt_flags(),
                     extra_link_args=["-pthread"] if threaded else [])


setup(ext_modules=cythonize([_extension(p) for p in _SOURCES], language_level=3, quiet=True))
