# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, auto_pickle=False
"""Bharg's compiled engine: the per-step hot path of :mod:`bharg_env.rules` in C.

The protocol and the reasons are in :mod:`setgames.engine`. The rules layer
stays the reference; this module holds a game's state in C arrays and bitmasks
and plays the steps a game repeats (draw, take, discard, the win check, the
turn limit) in typed code, and builds masks and observations from that state.

Where each piece comes from (nothing about the game is derived here):

- the win check is :func:`setgames.kernels.bharg.all_bound_code` on the C copy
  of that kernel's own tables: the per-card pattern codes (``CARD_CODES``),
  the non-anchor field masks, the two cuckoo hash tables of its all-bound
  table and the anchor requirements per row (the arrays its batch path uses);
- action ids and observation offsets are read from :mod:`bharg_env.rules`;
- the rare paths run the rules layer's Python: the end of a round (scoring
  with :func:`~setgames.kernels.bharg.evaluate`, rewards, the next deal in
  match play) goes through ``BhargGame._end_round`` on a state built from the
  engine's, and a reshuffle draws its order from
  ``fast_generator((seed, draws))`` exactly as ``BhargGame._reshuffle`` does.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc
from libc.string cimport memcpy, memset

cimport numpy as cnp

import numpy as np

cnp.import_array()

from bharg_env import rules as _rules
from setgames.engine import rebuild as _from_json_state
from setgames.cards import NUM_DECKTET as _NUM_DECKTET
from setgames.kernels import bharg as _kernel
from setgames.seeding import fast_generator

__all__ = ["Engine"]

# ----------------------------------------------------------------- constants
cdef enum:
    NCARDS = 45      # card ids 0..44 (checked against setgames.cards at import)
    MAXPILE = 48     # room for every card in one pile
    OBS_ROOM = 320   # observation scratch: the size plus room for 8-byte spills

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

assert _NUM_DECKTET == NCARDS
cdef int DRAW_DECK = _rules.DRAW_DECK
cdef int DISCARD0 = _rules.DISCARD0
cdef int NUM_ACES = _rules.NUM_ACES
cdef int PH_DRAW = int(_rules.Phase.DRAW)
cdef int PH_DISCARD = int(_rules.Phase.DISCARD)
cdef int PH_OVER = int(_rules.Phase.OVER)
cdef int NUM_ACTIONS = _rules.make_layout().n
assert _rules.TAKE_DISCARD == DRAW_DECK + 1 and NUM_ACTIONS == DISCARD0 + NCARDS
assert PH_DRAW == 0 and PH_DISCARD == 1  # the phase feature is one-hot [draw, discard]

# Observation offsets, from the rules layer's ObsSpec.
_SL = _rules.OBS_SPEC.slices
cdef int O_HAND = _SL["hand"].start
cdef int O_ACE_TOP = _SL["ace_top"].start
cdef int O_ACE_PILE = _SL["ace_pile"].start
cdef int O_DTOP = _SL["discard_top"].start
cdef int O_DPILE = _SL["discard_pile"].start
cdef int O_OSIZE = _SL["opp_hand_size"].start
cdef int O_OKNOWN = _SL["opp_known"].start
cdef int O_DECK = _SL["deck_size"].start
cdef int O_PHASE = _SL["phase"].start
cdef int O_TO_ACT = _SL["to_act"].start
cdef int O_SCORES = _SL["scores"].start
cdef int O_TURNS = _SL["turns_left"].start
cdef int OBS_SIZE = _rules.OBS_SPEC.size
assert OBS_SIZE + 8 <= OBS_ROOM
# observe() writes the features in this order, the card-mask ones 8 bytes at a
# time (each spilling up to 3 bytes into the next feature, which is written
# after): it relies on this layout, checked here.
_WIDTHS = {"hand": NCARDS, "ace_top": 6, "ace_pile": 6, "discard_top": NCARDS, "discard_pile": NCARDS,
           "opp_hand_size": 2, "opp_known": 2 * NCARDS, "deck_size": 1, "phase": 2, "to_act": 3,
           "scores": 3, "turns_left": 1}
assert list(_SL) == list(_WIDTHS) and _SL["hand"].start == 0, "Bharg's observation layout changed"
assert all(_SL[k].stop - _SL[k].start == w for k, w in _WIDTHS.items()), "Bharg's observation layout changed"
assert all(_SL[a].stop == _SL[b].start for a, b in zip(list(_SL), list(_SL)[1:])), "a gap in the layout"

# The win check: setgames.kernels.bharg's tables, copied to C.
cdef uint64_t CARD_CODE[NCARDS]
cdef uint64_t NONANCHOR[7]
cdef uint64_t EVEN = _kernel._EVEN
cdef uint64_t GUARD = _kernel._GUARD
cdef uint64_t HMULT0 = _kernel._HASH_MULTS[0]
cdef uint64_t HMULT1 = _kernel._HASH_MULTS[1]
cdef int HSHIFT = 64 - _kernel._HASH_BITS
cdef int HSIZE = 1 << _kernel._HASH_BITS
cdef uint64_t *CK_KEY0
cdef uint64_t *CK_KEY1
cdef int *CK_ROW0
cdef int *CK_ROW1
cdef uint64_t *REQ_E   # [row * REQ_W + k]: requirement k of a row, even pattern fields
cdef uint64_t *REQ_O   # ... odd pattern fields (shifted down by 2)
cdef int REQ_W
# bits of a byte -> those 8 bits as 0/1 bytes (little-endian: byte i = bit i)
cdef uint64_t EXPAND[256]


cdef void _init_tables() except *:
    """Copy the kernel's win-check tables to C (once, at import; never freed)."""
    global CK_KEY0, CK_KEY1, CK_ROW0, CK_ROW1, REQ_E, REQ_O, REQ_W
    cdef int i, k, rows
    for i in range(NCARDS):
        CARD_CODE[i] = _kernel.CARD_CODES[i]
    for i in range(7):
        NONANCHOR[i] = _kernel._NONANCHOR_FIELDS[i]
    keys = _kernel._CK_KEY.tolist()
    slots = _kernel._CK_ROW.tolist()
    assert len(keys) == 2 and len(keys[0]) == HSIZE
    CK_KEY0 = <uint64_t *> malloc(HSIZE * sizeof(uint64_t))
    CK_KEY1 = <uint64_t *> malloc(HSIZE * sizeof(uint64_t))
    CK_ROW0 = <int *> malloc(HSIZE * sizeof(int))
    CK_ROW1 = <int *> malloc(HSIZE * sizeof(int))
    if CK_KEY0 is NULL or CK_KEY1 is NULL or CK_ROW0 is NULL or CK_ROW1 is NULL:
        raise MemoryError("bharg_env._engine: the win-check tables")
    for i in range(HSIZE):
        CK_KEY0[i] = keys[0][i]
        CK_KEY1[i] = keys[1][i]
        CK_ROW0[i] = slots[0][i]
        CK_ROW1[i] = slots[1][i]
    req = _kernel._REQ_SPLIT  # (2, width, rows)
    REQ_W = req.shape[1]
    rows = req.shape[2]
    even = req[0].T.tolist()
    odd = req[1].T.tolist()
    REQ_E = <uint64_t *> malloc(rows * REQ_W * sizeof(uint64_t))
    REQ_O = <uint64_t *> malloc(rows * REQ_W * sizeof(uint64_t))
    if REQ_E is NULL or REQ_O is NULL:
        raise MemoryError("bharg_env._engine: the win-check tables")
    for i in range(rows):
        for k in range(REQ_W):
            REQ_E[i * REQ_W + k] = even[i][k]
            REQ_O[i * REQ_W + k] = odd[i][k]
    for i in range(256):
        EXPAND[i] = 0
        for k in range(8):
            if i >> k & 1:
                EXPAND[i] |= (<uint64_t> 1) << (8 * k)


