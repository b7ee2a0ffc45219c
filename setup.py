"""Build the compiled engines (``<game>_env/_engine.pyx``, see :mod:`setgames.engine`), the
games' other compiled parts (``<game>_env/_*.pyx``, e.g. Tu Sac's greedy bot) and
the compiled seed hashing (``setgames/_seedhash.pyx``, see :mod:`setgames.seeding`).

Everything else about the package is in ``pyproject.toml``. The extensions are
optional: without a C compiler the install still succeeds and the envs step
the pure-Python rules layer (slower, same games).
"""

from glob import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(path[:-4].replace("/", "."), [path], optional=True, include_dirs=[numpy.get_include()],
              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])
    for path in sorted(glob("*_env/_*.pyx") + glob("setgames/_*.pyx"))
]

setup(ext_modules=cythonize(extensions, language_level=3, quiet=True))
