"""Bharg rules: a pure rules layer (no PettingZoo), for 2 or 3 players.

Rules summary (as ``bharg_env/README.md``, "Rules summary" and "Rules choices", states it):

- Deck: the 36 standard Decktet cards, plus the Excuse and/or the four Pawns
  when enabled, plus the four Courts (our extra option: three suits, value 10,
  like a Pawn). Card ids as on the Decktet page (``docs/games/decktet.md``).
- Deal: 7 cards each with 2 players, 6 with 3. Then cards are turned face up:
  an Ace starts (or goes on) the Ace Pile and the next card is turned; the
  first non-Ace starts the discard pile.
- Turn: **draw** the top card of the deck or of the discard pile, then
  **discard** one card of the hand (the card just drawn is allowed). A
  discarded Ace goes on the Ace Pile, any other card on the discard pile.
- Bound: see :mod:`setgames.kernels.bharg` (disjoint sets of >= 3 cards showing
  each suit once; a card sharing a suit with the Ace Pile's top card; the
  Excuse). Win: every card of your hand bound after your discard (so never
  before discarding; discarding an Ace can change what is bound).
- Scoring: the winner scores, from each opponent, the value of that opponent's
  unbound cards under the opponent's best arrangement (lowest unbound value).
- Empty deck (any player count): when a player draws from an empty deck, all
  but the top card of the discard pile and all but the top card of the Ace
  Pile are shuffled into a new deck. If that leaves no card, drawing from the
  deck is not legal.
- Turn limit: after ``max_turns`` turns a round ends as a draw scoring 0 (a
  PettingZoo truncation).
- Match play (``target_score``): rounds repeat, the first player moving one
  seat on each round, until someone's score reaches the target.

Choices where the texts are silent (each a documented constant or option, and
listed in ``bharg_env/README.md``):

- Seat ``(round - 1) % n`` plays first in round ``round`` (``player_0`` in the
  first round); "the deal passes to the next player" moves the first player.
- The reshuffle happens when a player chooses to draw from the empty deck.
- A round ends only by the discarder's win; other players' hands are not
  checked when an Ace changes the Ace Pile.
- A truncated round ends the episode, also in match play (completed rounds'
  rewards stand; the match has no winner).
- ``reward="win"``: +1 to the winner of the episode (the round, or the match
  in match play) and -1 to each other player (``bharg_env/README.md``, rules choice 5: win/loss is
  +1 / -1; with 3 players the rewards sum to -1, not zero); 0 to all on a
  truncation.
- All randomness after the first deal (reshuffles, later deals) comes from a
  seed kept in the state and a counter, so :meth:`BhargGame.apply` is
  deterministic and clone/JSON exact; ``determinize`` draws a new seed too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from bharg_env.history import HISTORY_FEATURES, history_bytes
from bharg_env.structure import ACTION_FEATURES, STRUCTURE_FEATURES, structure_block
from bharg_env.structure import action_features as _action_features
from bharg_env.validate import validate_state
from setgames.actions import ActionBlock, ActionLayout
from setgames.bits import bit_list
from setgames.cards import (
    COURT_IDS,
    DECKTET_NAMES,
    DECKTET_SHORT,
    EXCUSE_ID,
    NUM_DECKTET,
    NUM_STANDARD,
    PAWN_IDS,
    card_from_name,
)
from setgames.checks import check_bool, check_choice, check_int, is_integer, short_repr
from setgames.game import Game
from setgames.kernels.bharg import CARD_CODES, all_bound_code, evaluate, pattern_code
from setgames.obs import DEFAULT_OBS, check_obs
from setgames.seeding import fast_generator
from setgames.spec import Feature, ObsSpec
from setgames.validate import (
    StateError,
    check_float,
    check_ids,
    check_list,
    legal_actions_consistent,
    observer_seat,
)

__all__ = [
    "ACTION_SPEC",
    "DEFAULT_MAX_TURNS",
    "HAND_SIZES",
    "MAX_TURNS",
    "OBS_SPEC",
    "REWARD_MODES",
    "STRUCTURE_OBS_SPEC",
    "BhargConfig",
    "BhargGame",
    "BhargState",
    "Phase",
    "make_layout",
]

HAND_SIZES = {2: 7, 3: 6}  # players -> cards dealt to each
DEFAULT_MAX_TURNS = 200  # turns (draw + discard) before a round ends as a truncated draw
# The largest max_turns, 11x the longest round seen in 600 random-play rounds (899 turns;
# greedy rounds last under 100): the game builds tables of max_turns + 1 entries, so an
# unbounded limit would let a two-line record allocate until the machine runs out.
MAX_TURNS = 10_000
REWARD_MODES = ("score", "win")
OBS_OFFERED = ("cards", "structure", "history")  # the observation modes Bharg has a spec for (setgames.obs)
MAX_TARGET = 127  # largest target_score (scores are observed as int8, capped at the target)
NUM_ACES = 6  # Ace ids 0..5, one per suit
DRAW_DECK, TAKE_DISCARD, DISCARD0 = 0, 1, 2  # action ids: draw, take, discard card c = 2 + c
_SEED_BOUND = 2**63


class Phase(IntEnum):
    """The pending decision of the seat to act."""

    DRAW = 0
    DISCARD = 1
    OVER = 2


@dataclass(frozen=True)
class BhargConfig:
    """Bharg options (see ``bharg_env/README.md``).

    Attributes:
        num_players: 2 (hands of 7) or 3 (hands of 6).
        excuse: add the Excuse (always bound, value 0).
        pawns: add the four Pawns (three suits, value 10).
        courts: add the four Courts (our option; like Pawns).
        target_score: None for one round; else match play until a score reaches it.
        max_turns: turns in a round before it ends as a truncated draw (1..MAX_TURNS).
        reward: ``"score"`` (points per round, zero-sum) or ``"win"`` (+1 / -1 per loser).
        obs: the observation mode (:mod:`setgames.obs`): ``"cards"`` (the default),
            ``"structure"`` (cards followed by the set core's reading, :mod:`bharg_env.structure`)
            or ``"history"`` (cards followed by the public record's last event rows,
            :mod:`bharg_env.history`).
    """

    num_players: int = 2
    excuse: bool = False
    pawns: bool = False
    courts: bool = False
    target_score: int | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    reward: str = "score"
    obs: str = DEFAULT_OBS

    def __post_init__(self) -> None:
        # Checked and stored as plain Python values (a numpy integer becomes an int):
        # records hold the config as JSON.
        put = object.__setattr__
        if not is_integer(self.num_players) or self.num_players not in HAND_SIZES:
            raise ValueError(f"num_players {short_repr(self.num_players)} must be 2 or 3")
        put(self, "num_players", int(self.num_players))
        for name in ("excuse", "pawns", "courts"):
            put(self, name, check_bool(name, getattr(self, name)))
        if self.target_score is not None:
            put(self, "target_score", check_int("target_score", self.target_score, 1, MAX_TARGET))
        put(self, "max_turns", check_int("max_turns", self.max_turns, 1, MAX_TURNS))
        put(self, "reward", check_choice("reward", self.reward, REWARD_MODES))
        put(self, "obs", check_obs(self.obs, OBS_OFFERED))

    def deck(self) -> tuple[int, ...]:
        """Card ids in play, ascending."""
        cards = list(range(NUM_STANDARD))
        if self.pawns:
            cards += PAWN_IDS
        if self.courts:
            cards += COURT_IDS
        if self.excuse:
            cards.append(EXCUSE_ID)
        return tuple(cards)


@dataclass
class BhargState:
    """Everything about a Bharg game (a round, or a match of rounds).

    Piles are lists with the top card last. ``known[s]`` holds the cards seat
    ``s`` took from the discard pile and still holds (public). ``seed`` and
    ``draws`` give every shuffle after the first deal. ``obs_bytes`` (the
    observation pieces) and ``codes`` (each hand's pattern code) are derived
    from the rest and kept current by :meth:`BhargGame.apply`: code that edits
    a state's fields by hand must set both to None (they are then rebuilt).
    """

    hands: list[int]  # card bitmask per seat
    known: list[int]  # cards each seat took from the discard pile and still holds
    deck: list[int]  # draw pile, top last
    discard: list[int]  # discard pile, top last
    aces: list[int]  # Ace Pile, top last
    discard_mask: int  # cards in the discard pile (derived from ``discard``, kept for speed)
    seat: int  # seat to act
    phase: int  # Phase value
    turn: int  # turns completed in this round
    round: int  # 1-based round number
    scores: list[int]  # match scores
    rewards: list[float]  # sum of rewards so far, per seat
    seed: int  # source of the randomness of reshuffles and later deals
    draws: int  # random draws taken from seed so far
    winner: int = -1  # winner of the episode (-1: none yet, or a truncated draw)
    reason: str = ""  # why the episode ended
    truncated: bool = False
    round_points: list[int] = field(default_factory=list)  # last finished round, per seat
    events: list[tuple] = field(default_factory=list)  # public record
    # Derived data: the observation pieces (see BhargGame._obs_cache), built by
    # the first observe() and then patched by apply() (None: rebuild on the next
    # observe). Not part of ==, clone copies it, JSON leaves it out.
    obs_bytes: list | None = field(default=None, compare=False, repr=False)
    # Derived data: each seat's pattern code (setgames.kernels.bharg.pattern_code
    # of its hand) for the win check, built by the first apply() and kept current
    # by it (None: rebuild). Same rules as obs_bytes.
    codes: list[int] | None = field(default=None, compare=False, repr=False)

    def _repr_svg_(self) -> str:
        """A notebook shows the table, every card face up (:mod:`bharg_env.draw`;
        drawn under the default config of this many players: ``BhargGame``'s
        turn limit and single round)."""
        from bharg_env.draw import draw

        return draw(BhargGame(num_players=len(self.hands)), self)


def make_layout() -> ActionLayout:
    """The action layout: draw from the deck, take the discard top, discard a card by id."""
    return ActionLayout([
        ActionBlock("draw", 1, lambda i: "draw deck", "draw the top card of the deck"),
        ActionBlock("take", 1, lambda i: "take discard", "take the top card of the discard pile"),
        ActionBlock("discard", NUM_DECKTET, lambda c: f"discard {DECKTET_NAMES[c]}",
                    "discard card id `i - 2` (masked to the hand); an Ace goes on the Ace Pile"),
    ])


OBS_SPEC = ObsSpec([
    Feature("hand", (NUM_DECKTET,), 1, "my cards, by card id"),
    Feature("ace_top", (NUM_ACES,), 1, "top card of the Ace Pile, one-hot by Ace id (all 0: no Ace Pile)"),
    Feature("ace_pile", (NUM_ACES,), 1, "Aces under the top of the Ace Pile"),
    Feature("discard_top", (NUM_DECKTET,), 1, "top card of the discard pile, one-hot (all 0: empty)"),
    Feature("discard_pile", (NUM_DECKTET,), 1, "cards under the top of the discard pile"),
    Feature("opp_hand_size", (2,), 8,
            "cards held by the next and the next-but-one player (0: no such player)"),
    Feature("opp_known", (2, NUM_DECKTET), 1,
            "cards the next / next-but-one player took from the discard pile and still holds"),
    Feature("deck_size", (), NUM_DECKTET, "cards left in the deck"),
    Feature("phase", (2,), 1, "pending decision, one-hot: [draw, discard] (all 0 once over)"),
    Feature("to_act", (3,), 1, "who acts, one-hot: [me, next, next-but-one] (all 0 once over)"),
    Feature("scores", (3,), MAX_TARGET,
            "match scores of [me, next, next-but-one], capped at target_score (all 0 in one-round play)"),
    Feature("turns_left", (), 127, "turns left before the round ends as a draw, capped at 127"),
])
STRUCTURE_OBS_SPEC = ObsSpec([*OBS_SPEC.features, *STRUCTURE_FEATURES])
HISTORY_SPEC = ObsSpec([*OBS_SPEC.features, *HISTORY_FEATURES])  # the history mode's (bharg_env.history)
"""The ``structure`` mode: :data:`OBS_SPEC`'s cards vector, then the set core's reading
(:mod:`bharg_env.structure`)."""
ACTION_SPEC = ObsSpec(ACTION_FEATURES)
"""One row of the per-action features (:func:`bharg_env.structure.action_features`)."""
_BITS8 = [bytes((b >> k) & 1 for k in range(8)) for b in range(256)]
_BITS16 = [a + b for b in _BITS8 for a in _BITS8]  # 16-bit chunk -> its 16 0/1 bytes
_BITS13 = [x[:13] for x in _BITS16[: 1 << 13]]
_ONEHOT6 = [bytes(1 if i == c else 0 for i in range(NUM_ACES)) for c in range(NUM_ACES)]
_ONEHOT45 = [bytes(1 if i == c else 0 for i in range(NUM_DECKTET)) for c in range(NUM_DECKTET)]
_ZERO1, _ZERO3, _ZERO5, _ZERO12, _ZERO45, _ZERO90 = (bytes(k) for k in (1, 3, 5, 12, 45, 90))
_BYTE = [bytes((i,)) for i in range(128)]
# [phase][seat to act relative to the observer] -> the phase and to_act features
_PHASE_TO_ACT = [[bytes([p == 0, p == 1, r == 0, r == 1, r == 2]) for r in range(3)] for p in range(2)]
_DRAW, _DISCARD, _OVER = int(Phase.DRAW), int(Phase.DISCARD), int(Phase.OVER)  # plain ints: faster
# Per 12-bit chunk j of a hand: the discard action ids of its cards, ascending.
_DISCARDS12 = [[tuple(DISCARD0 + 12 * j + k for k in range(12) if b >> k & 1) for b in range(4096)]
               for j in range(4)]
# Observation offsets. observe() joins kept pieces: the hand [0, ACE_TOP), the
# piles [ACE_TOP, OSIZE) (shared by all seats), the opponents' hand sizes (a
# table row) and known cards (one piece per seat), then deck size, phase and
# to_act (a table row), scores, turns left.
_O = {name: sl.start for name, sl in OBS_SPEC.slices.items()}
_O_ACE_TOP, _O_OSIZE, _O_OKNOWN = _O["ace_top"], _O["opp_hand_size"], _O["opp_known"]
_O_SCORES, _O_TURNS = _O["scores"], _O["turns_left"]
# Offsets inside the pile piece.
_P_ATOP, _P_APILE = 0, _O["ace_pile"] - _O_ACE_TOP
_P_DTOP, _P_DPILE = _O["discard_top"] - _O_ACE_TOP, _O["discard_pile"] - _O_ACE_TOP
_INT8 = np.dtype(np.int8)  # a dtype object: np.frombuffer skips the type -> dtype lookup
_frombuffer = np.frombuffer
_join = bytearray().join  # joins into a new bytearray: the array it backs is writable
# The events of a turn, built once and shared (tuples are immutable): no tuple is
# allocated per step, and none joins the garbage collector's long-lived objects.
_EV_DRAW = [("draw", s) for s in range(3)]
_EV_TAKE = [[("take", s, c) for c in range(NUM_DECKTET)] for s in range(3)]
_EV_DISCARD = [[("discard", s, c) for c in range(NUM_DECKTET)] for s in range(3)]


def _piles_parts(state: BhargState) -> list[bytes]:
    """The Ace Pile and discard pile features of ``state``, in pieces."""
    b16, b13 = _BITS16, _BITS13
    aces = state.aces
    if aces:
        under = 0
        for c in aces[:-1]:
            under |= 1 << c
        parts = [_ONEHOT6[aces[-1]], _BITS8[under][:NUM_ACES]]
    else:
        parts = [_ZERO12]
    disc = state.discard
    if disc:
        m = state.discard_mask ^ (1 << disc[-1])
        parts += [_ONEHOT45[disc[-1]], b16[m & 0xFFFF], b16[m >> 16 & 0xFFFF], b13[m >> 32]]
    else:
        parts.append(_ZERO90)
    return parts


def _views(hands: list[bytearray], piles: bytearray, known: list, score_turns: list,
           turn_view: list) -> list[tuple]:
    """Per observer seat, the pieces :meth:`BhargGame.observe` joins, in one tuple:
    its hand, the piles, the known cards of its next and next-but-one players (the
    all-zero piece when there is none), its scores and turns_left features by turns
    played, and its ``[phase][seat to act]`` rows of ``turn_view``."""
    n = len(hands)
    return [(hands[s], piles, known[(s + 1) % n], known[(s + 2) % n if n == 3 else n], score_turns[s],
             turn_view[s]) for s in range(n)]


def _copy_cache(cache: list) -> list:
    """An independent copy of a state's observation pieces (see :meth:`BhargGame.observe`)."""
    hands, piles, known, score_turns, turn_view, _ = cache
    hands, piles, known = [bytearray(b) for b in hands], bytearray(piles), [bytearray(b) for b in known]
    return [hands, piles, known, score_turns, turn_view, _views(hands, piles, known, score_turns, turn_view)]


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class BhargGame(Game[BhargState]):
    """Bharg under one config (see :class:`BhargConfig` for the options)."""

    name = "bharg"
    env_name = "bharg_v0"
    version = 0
    engine_module = "bharg_env._engine"
    batch_module = "bharg_env._batch"
    search_module = "bharg_env._search"

    def __init__(self, num_players: int = 2, excuse: bool = False, pawns: bool = False,
                 courts: bool = False, target_score: int | None = None,
                 max_turns: int = DEFAULT_MAX_TURNS, reward: str = "score", obs: str = DEFAULT_OBS):
        self.config = cfg = BhargConfig(num_players, excuse, pawns, courts, target_score, max_turns, reward,
                                        obs)
        num_players, target_score, max_turns = cfg.num_players, cfg.target_score, cfg.max_turns
        self.num_players = num_players
        self.hand_size = HAND_SIZES[num_players]
        self.deck_cards = self.config.deck()
        self.layout = make_layout()
        self.obs_specs = {"cards": OBS_SPEC, "structure": STRUCTURE_OBS_SPEC, "history": HISTORY_SPEC}
        self.obs_spec = self.obs_specs[cfg.obs]
        self.action_spec = ACTION_SPEC
        if cfg.obs == "structure":  # an instance attribute: the cards path keeps its speed
            self.observe = self._observe_structure  # type: ignore[method-assign]
        elif cfg.obs == "history":
            self._history_bytes = history_bytes
            self.observe = self._observe_history  # type: ignore[method-assign]
        self._target = target_score
        # turns played -> the turns_left feature (turn never exceeds max_turns)
        self._turns_left = [_BYTE[min(max_turns - t, 127)] for t in range(max_turns + 1)]
        # ... and the scores and turns_left features, when scores are not observed (one-round play)
        self._score_turns = [_ZERO3 + t for t in self._turns_left]
        n = num_players
        self._win_rewards = {w: tuple(1.0 if s == w else -1.0 for s in range(n)) for w in range(n)}
        self._next_seat = [(p + 1) % n for p in range(n)]
        self._max_turns = max_turns
        # [phase][seat to act][observer][deck size] -> the deck_size, phase and to_act bytes.
        self._tail = [[[[_BYTE[d] + (_PHASE_TO_ACT[ph][(a - s) % n] if ph != _OVER else _ZERO5)
                        for d in range(NUM_DECKTET + 1)] for s in range(n)] for a in range(n)]
                     for ph in (_DRAW, _DISCARD, _OVER)]

    # ------------------------------------------------------------- life cycle
    def new_state(self, rng: np.random.Generator) -> BhargState:
        """Deal round 1; ``rng`` gives the seed of every later shuffle too."""
        n = self.num_players
        state = BhargState(hands=[0] * n, known=[0] * n, deck=[], discard=[], aces=[], discard_mask=0, seat=0,
                           phase=_DRAW, turn=0, round=1, scores=[0] * n, rewards=[0.0] * n,
                           seed=int(rng.integers(_SEED_BOUND)), draws=0, round_points=[0] * n)
        self._deal(state)
        return state

    def _rng(self, state: BhargState) -> np.random.Generator:
        # np.random.Generator(np.random.PCG64([state.seed, state.draws])), seeded cheaply.
        gen = fast_generator((state.seed, state.draws))
        state.draws += 1
        return gen

    def _deal(self, state: BhargState) -> None:
        n = self.num_players
        first = (state.round - 1) % n
        order = self._rng(state).permutation(len(self.deck_cards))
        deck = [self.deck_cards[i] for i in order.tolist()]
        hands = [0] * n
        for _ in range(self.hand_size):
            for k in range(n):
                hands[(first + k) % n] |= 1 << deck.pop()
        state.hands, state.known = hands, [0] * n
        state.aces, state.discard = [], []
        state.events.append(("deal", state.round, first))
        while True:
            c = deck.pop()
            if c < NUM_ACES:
                state.aces.append(c)
                state.events.append(("ace_pile", c))
            else:
                state.discard.append(c)
                state.discard_mask = 1 << c
                state.events.append(("start_discard", c))
                break
        state.deck = deck
        state.seat, state.phase, state.turn = first, _DRAW, 0
        state.obs_bytes = state.codes = None

    def current_seat(self, state: BhargState) -> int:
        """Seat to act, -1 once over."""
        return -1 if state.phase == _OVER else state.seat

    def can_draw_deck(self, state: BhargState) -> bool:
        """True when the deck, or the reshuffle it would trigger, has a card."""
        return bool(state.deck) or len(state.discard) > 1 or len(state.aces) > 1

    def legal_actions(self, state: BhargState) -> list[int]:
        """Sorted legal action ids (empty once over)."""
        phase = state.phase
        if phase == _DISCARD:
            h = state.hands[state.seat]
            t = _DISCARDS12
            return [*t[0][h & 4095], *t[1][h >> 12 & 4095], *t[2][h >> 24 & 4095], *t[3][h >> 36]]
        if phase == _OVER:
            return []
        if state.deck or len(state.discard) > 1 or len(state.aces) > 1:
            return [DRAW_DECK, TAKE_DISCARD] if state.discard else [DRAW_DECK]
        return [TAKE_DISCARD] if state.discard else []

    def apply(self, state: BhargState, action: int) -> tuple[float, ...] | None:
        """Play a legal ``action``; returns the rewards on a step that ends a round.

        When the state carries observation pieces (built by the first
        :meth:`observe`), the bytes the action changes are patched here: the
        acting seat's hand and known cards, and the shared piles (once, not
        once per seat); everything else (hand sizes, deck size, phase, turns)
        :meth:`observe` reads from tables. The pattern code of the acting
        seat's hand moves with its cards, so the win check is one lookup.
        """
        seat = state.seat
        codes = state.codes
        if codes is None:
            codes = state.codes = [pattern_code(h) for h in state.hands]
        cache = state.obs_bytes
        if state.phase == _DRAW:
            if action == DRAW_DECK:
                deck = state.deck
                if not deck:
                    self._reshuffle(state)
                    deck = state.deck
                    if cache is not None:  # in place: the observers' views hold this bytearray
                        cache[1][:] = self._piles_bytes(state)
                card = deck.pop()
                state.hands[seat] |= 1 << card
                state.events.append(_EV_DRAW[seat])
                if cache is not None:
                    cache[0][seat][card] = 1
            else:
                discard = state.discard
                card = discard.pop()
                state.discard_mask ^= 1 << card
                state.hands[seat] |= 1 << card
                state.known[seat] |= 1 << card
                state.events.append(_EV_TAKE[seat][card])
                if cache is not None:
                    cache[0][seat][card] = 1
                    cache[2][seat][card] = 1
                    b = cache[1]
                    b[_P_DTOP + card] = 0
                    if discard:
                        top = discard[-1]
                        b[_P_DTOP + top] = 1
                        b[_P_DPILE + top] = 0
            codes[seat] += CARD_CODES[card]
            state.phase = _DISCARD
            return None
        card = action - DISCARD0
        bit = 1 << card
        state.hands[seat] ^= bit
        known = state.known[seat]
        if known & bit:
            state.known[seat] = known ^ bit
            if cache is not None:
                cache[2][seat][card] = 0
        aces = state.aces
        if card < NUM_ACES:
            if cache is not None:
                b = cache[1]
                if aces:
                    b[_P_ATOP + aces[-1]] = 0
                    b[_P_APILE + aces[-1]] = 1
                b[_P_ATOP + card] = 1
            aces.append(card)
        else:
            discard = state.discard
            if cache is not None:
                b = cache[1]
                if discard:
                    b[_P_DTOP + discard[-1]] = 0
                    b[_P_DPILE + discard[-1]] = 1
                b[_P_DTOP + card] = 1
            discard.append(card)
            state.discard_mask |= bit
        if cache is not None:
            cache[0][seat][card] = 0
        state.events.append(_EV_DISCARD[seat][card])
        code = codes[seat] = codes[seat] - CARD_CODES[card]
        if all_bound_code(code, aces[-1] if aces else -1):
            if self._target is not None:
                state.obs_bytes = None  # the scores feature changes
            return self._end_round(state, seat)
        turn = state.turn = state.turn + 1
        if turn >= self._max_turns:  # the observation pieces stay right: nothing they hold moved
            state.phase, state.truncated, state.reason = _OVER, True, "turn limit"
            state.round_points = [0] * self.num_players
            state.events.append(("turn_limit", state.round))
            return (0.0,) * self.num_players
        state.seat = self._next_seat[seat]
        state.phase = _DRAW
        return None

    def _reshuffle(self, state: BhargState) -> None:
        cards = sorted(state.discard[:-1] + state.aces[:-1])
        state.discard, state.aces = state.discard[-1:], state.aces[-1:]
        state.discard_mask = _mask(state.discard)
        order = self._rng(state).permutation(len(cards))
        state.deck = [cards[i] for i in order.tolist()]
        state.events.append(("reshuffle", len(cards)))

    def conceded(self, state: BhargState, seat: int) -> int:
        """Value of ``seat``'s unbound cards under their best arrangement."""
        return evaluate(state.hands[seat], state.aces[-1] if state.aces else None).unbound_value

    def _end_round(self, state: BhargState, winner: int) -> tuple[float, ...] | None:
        n = self.num_players
        lost = [0 if s == winner else self.conceded(state, s) for s in range(n)]
        points = sum(lost)
        state.round_points = [points if s == winner else -lost[s] for s in range(n)]
        state.scores[winner] += points
        state.events.append(("win", state.round, winner, points))
        cfg = self.config
        match_over = cfg.target_score is None or state.scores[winner] >= cfg.target_score
        if cfg.reward == "score":
            rewards: tuple[float, ...] | None = tuple(float(x) for x in state.round_points)
        else:
            rewards = self._win_rewards[winner] if match_over else None
        if rewards is not None:
            state.rewards = [a + b for a, b in zip(state.rewards, rewards, strict=True)]
        if match_over:
            state.phase, state.winner = _OVER, winner
            state.reason = "all bound" if cfg.target_score is None else "target reached"
        else:
            state.round += 1
            self._deal(state)
        return rewards

    def is_over(self, state: BhargState) -> bool:
        """True once the round (or match) has ended."""
        return state.phase == _OVER

    def is_truncated(self, state: BhargState) -> bool:
        """True when the turn limit ended the game."""
        return state.truncated

    def returns(self, state: BhargState) -> tuple[float, ...]:
        """Sum of each seat's rewards so far."""
        return tuple(state.rewards)

    # ------------------------------------------------------------- observation
    def observe(self, state: BhargState, seat: int) -> np.ndarray:
        """``seat``'s view as a new int8 vector laid out by :data:`OBS_SPEC`."""
        if type(seat) is not int or not 0 <= seat < self.num_players:  # (seat -1: the last seat's view)
            seat = observer_seat(seat, self.num_players)
        cache = state.obs_bytes
        if cache is None:
            cache = self._obs_cache(state)
        hand, piles, known_next, known_after, score_turns, turn_view = cache[5][seat]
        sizes, tails = turn_view[state.phase][state.seat]
        # One join of kept pieces: cheaper than patching a full copy per seat each step.
        return _frombuffer(_join((hand, piles, sizes, known_next, known_after, tails[len(state.deck)],
                                  score_turns[state.turn])), _INT8)

    def action_features(self, state: BhargState, seat: int) -> np.ndarray:
        """Per-action features (:data:`ACTION_SPEC` rows, :func:`bharg_env.structure.action_features`):
        ``(num_actions, ACTION_SPEC.size)`` int8, zero rows for actions not legal to ``seat``."""
        return _action_features(self, state, observer_seat(seat, self.num_players))

    def _observe_structure(self, state: BhargState, seat: int) -> np.ndarray:
        """``seat``'s view in the ``structure`` mode: the cards vector, then
        :func:`bharg_env.structure.structure_block`."""
        cards = BhargGame.observe(self, state, seat)
        return np.concatenate([cards, structure_block(self, state, observer_seat(seat, self.num_players))])

    def _observe_history(self, state: BhargState, seat: int) -> np.ndarray:
        """``seat``'s view in the ``history`` mode: the cards vector, then
        :func:`bharg_env.history.history_bytes`."""
        seat = observer_seat(seat, self.num_players)
        cards = BhargGame.observe(self, state, seat)
        return np.concatenate([cards, _frombuffer(self._history_bytes(state, seat), _INT8)])

    def _obs_cache(self, state: BhargState) -> list:
        """Build the observation pieces :meth:`apply` keeps current: per seat its hand,
        the piles (shared), per seat the cards others know it holds (then an
        all-zero piece), per seat the scores and turns_left features by turns
        played, by ``[observer][phase][seat to act]`` the opp_hand_size feature
        and the row of ``_tail``, and each observer's pieces (:func:`_views`)."""
        full = [self.observation_bytes(state, s) for s in range(self.num_players)]
        n = self.num_players
        # Hand sizes only move by the actor's draw (+1, to the discard phase) and
        # discard (-1, to the next seat's draw or the end of the round; a new
        # round drops the pieces), so each seat's size outside its own discard
        # phase fixes them all.
        actor, phase = state.seat, state.phase
        base = [h.bit_count() - (s == actor and phase == _DISCARD) for s, h in enumerate(state.hands)]
        # [observer][phase][seat to act] -> the opp_hand_size bytes and the row of _tail
        turn_view = [[[(bytes((base[(s + 1) % n] + (ph == _DISCARD and a == (s + 1) % n),
                                base[(s + 2) % n] + (ph == _DISCARD and a == (s + 2) % n) if n == 3 else 0)),
                         self._tail[ph][a][s])
                        for a in range(n)] for ph in (_DRAW, _DISCARD, _OVER)] for s in range(n)]
        hands = [b[:_O_ACE_TOP] for b in full]
        piles = full[0][_O_ACE_TOP:_O_OSIZE]
        # seat p's known cards, as the seat before p sees them (its next player)
        known = [full[(p - 1) % n][_O_OKNOWN:_O_OKNOWN + NUM_DECKTET] for p in range(n)] + [_ZERO45]
        # per seat, turns played -> the scores and turns_left features
        score_turns = [self._score_turns if self._target is None
                       else [bytes(b[_O_SCORES:_O_TURNS]) + t for t in self._turns_left] for b in full]
        cache = state.obs_bytes = [hands, piles, known, score_turns, turn_view,
                                   _views(hands, piles, known, score_turns, turn_view)]
        return cache

    def _piles_bytes(self, state: BhargState) -> bytearray:
        """The shared pile bytes (Ace Pile and discard pile features) from scratch."""
        return bytearray(b"".join(_piles_parts(state)))

    def observation_bytes(self, state: BhargState, seat: int) -> bytearray:
        """``seat``'s view built from scratch (what :meth:`observe` keeps current)."""
        # One bytes concatenation of table pieces: the cheapest build measured here.
        b16, b13 = _BITS16, _BITS13
        h = state.hands[seat]
        parts = [b16[h & 0xFFFF], b16[h >> 16 & 0xFFFF], b13[h >> 32], *_piles_parts(state)]
        n = self.num_players
        hands, known = state.hands, state.known
        if n == 2:
            other = 1 - seat
            k = known[other]
            parts += [_BYTE[hands[other].bit_count()], _ZERO1,
                      b16[k & 0xFFFF], b16[k >> 16 & 0xFFFF], b13[k >> 32], _ZERO45]
        else:
            o1, o2 = (seat + 1) % 3, (seat + 2) % 3
            k1, k2 = known[o1], known[o2]
            parts += [_BYTE[hands[o1].bit_count()], _BYTE[hands[o2].bit_count()],
                      b16[k1 & 0xFFFF], b16[k1 >> 16 & 0xFFFF], b13[k1 >> 32],
                      b16[k2 & 0xFFFF], b16[k2 >> 16 & 0xFFFF], b13[k2 >> 32]]
        phase = state.phase
        parts.append(_BYTE[len(state.deck)])
        parts.append(_PHASE_TO_ACT[phase][(state.seat - seat) % n] if phase != _OVER else _ZERO5)
        target = self._target
        if target is None:
            parts.append(_ZERO3)
        else:
            sc = state.scores
            parts.append(bytes([min(sc[(seat + j) % n], target) for j in range(n)] + [0] * (3 - n)))
        parts.append(self._turns_left[state.turn])
        return bytearray(b"".join(parts))

    def outcome(self, state: BhargState) -> dict[str, Any]:
        """Winner, reason, scores, last round's points and the rewards so far."""
        return {
            "winner": state.winner,
            "reason": state.reason,
            "truncated": state.truncated,
            "round": state.round,
            "scores": list(state.scores),
            "round_points": list(state.round_points),
            "returns": list(state.rewards),
        }

    def outcome_info(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The final infos' numbers: ``winner`` (-1 none), ``truncated``,
        ``round``, and over seats ``scores``, ``round_points`` and ``returns``."""
        return {
            "winner": int(outcome["winner"]),
            "truncated": bool(outcome["truncated"]),
            "round": int(outcome["round"]),
            "scores": np.asarray(outcome["scores"], dtype=np.int64),
            "round_points": np.asarray(outcome["round_points"], dtype=np.int64),
            "returns": np.asarray(outcome["returns"], dtype=np.float32),
        }

    # ------------------------------------------------------------- state tools
    def clone(self, state: BhargState) -> BhargState:
        """An independent copy."""
        return BhargState(
            list(state.hands), list(state.known), list(state.deck), list(state.discard),
            list(state.aces), state.discard_mask, state.seat, state.phase, state.turn, state.round,
            list(state.scores),
            list(state.rewards), state.seed, state.draws, state.winner, state.reason,
            state.truncated, list(state.round_points), list(state.events),
            None if state.obs_bytes is None else _copy_cache(state.obs_bytes),
            None if state.codes is None else list(state.codes),
        )

    def to_json(self, state: BhargState) -> dict[str, Any]:
        """JSON-able dict; :meth:`from_json` inverts it exactly."""
        return {
            "hands": list(state.hands), "known": list(state.known), "deck": list(state.deck),
            "discard": list(state.discard), "aces": list(state.aces), "seat": state.seat,
            "phase": int(state.phase), "turn": state.turn, "round": state.round,
            "scores": list(state.scores), "rewards": list(state.rewards), "seed": state.seed,
            "draws": state.draws, "winner": state.winner, "reason": state.reason,
            "truncated": state.truncated, "round_points": list(state.round_points),
            "events": [list(e) for e in state.events],
        }

    _JSON_FIELDS = ("hands", "known", "deck", "discard", "aces", "seat", "phase", "turn", "round",
                    "scores", "rewards", "seed", "draws", "winner", "reason", "truncated",
                    "round_points", "events")

    def from_json(self, data: dict[str, Any]) -> BhargState:
        """Rebuild a state written by :meth:`to_json`.

        Raises:
            ValueError: data that is not a state of this game (see :meth:`validate`), one line.
        """
        if not isinstance(data, dict):
            raise StateError(f"a Bharg state is a JSON object, not {type(data).__name__}")
        missing = [k for k in self._JSON_FIELDS if k not in data]
        if missing:
            raise StateError(f"Bharg state data lacks {missing}")
        d = data
        discard = check_ids(d["discard"], "discard", NUM_ACES, NUM_DECKTET - 1, max_len=NUM_DECKTET)
        rewards = check_list(d["rewards"], "rewards", self.num_players)
        for i, r in enumerate(rewards):
            check_float(r, f"rewards[{i}]")
        state = BhargState(
            check_list(d["hands"], "hands"), check_list(d["known"], "known"), check_list(d["deck"], "deck"),
            discard, check_list(d["aces"], "aces"), _mask(discard), d["seat"], d["phase"], d["turn"],
            d["round"], check_list(d["scores"], "scores"), [float(r) for r in rewards], d["seed"],
            d["draws"], d["winner"], d["reason"], d["truncated"],
            check_list(d["round_points"], "round_points"),
            [tuple(e) if isinstance(e, list) else e for e in check_list(d["events"], "events")],
        )
        self.validate(state)
        return state

    def validate(self, state: BhargState) -> None:
        """Raise ``ValueError`` unless this game could produce ``state`` (see
        :mod:`bharg_env.validate`: types, ranges, every card once, hand sizes,
        turn and scores under their limits)."""
        if not isinstance(state, BhargState):
            raise StateError(f"not a Bharg state: {type(state).__name__}")
        validate_state(self, state)
        legal_actions_consistent(self.legal_actions(state), self.layout.n, state.phase == _OVER)
        if state.obs_bytes is not None:  # derived pieces the rules layer patches: must be current
            try:
                ok = all(BhargGame.observe(self, state, s).tobytes() == self.observation_bytes(state, s)
                         for s in range(self.num_players))
            except (TypeError, ValueError, IndexError, KeyError, AttributeError):
                ok = False
            if not ok:
                raise StateError("obs_bytes (derived) do not match the state: set it to None "
                                 "after editing a state")

    def determinize(self, state: BhargState, seat: int, rng: np.random.Generator) -> BhargState:
        """A copy where the deck order, the opponents' hidden cards and the seed of
        future shuffles are re-drawn from what ``seat`` has not seen; cards an
        opponent took from the discard pile stay in that opponent's hand."""
        if type(seat) is not int or not 0 <= seat < self.num_players:
            seat = observer_seat(seat, self.num_players)
        twin = self.clone(state)
        n = self.num_players
        unseen = list(state.deck)
        for s in range(n):
            if s != seat:
                unseen += bit_list(state.hands[s] & ~state.known[s])
        unseen.sort()
        order = rng.permutation(len(unseen)).tolist()
        pool = [unseen[i] for i in order]
        for s in range(n):
            if s != seat:
                hidden = state.hands[s].bit_count() - state.known[s].bit_count()
                twin.hands[s] = state.known[s] | _mask(pool[:hidden])
                pool = pool[hidden:]
        twin.deck = pool
        twin.seed = int(rng.integers(_SEED_BOUND))
        twin.obs_bytes = twin.codes = None  # the hidden hands changed
        return twin

    # ------------------------------------------------------------- text
    def render(self, state: BhargState, seat: int | None = None) -> str:
        """The table as text: everything when ``seat`` is None, else ``seat``'s view."""
        n = self.num_players
        cfg = self.config
        lines = [f"Bharg, {n} players, round {state.round}, turn {state.turn}/{cfg.max_turns}"]
        if state.phase == _OVER:
            who = "nobody" if state.winner < 0 else f"player_{state.winner}"
            lines.append(f"Over: {state.reason}; winner {who}")
        else:
            lines.append(f"To act: player_{state.seat} ({Phase(state.phase).name.lower()})")
        aces = state.aces
        disc = state.discard
        for title, pile in (("Ace Pile", aces), ("Discard", disc)):
            top = f"{DECKTET_SHORT[pile[-1]]} ({len(pile) - 1} under)" if pile else "empty"
            lines.append(f"{title}: {top}")
        lines.append(f"Deck: {len(state.deck)} cards")
        for s in range(n):
            mark = ">" if s == state.seat and state.phase != _OVER else " "
            score = f" score {state.scores[s]}" if cfg.target_score is not None else ""
            if seat is None or s == seat:
                cards = " ".join(DECKTET_SHORT[c] for c in bit_list(state.hands[s]))
            else:
                cards = f"[{state.hands[s].bit_count()} cards]"
                if state.known[s]:
                    cards += " known: " + " ".join(DECKTET_SHORT[c] for c in bit_list(state.known[s]))
            lines.append(f"{mark} player_{s}{score}: {cards}")
        return "\n".join(lines)

    # ------------------------------------------------------------- actions
    def str_to_action(self, text: str) -> int:
        """Action id of a label (``"draw deck"``, ``"take discard"``, ``"discard Pact"``);
        a card's short code also works (``"discard 9MS"``)."""
        try:
            return self.layout.parse(text)
        except ValueError:
            words = str(text).split(maxsplit=1)
            if len(words) == 2 and words[0].lower() == "discard":
                return DISCARD0 + card_from_name(words[1])
            raise
