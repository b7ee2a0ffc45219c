# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tet Hsi compiled engine: the per-step hot path of :mod:`tethsi_env.rules` in C.

The protocol is :mod:`setgames.engine`'s; the rules layer stays the reference
and ``tests/tethsi/test_engine.py`` holds this module to it step by step.

The state lives in C: card zones as 64-bit masks (bit ``i`` = card ``i``, as
the rules layer's Python ints), the draw pile as an id array (top card last),
the Sets put aside as small arrays. The public event record is kept as
compact C records and turned into the rules layer's tuples only when asked
for (:meth:`Engine.to_json`). The observation is built from the C state on
each :meth:`Engine.observe` with a byte-expansion table (a few dozen 8-byte
stores), not kept up to date by ``apply``. Masks and observations are numpy
arrays made through numpy's C API. ``apply`` tests legality itself (the env
relies on it) with the same walk that lists the legal actions.

Every table and constant comes from the Python modules that define the game
(:mod:`tethsi_env.layout`, :mod:`setgames.kernels.tethsi`, :mod:`tethsi_env.rules`);
``to_json``, ``outcome`` and ``is_truncated`` build a rules-layer state and ask
the game, so those have one home too.
"""

from libc.string cimport memcpy, memset

cimport numpy as cnp

cnp.import_array()

from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import KIND_BY_MASK, KIND_NAMES
from setgames.engine import rebuild as _from_json_state
from tethsi_env import rules as _rules
from tethsi_env.layout import (ACTION_ARG, ACTION_KIND, LAYOUT, NOTHING, OBS_SPEC, PAIR_ACTION, PLAY_START,
                               SET_FIRST_MASK, SET_PARTNERS_ABOVE, TAKE, ActionKind, Phase)

ctypedef unsigned long long u64

cdef extern from *:
    int popcount64 "__builtin_popcountll"(u64 x) nogil
    int ctz64 "__builtin_ctzll"(u64 x) nogil
    int clz64 "__builtin_clzll"(u64 x) nogil

# --------------------------------------------------------------------------- sizes and constants
cdef enum:
    NCARDS = 36       # standard Decktet cards (checked against setgames.cards below)
    MAX_ACTIONS = 1024
    MAX_SETS = 12     # 36 distinct cards make at most 12 Sets per seat
    # C event records kept before they are flushed to the Python list; smaller than a
    # long game's record (up to ~80 events) so that tests reach the flush.
    EVENT_CAP = 64

assert NUM_STANDARD == NCARDS
EVENT_CAPACITY = EVENT_CAP  # for the tests
assert LAYOUT.n <= MAX_ACTIONS

cdef int N_ACTIONS = LAYOUT.n
cdef int OBS_N = OBS_SPEC.size
cdef int A_TAKE = TAKE
cdef int A_NOTHING = NOTHING
cdef int A_PLAY_START = PLAY_START

cdef int PH_DISCARD = Phase.DISCARD
cdef int PH_CHOOSE = Phase.CHOOSE
cdef int PH_PLAY = Phase.PLAY
cdef int PH_OVER = Phase.OVER

cdef int K_DISCARD = ActionKind.DISCARD
cdef int K_TAKE = ActionKind.TAKE
cdef int K_NOTHING = ActionKind.NOTHING
cdef int K_SET = ActionKind.SET
cdef int K_PLAY = ActionKind.PLAY

# Rewards and end reasons: the rules layer's own objects.
_WIN = _rules._WIN
_TIE = _rules._TIE
_REASON_THIRD_SET = _rules.REASON_THIRD_SET
_REASON_EMPTY_PILE = _rules.REASON_EMPTY_PILE
_KIND_NAMES = KIND_NAMES
cdef int NKINDS = len(KIND_NAMES)
assert NKINDS <= 8

# --------------------------------------------------------------------------- action tables
cdef unsigned char ACT_KIND[MAX_ACTIONS]
cdef signed char ACT_X[MAX_ACTIONS]      # card of discard/play, lower card x of a set, else -1
cdef signed char ACT_Y[MAX_ACTIONS]      # upper card y of a set, else -1
cdef short PAIR_ID[NCARDS][NCARDS]       # set action id of {x, y}
cdef u64 FIRST_MASK[NCARDS]              # per remaining card: hand cards that are the x of some pair
cdef u64 ABOVE[NCARDS][NCARDS]           # [r][x]: cards y > x with {x, y, r} a Set
cdef signed char SET_KIND[MAX_ACTIONS][NCARDS]  # [set action][r]: kind index, -1 for no Set


def _fill_action_tables():
    cdef int a, x, y, r
    for a in range(N_ACTIONS):
        ACT_KIND[a] = ACTION_KIND[a]
        arg = ACTION_ARG[a]
        if ACTION_KIND[a] == K_SET:
            ACT_X[a], ACT_Y[a] = arg
        else:
            ACT_X[a] = arg
            ACT_Y[a] = -1
        for r in range(NCARDS):
            SET_KIND[a][r] = -1
            if ACTION_KIND[a] == K_SET:
                x, y = arg
                if r != x and r != y:
                    SET_KIND[a][r] = KIND_BY_MASK.get((1ULL << x) | (1ULL << y) | (1ULL << r), -1)
    for x in range(NCARDS):
        FIRST_MASK[x] = SET_FIRST_MASK[x]
        for y in range(NCARDS):
            PAIR_ID[x][y] = PAIR_ACTION[x][y]
            ABOVE[x][y] = SET_PARTNERS_ABOVE[x][y]


_fill_action_tables()

# --------------------------------------------------------------------------- observation tables
_SL = OBS_SPEC.slices
_BLOCKS = ("my_concealed", "my_front", "opp_front", "center", "remaining", "discard_pile",
           "my_set_cards", "opp_set_cards")
# observe() writes the card blocks in this order with 8-byte stores that spill up to 4
# bytes past a block; the next write (a later block or the phase) covers the spill.
_order = [_SL[b].start for b in _BLOCKS] + [_SL["phase"].start]
assert _order == sorted(_order) and all(_SL[b].stop - _SL[b].start == NCARDS for b in _BLOCKS)
assert _SL["phase"].stop - _SL["phase"].start == 3 and _SL["my_turn"].start == _SL["phase"].stop
assert _SL["opp_set_cards"].start + 40 <= OBS_SPEC.size  # the last block's spill stays in the array
cdef int O_MY_CONCEALED = _SL["my_concealed"].start
cdef int O_MY_FRONT = _SL["my_front"].start
cdef int O_OPP_FRONT = _SL["opp_front"].start
cdef int O_CENTER = _SL["center"].start
cdef int O_REMAINING = _SL["remaining"].start
cdef int O_DISCARD = _SL["discard_pile"].start
cdef int O_MY_SETS = _SL["my_set_cards"].start
cdef int O_OPP_SETS = _SL["opp_set_cards"].start
cdef int O_PHASE = _SL["phase"].start
cdef int O_MY_TURN = _SL["my_turn"].start
cdef int O_MY_KINDS = _SL["my_set_kinds"].start
cdef int O_OPP_KINDS = _SL["opp_set_kinds"].start
cdef int O_OPP_COUNT = _SL["opp_concealed_count"].start
cdef int O_PILE = _SL["draw_pile_size"].start

cdef u64 EXPAND[256]            # byte v -> 8 bytes, byte j = bit j of v
cdef unsigned char PHASE_BITS[4]  # the rules layer's phase one-hot (none once over)


def _fill_obs_tables():
    cdef int v, j
    cdef unsigned char *p
    for v in range(256):
        p = <unsigned char *> &EXPAND[v]
        for j in range(8):
            p[j] = (v >> j) & 1
    assert len(_rules._PHASE_BITS) == 4
    for v in range(4):
        PHASE_BITS[v] = _rules._PHASE_BITS[v]


_fill_obs_tables()

# --------------------------------------------------------------------------- events
# The rules layer's event tuples: (name, seat, card...) with these names.
cdef enum:
    EV_DISCARD, EV_TAKE, EV_NOTHING, EV_SET, EV_PLAY, EV_WIN, EV_TIE, EV_REVEAL
_EVENT_NAMES = ("discard", "take", "nothing", "set", "play", "win", "tie", "reveal")

ctypedef struct Event:
    unsigned char kind
    unsigned char seat
    signed char a, b, c, k


cdef inline void _expand36(unsigned char *out, u64 m) noexcept nogil:
    """Card mask ``m`` as 36 bytes of 0/1 at ``out`` (writes 40: the caller's next block covers the rest)."""
    memcpy(out, &EXPAND[m & 255], 8)
    memcpy(out + 8, &EXPAND[(m >> 8) & 255], 8)
    memcpy(out + 16, &EXPAND[(m >> 16) & 255], 8)
    memcpy(out + 24, &EXPAND[(m >> 24) & 255], 8)
    memcpy(out + 32, &EXPAND[(m >> 32) & 255], 8)


cdef class Engine:
    """A Tet Hsi game in C arrays, stepped like :class:`tethsi_env.rules.TetHsiGame`.

    Args:
        game: the :class:`~tethsi_env.rules.TetHsiGame` whose rules this engine
            runs (its ``first_player`` option acts at the deal, which the rules
            layer makes; the engine takes dealt states through :meth:`load`).
    """

    cdef object _game
    cdef u64 concealed[2]
    cdef u64 front[2]
    cdef u64 set_cards[2]
    cdef u64 center, discard
    cdef int remaining, seat, phase, first_player, winner
    cdef long turn
    cdef object reason
    cdef signed char pile[NCARDS]
    cdef int npile
    cdef signed char sets[2][MAX_SETS][4]   # (x, y, remaining card, kind index)
    cdef int nsets[2]
    cdef unsigned char kind_count[2][8]
    cdef list _events          # event tuples up to the last flush (the loaded ones first)
    cdef Event ev[EVENT_CAP]   # events since
    cdef int nev
    cdef object _final         # rules-layer state for outcome() / is_truncated(), None once stale

    def __init__(self, game):
        self._game = game
        self._events = []
        self.nev = 0
        self._final = None

    # ------------------------------------------------------------- state in / out
    def load(self, state):
        """Copy a rules-layer :class:`~tethsi_env.rules.TetHsiState` in (not kept, not changed).

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied.
        """
        cdef int s, i, c
        # The rules layer's validator first: nothing is copied from a refused state,
        # and what passes is in range for the unchecked C below.
        self._game.validate(state)
        pile = state.pile
        if not (state.seat in (0, 1) and 0 <= state.phase <= PH_OVER and -1 <= state.remaining < NCARDS):
            raise ValueError(f"seat {state.seat!r}, phase {state.phase!r} or remaining card "
                             f"{state.remaining!r} out of range")
        if state.phase == PH_CHOOSE and state.remaining < 0:
            raise ValueError("a state choosing take / set / nothing needs a remaining card")
        if len(pile) > NCARDS:
            raise ValueError(f"draw pile of {len(pile)} cards is longer than the deck")
        for s in range(2):
            self.concealed[s] = state.concealed[s]
            self.front[s] = state.front[s]
            self.set_cards[s] = state.set_cards[s]
            sets = state.sets[s]
            if len(sets) > MAX_SETS:
                raise ValueError(f"seat {s} has {len(sets)} Sets, more than the deck allows")
            self.nsets[s] = len(sets)
            memset(self.kind_count[s], 0, sizeof(self.kind_count[s]))
            for i in range(len(sets)):
                x, y, r, k = sets[i]
                if not (0 <= k < NKINDS):
                    raise ValueError(f"Set {sets[i]!r} has no kind index 0..{NKINDS - 1}")
                self.sets[s][i][0] = x
                self.sets[s][i][1] = y
                self.sets[s][i][2] = r
                self.sets[s][i][3] = k
                self.kind_count[s][k] += 1
        self.center = state.center
        self.discard = state.discard
        for i in range(len(pile)):
            c = pile[i]
            if not (0 <= c < NCARDS):
                raise ValueError(f"pile card {c!r} is not a standard card id")
            self.pile[i] = c
        self.npile = len(pile)
        self.remaining = state.remaining
        self.seat = state.seat
        self.phase = state.phase
        self.first_player = state.first_player
        self.turn = state.turn
        self.winner = state.winner
        self.reason = state.reason
        self._events = list(state.events)
        self.nev = 0
        self._final = None

    cdef void _flush_events(self):
        """Move the C event records to the Python list as the rules layer's tuples."""
        cdef int i
        cdef Event *e
        out = self._events
        for i in range(self.nev):
            e = &self.ev[i]
            name = _EVENT_NAMES[e.kind]
            if e.kind == EV_SET:
                out.append((name, e.seat, e.a, e.b, e.c, _KIND_NAMES[e.k]))
            elif e.kind == EV_WIN:
                out.append((name, e.seat, _REASON_THIRD_SET))
            elif e.kind == EV_TIE:
                out.append((name, e.seat, _REASON_EMPTY_PILE))
            else:
                out.append((name, e.seat, e.a))
        self.nev = 0

    cdef inline void _event(self, int kind, int seat, int a):
        if self.nev == EVENT_CAP:
            self._flush_events()
        cdef Event *e = &self.ev[self.nev]
        e.kind = kind
        e.seat = seat
        e.a = a
        self.nev += 1

    cdef object _state(self, bint with_events):
        """The rules-layer state equal to this one (events left empty unless asked for)."""
        cdef int s, i
        if with_events:
            self._flush_events()
        sets = [[(self.sets[s][i][0], self.sets[s][i][1], self.sets[s][i][2], self.sets[s][i][3])
                 for i in range(self.nsets[s])] for s in range(2)]
        return _rules.TetHsiState(
            [self.concealed[0], self.concealed[1]], [self.front[0], self.front[1]], self.center,
            self.remaining, self.discard, [self.set_cards[0], self.set_cards[1]], sets,
            [self.pile[i] for i in range(self.npile)], self.seat, self.phase, self.first_player,
            self.turn, self.winner, self.reason, self._events[:] if with_events else [])

    def to_json(self):
        """``game.to_json`` of the current state (``game.from_json`` rebuilds it)."""
        return self._game.to_json(self._state(True))

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self._game), self._game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the current state (meant for a finished game)."""
        if self._final is None:
            self._final = self._state(False)
        return self._game.outcome(self._final)

    def is_truncated(self):
        """``game.is_truncated`` of the current state."""
        if self._final is None:
            self._final = self._state(False)
        return self._game.is_truncated(self._final)

    # ------------------------------------------------------------- queries
    def current_seat(self):
        """Seat to move, -1 once the game is over."""
        return -1 if self.phase == PH_OVER else self.seat

    def legal_actions(self):
        """Legal action ids, ascending (a new list)."""
        cdef u64 c
        cdef int x, a, phase = self.phase
        cdef list out
        cdef char m[MAX_ACTIONS]
        if phase == PH_DISCARD:
            # As the rules layer: the lowest center card, then the highest of the rest.
            c = self.center
            if not c:
                return [-1, -1]
            x = ctz64(c)
            c &= c - 1
            return [x, 63 - clz64(c) if c else -1]
        # The other phases list what _fill_mask marks (one walk over the sets), in id order.
        memset(m, 0, N_ACTIONS)
        self._fill_mask(m)
        out = []
        for a in range(N_ACTIONS):
            if m[a]:
                out.append(a)
        return out

    cdef void _fill_mask(self, char *m) noexcept:
        """Set the legal actions' bytes of the zeroed ``N_ACTIONS`` bytes at ``m``
        (:meth:`legal_actions` lists them)."""
        cdef u64 c, hand, rest, ys
        cdef int x, r, phase = self.phase
        if phase == PH_DISCARD:
            c = self.center
            if c:
                m[ctz64(c)] = 1
                c &= c - 1
                if c:
                    m[63 - clz64(c)] = 1
        elif phase == PH_CHOOSE:
            hand = self.concealed[self.seat] | self.front[self.seat]
            m[A_TAKE] = 1
            m[A_NOTHING] = 1
            r = self.remaining
            rest = hand & FIRST_MASK[r]
            while rest:
                x = ctz64(rest)
                rest &= rest - 1
                ys = ABOVE[r][x] & hand
                while ys:
                    m[PAIR_ID[x][ctz64(ys)]] = 1
                    ys &= ys - 1
        elif phase == PH_PLAY:
            hand = self.concealed[self.seat] | self.front[self.seat]
            while hand:
                m[A_PLAY_START + ctz64(hand)] = 1
                hand &= hand - 1

    def mask(self):
        """The legal actions as a new writable int8 0/1 ndarray, one entry per action id
        (made through numpy's C API: ``np.frombuffer`` of a bytearray costs several times more)."""
        cdef cnp.npy_intp n = N_ACTIONS
        arr = cnp.PyArray_ZEROS(1, &n, cnp.NPY_INT8, 0)
        self._fill_mask(<char *> cnp.PyArray_DATA(<cnp.ndarray> arr))
        return arr

    cdef bint _is_legal(self, int action) noexcept:
        """Whether ``action`` (in range) is in :meth:`legal_actions`, by the same rules."""
        cdef u64 c, hand
        cdef int x, r, phase = self.phase, kind = ACT_KIND[action]
        if phase == PH_DISCARD:
            c = self.center
            if kind != K_DISCARD or not c:
                return False
            x = ctz64(c)
            c &= c - 1
            return action == x or (c != 0 and action == 63 - clz64(c))
        if phase == PH_OVER:
            return False
        hand = self.concealed[self.seat] | self.front[self.seat]
        if phase == PH_CHOOSE:
            if kind == K_TAKE or kind == K_NOTHING:
                return True
            if kind != K_SET:
                return False
            r = self.remaining
            x = ACT_X[action]
            # The walk of legal_actions reaches (x, y) when x is a first card of r in the
            # hand and y one of its partners above x in the hand (set actions have x < y).
            return ((hand & FIRST_MASK[r]) >> x) & 1 and ((ABOVE[r][x] & hand) >> ACT_Y[action]) & 1
        if phase == PH_PLAY:
            return kind == K_PLAY and (hand >> (action - A_PLAY_START)) & 1
        return False

    def observe(self, int seat):
        """``seat``'s observation (``game.observe``), a new writable int8 array.

        Raises:
            ValueError: ``seat`` is not 0 or 1.
        """
        cdef int opp = seat ^ 1, k, phase = self.phase
        cdef cnp.npy_intp n = OBS_N
        if seat & ~1:
            raise ValueError(f"seat {seat!r} is not 0 or 1")
        # Made through numpy's C API (np.frombuffer on a bytearray costs several times
        # more) and written in place: the blocks go in offset order and each one's
        # spill is covered by the next (checked at import).
        arr = cnp.PyArray_SimpleNew(1, &n, cnp.NPY_INT8)
        cdef unsigned char *out = <unsigned char *> cnp.PyArray_DATA(<cnp.ndarray> arr)
        _expand36(out + O_MY_CONCEALED, self.concealed[seat])
        _expand36(out + O_MY_FRONT, self.front[seat])
        _expand36(out + O_OPP_FRONT, self.front[opp])
        _expand36(out + O_CENTER, self.center)
        _expand36(out + O_REMAINING, (1ULL << self.remaining) if self.remaining >= 0 else 0)
        _expand36(out + O_DISCARD, self.discard)
        _expand36(out + O_MY_SETS, self.set_cards[seat])
        _expand36(out + O_OPP_SETS, self.set_cards[opp])
        k = PHASE_BITS[phase]
        out[O_PHASE] = k & 1
        out[O_PHASE + 1] = (k >> 1) & 1
        out[O_PHASE + 2] = (k >> 2) & 1
        out[O_MY_TURN] = phase != PH_OVER and self.seat == seat
        for k in range(NKINDS):
            out[O_MY_KINDS + k] = self.kind_count[seat][k]
            out[O_OPP_KINDS + k] = self.kind_count[opp][k]
        out[O_OPP_COUNT] = popcount64(self.concealed[opp])
        out[O_PILE] = self.npile
        return arr

    # ------------------------------------------------------------- apply
    def apply(self, int action):
        """Play ``action``; the rewards tuple on the step that ends the game, else None.

        Raises:
            ValueError: ``action`` is out of range or not legal now (nothing changes).
        """
        cdef int kind, p = self.seat, r, x, y, k, card
        cdef u64 bit, bits
        # The env does no legality test of its own on the engine path: this is the one.
        if not 0 <= action < N_ACTIONS:
            raise ValueError(f"action {action!r} is out of range 0..{N_ACTIONS - 1}")
        if not self._is_legal(action):
            raise ValueError(f"action {action} is not legal now (legal: {self.legal_actions()})")
        if self._final is not None:
            self._final = None
        kind = ACT_KIND[action]
        if kind == K_DISCARD:
            bit = 1ULL << action
            self.center ^= bit
            self.discard |= bit
            self.remaining = 63 - clz64(self.center) if self.center else -1
            self.phase = PH_CHOOSE
            self._event(EV_DISCARD, p, action)
            return None
        if kind == K_TAKE:
            r = self.remaining
            self.front[p] |= 1ULL << r
            self.center = 0
            self.remaining = -1
            self.phase = PH_PLAY
            self._event(EV_TAKE, p, r)
            return None
        if kind == K_NOTHING:
            self._event(EV_NOTHING, p, self.remaining)
            self.remaining = -1
            return self._reveal(p)
        if kind == K_SET:
            x = ACT_X[action]
            y = ACT_Y[action]
            r = self.remaining
            k = SET_KIND[action][r]
            if self.nsets[p] == MAX_SETS:  # a hand-built state only: 36 cards make 12 Sets
                raise ValueError(f"seat {p} already has {MAX_SETS} Sets")
            bits = (1ULL << x) | (1ULL << y)
            self.concealed[p] &= ~bits
            self.front[p] &= ~bits
            self.set_cards[p] |= bits | (1ULL << r)
            self.sets[p][self.nsets[p]][0] = x
            self.sets[p][self.nsets[p]][1] = y
            self.sets[p][self.nsets[p]][2] = r
            self.sets[p][self.nsets[p]][3] = k
            self.nsets[p] += 1
            self.kind_count[p][k] += 1
            self.center = 0
            self.remaining = -1
            self._event(EV_SET, p, x)
            self.ev[self.nev - 1].b = y
            self.ev[self.nev - 1].c = r
            self.ev[self.nev - 1].k = k
            if not (self.concealed[p] | self.front[p]):
                self.phase = PH_OVER
                self.winner = p
                self.reason = _REASON_THIRD_SET
                self._event(EV_WIN, p, 0)
                return _WIN[p]
            self.phase = PH_PLAY
            return None
        # play
        card = action - A_PLAY_START
        bit = 1ULL << card
        if self.concealed[p] & bit:
            self.concealed[p] ^= bit
        else:
            self.front[p] ^= bit
        self.center |= bit
        self._event(EV_PLAY, p, card)
        return self._reveal(p)

    cdef object _reveal(self, int p):
        """End of seat ``p``'s turn: the pile's top card to the center, or a tie on an empty pile."""
        cdef int card
        if self.npile == 0:
            self.phase = PH_OVER
            self.reason = _REASON_EMPTY_PILE
            self._event(EV_TIE, p, 0)
            return _TIE
        self.npile -= 1
        card = self.pile[self.npile]
        self.center |= 1ULL << card
        self._event(EV_REVEAL, p, card)
        self.seat = p ^ 1
        self.phase = PH_DISCARD
        self.turn += 1
        return None
