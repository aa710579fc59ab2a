"""The Python-level fuzz pass: mutated scenarios through ``ccsim.validate``,
``ccsim.run`` (short) and the command line (``ccsim run FILE -o DIR``, in-process).

    python tests/fuzz_python.py 5000 [seed]

For every input: ``validate`` accepts it or raises ``ScenarioError`` (nothing else);
an accepted input runs (0.05 s simulated) or raises ``ScenarioError``; the command
line exits 0 (a complete run directory) or 2 with exactly one ``error:`` line, no
traceback, and nothing written. ``tests/test_fuzz.py`` runs a few hundred inputs; the
Rust fuzzer (``crates/ccsim/examples/fuzz_scenarios.rs``) goes much further below.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED_DIRS = [
    ROOT / "scenarios",
    ROOT / "python" / "ccsim" / "reproduce" / "scenarios",
    ROOT / "crates" / "ccsim" / "fuzz" / "regressions",
]
VALUES = [
    "0", "-1", "4294967295", "18446744073709551615", "1e308", "nan", "inf", "1e8",
    '"4294967295"', '"18446744073709551615ps"', '"4294967s"', '"1ns"', '"0s"', '"-1s"',
    '"1bps"', '"0bps"', '"1e30Gbps"', '"0B"', '"4294967295pkt"', '"1e300bdp"', '"bdp"',
    '""', '"ключ"', '"🦀"', "true", "[]", "{}", '{ uniform = ["1s", "0s"] }',
    '{ exponential = "0s" }', '{ kind = "red" }', '{ name = "cubic", beta = 2 }',
    '"fluid"', '"graph"', '"xcp"',
]  # fmt: skip
ODD_KEYS = ["ключ", "🦀", '"a.b"', '""', "duration2", "ÄÖÜ"]
SHORT = ['duration="0.05s"', 'warmup="0s"']


def seeds() -> list[str]:
    texts = []
    for d in SEED_DIRS:
        for p in sorted(d.rglob("*.toml")):
            lines, skip = [], False
            for line in p.read_text(encoding="utf-8").splitlines():
                if line.lstrip().startswith("["):
                    skip = line.lstrip().startswith(("[sweep]", "[sweep."))
                if not skip:
                    lines.append(line)
            texts.append("\n".join(lines) + "\n")
    return texts


def mutate(text: str, pool: list[str], rng: random.Random) -> str:
    lines = text.splitlines() or [""]
    kv = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
    op = rng.randrange(8)
    if op <= 2 and kv:
        i = rng.choice(kv)
        lines[i] = lines[i].split("=", 1)[0] + "= " + rng.choice(VALUES)
    elif op == 3:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(pool))
    elif op == 4 and kv:
        i = rng.choice(kv)
        lines[i] = rng.choice(ODD_KEYS) + " =" + lines[i].split("=", 1)[1]
    elif op == 5:
        return text[: rng.randrange(len(text) + 1)]
    elif op == 6:
        d = rng.choice([10, 300, 1000, 5000])
        lines.insert(rng.randrange(len(lines) + 1), "x = " + "[" * d + "]" * d)
    else:
        del lines[rng.randrange(len(lines))]
    return "\n".join(lines) + "\n"


def inputs(n: int, seed: int) -> list[str]:
    base = seeds()
    pool = [line for t in base for line in t.splitlines() if "=" in line]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = rng.choice(base)
        if rng.random() < 0.3:
            # A valid variation (another seed), so that runs and writes are exercised.
            text = f"seed = {rng.randrange(2**32)}\n" + "\n".join(
                line for line in text.splitlines() if not line.startswith("seed")
            )
        else:
            for _ in range(rng.randint(1, 3)):
                text = mutate(text, pool, rng)
        out.append(text)
    return out


def check_api(text: str) -> str:
    """``"accepted"`` or ``"refused"``; raises AssertionError on anything else."""
    import ccsim

    try:
        ccsim.validate(text)
    except ccsim.ScenarioError:
        return "refused"
    except BaseException as e:  # noqa: BLE001 - the finding
        raise AssertionError(f"validate raised {type(e).__name__}: {e}") from e
    try:
        ccsim.run(text, set=SHORT)
    except ccsim.ScenarioError:
        pass  # the short duration may not fit the scenario (a start after it, ...)
    except BaseException as e:  # noqa: BLE001
        raise AssertionError(f"run raised {type(e).__name__}: {e}") from e
    return "accepted"


def check_cli(text: str, work: Path) -> int:
    """Exit code of ``ccsim run`` on *text*; raises AssertionError if the contract
    (0 with a complete run directory, or 2 with one error line and nothing written)
    is broken."""
    from click.testing import CliRunner

    from ccsim.cli import main

    scenario = work / "s.toml"
    scenario.write_text(text, encoding="utf-8")
    out = work / "out"
    args = ["run", str(scenario), "-q", "-o", str(out)]
    args += [a for s in SHORT for a in ("--set", s)]
    r = CliRunner().invoke(main, args, catch_exceptions=True)
    stderr = r.stderr if hasattr(r, "stderr") else r.output
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        tb = "".join(traceback.format_exception(r.exception))
        raise AssertionError(f"the CLI raised:\n{tb}")
    assert "Traceback" not in stderr, stderr
    if r.exit_code == 0:
        names = sorted(p.name for p in out.iterdir())
        assert ".ccsim" in names and "summary.json" in names, names
    else:
        assert r.exit_code == 2, (r.exit_code, stderr)
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), stderr
        assert not out.exists(), "a refused input wrote its output"
    assert sorted(p.name for p in work.iterdir() if p.name != "out") == ["s.toml"]
    if out.exists():
        import shutil

        shutil.rmtree(out)
    return r.exit_code


def main(n: int, seed: int) -> int:
    t0 = time.perf_counter()
    counts = {"accepted": 0, "refused": 0, "cli-0": 0, "cli-2": 0}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, text in enumerate(inputs(n, seed)):
            try:
                counts[check_api(text)] += 1
                counts[f"cli-{check_cli(text, Path(tmp))}"] += 1
            except AssertionError as e:
                failures.append((k, str(e), text))
                print(f"input {k}: {e}", file=sys.stderr)
    print(
        f"python fuzz: {n} inputs in {time.perf_counter() - t0:.0f} s: "
        f"validate accepted {counts['accepted']}, refused {counts['refused']}; "
        f"CLI exit 0: {counts['cli-0']}, exit 2 (one error line, nothing written): "
        f"{counts['cli-2']}; failures: {len(failures)}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("CCSIM_MEMORY_LIMIT", "1GB")
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000,
                  int(sys.argv[2]) if len(sys.argv) > 2 else 1))  # fmt: skip
