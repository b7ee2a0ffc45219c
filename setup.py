"""Build the compiled engines (``<game>_env/_engine.pyx``, see :mod:`setgames.engine`), the
batched engines (``<game>_env/_batch.pyx``, see :mod:`setgames.batch`), the compiled bots and
the compiled seed hashing (``setgames/_seedhash.pyx``, see :mod:`setgames.seeding`).

Everything else about the package is in ``pyproject.toml``. The extensions are
optional: without a C compiler the install still succeeds and the envs step
the pure-Python rules layer (slower, same games). The batched engines split a
batch over threads with OpenMP where the compiler has it (``-fopenmp`` is
probed first); without it they build all the same and run on one thread.
"""

import os
import subprocess
import sysconfig
import tempfile
from glob import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

_OPENMP_FLAG = "-fopenmp"


def _has_openmp() -> bool:
    """Whether the C compiler builds and links a program with ``-fopenmp``."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        try:
            done = subprocess.run([*cc, _OPENMP_FLAG, src, "-o", os.path.join(tmp, "probe")],
                                  capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


_OPENMP = [_OPENMP_FLAG] if _has_openmp() else []
_SOURCES = sorted(glob("*_env/_*.pyx") + glob("setgames/_*.pyx") + glob("setgames/batch/_*.pyx")
                  + glob("setgames/bots/_*.pyx"))


def _extension(path: str) -> Extension:
    threaded = os.path.basename(path) == "_batch.pyx"
    return Extension(path[:-4].replace("/", "."), [path], optional=True, include_dirs=[numpy.get_include()],
                     define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                     extra_compile_args=_OPENMP if threaded else [],
                     extra_link_args=_OPENMP if threaded else [])


setup(ext_modules=cythonize([_extension(p) for p in _SOURCES], language_level=3, quiet=True))
