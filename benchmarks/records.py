"""Building records: texbudget's msgspec Structs against the frozen dataclasses and the
``model.builder`` they replaced (issue 22), in the same process.

    python benchmarks/records.py [--before main] [--repeat 7] [--number 200000]

``--before`` names a git commit whose ``texbudget/model.py`` still had the dataclasses and
``builder`` (default ``main`` before issue 22's change, ``c468ef9``); its text is read with
``git show`` and imported as a module of its own, so both generations are timed side by
side. Each case builds one record the way the code builds it, the fastest of ``--repeat``
runs of ``--number`` builds; the ratio is the Struct's time over the builder's.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The last commit with ``model.builder`` (issue 22's starting point).
BEFORE = "c468ef9"


def _old_model(commit: str):
    """``texbudget/model.py`` as it was at ``commit``, imported as ``old_model``."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:texbudget/model.py"],
                          check=True, capture_output=True, text=True).stdout
    if "def builder" not in text:
        raise SystemExit(f"{commit}:texbudget/model.py has no builder; pass --before with an older commit")
    folder = Path(tempfile.mkdtemp(prefix="texbudget-records-"))
    (folder / "old_model.py").write_text(text)
    spec = importlib.util.spec_from_file_location("old_model", folder / "old_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_model"] = module  # dataclasses resolve the module's annotations through it
    spec.loader.exec_module(module)
    return module


def _positional(cls, given: dict, name: str) -> str:
    """The arguments of a positional call of the old ``cls`` with ``given`` (looked up in the
    dict ``name``, as the keyword call looks them up) and the defaults for the rest."""
    import dataclasses

    return ", ".join(f"{name}[{f.name!r}]" if f.name in given else repr(f.default) for f in dataclasses.fields(cls))


def cases(old, new) -> dict[str, tuple[str, str, dict]]:
    """name -> (the old code's statement, the new code's statement, their globals)."""
    png = dict(path="props/rock_albedo.png", container="png", width=1024, height=1024, channels=3, alpha=False,
               bit_depth=8, hdr=False, color_space="srgb", disk_bytes=40961, grey=False, palette=False)
    dds = dict(path="props/rock_n.dds", container="dds", width=2048, height=2048, depth=1, layers=1, faces=1,
               stored_levels=12, stored_format="BC5_UNORM", channels=2, alpha=False, bit_depth=8, hdr=False,
               color_space="linear", disk_bytes=5592532, level_bytes=(4194304, 1048576, 262144), grey=False)
    g = {"old": old, "new": new, "png": png, "dds": dds, "T_old": old.builder(old.TextureFacts),
         "M_old": old.builder(old.MipLevel), "F_old": old.builder(old.Finding),
         "plan_old": old.TexturePlan("a.png", "BC7_SRGB", 1024, 1024, 1, 1, 1, 11, "generated", "albedo", "name"),
         "plan_new": new.TexturePlan(path="a.png", gpu_format="BC7_SRGB", width=1024, height=1024, depth=1, layers=1,
                                     faces=1, levels=11, mips="generated", role="albedo", decided_by="name"),
         "W_old": old.Severity.WARNING, "W_new": new.Severity.WARNING}
    # The old readers built PNG and DDS facts positionally through the builder (the
    # "one comment per argument" calls); the new ones call the class with keywords.
    png_pos, dds_pos = (_positional(old.TextureFacts, given, name) for given, name in ((png, "png"), (dds, "dds")))
    png_kw = ", ".join(f"{k}=png[{k!r}]" for k in png)
    dds_kw = ", ".join(f"{k}=dds[{k!r}]" for k in dds)
    return {
        "TextureFacts of a PNG (12 fields given)": (f"T_old({png_pos})", f"new.TextureFacts({png_kw})", g),
        "TextureFacts of a DDS (17 fields given)": (f"T_old({dds_pos})", f"new.TextureFacts({dds_kw})", g),
        "the same, old dataclass by keywords": (f"old.TextureFacts({dds_kw})", f"new.TextureFacts({dds_kw})", g),
        "MipLevel (5 fields)": ("M_old(3, 128, 128, 1, 16384)",
                                "new.MipLevel(level=3, width=128, height=128, depth=1, bytes=16384)", g),
        "Finding (5 fields)": ("F_old('a.png', 'TB006', W_old, 'unused', 'hint')",
                               "new.Finding(path='a.png', code='TB006', severity=W_new, message='unused', hint='hint')", g),
        "evolve a TexturePlan (one field)": ("old.evolve(plan_old, tier_drop=1)", "new.evolve(plan_new, tier_drop=1)", g),
    }


def check(old, new) -> None:
    """The positional calls timed for the old code build what the keyword calls build."""
    import dataclasses

    import msgspec

    g = cases(old, new)["TextureFacts of a PNG (12 fields given)"][2]
    for name in ("png", "dds"):
        given = g[name]
        before = g["T_old"](*(given.get(f.name, f.default) for f in dataclasses.fields(old.TextureFacts)))
        assert dataclasses.astuple(before) == msgspec.structs.astuple(new.TextureFacts(**given)), name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="record construction: Structs vs the old builder")
    parser.add_argument("--before", default=BEFORE, help="a commit whose texbudget/model.py has model.builder")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=200_000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from texbudget import model as new

    old = _old_model(args.before)
    check(old, new)
    print(f"{'case':<42} {'before ns':>10} {'after ns':>9} {'after/before':>13}")
    for name, (before, after, g) in cases(old, new).items():
        # interleaved rounds: both see the same machine
        t_old, t_new = [], []
        for _ in range(args.repeat):
            t_old.append(timeit.timeit(before, globals=g, number=args.number))
            t_new.append(timeit.timeit(after, globals=g, number=args.number))
        b, a = min(t_old) / args.number * 1e9, min(t_new) / args.number * 1e9
        print(f"{name:<42} {b:>10.0f} {a:>9.0f} {a / b:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
