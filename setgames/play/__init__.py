"""Play against the bots in a terminal: ``setgames play GAME``.

Example::

    setgames play GAME --players 3 --opponents greedy --seed 7
    setgames play GAME --load mygame.json
    printf 'quick\nhint\nundo\nsave g.json\n' | setgames play GAME --seed 1    # scripted

At the prompt: a move by its number or its label, ``hint``, ``quick``,
``undo [N]``, ``redo [N]``, ``save FILE``, ``load FILE``, ``watch``,
``board``, ``help``, ``quit`` (or end of input), and the game's own commands
(``trash``, in a game whose table tools add it).

:mod:`setgames.play.session` is the game model (undo/redo, hint, quick,
watch, save/load), :mod:`setgames.play.screen` draws what the player may see,
:mod:`setgames.play.repl` is the prompt loop, :mod:`setgames.play.tools` what a
game lends the table (its package's ``TableTools``, named by its descriptor: a
hint command, a warning before a move). The command line wires
:func:`add_arguments` and :func:`run` in as the ``play`` subcommand.
"""

from setgames.play.repl import add_arguments, run

__all__ = ["add_arguments", "run"]
