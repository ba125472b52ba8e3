"""Go's ``math/rand`` (Go 1.15-1.19) value for value: the additive lagged Fibonacci source and the few ``Rand``
methods FGD's benchmark draws from (``Int63``, ``Int``, ``Intn``, ``Shuffle``, ``Perm``).

Written from the algorithm of the public golang/go sources (``src/math/rand/rng.go`` and ``rand.go``): 607 words, tap
273, seeded through the Park-Miller step ``seedrand`` and the ``rngCooked`` table. A test checks it against numbers
printed by a Go program (fixtures/simulate/gorand_go119.json).
"""

from __future__ import annotations

from collections.abc import Callable

from gputui.core.simulate.gorand_table import COOKED

_LEN = 607
_TAP = 273
_MASK63 = (1 << 63) - 1
_INT32MAX = (1 << 31) - 1


def _seedrand(x: int) -> int:
    """x[n+1] = 48271 * x[n] mod (2**31 - 1), in Go's int32 arithmetic (Schrage's method)."""
    hi, lo = int(x / 44488), x - int(x / 44488) * 44488  # Go truncates towards zero
    x = 48271 * lo - 3399 * hi
    if x < 0:
        x += _INT32MAX
    return x


class GoRand:
    """A ``rand.New(rand.NewSource(seed))`` (or the global source after ``rand.Seed(seed)``)."""

    __slots__ = ("_vec", "_tap", "_feed")

    def __init__(self, seed: int) -> None:
        self._tap = 0
        self._feed = _LEN - _TAP
        seed %= _INT32MAX  # Python's % is already non-negative for a positive modulus
        if seed == 0:
            seed = 89482311
        x = seed
        vec = [0] * _LEN
        for i in range(-20, _LEN):
            x = _seedrand(x)
            if i >= 0:
                u = x << 40
                x = _seedrand(x)
                u ^= x << 20
                x = _seedrand(x)
                u ^= x
                vec[i] = (u ^ COOKED[i]) & _MASK63
        self._vec = vec

    def int63(self) -> int:
        tap = self._tap - 1
        if tap < 0:
            tap += _LEN
        feed = self._feed - 1
        if feed < 0:
            feed += _LEN
        self._tap, self._feed = tap, feed
        vec = self._vec
        x = (vec[feed] + vec[tap]) & _MASK63
        vec[feed] = x
        return x

    def go_int(self) -> int:
        """Go's ``Int()`` on a 64-bit machine."""
        return self.int63()

    def int31(self) -> int:
        return self.int63() >> 32

    def uint32(self) -> int:
        return (self.int63() >> 31) & 0xFFFFFFFF

    def int63n(self, n: int) -> int:
        if n <= 0:
            raise ValueError("invalid argument to Int63n")
        if n & (n - 1) == 0:
            return self.int63() & (n - 1)
        top = (1 << 63) - 1 - (1 << 63) % n
        v = self.int63()
        while v > top:
            v = self.int63()
        return v % n

    def int31n(self, n: int) -> int:
        if n <= 0:
            raise ValueError("invalid argument to Int31n")
        if n & (n - 1) == 0:
            return self.int31() & (n - 1)
        top = (1 << 31) - 1 - (1 << 31) % n
        v = self.int31()
        while v > top:
            v = self.int31()
        return v % n

    def _int31n_lemire(self, n: int) -> int:
        """The unexported ``int31n`` that ``Shuffle`` uses (Lemire's multiply-shift, not ``Int31n``)."""
        prod = self.uint32() * n
        low = prod & 0xFFFFFFFF
        if low < n:
            thresh = ((1 << 32) - n) % n
            while low < thresh:
                prod = self.uint32() * n
                low = prod & 0xFFFFFFFF
        return prod >> 32

    def intn(self, n: int) -> int:
        if n <= 0:
            raise ValueError("invalid argument to Intn")
        return self.int31n(n) if n <= _INT32MAX else self.int63n(n)

    def perm(self, n: int) -> list[int]:
        m = [0] * n
        for i in range(n):
            j = self.intn(i + 1)
            m[i] = m[j]
            m[j] = i
        return m

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        if n < 0:
            raise ValueError("invalid argument to Shuffle")
        i = n - 1
        while i > _INT32MAX - 1:
            swap(i, self.int63n(i + 1))
            i -= 1
        while i > 0:
            swap(i, self._int31n_lemire(i + 1))
            i -= 1

    def shuffle_list(self, items: list) -> None:
        """``rand.Shuffle(len(items), func(i, j) { items[i], items[j] = items[j], items[i] })``."""

        def swap(i: int, j: int) -> None:
            items[i], items[j] = items[j], items[i]

        self.shuffle(len(items), swap)
