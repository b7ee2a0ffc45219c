"""Tet Hsi rules: a pure game layer (no PettingZoo) over Python-int card masks.

Rules summary (as ``tethsi_env/README.md``, "Rules summary" and "Rules choices", states it):

- Two players, the 36 standard Decktet cards. Deal 8 cards to each player, 2
  face up to the center; the other 18 form the draw pile.
- A hand is the concealed cards plus the *front* (cards taken from the
  center, visible to both players); a front card played or put into a Set
  leaves the front.
- A turn is up to three decisions of the same player, each an action:
  1. **discard** one of the two center cards (to a face-up discard pile, out of
     the game); the other is the *remaining card*;
  2. **take** it into the front, or put it aside in a **set** with two hand
     cards, or do **nothing** (the remaining card stays; step 3 is skipped);
  3. after take or set, **play** any hand card (the card just taken too) to
     the center.
  Then the top card of the draw pile is revealed into the center, and the
  opponent moves. If the draw pile is empty at that reveal the game is a tie.
- A Set whose cards empty the hand (always the third Set) wins at once: no card
  is played and nothing is revealed.
- Sets (Aces and Crowns show their suit twice): Five AAAAAB, Bharg ABCDEF,
  Kvar AA+AB+AB card by card, Ciao AAAABC with BC a suit pair no number card
  has, Phen AAABBB (:mod:`setgames.kernels.tethsi`).
- Rewards only at the end: win +1, loss -1, tie 0 to both.

Choices where the texts are silent (documented constants / config; see README):

- ``first_player``: 0 (default, ``tethsi_env/README.md``, rules choice 1), 1, or ``"random"`` (drawn
  from the game's generator *after* the shuffle, so the deal of a seed does
  not depend on this option).
- Deal order: a permutation of the 36 ids; cards 0-7 to seat 0, 8-15 to seat
  1, 16-17 to the center, the rest is the draw pile with its top card last.
- :meth:`TetHsiGame.determinize` re-deals exactly the cards a seat has never
  seen: the opponent's concealed cards and the draw pile (every other zone is
  public or the seat's own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from setgames.bits import bit_list
from setgames.cards import NUM_STANDARD
from setgames.checks import check_choice, check_int, is_integer, short_repr
from setgames.game import Game
from setgames.kernels.tethsi import KIND_BY_MASK, KIND_NAMES
from setgames.obs import DEFAULT_OBS, check_obs
from setgames.validate import StateError, check_ids, check_list, legal_actions_consistent, observer_seat
from tethsi_env.history import HISTORY_SPEC, history_bytes
from tethsi_env.layout import (
    ACTION_ARG,
    ACTION_KIND,
    HAND_SIZE,
    LAYOUT,
    NOTHING,
    OBS_SPEC,
    PAIR_ACTION,
    PLAY_START,
    REASON_EMPTY_PILE,
    REASON_THIRD_SET,
    SET_FIRST_MASK,
    SET_PARTNERS_ABOVE,
    TAKE,
    ActionKind,
    Phase,
    play_actions,
)
from tethsi_env.render import render_state
from tethsi_env.structure import ACTION_SPEC, STRUCTURE_SPEC, action_rows, structure_bytes
from tethsi_env.validate import validate_state

assert OBS_SPEC.slices["my_turn"].stop == 8 * NUM_STANDARD + 4, "observe() packs the 0/1 features first"

__all__ = ["FIRST_PLAYER_CHOICES", "REASON_EMPTY_PILE", "REASON_THIRD_SET", "TetHsiConfig",
           "TetHsiGame", "TetHsiState", "observation_bytes"]

FIRST_PLAYER_CHOICES = (0, 1, "random")

# Plain-int copies of the enums: the hot path compares ints, not IntEnum members.
_DISCARD, _CHOOSE, _PLAY, _OVER = (int(p) for p in Phase)
_K_DISCARD, _K_TAKE, _K_NOTHING, _K_SET, _K_PLAY = (int(k) for k in ActionKind)
_PHASE_BITS = (1, 2, 4, 0)  # phase one-hot as bits; none once the game is over
_BINARY_SIZE = OBS_SPEC.slices["my_turn"].stop  # the 0/1 features come first in the spec
_BIT_FORMAT = f"0{_BINARY_SIZE}b"
_TO_01 = bytes.maketrans(b"01", b"\x00\x01")
_NUM_ACTIONS = LAYOUT.n
_INT8 = np.dtype(np.int8)  # a dtype object: np.frombuffer skips the type -> dtype lookup
_frombuffer = np.frombuffer
_SL = OBS_SPEC.slices
_O_MY_CONCEALED = _SL["my_concealed"].start
_O_MY_FRONT = _SL["my_front"].start
_O_OPP_FRONT = _SL["opp_front"].start
_O_CENTER = _SL["center"].start
_O_REMAINING = _SL["remaining"].start
_O_DISCARD = _SL["discard_pile"].start
_O_MY_SETS = _SL["my_set_cards"].start
_O_OPP_SETS = _SL["opp_set_cards"].start
_O_PHASE = _SL["phase"].start
# The phase one-hot entries one by one: apply() writes single bytes, as a
# bytearray slice store costs about seven single-byte stores here.
_O_PH_DISCARD, _O_PH_CHOOSE, _O_PH_PLAY = _O_PHASE, _O_PHASE + 1, _O_PHASE + 2
_O_MY_TURN = _SL["my_turn"].start
_O_MY_KINDS = _SL["my_set_kinds"].start
_O_OPP_KINDS = _SL["opp_set_kinds"].start
_O_OPP_CONCEALED_COUNT = _SL["opp_concealed_count"].start
_O_PILE = _SL["draw_pile_size"].start
_WIN = ((1.0, -1.0), (-1.0, 1.0))
_TIE = (0.0, 0.0)
_BIT = tuple(1 << c for c in range(NUM_STANDARD))
_ORDERED_DECK = list(range(NUM_STANDARD))


@dataclass(frozen=True)
class TetHsiConfig:
    """Validated Tet Hsi options.

    Attributes:
        first_player: seat that moves first: 0, 1, or ``"random"`` (from the seed).
        obs: the observation mode (:mod:`setgames.obs`): ``"cards"``, ``"structure"`` or ``"history"``.
    """

    first_player: int | str = 0
    obs: str = DEFAULT_OBS


class TetHsiState:
    """Everything about one Tet Hsi game; change it only through :meth:`TetHsiGame.apply`.

    Card sets are 36-bit Python ints (bit ``i`` = card ``i``); per-seat values
    are 2-lists indexed by seat.

    Attributes:
        concealed: per seat, the concealed hand.
        front: per seat, the front (taken cards, public).
        center: the face-up center cards.
        remaining: the remaining center card while the choice is pending, else -1.
        discard: the discard pile.
        set_cards: per seat, the cards of the Sets put aside.
        sets: per seat, the Sets put aside in order, as ``(x, y, remaining card, kind index)``.
        pile: the draw pile, top card last.
        seat: the seat to move (the last mover once the game is over).
        phase: the pending decision (a :class:`Phase` value as int).
        first_player: the seat that moved first.
        turn: 1-based number of the current turn.
        winner: winning seat, -1 for none (game running or tie).
        reason: why the game ended (None while it runs).
        events: the public record: ``(kind, seat, cards...)`` tuples.
    """

    __slots__ = ("_obs", "center", "concealed", "discard", "events", "first_player", "front", "phase",
                 "pile", "reason", "remaining", "seat", "set_cards", "sets", "turn", "winner")

    _FIELDS = ("concealed", "front", "center", "remaining", "discard", "set_cards", "sets", "pile",
               "seat", "phase", "first_player", "turn", "winner", "reason", "events")

    def __init__(self, concealed: list[int], front: list[int], center: int, remaining: int, discard: int,
                 set_cards: list[int], sets: list[list[tuple[int, int, int, int]]], pile: list[int],
                 seat: int, phase: int, first_player: int, turn: int, winner: int, reason: str | None,
                 events: list[tuple]):
        self.concealed = concealed
        self.front = front
        self.center = center
        self.remaining = remaining
        self.discard = discard
        self.set_cards = set_cards
        self.sets = sets
        self.pile = pile
        self.seat = seat
        self.phase = phase
        self.first_player = first_player
        self.turn = turn
        self.winner = winner
        self.reason = reason
        self.events = events
        # Per-seat observation bytes, built by the first observe() and then kept
        # current by apply(); None until needed. Not part of ==.
        self._obs: list[bytearray] | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TetHsiState):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"TetHsiState(turn={self.turn}, seat={self.seat}, phase={Phase(self.phase).name})"

    def _repr_svg_(self) -> str:
        """A notebook shows the table, every card face up (:mod:`tethsi_env.draw`)."""
        from tethsi_env.draw import draw

        return draw(TetHsiGame(first_player=self.first_player), self)


class TetHsiGame(Game[TetHsiState]):
    """The Tet Hsi rules under one config (see the module docstring).

    Args:
        first_player: 0, 1 or ``"random"``.
        obs: the observation mode, ``"cards"`` (the default: the card sets, as ever) or
            ``"structure"`` (the cards followed by the set core's facts, :mod:`tethsi_env.structure`)
            or ``"history"`` (the cards followed by the public record as event rows,
            :mod:`tethsi_env.history`).

    Raises:
        ValueError: an invalid option value, naming it.

    >>> from setgames.game import rng_from_seed
    >>> game = TetHsiGame()
    >>> state = game.new_state(rng_from_seed(0))
    >>> [game.action_to_str(a) for a in game.legal_actions(state)]
    ['discard Penitent', 'discard Crown of Knots']
    >>> game.apply(state, 19); [game.action_to_str(a) for a in game.legal_actions(state)][:2]
    ['take', 'nothing']
    """

    name = "tethsi"
    env_name = "tethsi_v0"
    engine_module = "tethsi_env._engine"
    batch_module = "tethsi_env._batch"
    search_module = "tethsi_env._search"
    version = 0

    def __init__(self, first_player: int | str = 0, obs: str = DEFAULT_OBS):
        if isinstance(first_player, str):
            first_player = check_choice("first_player", first_player, ("random",))
        elif is_integer(first_player):  # a numpy integer too, stored as int (records are JSON)
            first_player = check_int("first_player", first_player, 0, 1)
        else:  # True, 0.0, None...
            raise ValueError(f"first_player {short_repr(first_player)} is not one of {FIRST_PLAYER_CHOICES}")
        self.obs_specs = {"cards": OBS_SPEC, "structure": STRUCTURE_SPEC, "history": HISTORY_SPEC}
        self.config = TetHsiConfig(first_player, check_obs(obs, tuple(self.obs_specs)))
        self.num_players = 2
        self.layout = LAYOUT
        self.obs_spec = self.obs_specs[obs]
        # observe() appends a mode's block only in that mode: the cards path stays as fast as it was.
        self._structure = obs == "structure"
        self._history = obs == "history"

    # ------------------------------------------------------------- life cycle
    def new_state(self, rng: np.random.Generator) -> TetHsiState:
        """Shuffle and deal (see the module docstring for the deal order)."""
        # Generator.shuffle on a list draws exactly what permutation(36) draws (the
        # same Fisher-Yates swaps), so a seed deals the same cards, at half the cost.
        deck = _ORDERED_DECK[:]
        rng.shuffle(deck)
        fp = self.config.first_player
        first = int(rng.integers(2)) if fp == "random" else fp
        # Ids from a shuffle need no checks; distinct bits, so their sum is their union.
        bit = _BIT.__getitem__
        hands = [sum(map(bit, deck[:HAND_SIZE])), sum(map(bit, deck[HAND_SIZE:2 * HAND_SIZE]))]
        center = bit(deck[2 * HAND_SIZE]) | bit(deck[2 * HAND_SIZE + 1])
        return TetHsiState(hands, [0, 0], center, -1, 0, [0, 0], [[], []], deck[2 * HAND_SIZE + 2:],
                           first, _DISCARD, first, 1, -1, None, [])

    def current_seat(self, state: TetHsiState) -> int:
        """Seat to move, -1 once the game is over."""
        return -1 if state.phase == _OVER else state.seat

    def legal_actions(self, state: TetHsiState) -> list[int]:
        """Legal action ids, ascending (a new list)."""
        phase = state.phase
        if phase == _DISCARD:
            c = state.center
            low = c & -c
            return [low.bit_length() - 1, (c ^ low).bit_length() - 1]
        seat = state.seat
        hand = state.concealed[seat] | state.front[seat]
        if phase == _CHOOSE:
            out = [TAKE, NOTHING]
            r = state.remaining
            above = SET_PARTNERS_ABOVE[r]
            # x ascending, then y ascending: set ids grow with (x, y), so `out` comes out sorted.
            rest = hand & SET_FIRST_MASK[r]
            while rest:
                low = rest & -rest
                rest ^= low
                x = low.bit_length() - 1
                ys = above[x] & hand
                if ys:
                    ids = PAIR_ACTION[x]
                    while ys:
                        y_low = ys & -ys
                        ys ^= y_low
                        out.append(ids[y_low.bit_length() - 1])
            return out
        if phase == _PLAY:
            return play_actions(hand)
        return []

    def apply(self, state: TetHsiState, action: int) -> tuple[float, ...] | None:
        """Play a legal action (not re-checked; see :meth:`Game.check_action`).

        When the state carries observation buffers (built by the first
        :meth:`observe`), the few entries the action changes are written into
        both seats' buffers here, so that observing costs a copy, not a rebuild.
        Patching both costs less than rebuilding the other seat's view once a
        turn (a handful of single-byte stores against a 304-byte rebuild).
        """
        kind = ACTION_KIND[action]
        p = state.seat
        bufs = state._obs
        if kind == _K_DISCARD:
            bit = 1 << action
            center = state.center ^ bit
            state.center = center
            state.discard |= bit
            r = state.remaining = center.bit_length() - 1
            state.phase = _CHOOSE
            state.events.append(("discard", p, action))
            if bufs is not None:
                b0, b1 = bufs
                b0[_O_CENTER + action] = b1[_O_CENTER + action] = 0
                b0[_O_DISCARD + action] = b1[_O_DISCARD + action] = 1
                b0[_O_REMAINING + r] = b1[_O_REMAINING + r] = 1
                b0[_O_PH_DISCARD] = b1[_O_PH_DISCARD] = 0
                b0[_O_PH_CHOOSE] = b1[_O_PH_CHOOSE] = 1
            return None
        if kind == _K_TAKE:
            r = state.remaining
            state.front[p] |= 1 << r
            state.center = 0
            state.remaining = -1
            state.phase = _PLAY
            state.events.append(("take", p, r))
            if bufs is not None:
                mine, theirs = bufs[p], bufs[p ^ 1]
                mine[_O_MY_FRONT + r] = 1
                theirs[_O_OPP_FRONT + r] = 1
                mine[_O_CENTER + r] = theirs[_O_CENTER + r] = 0
                mine[_O_REMAINING + r] = theirs[_O_REMAINING + r] = 0
                mine[_O_PH_CHOOSE] = theirs[_O_PH_CHOOSE] = 0
                mine[_O_PH_PLAY] = theirs[_O_PH_PLAY] = 1
            return None
        if kind == _K_NOTHING:
            r = state.remaining
            state.events.append(("nothing", p, r))
            state.remaining = -1
            if bufs is None:
                return _reveal(state, p, None, None)
            mine, theirs = bufs[p], bufs[p ^ 1]
            mine[_O_REMAINING + r] = theirs[_O_REMAINING + r] = 0
            return _reveal(state, p, mine, theirs)
        if kind == _K_SET:
            return _put_aside(state, p, action, bufs)
        # play
        card = action - PLAY_START
        bit = 1 << card
        concealed = state.concealed[p]
        from_concealed = concealed & bit
        if from_concealed:
            state.concealed[p] = concealed ^ bit
        else:
            state.front[p] ^= bit
        state.center |= bit
        state.events.append(("play", p, card))
        if bufs is None:
            return _reveal(state, p, None, None)
        mine, theirs = bufs[p], bufs[p ^ 1]
        _obs_leave_hand(mine, theirs, card, from_concealed)
        mine[_O_CENTER + card] = theirs[_O_CENTER + card] = 1
        return _reveal(state, p, mine, theirs)

    def is_over(self, state: TetHsiState) -> bool:
        """True once someone won or the pile ran out at a reveal."""
        return state.phase == _OVER

    def returns(self, state: TetHsiState) -> tuple[float, float]:
        """+1 / -1 for a win, 0 / 0 for a tie or a running game."""
        if state.phase != _OVER or state.winner < 0:
            return _TIE
        return _WIN[state.winner]

    def observe(self, state: TetHsiState, seat: int) -> np.ndarray:
        """``seat``'s view, laid out by :attr:`obs_spec` (a new array): the cards
        (:data:`~tethsi_env.layout.OBS_SPEC`), then in the ``structure`` mode the structure
        block (:mod:`tethsi_env.structure`), in the ``history`` mode the event rows
        (:mod:`tethsi_env.history`)."""
        if type(seat) is not int or seat & ~1:  # (seat[-1] would be the other seat's view)
            seat = observer_seat(seat, 2)
        bufs = state._obs
        if bufs is None:
            bufs = state._obs = [observation_bytes(state, 0), observation_bytes(state, 1)]
        if self._structure:
            return _frombuffer(bufs[seat] + structure_bytes(state, seat), _INT8)
        if self._history:
            return _frombuffer(bufs[seat] + history_bytes(state, seat), _INT8)
        return _frombuffer(bufs[seat][:], _INT8)

    action_spec = ACTION_SPEC

    def action_features(self, state: TetHsiState, seat: int) -> np.ndarray:
        """Per-action features (:data:`~tethsi_env.structure.ACTION_SPEC`), a new int8 array
        ``(704, ACTION_SPEC.size)``: for each action legal to ``seat`` the facts of the position
        right after it, before any reveal, as ``seat`` knows it; zero rows for the other actions
        and when ``seat`` is not to act."""
        if type(seat) is not int or seat & ~1:
            seat = observer_seat(seat, 2)
        out = np.zeros((_NUM_ACTIONS, ACTION_SPEC.size), np.int8)
        if state.phase == _OVER or state.seat != seat:
            return out
        for a, row in action_rows(state, seat, self.legal_actions(state)).items():
            out[a] = row
        return out

    def legal_mask(self, state: TetHsiState) -> np.ndarray:
        """The legal actions as a new int8 0/1 vector (a bytearray loop: a few
        entries are set, cheaper than numpy fancy indexing)."""
        buf = bytearray(_NUM_ACTIONS)
        for a in self.legal_actions(state):
            buf[a] = 1
        return _frombuffer(buf, _INT8)

    def outcome(self, state: TetHsiState) -> dict[str, Any]:
        """Result as JSON-able data: winner seat (-1 tie / running), reason, returns, Sets by kind."""
        w = state.winner
        return {
            "winner": w,
            "winner_agent": f"player_{w}" if w >= 0 else None,
            "result": "running" if state.phase != _OVER else ("win" if w >= 0 else "tie"),
            "reason": state.reason,
            "returns": list(self.returns(state)),
            "sets": [[[x, y, r, KIND_NAMES[k]] for x, y, r, k in state.sets[s]] for s in range(2)],
            "turns": state.turn,
            "first_player": state.first_player,
        }

    def outcome_info(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The final infos' numbers: ``winner`` (-1 tie), ``returns`` (2,),
        ``set_counts`` (Sets made by each seat, (2,)), ``turns``, ``first_player``."""
        return {
            "winner": int(outcome["winner"]),
            "returns": np.asarray(outcome["returns"], dtype=np.float32),
            "set_counts": np.array([len(s) for s in outcome["sets"]], dtype=np.int64),
            "turns": int(outcome["turns"]),
            "first_player": int(outcome["first_player"]),
        }

    # ------------------------------------------------------------- state tools
    def clone(self, state: TetHsiState) -> TetHsiState:
        """An independent copy (equal to ``state``)."""
        s = state
        twin = TetHsiState(s.concealed[:], s.front[:], s.center, s.remaining, s.discard, s.set_cards[:],
                           [s.sets[0][:], s.sets[1][:]], s.pile[:], s.seat, s.phase, s.first_player,
                           s.turn, s.winner, s.reason, s.events[:])
        if s._obs is not None:
            twin._obs = [s._obs[0][:], s._obs[1][:]]
        return twin

    def to_json(self, state: TetHsiState) -> dict[str, Any]:
        """JSON-able dict; :meth:`from_json` inverts it exactly."""
        s = state
        return {
            "concealed": _ids_pair(s.concealed),
            "front": _ids_pair(s.front),
            "center": bit_list(s.center),
            "remaining": s.remaining,
            "discard": bit_list(s.discard),
            "set_cards": _ids_pair(s.set_cards),
            "sets": [[list(t) for t in s.sets[i]] for i in range(2)],
            "pile": list(s.pile),
            "seat": s.seat,
            "phase": s.phase,
            "first_player": s.first_player,
            "turn": s.turn,
            "winner": s.winner,
            "reason": s.reason,
            "events": [list(e) for e in s.events],
        }

    def from_json(self, data: dict[str, Any]) -> TetHsiState:
        """Rebuild a state written by :meth:`to_json`.

        Raises:
            ValueError: data that is not a Tet Hsi state (see :meth:`validate`), one line.
        """
        if not isinstance(data, dict):
            raise StateError(f"a Tet Hsi state is a JSON object, not {type(data).__name__}")
        missing = [k for k in TetHsiState._FIELDS if k not in data]
        if missing:
            raise StateError(f"Tet Hsi state data lacks {missing}")
        pairs = {}
        for name in ("concealed", "front", "set_cards"):
            zone = check_list(data[name], name, 2)
            pairs[name] = [_mask(check_ids(zone[s], f"{name}[{s}]", 0, NUM_STANDARD - 1,
                                           max_len=NUM_STANDARD)) for s in range(2)]
        sets = check_list(data["sets"], "sets", 2)
        state = TetHsiState(
            pairs["concealed"], pairs["front"],
            _mask(check_ids(data["center"], "center", 0, NUM_STANDARD - 1, max_len=NUM_STANDARD)),
            data["remaining"],
            _mask(check_ids(data["discard"], "discard", 0, NUM_STANDARD - 1, max_len=NUM_STANDARD)),
            pairs["set_cards"],
            [[tuple(check_list(t, f"sets[{i}][{j}]", 4))
              for j, t in enumerate(check_list(sets[i], f"sets[{i}]"))] for i in range(2)],
            check_list(data["pile"], "pile"), data["seat"], data["phase"], data["first_player"],
            data["turn"], data["winner"], data["reason"],
            [tuple(e) if isinstance(e, list) else e for e in check_list(data["events"], "events")],
        )
        self.validate(state)
        return state

    def validate(self, state: TetHsiState) -> None:
        """Raise ``ValueError`` unless the rules could produce ``state`` (see
        :mod:`tethsi_env.validate`: types, ranges, every card once, real Sets,
        the center as the phase has it)."""
        if not isinstance(state, TetHsiState):
            raise StateError(f"not a Tet Hsi state: {type(state).__name__}")
        validate_state(state)
        legal_actions_consistent(self.legal_actions(state), _NUM_ACTIONS, state.phase == _OVER)
        bufs = state._obs  # observation bytes apply() patches: must be the state's
        if bufs is not None and (not isinstance(bufs, list) or len(bufs) != 2 or any(
                bufs[s] != observation_bytes(state, s) for s in range(2))):
            raise StateError("the state's observation buffers (_obs) do not match it: "
                             "set _obs to None after editing a state")

    def determinize(self, state: TetHsiState, seat: int, rng: np.random.Generator) -> TetHsiState:
        """Re-deal the cards ``seat`` has not seen (the opponent's concealed hand and
        the draw pile) at random; everything ``seat`` saw stays put."""
        if seat not in (0, 1):
            raise ValueError(f"seat {seat!r} is not 0 or 1")
        twin = self.clone(state)
        opp = seat ^ 1
        # Canonical order: the re-deal must depend only on what `seat` knows.
        unseen = sorted(bit_list(state.concealed[opp]) + state.pile)
        order = [unseen[i] for i in rng.permutation(len(unseen)).tolist()]
        n = state.concealed[opp].bit_count()
        twin.concealed[opp] = _mask(order[:n])
        twin.pile = order[n:]
        twin._obs = None
        return twin

    def render(self, state: TetHsiState, seat: int | None = None) -> str:
        """Text picture: everything when ``seat`` is None, else ``seat``'s view."""
        return render_state(state, seat)


# --------------------------------------------------------------------------- helpers
def observation_bytes(state: TetHsiState, seat: int) -> bytearray:
    """``seat``'s observation built from scratch (:meth:`TetHsiGame.observe` keeps
    per-seat copies of it up to date instead; tests compare the two)."""
    s = state
    opp = seat ^ 1
    phase = s.phase
    rem = s.remaining
    # All 0/1 features form one 292-bit int (feature f, card i at bit 36 f + i); its
    # binary string, reversed and translated, is those 292 entries in spec order.
    bits = (s.concealed[seat] | s.front[seat] << 36 | s.front[opp] << 72 | s.center << 108
            | (1 << rem if rem >= 0 else 0) << 144 | s.discard << 180 | s.set_cards[seat] << 216
            | s.set_cards[opp] << 252 | _PHASE_BITS[phase] << 288
            | (phase != _OVER and s.seat == seat) << 291)
    mine, theirs = s.sets[seat], s.sets[opp]
    buf = bytearray(format(bits, _BIT_FORMAT)[::-1].encode().translate(_TO_01))
    buf += _kind_bytes(mine) if mine else _NO_KINDS
    buf += _kind_bytes(theirs) if theirs else _NO_KINDS
    buf.append(s.concealed[opp].bit_count())
    buf.append(len(s.pile))
    return buf


# --------------------------------------------------------------------------- apply helpers
# Module functions rather than methods: apply() reaches them without a bound-method lookup.
def _obs_leave_hand(mine: bytearray, theirs: bytearray, card: int, from_concealed: int) -> None:
    """Observation entries of ``card`` leaving the mover's hand (``mine``: the mover's
    buffer, ``theirs``: the opponent's); the opponent sees a front card go, and only
    the count of the concealed ones."""
    if from_concealed:
        mine[_O_MY_CONCEALED + card] = 0
        theirs[_O_OPP_CONCEALED_COUNT] -= 1
    else:
        mine[_O_MY_FRONT + card] = 0
        theirs[_O_OPP_FRONT + card] = 0


def _put_aside(state: TetHsiState, p: int, action: int, bufs: list[bytearray] | None
               ) -> tuple[float, float] | None:
    """Seat ``p`` puts aside the set ``action`` with the remaining card; wins if its hand is empty."""
    x, y = ACTION_ARG[action]
    r = state.remaining
    x_bit, y_bit = 1 << x, 1 << y
    concealed = state.concealed[p]
    bits = x_bit | y_bit
    state.concealed[p] = concealed & ~bits
    state.front[p] &= ~bits
    triple = bits | 1 << r
    state.set_cards[p] |= triple
    k = KIND_BY_MASK[triple]  # legal_actions offered only Sets: no check needed
    state.sets[p].append((x, y, r, k))
    state.center = 0
    state.remaining = -1
    state.events.append(("set", p, x, y, r, KIND_NAMES[k]))
    done = not (state.concealed[p] | state.front[p])
    if bufs is not None:
        mine, theirs = bufs[p], bufs[p ^ 1]
        _obs_leave_hand(mine, theirs, x, concealed & x_bit)
        _obs_leave_hand(mine, theirs, y, concealed & y_bit)
        for z in (x, y, r):
            mine[_O_MY_SETS + z] = 1
            theirs[_O_OPP_SETS + z] = 1
        mine[_O_MY_KINDS + k] += 1
        theirs[_O_OPP_KINDS + k] += 1
        mine[_O_CENTER + r] = theirs[_O_CENTER + r] = 0
        mine[_O_REMAINING + r] = theirs[_O_REMAINING + r] = 0
        mine[_O_PH_CHOOSE] = theirs[_O_PH_CHOOSE] = 0
        mine[_O_PH_PLAY] = theirs[_O_PH_PLAY] = 0 if done else 1
        if done:
            mine[_O_MY_TURN] = 0
    if done:
        state.phase = _OVER
        state.winner = p
        state.reason = REASON_THIRD_SET
        state.events.append(("win", p, REASON_THIRD_SET))
        return _WIN[p]
    state.phase = _PLAY
    return None


def _reveal(state: TetHsiState, p: int, mine: bytearray | None, theirs: bytearray | None
            ) -> tuple[float, float] | None:
    """End of seat ``p``'s turn: reveal the pile's top card into the center, or tie on
    an empty pile. ``mine`` / ``theirs``: the mover's and the opponent's observation
    buffers, or None when the state has none."""
    pile = state.pile
    if not pile:
        state.phase = _OVER
        state.reason = REASON_EMPTY_PILE
        state.events.append(("tie", p, REASON_EMPTY_PILE))
        if mine is not None:
            mine[_O_PHASE:_O_MY_TURN + 1] = theirs[_O_PHASE:_O_MY_TURN + 1] = b"\x00\x00\x00\x00"
        return _TIE
    card = pile.pop()
    state.center |= 1 << card
    state.events.append(("reveal", p, card))
    state.seat = p ^ 1
    state.phase = _DISCARD
    state.turn += 1
    if mine is not None:
        n = len(pile)
        mine[_O_CENTER + card] = theirs[_O_CENTER + card] = 1
        mine[_O_PILE] = theirs[_O_PILE] = n
        # Choose (after nothing) or play was pending; both become discard.
        mine[_O_PH_DISCARD] = theirs[_O_PH_DISCARD] = 1
        mine[_O_PH_CHOOSE] = theirs[_O_PH_CHOOSE] = 0
        mine[_O_PH_PLAY] = theirs[_O_PH_PLAY] = 0
        mine[_O_MY_TURN] = 0
        theirs[_O_MY_TURN] = 1
    return None


_NO_KINDS = bytes(len(KIND_NAMES))


def _kind_bytes(sets: list[tuple[int, int, int, int]]) -> bytes:
    counts = [0] * len(KIND_NAMES)
    for t in sets:
        counts[t[3]] += 1
    return bytes(counts)


def _mask(cards: Any) -> int:
    m = 0
    for c in cards:
        if type(c) is not int or not 0 <= c < NUM_STANDARD:
            raise ValueError(f"card {c!r} is not a standard card id 0..35")
        m |= 1 << c
    return m


def _ids_pair(masks: list[int]) -> list[list[int]]:
    return [bit_list(masks[0]), bit_list(masks[1])]
