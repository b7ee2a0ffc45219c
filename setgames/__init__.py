"""Set-collection card games as reinforcement-learning environments (the shared core).

Importing the package registers each game's Gymnasium id (``setgames/<name>-v0``,
see :mod:`setgames.gym_envs`); nothing else is imported with it.
``setgames.__version__`` is the installed version (``setgames --version``).
"""

from setgames._version import __version__
from setgames.gym_envs import register_envs as _register_envs

__all__ = ["__version__"]

_register_envs()
