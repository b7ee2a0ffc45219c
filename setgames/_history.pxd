# cython: language_level=3
"""The ``history`` mode's ring of events in C, the compiled twin of :mod:`setgames.history`.

A game keeps, per game it steps, one ``unsigned int`` array of ``1 + cap`` words: word 0 counts
the rows pushed so far, the other ``cap`` words are a ring of packed rows (``sg_event``). The step
pushes a row per public event; the observation writer turns the ring into the block, newest
first, with the seats seen from the observer. ``cimport`` this file (inline, compiled into each
game's engine); the Python module is the reference the compiled paths are held to.
"""

from libc.string cimport memcpy, memmove, memset


cdef inline unsigned int sg_event(int kind, int seat, int card, int arg) noexcept nogil:
    """One row packed in 32 bits: kind (>= 1), seat + 1 (0: no seat), card + 1 (0: none), arg (int8)."""
    return ((<unsigned int> kind & 0xFF) | ((<unsigned int> (seat + 1) & 0xFF) << 8)
            | ((<unsigned int> (card + 1) & 0xFF) << 16) | ((<unsigned int> arg & 0xFF) << 24))


cdef inline void sg_history_clear(unsigned int *h) noexcept nogil:
    """Empty the ring ``h`` (a new game)."""
    h[0] = 0


cdef inline void sg_history_push(unsigned int *h, int cap, unsigned int row) noexcept nogil:
    """Append a packed row to the ring ``h`` of ``cap`` rows (the oldest scrolls off when full)."""
    h[1 + h[0] % <unsigned int> cap] = row
    h[0] += 1


cdef inline void sg_history_write(const unsigned int *h, int cap, int observer, int num_seats,
                                  signed char *out) noexcept nogil:
    """The block of ring ``h`` seen from ``observer`` into ``out`` (``4 * cap + 1`` entries): the
    kinds, seats, cards and args of the last ``cap`` rows newest first, zero padded, then the
    count capped at 127 (:func:`setgames.history.history_block`)."""
    cdef unsigned int n = h[0]
    cdef int k = <int> n if n < <unsigned int> cap else cap
    cdef int i, j = <int> ((n + <unsigned int> cap - 1) % <unsigned int> cap) if n else 0
    cdef unsigned int row, s
    cdef signed char rel[256]
    # seat + 1 -> the observer's code: 0 stays 0, seats turn so that the observer is 1
    rel[0] = 0
    for i in range(num_seats):
        rel[i + 1] = <signed char> (1 + (i - observer + num_seats) % num_seats)
    for i in range(k):
        row = h[1 + j]
        out[i] = <signed char> (row & 0xFF)
        s = (row >> 8) & 0xFF
        out[cap + i] = rel[s] if s <= <unsigned int> num_seats else 0
        out[2 * cap + i] = <signed char> ((row >> 16) & 0xFF)
        out[3 * cap + i] = <signed char> (row >> 24)
        j = j - 1 if j else cap - 1
    if k < cap:
        for i in range(4):
            memset(out + i * cap + k, 0, cap - k)
    out[4 * cap] = <signed char> (n if n < 127 else 127)


# The byte columns after the two header words, in units of cap bytes.
cdef enum:
    _SG_KIND = 0
    _SG_CARD = 1
    _SG_ARG = 2
    _SG_SEAT = 3     # then one column per observer


cdef inline size_t sg_history_words(int cap, int num_seats) noexcept nogil:
    """Words one game's record takes (``cap`` rows kept, ``num_seats`` seats)."""
    return 2 + (<size_t> cap * (_SG_SEAT + num_seats) + 3) // 4


cdef inline void sg_history_reset(unsigned int *h, int cap, int num_seats) noexcept nogil:
    """Empty the record ``h`` (a new game): no rows, every column zero."""
    h[0] = 0
    h[1] = 0       # the first row goes at cap - 1, the rows after it are zeros until they wrap
    memset(h + 2, 0, <size_t> cap * (_SG_SEAT + num_seats))


cdef inline void sg_history_add(unsigned int *h, int cap, int num_seats, unsigned int row) noexcept nogil:
    """Append a packed row (``sg_event``) to the record ``h``; past ``cap`` rows the oldest scroll off."""
    cdef unsigned char *b = <unsigned char *> (h + 2)
    cdef int o, t, s = (row >> 8) & 0xFF
    cdef unsigned int p = (h[1] if h[1] else <unsigned int> cap) - 1   # just before the newest
    b[_SG_KIND * cap + p] = row & 0xFF
    b[_SG_CARD * cap + p] = (row >> 16) & 0xFF
    b[_SG_ARG * cap + p] = row >> 24
    for o in range(num_seats):  # seat + 1 seen from o: 0 stays 0, the seats turn so that o is 1
        t = s - 1 - o           # (no division: a step pushes a row or two per seat)
        if t < 0:
            t += num_seats
        b[(_SG_SEAT + o) * cap + p] = 0 if s == 0 else <unsigned char> (t + 1)
    h[1] = p
    h[0] += 1


cdef inline unsigned int sg_history_row(const unsigned int *h, int cap, int i) noexcept nogil:
    """The packed row (``sg_event``, absolute seat) ``i`` rows before the newest (0: the newest;
    ``i`` below the rows kept, ``min(h[0], cap)``)."""
    cdef const unsigned char *b = <const unsigned char *> (h + 2)
    cdef size_t p = (h[1] + i) % <unsigned int> cap
    # seen from seat 0 a seat's code is seat + 1: the packed form's
    return (b[_SG_KIND * cap + p] | (<unsigned int> b[_SG_SEAT * cap + p] << 8)
            | (<unsigned int> b[_SG_CARD * cap + p] << 16) | (<unsigned int> b[_SG_ARG * cap + p] << 24))


cdef inline void _sg_run(signed char *out, const unsigned char *col, int cap, size_t p) noexcept nogil:
    # a column from the newest row on: its end, then its start (zeros until the ring wraps)
    memcpy(out, col + p, cap - p)
    memcpy(out + cap - p, col, p)


cdef inline void sg_history_block(const unsigned int *h, int cap, int observer, signed char *out) noexcept nogil:
    """The block of record ``h`` seen from ``observer`` into ``out`` (``4 * cap + 1`` entries): the
    kinds, seats, cards and args of the last ``cap`` rows newest first, zero padded, then the
    count capped at 127 (:func:`setgames.history.history_block`)."""
    cdef const unsigned char *b = <const unsigned char *> (h + 2)
    cdef size_t p = h[1]
    _sg_run(out, b + _SG_KIND * cap, cap, p)
    _sg_run(out + cap, b + (_SG_SEAT + observer) * cap, cap, p)
    _sg_run(out + 2 * cap, b + _SG_CARD * cap, cap, p)
    _sg_run(out + 3 * cap, b + _SG_ARG * cap, cap, p)
    out[4 * cap] = <signed char> (h[0] if h[0] < 127 else 127)