_init_tables()


cdef inline bint all_bound_code(uint64_t code, int ace_top) noexcept nogil:
    """:func:`setgames.kernels.bharg.all_bound_code`, on the C copy of its tables."""
    cdef int a = ace_top + 1
    cdef uint64_t ncode = code & NONANCHOR[a]
    if ncode == 0:
        return True
    cdef uint64_t key = (<uint64_t> a) << 50 | ncode
    cdef uint64_t s = (key * HMULT0) >> HSHIFT
    cdef int row
    if CK_KEY0[s] == key:
        row = CK_ROW0[s]
    else:
        s = (key * HMULT1) >> HSHIFT
        if CK_KEY1[s] != key:
            return False
        row = CK_ROW1[s]
    cdef uint64_t have = code ^ ncode
    cdef uint64_t he = (have & EVEN) | GUARD
    cdef uint64_t ho = ((have >> 2) & EVEN) | GUARD
    cdef int k
    cdef int base = row * REQ_W
    for k in range(REQ_W):
        if ((he - REQ_E[base + k]) & GUARD) == GUARD and ((ho - REQ_O[base + k]) & GUARD) == GUARD:
            return True
    return False


cdef inline void put_bits(char *out, uint64_t m, int nbytes) noexcept nogil:
    """Write the low ``8 * nbytes`` bits of ``m`` as 0/1 bytes (8 at a time)."""
    cdef int j
    cdef uint64_t w
    for j in range(nbytes):
        w = EXPAND[(m >> (8 * j)) & 255]
        memcpy(out + 8 * j, &w, 8)


