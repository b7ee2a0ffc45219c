"""The contract every game's rules layer fulfils, so that one environment
class, one arena, one set of bots and one record format serve all games.

A :class:`Game` is the rules of one game bound to one validated config. It
owns no state: states are plain objects created by :meth:`Game.new_state`
and changed only by :meth:`Game.apply`. Seats are numbered 0..n-1; the
environment layer maps them to agent names.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from setgames.actions import ActionLayout
from setgames.checks import as_action, short_repr
from setgames.obs import DEFAULT_OBS
from setgames.seeding import fast_generator
from setgames.spec import ObsSpec

__all__ = ["Game", "IllegalActionError", "rng_from_seed"]

S = TypeVar("S")


class IllegalActionError(ValueError):
    """An action id that is not legal in the current state (a ``ValueError``)."""


def rng_from_seed(seed: int) -> np.random.Generator:
    """The one way a seed becomes a generator, so that envs, arenas and
    replays agree across processes and machines: numpy's
    ``Generator(PCG64(seed))``, built by :func:`setgames.seeding.fast_generator`."""
    return fast_generator(seed)


class Game(abc.ABC, Generic[S]):
    """Rules of one game under one config: pure functions over states.

    Subclasses set ``name``, ``env_name`` and ``version`` and, in
    ``__init__``, ``config`` (a frozen dataclass), ``num_players``,
    ``layout`` (an :class:`ActionLayout`) and ``obs_spec`` (an :class:`ObsSpec`): the
    spec of the observation mode chosen by the game's ``obs`` option (:mod:`setgames.obs`),
    one of ``obs_specs``. A game with per-action features sets ``action_spec`` (one row's
    spec) and implements :meth:`action_features`.
    """

    name: ClassVar[str]
    env_name: ClassVar[str]
    version: ClassVar[int] = 0
    # Module of the game's compiled engine (see setgames.engine), None for none.
    engine_module: ClassVar[str | None] = None
    # Module of the game's batched engine (a ``Batch`` class, see setgames.batch), None for none.
    batch_module: ClassVar[str | None] = None
    # Module of the game's engine as the compiled search's table (see setgames.search), None for none.
    search_module: ClassVar[str | None] = None

    config: Any
    num_players: int
    layout: ActionLayout
    obs_spec: ObsSpec
    # Observation mode -> its spec, for every mode the game offers (setgames.obs).
    obs_specs: dict[str, ObsSpec]
    # One row of the per-action features (see action_features); None where the game has none.
    action_spec: ObsSpec | None = None

    @property
    def num_actions(self) -> int:
        """Size of the ``Discrete`` action space."""
        return self.layout.n

    def config_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able values (records store it). The observation mode
        (``obs``) only when it is not the default, so that records, saves and weights written
        before the option existed keep their exact config."""
        d = dataclasses.asdict(self.config)
        if d.get("obs", DEFAULT_OBS) == DEFAULT_OBS:
            d.pop("obs", None)
        return d

    # ------------------------------------------------------------- life cycle
    @abc.abstractmethod
    def new_state(self, rng: np.random.Generator) -> S:
        """A freshly dealt game; all randomness of the game comes from ``rng``."""

    @abc.abstractmethod
    def current_seat(self, state: S) -> int:
        """Seat that must act now, or -1 when the game is over."""

    @abc.abstractmethod
    def legal_actions(self, state: S) -> list[int]:
        """Legal action ids in ascending order; empty exactly when the game is over."""

    @abc.abstractmethod
    def apply(self, state: S, action: int) -> tuple[float, ...] | None:
        """Play a legal ``action`` for the current seat (not re-checked: use
        :meth:`check_action` first where input is untrusted).

        Returns the per-seat rewards earned by this step (at the end of a
        game or of a round in match play), else None.
        """

    @abc.abstractmethod
    def is_over(self, state: S) -> bool:
        """True once the game has ended (terminated or truncated)."""

    def is_truncated(self, state: S) -> bool:
        """True when the game ended by a turn limit rather than by the rules."""
        return False

    @abc.abstractmethod
    def returns(self, state: S) -> tuple[float, ...]:
        """Per-seat sum of all rewards so far."""

    @abc.abstractmethod
    def observe(self, state: S, seat: int) -> np.ndarray:
        """``seat``'s observation: a new int8 array of ``obs_spec.size`` entries.

        Per-step code: building a ``bytearray`` and wrapping it with
        ``np.frombuffer(buf, np.int8)`` costs about a third of writing numpy
        slices piece by piece (see :mod:`setgames.bits`)."""

    def action_features(self, state: S, seat: int) -> np.ndarray:
        """Per-action features (the Deep Monte-Carlo format): a new int8 array
        ``(num_actions, action_spec.size)``, for each action legal to ``seat`` a row of
        facts about the position after it as ``seat`` will know it, zero rows for the others.

        Raises:
            NotImplementedError: the game has no per-action features (``action_spec`` is None).
        """
        raise NotImplementedError(f"{self.name} has no per-action features")

    @abc.abstractmethod
    def outcome(self, state: S) -> dict[str, Any]:
        """JSON-able description of the result: winner, reason, scores, payments."""

    def outcome_info(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The fixed-shape numbers of ``outcome`` (from :meth:`outcome`) that the
        envs put in every agent's final ``info``.

        Trainers copy infos into buffers that need the same shape in every game
        (Tianshou's ``Batch``), so this holds numbers and fixed-length arrays
        only: no strings, no ``None``, no lists whose length varies. The
        default gives ``winner`` (-1 for none) and, when the outcome has them,
        ``returns`` as a float32 array over seats; games add their own.
        """
        w = outcome.get("winner")
        info: dict[str, Any] = {"winner": -1 if w is None else int(w)}
        if "returns" in outcome:
            info["returns"] = np.asarray(outcome["returns"], dtype=np.float32)
        return info

    # ------------------------------------------------------------- state tools
    @abc.abstractmethod
    def clone(self, state: S) -> S:
        """An independent copy that compares equal to ``state``."""

    @abc.abstractmethod
    def to_json(self, state: S) -> dict[str, Any]:
        """The state as JSON-able data; :meth:`from_json` inverts it exactly."""

    @abc.abstractmethod
    def from_json(self, data: dict[str, Any]) -> S:
        """Rebuild a state written by :meth:`to_json`; data that is not such a
        state raises ``ValueError`` (the games check it with :meth:`validate`)."""

    def validate(self, state: S) -> None:
        """Raise ``ValueError`` (one line, naming the field) unless ``state`` is one
        the rules could produce in every way that matters: ids in range, every
        card once, lengths, types, phase and seat consistent. The env's
        ``set_game_state`` and the engines' ``load`` call it before they copy
        anything, so that a compiled engine (bounds checks off) never sees a
        state it could overrun. This default accepts every state: a game whose
        states can hurt nothing may keep it; the three games override it."""

    @abc.abstractmethod
    def determinize(self, state: S, seat: int, rng: np.random.Generator) -> S:
        """A copy in which everything ``seat`` cannot see is re-dealt at random
        from the cards ``seat`` has not seen; ``seat``'s observation is unchanged."""

    @abc.abstractmethod
    def render(self, state: S, seat: int | None = None) -> str:
        """Text picture of the game: everything when ``seat`` is None, else
        only what ``seat`` may see."""

    # ------------------------------------------------------------- helpers
    def events(self, state: S) -> list[Any]:
        """The public game record of automatic and chosen events so far."""
        return list(getattr(state, "events", ()))

    def action_to_str(self, action: int) -> str:
        """Unique readable label of ``action``."""
        return self.layout.label(int(action))

    def str_to_action(self, text: str) -> int:
        """Action id of a label written by :meth:`action_to_str`."""
        return self.layout.parse(text)

    def legal_mask(self, state: S) -> np.ndarray:
        """The legal actions as an int8 0/1 vector of length ``num_actions``."""
        mask = np.zeros(self.layout.n, dtype=np.int8)
        mask[self.legal_actions(state)] = 1
        return mask

    def check_action(self, state: S, action: Any) -> int:
        """``action`` as an int if it is legal now; else ``IllegalActionError``
        naming it and the legal actions. Only integers are actions (a Python or
        numpy integer, or a 0-d integer array; not a bool, float or string)."""
        try:
            a = as_action(action)  # not a float, str, bool...: 15.99 is no action 15
        except ValueError as exc:
            raise IllegalActionError(str(exc)) from None
        legal = self.legal_actions(state)
        if a not in legal:
            what = self.layout.labels[a] if 0 <= a < self.layout.n else "out of range"
            names = ", ".join(f"{x} ({self.layout.labels[x]})" for x in legal) or "none"
            raise IllegalActionError(f"illegal action {short_repr(a)} ({what}); legal: {names}")
        return a
