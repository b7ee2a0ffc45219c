# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, auto_pickle=False
"""Tu Sac compiled engine (see :mod:`setgames.engine` for the protocol).

The same game as :mod:`tusac_env.rules` (the reference: ``tests/tusac/test_engine.py``
holds this to it step by step), with the state in C arrays: private blocks as
counts and per-component base-4 codes, the per-seat claim masks of
:mod:`tusac_env.melds` as 32-bit type masks, the public blocks, the draw pile,
and every seat's observation prefix as bytes patched where the data changes
(as :mod:`tusac_env.observation` does). The per-step path (discard, hit, pass,
meld, automatic claims, legal actions, mask, observation, the worst-cards hint)
is typed C on tables copied at import from the rules layer's own tables
(:mod:`tusac_env.melds`, :mod:`tusac_env.claims`); nothing is derived twice.

The game end (winning amounts, side payments, penalty rule) calls the rules
layer's :func:`tusac_env.scoring.finish_win` / ``finish_draw`` on a state built
from the C state, and ``outcome``/``to_json`` build the rules layer's data, so
those live in one place. The public game record (``events``) is kept as the
rules layer's list of tuples, appended as the rules layer appends it.

Beyond the protocol, ``deal(rng)`` deals a new game in the engine: the state
``load(game.new_state(rng))`` gives, from the same numpy draws, in about a
tenth of the time (``tests/tusac/test_engine.py`` checks the equality).
"""

cimport numpy as cnp
from libc.string cimport memcpy, memset

import numpy as np
from operator import index as _index

cnp.import_array()

from setgames.engine import rebuild as _from_json_state
from setgames.cards import NUM_TUSAC_TYPES
from setgames.kernels import tusac as _kern
from tusac_env import claims as _claims
from tusac_env import flow as _flow
from tusac_env import melds as _melds
from tusac_env import scoring as _scoring
from tusac_env.layout import DISCARD0 as _PY_DISCARD0
from tusac_env.layout import HIT as _PY_HIT
from tusac_env.layout import NUM_ACTIONS as _PY_NUM_ACTIONS
from tusac_env.layout import PASS as _PY_PASS
from tusac_env.flow import _DECK_TYPES
from tusac_env.observation import CLAIM_KINDS, LAYOUTS
from tusac_env.state import (
    DRAW_LIMIT as _PY_DRAW_LIMIT,
    FIRST_DEAL as _PY_FIRST_DEAL,
    HAND_SIZE as _PY_HAND_SIZE,
    EXPOSED_BY_DISCARD as _PY_BY_DISCARD,
    EXPOSED_BY_HIT as _PY_BY_HIT,
    KIND_VALUES,
    PHASE_AFTER_HIT as _PY_AFTER_HIT,
    PHASE_DISCARD as _PY_DISCARD,
    PHASE_OVER as _PY_OVER,
    PHASE_RESPOND as _PY_RESPOND,
    PUBLIC_KINDS,
    TuSacState,
)

__all__ = ["Engine"]

# ---------------------------------------------------------------- constants (from the rules layer)

# (the constants NT, NCOMP, ... and the class attributes are declared in _engine.pxd)
assert NUM_TUSAC_TYPES == NT and len(_melds.COMPONENTS) == NCOMP and _melds.NUM_MELD_ACTIONS == NMELD

cdef int DISCARD0 = _PY_DISCARD0
cdef int HIT = _PY_HIT
cdef int PASS = _PY_PASS
cdef int NUM_ACTIONS = _PY_NUM_ACTIONS
cdef int DRAW_LIMIT = _PY_DRAW_LIMIT
cdef int FIRST_DEAL = _PY_FIRST_DEAL
cdef int HAND_SIZE = _PY_HAND_SIZE
cdef int PH_DISCARD = int(_PY_DISCARD)
cdef int PH_RESPOND = int(_PY_RESPOND)
cdef int PH_AFTER_HIT = int(_PY_AFTER_HIT)
cdef int PH_OVER = int(_PY_OVER)
cdef int BY_DISCARD = int(_PY_BY_DISCARD)
cdef int BY_HIT = int(_PY_BY_HIT)
assert NUM_ACTIONS <= 64 and DISCARD0 + NT == NUM_ACTIONS

cdef int NKINDS = len(PUBLIC_KINDS)
cdef int KI_KHUI = PUBLIC_KINDS.index("khui")
cdef int KI_QUAN = PUBLIC_KINDS.index("quan")
cdef int KHUI_VALUE = KIND_VALUES["khui"]
cdef int KIND_VALUE[16]      # public kind index -> set value
for _i, _k in enumerate(PUBLIC_KINDS):
    KIND_VALUE[_i] = KIND_VALUES[_k]

# Python-side names (the event record holds these very objects)
_KIND_NAMES = tuple(PUBLIC_KINDS)
_CLAIM_NAMES = tuple(CLAIM_KINDS)  # last_claim kind code -> name
cdef int CL_WIN = CLAIM_KINDS.index("win")
cdef int CL_KHUI = CLAIM_KINDS.index("khui")
cdef int CL_PAIR = CLAIM_KINDS.index("pair")

# ---------------------------------------------------------------- tables (copied from tusac_env.melds/claims)

