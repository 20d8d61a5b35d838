"""Hypothesis strategies: lists of mutations (``seeds.mutate``) for one seed."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.robustness.seeds import Seed, all_seeds

#: Integers a header field is set to (``set_field`` masks them to the field's width).
SPECIAL = (0, 1, 2, 3, 4, 6, 7, 255, 256, 2**15 - 1, 2**16 - 1, 2**31 - 1, 2**31, 2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1)


def _other_bytes() -> st.SearchStrategy[bytes]:
    """Bytes to graft in: random, or a slice of some seed (a PNG inside a GLB, a DDS header
    inside a KTX2 …)."""
    datas = [s.data for s in all_seeds()]
    sliced = st.tuples(st.sampled_from(datas), st.integers(0, 4096), st.integers(1, 512)).map(lambda t: t[0][t[1] : t[1] + t[2]])
    return st.one_of(st.binary(max_size=64), sliced, st.sampled_from(datas))


def mutation(seed: Seed) -> st.SearchStrategy[tuple]:
    n = len(seed.data)
    head = min(n, 512)
    pos = st.one_of(st.integers(0, max(0, head - 1)), st.integers(0, n))
    ops = [
        st.tuples(st.just("cut"), st.integers(0, max(0, n - 1))),
        st.tuples(st.just("flip"), pos, st.integers(0, 7)),
        st.tuples(st.just("splice"), pos, pos, pos),
        st.tuples(st.just("overwrite"), pos, _other_bytes()),
        st.tuples(st.just("delete"), pos, pos),
        st.tuples(st.just("append"), _other_bytes()),
    ]
    if seed.fields:
        ops.append(st.tuples(st.just("set"), st.integers(0, len(seed.fields) - 1),
                             st.one_of(st.sampled_from(SPECIAL), st.integers(0, 2**32 - 1))))
        ops.append(st.tuples(st.just("set"), st.integers(0, len(seed.fields) - 1), st.sampled_from(SPECIAL)))
    return st.one_of(ops)


def mutations(seed: Seed, max_ops: int = 4) -> st.SearchStrategy[list[tuple]]:
    return st.lists(mutation(seed), min_size=1, max_size=max_ops)
