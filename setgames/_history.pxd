# cython: language_level=3
"""The ``history`` mode's ring of events in C, the compiled twin of :mod:`setgames.history`.

A game keeps, per game it steps, one ``unsigned int`` array of ``1 + cap`` words: word 0 counts
the rows pushed so far, the other ``cap`` words are a ring of packed rows (``sg_event``). The step
pushes a row per public event; the observation writer turns the ring into the block, newest
first, with the seats seen from the observer. ``cimport`` this file (inline, compiled into each
game's engine); the Python module is the reference the compiled paths are held to.
"""

from libc.string cimport memset


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