cdef int COMP_OF[NT]
cdef int PLACE[NT]
cdef unsigned int COMP_BITS[NCOMP]
cdef int COMP_TRASH[NCOMP][NCODE]
cdef unsigned int COMP_DISCARD[NCOMP][NCODE]
cdef unsigned int COMP_ZERO[NCOMP][NCODE]
cdef unsigned int COMP_CLEAN[NCOMP][NCODE]
cdef unsigned int COMP_HIGH[NCOMP][NCODE]
cdef int COMP_VALUE[NCOMP][NCODE]
cdef bint WAITING[NCOMP][NCODE]
cdef int COMP_TYPES[NCOMP][4]
cdef int COMP_NTYPES[NCOMP]
# MELD_OPTIONS[a][code]: the meld indices the block can make (any trash change), in meld order
cdef int OPT_N[NT][NCODE]
cdef signed char OPT_IDX[NT][NCODE][MAXOPT]
# LEGAL_MELDS[a][code] as a mask over the meld actions
cdef unsigned long long LEGAL_MELD_MASK[NT][NCODE]
# MELD_BY_INDEX[a][idx]: used private types, place sum, sorted cards, kind index
cdef int MI_NUSED[NT][NMELD]
cdef int MI_USED[NT][NMELD][3]
cdef int MI_PLACE[NT][NMELD]
cdef int MI_NCARDS[NT][NMELD]
cdef int MI_CARDS[NT][NMELD][4]
cdef int MI_KIND[NT][NMELD]
cdef int TRIPLE_IDX = _melds.MELD_INDEX_TRIPLE
# outs of a non-pawn type: its two trio partners (as flow._OUTS_OF)
cdef int TRIO_Y[NT]
cdef int TRIO_Z[NT]
cdef int HELD[4]
HELD[0] = 0
HELD[1] = 1
HELD[2] = 1
HELD[3] = 0  # 3 is a Khap: it completes nothing (flow._HELD)


def _fill_tables():
    """Copy the rules layer's tables into the C arrays (once, at import)."""
    cdef int t, k, code, a, idx, j
    for t in range(NT):
        COMP_OF[t] = _melds.COMP_OF[t]
        PLACE[t] = _melds.PLACE[t]
    for k in range(NCOMP):
        COMP_BITS[k] = _melds.COMP_BITS[k]
        comp = _melds.COMPONENTS[k]
        COMP_NTYPES[k] = len(comp)
        for j in range(len(comp)):
            COMP_TYPES[k][j] = comp[j]
        for code in range(NCODE):
            if code < len(_melds.COMP_TRASH[k]):
                COMP_TRASH[k][code] = _melds.COMP_TRASH[k][code]
                COMP_DISCARD[k][code] = _melds.COMP_DISCARD[k][code]
                COMP_ZERO[k][code] = _melds.COMP_ZERO[k][code]
                COMP_CLEAN[k][code] = _melds.COMP_CLEAN[k][code]
                COMP_HIGH[k][code] = _melds.COMP_HIGH[k][code]
                COMP_VALUE[k][code] = _melds.COMP_VALUE[k][code]
                WAITING[k][code] = _claims._WAITING[k][code]
            else:
                COMP_TRASH[k][code] = 0
                COMP_DISCARD[k][code] = 0
                COMP_ZERO[k][code] = 0
                COMP_CLEAN[k][code] = 0
                COMP_HIGH[k][code] = 0
                COMP_VALUE[k][code] = 0
                WAITING[k][code] = 0
    for a in range(NT):
        per_code = _melds.MELD_OPTIONS[a]
        for code in range(NCODE):
            OPT_N[a][code] = 0
            LEGAL_MELD_MASK[a][code] = 0
            if code < len(per_code):
                opts = per_code[code]
                assert len(opts) <= MAXOPT
                OPT_N[a][code] = len(opts)
                for j in range(len(opts)):
                    OPT_IDX[a][code][j] = opts[j][0]
                for idx in _melds.LEGAL_MELDS[a][code]:
                    LEGAL_MELD_MASK[a][code] |= 1ULL << idx
        for idx in range(NMELD):
            MI_NUSED[a][idx] = -1
        for idx, info in _melds.MELD_BY_INDEX[a].items():
            MI_NUSED[a][idx] = len(info.used)
            for j in range(len(info.used)):
                MI_USED[a][idx][j] = info.used[j]
            MI_PLACE[a][idx] = info.place_sum
            MI_NCARDS[a][idx] = len(info.cards)
            for j in range(len(info.cards)):
                MI_CARDS[a][idx][j] = info.cards[j]
            MI_KIND[a][idx] = info.kind_index
            assert info.comp == COMP_OF[a]
    for t in range(NT):
        others = _flow._TRIO_OTHERS[t]  # the same-colour trio partners (None for a pawn)
        TRIO_Y[t] = others[0] if others else -1
        TRIO_Z[t] = others[1] if others else -1


_fill_tables()


cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil


cdef inline int popcount32(unsigned int m) noexcept nogil:
    return __builtin_popcount(m)


# ---------------------------------------------------------------- the engine

