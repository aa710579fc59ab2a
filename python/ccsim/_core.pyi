"""Type stubs for the compiled Rust core (crates/ccsim-py): scenario text in, columnar
results out. The Python API in ``ccsim`` wraps these; use them directly only for what
it does not offer."""

from collections.abc import Callable, Sequence
from typing import Any, TypedDict

class ScenarioError(ValueError):
    """A scenario the core refuses: the message names the field path."""

class SimulationError(RuntimeError):
    """The simulator failed (an internal error, reported with its message)."""

# A result table: column name -> (numpy dtype string such as "<f8", little-endian
# bytes); categorical columns hold codes into "categories"[name].
class Table(TypedDict):
    columns: dict[str, tuple[str, bytes]]
    categories: dict[str, list[str]]

class RunResult(TypedDict):
    summary: str  # summary.json as text
    series: Table
    flows: Table
    events: Table | None
    pcap: list[tuple[str, str, int]]  # (link, path, packets)

class BatchResult(TypedDict):
    table: Table
    names: list[str]
    estimates: Table

def run(
    scenario_toml: str,
    overrides: Sequence[str] = ...,
    progress: Callable[[float], Any] | None = None,
    memory_limit: str | None = None,
    base_dir: str | None = None,
) -> RunResult:
    """Run a scenario; ``progress(fraction)`` is called now and then; Ctrl-C interrupts.
    Relative paths in it (trace files) are taken from *base_dir* (default: the current
    directory)."""

def fluid_batch(
    scenarios: Sequence[str],
    overrides: Sequence[str] = ...,
    replications: int = 1,
    threads: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> BatchResult:
    """Integrate many fluid scenarios on every core; one row per run."""

def validate(
    scenario_toml: str,
    overrides: Sequence[str] = ...,
    memory_limit: str | None = None,
    base_dir: str | None = None,
) -> str:
    """Everything a run would refuse, without running; the scenario text as it would run."""

def resolve(scenario_toml: str, overrides: Sequence[str] = ...) -> str:
    """The scenario text with ``path=value`` overrides applied."""

def scenario_seed(scenario_toml: str, overrides: Sequence[str] = ...) -> int:
    """The seed the scenario runs with, overrides applied."""

def replication_seed(seed: int, k: int) -> int:
    """The seed of replication *k* of a scenario whose seed is *seed*."""

def confidence_interval(values: Sequence[float]) -> tuple[float, float, int]:
    """``(mean, half_width, n)``: 95 % Student-t interval; the half-width is NaN below
    two values."""

def memory_limit_bytes(memory_limit: str | None = None) -> int | None:
    """The limit in bytes that *memory_limit* (or ``CCSIM_MEMORY_LIMIT``, or the default
    share of this machine's memory) stands for; None: no limit."""

def version() -> str:
    """The core's version (the Rust workspace's)."""