cdef inline int popcount(uint64_t m) noexcept nogil:
    return __builtin_popcountll(m)


# The public events of a step, shared tuples as in the rules layer (equal either way).
_EV_DRAW = [("draw", s) for s in range(3)]
_EV_TAKE = [("take", s, c) for s in range(3) for c in range(NCARDS)]
_EV_DISCARD = [("discard", s, c) for s in range(3) for c in range(NCARDS)]


# ----------------------------------------------------------------- fresh int8 arrays
cdef cnp.npy_intp OBS_DIMS[1]
cdef cnp.npy_intp MASK_DIMS[1]
OBS_DIMS[0] = OBS_SIZE
MASK_DIMS[0] = NUM_ACTIONS


cdef inline object _new_int8(cnp.npy_intp *dims):
    """A new writable int8 array of shape ``dims`` (numpy's C constructor: a third of
    what np.frombuffer over a new bytearray costs, which is more than the rest of observe)."""
    return cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT8, 0)


cdef class Engine:
    """Bharg under one :class:`~bharg_env.rules.BhargGame`'s config, stepped in C.

    ``load`` copies a rules-layer state in; ``apply``, ``mask``, ``observe``,
    ``legal_actions`` and ``current_seat`` then run on the C state;
    ``to_json`` and ``outcome`` give the rules layer's dicts back.
    """

    # config
    cdef object game
    cdef int n, target          # target -1: one-round play
    cdef long long max_turns   # any positive int (the rules layer bounds it by nothing)
    cdef tuple zero_rewards
    # state (the rules layer's BhargState fields)
    cdef uint64_t hands[3]
    cdef uint64_t known[3]
    cdef uint64_t codes[3]      # pattern code of each hand (kernel.pattern_code)
    cdef int deck[MAXPILE]      # top last
    cdef int deck_len
    cdef int discard[MAXPILE]   # top last
    cdef int disc_len
    cdef uint64_t disc_mask     # cards in the discard pile
    cdef int aces[MAXPILE]      # Ace Pile, top last
    cdef int aces_len
    cdef uint64_t ace_under     # Aces under the top of the Ace Pile
    cdef int seat, phase, round, winner
    cdef long long turn
    cdef bint truncated
    cdef long long scores[3]
    cdef double rewards[3]
    cdef object seed
    cdef long long draws
    cdef str reason
    cdef list round_points
    cdef list events
    cdef list ev_draw, ev_take, ev_discard

    def __init__(self, game):
        """An engine for ``game`` (a :class:`~bharg_env.rules.BhargGame`); no state until ``load``."""
        self.game = game
        self.n = game.num_players
        self.max_turns = game.config.max_turns
        t = game.config.target_score
        self.target = -1 if t is None else t
        self.zero_rewards = (0.0,) * self.n
        self.ev_draw, self.ev_take, self.ev_discard = _EV_DRAW, _EV_TAKE, _EV_DISCARD
        self.phase = PH_OVER
        self.events = []
        self.round_points = []
        self.reason = ""
        self.seed = 0

    # ------------------------------------------------------------- state in / out
    def load(self, state):
        """Copy the rules-layer ``state`` in (it is neither kept nor changed).

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied (the C below trusts its ids).
        """
        self.game.validate(state)
        self._load(state, list(state.events))

    cdef _load(self, state, list events):
        """Copy ``state`` in, keeping ``events`` as the engine's event list."""
        cdef int s, i, c
        cdef uint64_t h, code
        n = self.n
        if len(state.hands) != n:
            raise ValueError(f"a state of {len(state.hands)} players loaded into a {n}-player engine")
        if max(len(state.deck), len(state.discard), len(state.aces)) > MAXPILE:
            raise ValueError(f"a pile of the state holds more than the {MAXPILE} cards an engine pile can")
        for s in range(n):
            h = state.hands[s]
            self.hands[s] = h
            self.known[s] = state.known[s]
            code = 0
            while h:
                c = __builtin_ctzll(h)
                code += CARD_CODE[c]
                h &= h - 1
            self.codes[s] = code
            self.scores[s] = state.scores[s]
            self.rewards[s] = state.rewards[s]
        self.deck_len = len(state.deck)
        for i in range(self.deck_len):
            self.deck[i] = state.deck[i]
        self.disc_len = len(state.discard)
        self.disc_mask = 0
        for i in range(self.disc_len):
            c = state.discard[i]
            self.discard[i] = c
            self.disc_mask |= (<uint64_t> 1) << c
        self.aces_len = len(state.aces)
        self.ace_under = 0
        for i in range(self.aces_len):
            c = state.aces[i]
            self.aces[i] = c
            if i < self.aces_len - 1:
                self.ace_under |= (<uint64_t> 1) << c
        self.seat = state.seat
        self.phase = int(state.phase)
        self.turn = state.turn
        self.round = state.round
        self.seed = state.seed
        self.draws = state.draws
        self.winner = state.winner
        self.reason = state.reason
        self.truncated = state.truncated
        self.round_points = list(state.round_points)
        self.events = events

    cdef object _state(self):
        """A rules-layer state of the engine's (sharing its events list)."""
        n = self.n
        discard = [self.discard[i] for i in range(self.disc_len)]
        return _rules.BhargState(
            [self.hands[s] for s in range(n)], [self.known[s] for s in range(n)],
            [self.deck[i] for i in range(self.deck_len)], discard,
            [self.aces[i] for i in range(self.aces_len)], self.disc_mask, self.seat, self.phase,
            self.turn, self.round, [self.scores[s] for s in range(n)], [self.rewards[s] for s in range(n)],
            self.seed, self.draws, self.winner, self.reason, self.truncated, list(self.round_points),
            self.events)

    def to_json(self):
        """``game.to_json`` of the engine's state."""
        n = self.n
        return {
            "hands": [self.hands[s] for s in range(n)], "known": [self.known[s] for s in range(n)],
            "deck": [self.deck[i] for i in range(self.deck_len)],
            "discard": [self.discard[i] for i in range(self.disc_len)],
            "aces": [self.aces[i] for i in range(self.aces_len)], "seat": self.seat,
            "phase": self.phase, "turn": self.turn, "round": self.round,
            "scores": [self.scores[s] for s in range(n)], "rewards": [self.rewards[s] for s in range(n)],
            "seed": self.seed, "draws": self.draws, "winner": self.winner, "reason": self.reason,
            "truncated": bool(self.truncated), "round_points": list(self.round_points),
            "events": [list(e) for e in self.events],
        }

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self.game), self.game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the engine's state."""
        n = self.n
        return {
            "winner": self.winner,
            "reason": self.reason,
            "truncated": bool(self.truncated),
            "round": self.round,
            "scores": [self.scores[s] for s in range(n)],
            "round_points": list(self.round_points),
            "returns": [self.rewards[s] for s in range(n)],
        }

    def is_truncated(self):
        """True when the turn limit ended the game."""
        return bool(self.truncated)

    # ------------------------------------------------------------- queries
    def current_seat(self):
        """Seat to act, -1 once over."""
        return -1 if self.phase == PH_OVER else self.seat

    cdef inline bint _can_draw(self) noexcept:
        return self.deck_len > 0 or self.disc_len > 1 or self.aces_len > 1

    def legal_actions(self):
        """Sorted legal action ids (empty once over)."""
        cdef uint64_t h
        cdef list out = []
        if self.phase == PH_DISCARD:
            h = self.hands[self.seat]
            while h:
                out.append(DISCARD0 + __builtin_ctzll(h))
                h &= h - 1
        elif self.phase == PH_DRAW:
            if self._can_draw():
                out.append(DRAW_DECK)
            if self.disc_len:
                out.append(DRAW_DECK + 1)
        return out

    def mask(self):
        """A new writable int8 array of ``num_actions``, 1 at the legal actions."""
        out = _new_int8(MASK_DIMS)
        cdef char *b = <char *> cnp.PyArray_DATA(out)
        cdef uint64_t h
        memset(b, 0, NUM_ACTIONS)
        if self.phase == PH_DISCARD:
            h = self.hands[self.seat]
            while h:
                b[DISCARD0 + __builtin_ctzll(h)] = 1
                h &= h - 1
        elif self.phase == PH_DRAW:
            if self._can_draw():
                b[DRAW_DECK] = 1
            if self.disc_len:
                b[DRAW_DECK + 1] = 1
        return out

    def observe(self, int seat):
        """``seat``'s observation: a new writable int8 array equal to ``game.observe``."""
        cdef char buf[OBS_ROOM]
        cdef int n = self.n
        cdef int o1 = seat + 1 if seat + 1 < n else seat + 1 - n
        cdef int o2 = seat + 2 if seat + 2 < n else seat + 2 - n
        cdef int top, j, r
        cdef long long x
        cdef uint64_t under
        if seat < 0 or seat >= n:
            raise ValueError(f"seat {seat} is not a seat of a {n}-player game")
        # Bit fields in layout order: each 8-byte write may spill into the next field.
        put_bits(buf + O_HAND, self.hands[seat], 6)
        put_bits(buf + O_ACE_TOP, 0, 2)
        if self.aces_len:
            buf[O_ACE_TOP + self.aces[self.aces_len - 1]] = 1
            put_bits(buf + O_ACE_PILE, self.ace_under, 1)
        put_bits(buf + O_DTOP, 0, 6)
        under = self.disc_mask
        if self.disc_len:
            top = self.discard[self.disc_len - 1]
            buf[O_DTOP + top] = 1
            under ^= (<uint64_t> 1) << top
        put_bits(buf + O_DPILE, under, 6)
        put_bits(buf + O_OKNOWN, self.known[o1], 6)
        if n == 3:
            put_bits(buf + O_OKNOWN + NCARDS, self.known[o2], 6)
        else:
            put_bits(buf + O_OKNOWN + NCARDS, 0, 6)
        buf[O_OSIZE] = popcount(self.hands[o1])
        buf[O_OSIZE + 1] = popcount(self.hands[o2]) if n == 3 else 0
        memset(buf + O_DECK, 0, OBS_SIZE - O_DECK)
        buf[O_DECK] = self.deck_len
        if self.phase != PH_OVER:
            buf[O_PHASE + self.phase] = 1
            r = self.seat - seat
            if r < 0:
                r += n
            buf[O_TO_ACT + r] = 1
        if self.target >= 0:
            for j in range(n):
                x = self.scores[(seat + j) % n]
                buf[O_SCORES + j] = x if x < self.target else self.target
        x = self.max_turns - self.turn
        buf[O_TURNS] = x if x < 127 else 127
        arr = _new_int8(OBS_DIMS)
        memcpy(cnp.PyArray_DATA(arr), buf, OBS_SIZE)
        return arr

    # ------------------------------------------------------------- play
    def apply(self, int action):
        """Play a legal ``action``; returns the per-seat rewards on a step that ends
        a round (or the game), else None, as ``game.apply``. An illegal action
        raises ValueError (the env checks first; this keeps the C state sound)."""
        cdef int seat = self.seat
        cdef int card
        cdef uint64_t bit
        if self.phase == PH_DRAW:
            if action == DRAW_DECK:
                if not self._can_draw():
                    self._illegal(action)
                if self.deck_len == 0:
                    self._reshuffle()
                self.deck_len -= 1
                card = self.deck[self.deck_len]
                self.events.append(self.ev_draw[seat])
            else:
                if action != DRAW_DECK + 1 or self.disc_len == 0:
                    self._illegal(action)
                self.disc_len -= 1
                card = self.discard[self.disc_len]
                bit = (<uint64_t> 1) << card
                self.disc_mask ^= bit
                self.known[seat] |= bit
                self.events.append(self.ev_take[seat * NCARDS + card])
            self.hands[seat] |= (<uint64_t> 1) << card
            self.codes[seat] += CARD_CODE[card]
            self.phase = PH_DISCARD
            return None
        if (self.phase != PH_DISCARD or action < DISCARD0 or action >= NUM_ACTIONS
                or not self.hands[seat] >> (action - DISCARD0) & 1):
            self._illegal(action)
        card = action - DISCARD0
        bit = (<uint64_t> 1) << card
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        if card < NUM_ACES:
            if self.aces_len:
                self.ace_under |= (<uint64_t> 1) << self.aces[self.aces_len - 1]
            self.aces[self.aces_len] = card
            self.aces_len += 1
        else:
            self.discard[self.disc_len] = card
            self.disc_len += 1
            self.disc_mask |= bit
        self.events.append(self.ev_discard[seat * NCARDS + card])
        self.codes[seat] -= CARD_CODE[card]
        if all_bound_code(self.codes[seat], self.aces[self.aces_len - 1] if self.aces_len else -1):
            return self._end_round(seat)
        self.turn += 1
        if self.turn >= self.max_turns:
            self.phase = PH_OVER
            self.truncated = True
            self.reason = "turn limit"
            self.round_points = [0] * self.n
            self.events.append(("turn_limit", self.round))
            return self.zero_rewards
        self.seat = seat + 1 if seat + 1 < self.n else 0
        self.phase = PH_DRAW
        return None

    cdef _illegal(self, int action):
        raise ValueError(f"action {action} is not legal here; legal actions: {self.legal_actions()}")

    cdef _end_round(self, int winner):
        """The rules layer's ``_end_round`` (scoring, rewards, the next deal) on a
        state built from the engine's; then that state is loaded back."""
        state = self._state()
        rewards = self.game._end_round(state, winner)
        self._load(state, self.events)
        return rewards

    cdef _reshuffle(self):
        """``BhargGame._reshuffle``: all but the tops of the discard pile and the Ace
        Pile, ascending, in the order ``fast_generator((seed, draws))`` permutes them."""
        cdef uint64_t m = self.ace_under
        cdef int i, k
        if self.disc_len:
            m |= self.disc_mask ^ ((<uint64_t> 1) << self.discard[self.disc_len - 1])
        cards = []
        while m:
            cards.append(__builtin_ctzll(m))
            m &= m - 1
        k = len(cards)
        order = fast_generator((self.seed, self.draws)).permutation(k).tolist()
        self.draws += 1
        for i in range(k):
            self.deck[i] = cards[order[i]]
        self.deck_len = k
        if self.disc_len:
            self.discard[0] = self.discard[self.disc_len - 1]
            self.disc_len = 1
            self.disc_mask = (<uint64_t> 1) << self.discard[0]
        if self.aces_len:
            self.aces[0] = self.aces[self.aces_len - 1]
            self.aces_len = 1
        self.ace_under = 0
        self.events.append(("reshuffle", k))