cdef class Engine:
    """Tu Sac engine for one game config: ``Engine(game)``, then ``load(state)`` (or ``deal(rng)``).

    See :mod:`setgames.engine` for the protocol; every method answers what the
    rules layer (``game``) answers for the loaded state after the same actions.
    """


    def __init__(self, game):
        """An engine for ``game``'s config (no state until :meth:`load`)."""
        self.game = game
        self.config = game.config
        n = self.n = game.num_players
        lay = LAYOUTS[n]
        assert lay.size <= MAXOBS
        self.obs_size = lay.size
        off = lay.off
        self.o_khap = off["khap_types"]
        self.o_sizes = off["private_sizes"]
        self.o_khc = off["khap_counts"]
        self.o_pub = off["public_counts"]
        self.o_kinds = off["public_sets"]
        self.o_dead = off["dead"]
        self.o_active = off["active"]
        self.o_from = off["active_from"]
        self.o_how = off["active_how"]
        self.o_passed = off["active_passed"]
        self.o_draw = off["draw_size"]
        self.o_current = off["current"]
        self.o_phase = off["phase"]
        self.o_trash = off["trash"]
        self.o_worst = off["worst"]
        self.o_claim = off["last_claim"]
        self.o_claimer = off["last_claimer"]
        self.o_winner = off["winner"]
        self.o_drawn = off["drawn"]
        assert off["private"] == 0 and lay.prefix == self.o_active
        cdef int s, v
        for s in range(n):
            for v in range(n):
                self.rel[s][v] = (s - v) % n
        self.obs_dims[0] = lay.size
        self.mask_dims[0] = NUM_ACTIONS
        self.events = []
        self.result = ""
        self.payments = []
        self.returns = []

    # ------------------------------------------------------------ load
    def load(self, state, bint validate=True):
        """Copy the rules-layer ``state`` in (it is neither kept nor changed).

        ``validate=False`` skips ``game.validate`` (about 90% of a search rollout's
        cost): only for a state the rules layer itself just built and nobody edited,
        such as the search's determinized copies; any other state can then crash
        the interpreter.

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied (the C below trusts its ids).
        """
        cdef int n = self.n
        cdef int s, t, i, j
        if validate:
            self.game.validate(state)
        if state.num_players != n:
            raise ValueError(f"state has {state.num_players} players, the engine {n}")
        self.first = state.first
        for s in range(n):
            row = state.private[s]
            for t in range(NT):
                self.private[s][t] = row[t]
                if not 0 <= self.private[s][t] <= 3:
                    raise ValueError(f"seat {s}'s private counts {list(row)} are not 28 counts in 0..3")
        for t in range(NT):
            self.dead[t] = state.dead[t]
        draw = state.draw
        if len(draw) > 112:
            raise ValueError(f"draw pile of {len(draw)} cards")
        self.draw_len = len(draw)
        for i in range(self.draw_len):
            self.draw[i] = draw[i]
        for s in range(n):
            block = state.public[s]
            if len(block) > MAXSETS:
                raise ValueError(f"seat {s} has {len(block)} public sets (at most {MAXSETS})")
            self.pub_n[s] = len(block)
            for i, (kind, cards) in enumerate(block):
                self.pub_kind[s][i] = _KIND_NAMES.index(kind)
                if not 1 <= len(cards) <= 4:
                    raise ValueError(f"public set {cards!r} of seat {s}")
                self.pub_ncards[s][i] = len(cards)
                for j in range(len(cards)):
                    self.pub_cards[s][i][j] = cards[j]
        self.active = state.active
        self.active_from = state.active_from
        self.active_how = int(state.active_how)
        self.active_passed = state.active_passed
        self.discard_worst = state.discard_worst
        self.current = state.current
        self.phase = int(state.phase)
        self._end_fields(state)
        self.payments = [list(p) for p in state.payments]
        self.returns = list(state.returns)
        kind, who = state.last_claim
        self.claim_seat = who
        self.claim_kind = _CLAIM_NAMES.index(kind) if who >= 0 else -1
        # (meld events hold a list: copied, so nothing of the state is shared)
        self.events = [tuple([list(x) if type(x) is list else x for x in e]) for e in state.events]
        self._rebuild()

    def deal(self, rng):
        """Shuffle and deal a new game from ``rng``: the state ``game.new_state(rng)`` makes
        (the same random draws, by the same numpy calls as :func:`tusac_env.flow.deal`), without
        building the rules-layer state (an optional engine method: ``deal(rng)`` is
        ``load(game.new_state(rng))``, about ten times cheaper)."""
        cdef int n = self.n, s, t, i, j, seat, first, dealt
        cdef int order[MAXSEAT]
        cdef int cards[4]
        cdef const unsigned char[::1] deck
        fp = self.config.first_player
        first = int(rng.integers(n)) if fp == "random" else int(fp)
        shuffled = _DECK_TYPES.copy()
        rng.shuffle(shuffled)
        deck = shuffled
        self.first = first
        for i in range(n):
            order[i] = (first + i) % n
        memset(self.private, 0, sizeof(self.private))
        dealt = FIRST_DEAL + HAND_SIZE * (n - 1)
        for j in range(dealt):
            i = 0 if j < FIRST_DEAL else 1 + (j - FIRST_DEAL) // HAND_SIZE
            self.private[order[i]][deck[j]] += 1
        self.draw_len = 112 - dealt
        for j in range(self.draw_len):
            self.draw[j] = deck[dealt + j]
        memset(self.dead, 0, sizeof(self.dead))
        memset(self.pub_n, 0, sizeof(self.pub_n))
        memset(self.pub_counts, 0, sizeof(self.pub_counts))
        memset(self.kind_counts, 0, sizeof(self.kind_counts))
        memset(self.exposed, 0, sizeof(self.exposed))
        self.active = -1
        self.active_from = -1
        self.active_how = 0
        self.active_passed = False
        self.discard_worst = True
        self.winner = -1
        self.result = ""
        self.win_card = -1
        self.win_how = 0
        self.win_from = -1
        self.value = 0
        self.amount = 0
        self.penalized = -1
        self.payments = []
        self.returns = []
        self.claim_kind = -1
        self.claim_seat = -1
        # tusac_env.flow.start: deal sizes, Quans, Khap counts
        events = self.events = [("deal", order[i], FIRST_DEAL if i == 0 else HAND_SIZE) for i in range(n)]
        for i in range(n):
            seat = order[i]
            for t in range(NT):
                if self.private[seat][t] == 4:
                    self.private[seat][t] = 0
                    cards[0] = cards[1] = cards[2] = cards[3] = t
                    self._put_public(seat, KI_QUAN, cards, 4)
                    events.append(("quan", seat, t))
        for s in range(n):
            self._init_seat(s)
        self._union()
        for i in range(n):
            events.append(("khaps", order[i], popcount32(self.khaps[order[i]])))
        self.worst_ok = False
        self._build_obs()
        self.current = first
        self.phase = PH_DISCARD
        if self.trash[first] == 0:
            self._finish_win(first, -1, 0, -1)

    cdef void _rebuild(self):
        """Every cache and the observation prefixes from the plain fields."""
        cdef int n = self.n
        cdef int s, t, i, j
        for t in range(NT):
            self.exposed[t] = self.dead[t]
        for s in range(n):
            for t in range(NT):
                self.pub_counts[s][t] = 0
            for i in range(16):
                self.kind_counts[s][i] = 0
            for i in range(self.pub_n[s]):
                self.kind_counts[s][self.pub_kind[s][i]] += 1
                for j in range(self.pub_ncards[s][i]):
                    t = self.pub_cards[s][i][j]
                    self.pub_counts[s][t] += 1
                    self.exposed[t] += 1
            self._init_seat(s)
        self._union()
        self.worst_ok = False
        self._build_obs()

    cdef void _init_seat(self, int s):
        """Codes, component trash, trash, size, Khaps and claim masks of seat ``s``
        (as :func:`tusac_env.melds.init_seat`)."""
        cdef int k, j, code, t
        cdef int trash = 0, size = 0
        cdef unsigned int khaps = 0, disc = 0, high = 0
        for t in range(NT):
            size += self.private[s][t]
            if self.private[s][t] == 3:
                khaps |= 1U << t
        for k in range(NCOMP):
            code = 0
            for j in range(COMP_NTYPES[k]):
                code = code * 4 + self.private[s][COMP_TYPES[k][j]]
            self.codes[s][k] = code
            self.ctrash[s][k] = COMP_TRASH[k][code]
            trash += COMP_TRASH[k][code]
            disc |= COMP_DISCARD[k][code]
            high |= COMP_HIGH[k][code]
        self.trash[s] = trash
        self.sizes[s] = size
        self.khaps[s] = khaps
        self.disc[s] = disc
        self.high[s] = high
        self._win_and_hot(s)

    cdef void _win_and_hot(self, int s):
        """``s``'s win mask from its codes and trash, its hot mask (not the union)
        (as :func:`tusac_env.melds._win_and_hot`)."""
        cdef int trash = self.trash[s]
        cdef int k
        cdef unsigned int win = 0
        if trash == 0:
            for k in range(NCOMP):
                win |= COMP_CLEAN[k][self.codes[s][k]]
        elif trash <= 3:
            for k in range(NCOMP):
                if self.ctrash[s][k] == trash:
                    win = COMP_ZERO[k][self.codes[s][k]]
                    break
        self.win[s] = win
        self.hot[s] = self.high[s] | win

    cdef void _union(self):
        cdef unsigned int u = 0
        cdef int s
        for s in range(self.n):
            u |= self.hot[s]
        self.hot_any = u

    cdef void _build_obs(self):
        """Every seat's observation prefix (tail zero), as :func:`tusac_env.observation.build_obs`."""
        cdef int n = self.n, size = self.obs_size
        cdef int v, s, t, r, i
        cdef unsigned char *b
        memset(self.obs, 0, MAXSEAT * MAXOBS)
        for v in range(n):
            b = &self.obs[v * size]
            for t in range(NT):
                b[t] = self.private[v][t]
                b[self.o_khap + t] = self.private[v][t] == 3
                b[self.o_dead + t] = self.dead[t]
            for s in range(n):
                r = self.rel[s][v]
                b[self.o_sizes + r] = self.sizes[s]
                b[self.o_khc + r] = popcount32(self.khaps[s])
                for t in range(NT):
                    b[self.o_pub + NT * r + t] = self.pub_counts[s][t]
                for i in range(NKINDS):
                    b[self.o_kinds + NKINDS * r + i] = self.kind_counts[s][i]

    # ------------------------------------------------------------ block bookkeeping
    cdef void _set_size(self, int s):
        cdef int v
        cdef int size = self.sizes[s]
        for v in range(self.n):
            self.obs[v * self.obs_size + self.o_sizes + self.rel[s][v]] = size

    cdef void _masks_changed(self, int s, int k):
        """As :func:`tusac_env.melds.masks_changed` (component ``k`` of ``s`` changed)."""
        cdef int code = self.codes[s][k]
        cdef unsigned int keep = ~COMP_BITS[k]
        self.ctrash[s][k] = COMP_TRASH[k][code]
        self.disc[s] = (self.disc[s] & keep) | COMP_DISCARD[k][code]
        self.high[s] = (self.high[s] & keep) | COMP_HIGH[k][code]
        self._win_and_hot(s)
        self._union()

    cdef void _remove(self, int s, int a, int idx, int trash):
        """Take meld ``idx``'s private cards (of active ``a``) out of ``s``'s block, which is
        then left with ``trash`` (``idx`` KHUI_IDX: the three of a Khap)."""
        cdef int j, u, nused, k = COMP_OF[a]
        cdef int base = s * self.obs_size
        if idx == KHUI_IDX:
            self.private[s][a] -= 3
            self.obs[base + a] = self.private[s][a]
            self.codes[s][k] -= 3 * PLACE[a]
            nused = 3
        else:
            nused = MI_NUSED[a][idx]
            for j in range(nused):
                u = MI_USED[a][idx][j]
                self.private[s][u] -= 1
                self.obs[base + u] = self.private[s][u]
            self.codes[s][k] -= MI_PLACE[a][idx]
        self.trash[s] = trash
        self.sizes[s] -= nused
        self._set_size(s)
        self._masks_changed(s, k)

    cdef void _drop_khap(self, int s, int t):
        """``s``'s Khap of ``t`` left its block (as a Khui), as :func:`tusac_env.melds.drop_khap`."""
        cdef int v, c
        self.khaps[s] &= ~(1U << t)
        self.obs[s * self.obs_size + self.o_khap + t] = 0
        c = popcount32(self.khaps[s])
        for v in range(self.n):
            self.obs[v * self.obs_size + self.o_khc + self.rel[s][v]] = c

    cdef void _put_public(self, int s, int ki, int *cards, int ncards):
        """Append a sorted set to ``s``'s public block, as :func:`tusac_env.melds.put_public`."""
        cdef int j, t, v, row, size = self.obs_size
        cdef int p = self.pub_n[s]
        if p >= MAXSETS:
            raise OverflowError("public block overflow")
        self.pub_kind[s][p] = ki
        self.pub_ncards[s][p] = ncards
        for j in range(ncards):
            t = cards[j]
            self.pub_cards[s][p][j] = t
            self.pub_counts[s][t] += 1
            self.exposed[t] += 1
        self.pub_n[s] = p + 1
        self.kind_counts[s][ki] += 1
        for v in range(self.n):
            row = v * size + self.o_pub + NT * self.rel[s][v]
            for j in range(ncards):
                t = cards[j]
                self.obs[row + t] = self.pub_counts[s][t]
            self.obs[v * size + self.o_kinds + NKINDS * self.rel[s][v] + ki] = self.kind_counts[s][ki]

    cdef void _meld_event(self, int s, int ki, int *cards, int ncards):
        cdef list lst = [cards[j] for j in range(ncards)]
        self.events.append(("meld", s, _KIND_NAMES[ki], lst))

    # ------------------------------------------------------------ for players (the compiled greedy bot)
    cdef int _meld_trash(self, int s, int idx):
        """``s``'s trash after melding the active card with meld ``idx`` (held, no Khap broken)."""
        cdef int a = self.active
        cdef int k = COMP_OF[a]
        cdef int code = self.codes[s][k]
        return self.trash[s] + COMP_TRASH[k][code - MI_PLACE[a][idx]] - COMP_TRASH[k][code]

    cdef int _meld_kind(self, int idx):
        """Public set kind index of meld ``idx`` of the active card."""
        return MI_KIND[self.active][idx]

    cdef void _meld_rest(self, int s, int idx, int *rest):
        """``rest`` = ``s``'s private counts without the private cards meld ``idx`` uses."""
        cdef int j, a = self.active
        memcpy(rest, self.private[s], NT * sizeof(int))
        for j in range(MI_NUSED[a][idx]):
            rest[MI_USED[a][idx][j]] -= 1

    cdef void _unseen(self, int s, int *out):
        """The cards of each type ``s`` has not seen (:func:`tusac_env.melds.unseen_counts`):
        4 minus its own, every public block, the dead pile and the active card."""
        cdef int t
        for t in range(NT):
            out[t] = 4 - self.private[s][t] - self.exposed[t]
        if self.active >= 0:
            out[self.active] -= 1

    cdef void _pawn_outs(self, int *counts, int *unseen, int *pawn):
        """Outs of a held pawn of each colour (``flow._pawn_outs``): its own copies, and
        with two other pawn colours held every unseen pawn, with one the missing colours'."""
        cdef int c, held = 0, missing = 0
        for c in range(4):
            held += HELD[counts[7 * c + 6]]
            if not HELD[counts[7 * c + 6]]:
                missing += unseen[7 * c + 6]
        for c in range(4):
            if held >= 3:
                pawn[c] = unseen[6] + unseen[13] + unseen[20] + unseen[27]
            elif held == 2:
                pawn[c] = unseen[7 * c + 6] + missing
            else:
                pawn[c] = unseen[7 * c + 6]

    cdef int _type_outs(self, int *counts, int *unseen, int t, int *pawn):
        """Outs of held type ``t`` (as :func:`setgames.kernels.tusac.outs`; ``pawn`` from
        :meth:`_pawn_outs`): its own copies and the trio partner that completes its trio."""
        cdef int y = TRIO_Y[t], z
        if y < 0:
            return pawn[t // 7]
        z = TRIO_Z[t]
        return unseen[t] + (unseen[y] if HELD[counts[z]] else 0) + (unseen[z] if HELD[counts[y]] else 0)

    cdef int _outs_sum(self, int *counts, int *unseen):
        """Sum over the held non-Khap types of ``counts`` of their outs (a Khap, count 3,
        completes nothing)."""
        cdef int t, total = 0
        cdef int pawn[4]
        self._pawn_outs(counts, unseen, pawn)
        for t in range(NT):
            if HELD[counts[t]]:
                total += self._type_outs(counts, unseen, t, pawn)
        return total

    # ------------------------------------------------------------ worst cards
    cdef unsigned int _worst(self):
        """The current seat's worst discards as a type mask (:func:`tusac_env.flow.worst_cards`)."""
        cdef int cur, t, o, low
        cdef unsigned int legal, m, worst
        cdef int unseen[NT]
        cdef int pawn[4]
        if self.worst_ok:
            return self.worst_mask
        cur = self.current
        legal = self.disc[cur] if self.phase == PH_DISCARD else 0
        if popcount32(legal) <= 1:
            worst = legal
        elif self.active >= 0:  # never while discarding (the rules layer's kernel path)
            worst = 0
            self._unseen(cur, unseen)
            counts = [self.private[cur][t] for t in range(NT)]
            khaps = tuple([t for t in range(NT) if self.private[cur][t] == 3])
            for t in _kern.worst_discards(counts, [unseen[t] for t in range(NT)], khaps):
                worst |= 1U << <int>t
        else:
            self._unseen(cur, unseen)
            self._pawn_outs(self.private[cur], unseen, pawn)
            worst = 0
            low = 99
            m = legal
            while m:
                t = __builtin_ctz(m)
                m &= m - 1
                o = self._type_outs(self.private[cur], unseen, t, pawn)
                if o < low:
                    low = o
                    worst = 1U << t
                elif o == low:
                    worst |= 1U << t
        self.worst_mask = worst
        self.worst_ok = True
        return worst

    # ------------------------------------------------------------ legal actions
    cdef unsigned long long _legal(self):
        """Bit mask of the legal actions (as :func:`tusac_env.flow.legal_now`)."""
        cdef int a, cur = self.current
        if self.phase == PH_DISCARD:
            return (<unsigned long long>self.disc[cur]) << DISCARD0
        if self.phase == PH_OVER:
            return 0
        a = self.active
        if self.phase == PH_RESPOND:
            return LEGAL_MELD_MASK[a][self.codes[cur][COMP_OF[a]]] | (1ULL << HIT)
        return LEGAL_MELD_MASK[a][self.codes[cur][COMP_OF[a]]] | (1ULL << PASS)

    def current_seat(self):
        """Seat to act, -1 once the game is over."""
        return self.current

    def legal_actions(self):
        """Sorted legal action ids (a new list)."""
        cdef unsigned long long m = self._legal()
        cdef list out = []
        while m:
            out.append(__builtin_ctzll(m))
            m &= m - 1
        return out

    def mask(self):
        """A new writable int8 array of the action count, 1 at the legal actions."""
        cdef unsigned long long m = self._legal()
        arr = cnp.PyArray_SimpleNew(1, self.mask_dims, cnp.NPY_INT8)
        cdef char *p = <char *>cnp.PyArray_DATA(arr)
        memset(p, 0, NUM_ACTIONS)
        while m:
            p[__builtin_ctzll(m)] = 1
            m &= m - 1
        return arr

    # ------------------------------------------------------------ observation
    def observe(self, int seat):
        """``seat``'s observation: a new writable int8 array equal to ``game.observe``."""
        cdef int size = self.obs_size, n = self.n
        cdef unsigned int m
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat!r} is not 0..{n - 1}")
        arr = cnp.PyArray_SimpleNew(1, self.obs_dims, cnp.NPY_INT8)
        cdef char *b = <char *>cnp.PyArray_DATA(arr)
        memcpy(b, &self.obs[seat * size], size)
        cdef int a = self.active, cur = self.current
        if a >= 0:
            b[self.o_active + a] = 1
            b[self.o_from + self.rel[self.active_from][seat]] = 1
            b[self.o_how if self.active_how == BY_DISCARD else self.o_how + 1] = 1
            if self.active_passed:
                b[self.o_passed] = 1
        b[self.o_draw] = self.draw_len
        if cur >= 0:
            b[self.o_current + self.rel[cur][seat]] = 1
            b[self.o_phase + self.phase] = 1
            if self.phase == PH_DISCARD and cur == seat:
                m = self._worst()
                while m:
                    b[self.o_worst + __builtin_ctz(m)] = 1
                    m &= m - 1
        else:
            if self.winner >= 0:
                b[self.o_winner + self.rel[self.winner][seat]] = 1
            if self.result == "draw":
                b[self.o_drawn] = 1
        b[self.o_trash] = self.trash[seat]
        if self.claim_seat >= 0:
            b[self.o_claim + self.claim_kind] = 1
            b[self.o_claimer + self.rel[self.claim_seat][seat]] = 1
        return arr

    # ------------------------------------------------------------ apply
    def apply(self, action):
        """Play ``action``; the per-seat rewards when this ends the game, else None.

        Raises:
            ValueError: ``action`` is not legal now (nothing changes).
        """
        if not (type(action) is int and 0 <= action < NUM_ACTIONS and (self._legal() >> action) & 1):
            self._illegal(action)
        return self._apply(action)

    cdef void _illegal(self, action) except *:
        try:
            x = _index(action)
        except TypeError:
            x = -1
        ok = type(action) is not bool and 0 <= x < NUM_ACTIONS and (self._legal() >> x) & 1
        if not ok:
            raise ValueError(f"action {action!r} is not legal here; legal: {self.legal_actions()}")

    cdef object _apply(self, int action):
        cdef int cur = self.current, t, old, a, k, after, idx, how, src
        if action >= DISCARD0:
            t = action - DISCARD0
            self.discard_worst = (self._worst() >> t) & 1
            self._take_discard(cur, t)
            self.events.append(("discard", cur, t))
            self.worst_ok = False
            self.active = t
            self.active_from = cur
            self.active_how = BY_DISCARD
            self.active_passed = False
            self.current = (cur + 1) % self.n
            self.phase = PH_RESPOND
            if (self.hot_any >> t) & 1 and self._claim(cur):
                return self._after_claim()
            return None
        if action == HIT:
            if self.draw_len <= DRAW_LIMIT:
                self.events.append(("hit", cur, -1, self.active))
                self.worst_ok = False
                return self._finish_draw()
            old = self.active
            self.dead[old] += 1
            self.exposed[old] += 1
            for k in range(self.n):
                self.obs[k * self.obs_size + self.o_dead + old] = self.dead[old]
            self.draw_len -= 1
            t = self.draw[self.draw_len]
            self.events.append(("hit", cur, t, old))
            self.worst_ok = False
            self.active = t
            self.active_from = cur
            self.active_how = BY_HIT
            self.active_passed = False
            self.phase = PH_AFTER_HIT
            if (self.hot_any >> t) & 1 and self._claim(-1):
                return self._after_claim()
            return None
        if action == PASS:
            a = self.active
            self.events.append(("pass", cur, a))
            self.worst_ok = False
            self.current = (cur + 1) % self.n
            self.phase = PH_RESPOND
            self.active_passed = True
            return None
        # a meld chosen by the current player
        a = self.active
        idx = action
        after = self._meld_trash(cur, idx)
        if MI_NUSED[a][idx]:
            self._remove(cur, a, idx, after)
        self._put_public(cur, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
        self._meld_event(cur, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
        how = self.active_how
        src = self.active_from
        self.worst_ok = False
        self.active = -1
        self.active_from = -1
        self.active_how = 0
        self.active_passed = False
        if after == 0:
            return self._finish_win(cur, a, how, src)
        self.phase = PH_DISCARD
        return None

    cdef void _take_discard(self, int s, int t):
        """As :func:`tusac_env.melds.take_discard`: one legal discard out of ``s``'s block."""
        cdef int k = COMP_OF[t]
        cdef int code
        self.private[s][t] -= 1
        code = self.codes[s][k] = self.codes[s][k] - PLACE[t]
        self.trash[s] -= 1
        self.sizes[s] -= 1
        self.obs[s * self.obs_size + t] = self.private[s][t]
        self._set_size(s)
        self.ctrash[s][k] -= 1
        self.disc[s] = (self.disc[s] & ~COMP_BITS[k]) | COMP_DISCARD[k][code]
        self.high[s] &= ~(1U << t)
        self._win_and_hot(s)
        self._union()

    cdef object _after_claim(self):
        # A claim ended the game (a win) or handed the turn to the claimer, who discards.
        if self.phase == PH_OVER:
            return tuple(self.returns)
        return None

    cdef int _win_meld(self, int s, int a):
        """The best winning meld index of active ``a`` for ``s`` (KHUI_IDX for a Khui),
        -1 when none (as :func:`tusac_env.claims.win_meld`)."""
        cdef int trash = self.trash[s], k, code, base = 0, j, best_v = -1, best = -1, idx, rest, v
        if trash > 3:
            return -1
        k = COMP_OF[a]
        code = self.codes[s][k]
        for j in range(NCOMP):
            if j != k:
                base += COMP_VALUE[j][self.codes[s][j]]
        if self.private[s][a] == 3 and trash == 0:
            best_v = KHUI_VALUE + base + COMP_VALUE[k][code - 3 * PLACE[a]]
            best = KHUI_IDX
        for j in range(OPT_N[a][code]):
            idx = OPT_IDX[a][code][j]
            rest = base + COMP_VALUE[k][code - MI_PLACE[a][idx]]
            if rest < 0:
                continue
            v = KIND_VALUE[MI_KIND[a][idx]] + rest
            if v > best_v:
                best_v = v
                best = idx
        if best_v < 0:
            return -1
        return best

    cdef bint _claim(self, int exclude) except -1:
        """The automatic claims on the newly active card, in priority order
        (as :func:`tusac_env.claims.claim`); True when one was made."""
        cdef int n = self.n, a = self.active, cur = self.current
        cdef int seats[MAXSEAT]
        cdef int ns = 0, i, s, idx, how, src, trash, k, code, after
        cdef int cards[4]
        for i in range(n):
            s = (cur + i) % n
            if (self.hot[s] >> a) & 1 and s != exclude:
                seats[ns] = s
                ns += 1
        for i in range(ns):
            s = seats[i]
            if not (self.win[s] >> a) & 1:
                continue
            idx = self._win_meld(s, a)
            assert idx >= 0  # the win mask and win_meld agree
            self.events.append(("claim", s, "win", a))
            self.claim_kind = CL_WIN
            self.claim_seat = s
            how = self.active_how
            src = self.active_from
            if idx == KHUI_IDX:
                self._remove(s, a, KHUI_IDX, 0)
                self._drop_khap(s, a)
                cards[0] = cards[1] = cards[2] = cards[3] = a
                self._put_public(s, KI_KHUI, cards, 4)
                self._meld_event(s, KI_KHUI, cards, 4)
            else:
                if MI_NUSED[a][idx]:
                    self._remove(s, a, idx, 0)
                self._put_public(s, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
                self._meld_event(s, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
            self.active = -1
            self._finish_win(s, a, how, src)
            return True
        for i in range(ns):
            s = seats[i]
            if self.private[s][a] == 3:
                self.events.append(("claim", s, "khui", a))
                self.claim_kind = CL_KHUI
                self.claim_seat = s
                self._remove(s, a, KHUI_IDX, self.trash[s])  # a Khap is never trash
                self._drop_khap(s, a)
                cards[0] = cards[1] = cards[2] = cards[3] = a
                self._put_public(s, KI_KHUI, cards, 4)
                self._meld_event(s, KI_KHUI, cards, 4)
                self._to_claimer(s)
                return True
        if a % 7 == 0:  # pair priority never takes a king
            return False
        for i in range(ns):
            s = seats[i]
            if s == cur or self.private[s][a] != 2:
                continue
            trash = self.trash[s]
            k = COMP_OF[a]
            code = self.codes[s][k]
            after = trash + COMP_TRASH[k][code - 2 * PLACE[a]] - COMP_TRASH[k][code]
            if after > trash or (trash == 2 and self._is_waiting(s)):
                return False  # only one seat can hold a pair of the type
            self.events.append(("claim", s, "pair", a))
            self.claim_kind = CL_PAIR
            self.claim_seat = s
            self._remove(s, a, TRIPLE_IDX, after)
            self._put_public(s, MI_KIND[a][TRIPLE_IDX], MI_CARDS[a][TRIPLE_IDX], MI_NCARDS[a][TRIPLE_IDX])
            self._meld_event(s, MI_KIND[a][TRIPLE_IDX], MI_CARDS[a][TRIPLE_IDX], MI_NCARDS[a][TRIPLE_IDX])
            self._to_claimer(s)
            return True
        return False

    cdef bint _is_waiting(self, int s):
        """As :func:`tusac_env.claims._is_waiting`."""
        cdef int k
        if self.trash[s] != 2:
            return False
        for k in range(NCOMP):
            if self.ctrash[s][k] == 2:
                return WAITING[k][self.codes[s][k]]
        return False

    cdef void _to_claimer(self, int s):
        self.active = -1
        self.active_from = -1
        self.active_how = 0
        self.active_passed = False
        self.current = s
        self.phase = PH_DISCARD
        self.worst_ok = False

    # ------------------------------------------------------------ game end (the rules layer's code)
    cdef object _score_state(self):
        """A rules-layer state holding what :mod:`tusac_env.scoring` reads: the public set
        kinds (their cards are left out), the draw pile, the penalty test and the caches
        set by :meth:`_finish_win` (this runs every game: no more than the scoring reads)."""
        st = TuSacState(num_players=self.n, first=self.first, private=[],
                        public=[[[_KIND_NAMES[self.pub_kind[s][i]], []] for i in range(self.pub_n[s])]
                                for s in range(self.n)],
                        dead=[], draw=[self.draw[i] for i in range(self.draw_len)],
                        discard_worst=bool(self.discard_worst))
        return st

    cdef object _finish_win(self, int seat, int card, int how, int src):
        """End the game with ``seat`` winning: :func:`tusac_env.scoring.finish_win` on a
        state built from this one; returns the per-seat rewards."""
        st = self._score_state()
        st._codes = [[self.codes[s][k] for k in range(NCOMP)] for s in range(self.n)]
        st._kind_counts = [[self.kind_counts[s][k] for k in range(NKINDS)] for s in range(self.n)]
        st._khaps = [tuple([k for k in range(NT) if self.khaps[s] >> k & 1]) for s in range(self.n)]
        _scoring.finish_win(st, self.config, seat, card, how, src)
        self._take_end(st)
        return tuple(self.returns)

    cdef object _finish_draw(self):
        st = self._score_state()
        _scoring.finish_draw(st)
        self._take_end(st)
        return tuple(self.returns)

    cdef void _end_fields(self, st) except *:
        """Copy the game-end fields (winner, result, winning card, value, amount, penalty)
        of a rules-layer state: at load, and from the scoring's state at the end."""
        self.winner = st.winner
        self.result = st.result
        self.win_card = st.win_card
        self.win_how = int(st.win_how)
        self.win_from = st.win_from
        self.value = st.value
        self.amount = st.amount
        self.penalized = st.penalized

    cdef void _take_end(self, st):
        self._end_fields(st)
        self.payments = st.payments
        self.returns = st.returns
        self.events.extend(st.events)
        self.phase = PH_OVER
        self.current = -1
        self.worst_ok = False

    # ------------------------------------------------------------ rare entry points
    def is_truncated(self):
        """False: Tu Sac ends only by a win or a draw."""
        return False

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self.game), self.game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the engine's state (on a state holding the fields it reads:
        the env asks for it at the end of every game)."""
        st = TuSacState(num_players=self.n, first=self.first, private=[], public=[], dead=[], draw=[],
                        current=self.current, phase=self.phase, winner=self.winner, result=self.result,
                        win_card=self.win_card, win_how=self.win_how, win_from=self.win_from,
                        value=self.value, amount=self.amount, penalized=self.penalized,
                        payments=[list(p) for p in self.payments], returns=list(self.returns))
        return self.game.outcome(st)

    def to_json(self):
        """``game.to_json`` of the engine's state (plain JSON-able data)."""
        cdef int n = self.n
        return {
            "num_players": n,
            "first": self.first,
            "private": [[self.private[s][t] for t in range(NT)] for s in range(n)],
            "public": [[[_KIND_NAMES[self.pub_kind[s][i]],
                         [self.pub_cards[s][i][j] for j in range(self.pub_ncards[s][i])]]
                        for i in range(self.pub_n[s])] for s in range(n)],
            "dead": [self.dead[t] for t in range(NT)],
            "draw": [self.draw[i] for i in range(self.draw_len)],
            "active": self.active,
            "active_from": self.active_from,
            "active_how": self.active_how,
            "active_passed": bool(self.active_passed),
            "discard_worst": bool(self.discard_worst),
            "current": self.current,
            "phase": self.phase,
            "winner": self.winner,
            "result": self.result,
            "win_card": self.win_card,
            "win_how": self.win_how,
            "win_from": self.win_from,
            "value": self.value,
            "amount": self.amount,
            "penalized": self.penalized,
            "payments": [list(p) for p in self.payments],
            "returns": list(self.returns),
            "last_claim": [_CLAIM_NAMES[self.claim_kind] if self.claim_seat >= 0 else "", self.claim_seat],
            "events": [list(e) for e in self.events],
        }

