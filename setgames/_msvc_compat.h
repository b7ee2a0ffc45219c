/* The gcc/clang builtins the compiled engines use, for MSVC (forced in by setup.py
   with /FI on MSVC only). Portable bit tricks for the counts, so that the code runs
   on any x86-64 or ARM64 CPU (no POPCNT instruction assumed). */
#ifndef SETGAMES_MSVC_COMPAT_H
#define SETGAMES_MSVC_COMPAT_H
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>

static __inline int __builtin_popcountll(unsigned long long x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
static __inline int __builtin_popcount(unsigned int x) { return __builtin_popcountll(x); }
static __inline int __builtin_ctzll(unsigned long long x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
static __inline int __builtin_ctz(unsigned int x) {
    unsigned long i;
    _BitScanForward(&i, x);
    return (int)i;
}
static __inline int __builtin_clzll(unsigned long long x) {
    unsigned long i;
    _BitScanReverse64(&i, x);
    return 63 - (int)i;
}
#endif
#endif
