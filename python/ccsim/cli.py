"""The ``ccsim`` command line: a thin shell over the Python API."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

import ccsim
from ccsim._progress import LazyProgress

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

# Exit codes: 0 ok, 1 cannot write outputs, 2 bad input, 3 simulator failure,
# 130 interrupted.
EXIT_IO, EXIT_INPUT, EXIT_SIM, EXIT_INTERRUPT = 1, 2, 3, 130


class _LazyConsole:
    """A rich Console made on first use: `ccsim --version` and `validate` never load rich."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._console: Any = None

    @property
    def real(self) -> Any:
        """The rich Console itself (what rich's own classes must be given)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._kwargs)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _table(*args: Any, **kwargs: Any) -> Table:
    from rich.table import Table

    return Table(*args, **kwargs)


out = _LazyConsole(highlight=False)
err = _LazyConsole(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: Any, code: int) -> None:
    """Print one line ``error: ...`` on stderr and exit with *code*."""
    text = " ".join(str(message).split()) or type(message).__name__
    err.print(f"error: {text}", markup=False)
    sys.exit(code)


def _version() -> str:
    try:
        core = ccsim.core_version()
    except Exception:  # pragma: no cover - a broken build
        core = "unknown"
    return f"ccsim {ccsim.__version__} (core {core})"


_FORCE_HELP = (
    "Replace DIR even if ccsim did not write it (everything in it is lost); "
    "/, ~, . and the directories above . are refused even so."
)


def _set_memory_limit(ctx: click.Context, _param: Any, value: str | None) -> str | None:
    """``--memory-limit SIZE``: the core reads ``CCSIM_MEMORY_LIMIT``, in this process
    and in the sweep's worker processes, which inherit it."""
    import os

    if value is not None:
        from ccsim import _core

        try:
            _core.validate("", [], value)
        except ccsim.ScenarioError as e:
            if str(e).startswith("memory_limit:"):
                _fail(f"--memory-limit: {str(e).split(':', 1)[1].strip()}", EXIT_INPUT)
        os.environ["CCSIM_MEMORY_LIMIT"] = value
    return value


_memory_limit = click.option(
    "--memory-limit",
    metavar="SIZE",
    expose_value=False,
    callback=_set_memory_limit,
    help="Refuse a run whose estimated memory is over SIZE (8GB, 512MB, off). "
    "Default: $CCSIM_MEMORY_LIMIT, else half of this machine's memory.",
)


class _Guarded(click.Group):
    """The last line of defence: whatever escapes a command (an interrupt outside the
    places that expect it, a Rust panic the binding let through, memory exhausted in
    Python, a bug) ends as one ``error:`` line and an exit code, never a traceback.
    ``CCSIM_DEBUG=1`` re-raises, for a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        import os

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPT)
        except BaseException as e:  # noqa: BLE001 - PyO3's PanicException is a BaseException
            if os.environ.get("CCSIM_DEBUG"):
                raise
            if isinstance(e, ccsim.ScenarioError):
                _fail(e, EXIT_INPUT)
            if isinstance(e, MemoryError):
                _fail("out of memory (see README, Limits: --memory-limit)", EXIT_SIM)
            if isinstance(e, OSError):
                _fail(f"{e.filename or ''}: {e.strerror or e}", EXIT_IO)
            _fail(f"internal error: {type(e).__name__}: {e}", EXIT_SIM)


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    help="Show the version and exit.",
    callback=lambda ctx, _p, v: (click.echo(_version()), ctx.exit()) if v else None,
)
def main() -> None:
    """ccsim: simulate congestion control, queues and router buffers."""


@main.command("run")
@click.argument("scenario")
@click.option("-o", "--output", "output", metavar="DIR", help="Write summary.json, *.parquet here.")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="PATH=VALUE",
    help="Override a scenario field, e.g. --set topology.buffer='\"0.5bdp\"' (repeatable).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary.")
@click.option(
    "--replications",
    type=click.IntRange(min=1),
    default=1,
    metavar="N",
    help="Fluid scenarios: run N replications (seeds seed, seed+1, ...) on every core and print "
    "each metric's mean and 95 % interval.",
)
@click.option("--force", is_flag=True, help=_FORCE_HELP)
@_memory_limit
def run_cmd(
    scenario: str,
    output: str | None,
    overrides: tuple[str, ...],
    quiet: bool,
    replications: int,
    force: bool,
) -> None:
    """Run SCENARIO (a .toml file) and print a summary."""
    sets = list(overrides)
    if replications > 1:
        _replicate(scenario, sets, replications, output, quiet)
        return
    if output is not None:
        # Refuse a target ccsim may not write before simulating, not after.
        from ccsim._layout import check_target

        try:
            check_target(output, "run", force=force)
        except ccsim.ScenarioError as e:
            _fail(e, EXIT_INPUT)
    try:
        if quiet:
            result = ccsim.run(scenario, set=sets)
        else:
            with LazyProgress(console=err) as bar:
                result = ccsim.run(scenario, set=sets, progress=bar)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except ccsim.SimulationError as e:
        _fail(f"simulation failed: {e}", EXIT_SIM)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPT)
    except OSError as e:  # a pcap trace could not be written
        _fail(f"cannot write a trace: {e}", EXIT_IO)
    if output is not None:
        try:
            result.write(output, force=force)
        except ccsim.ScenarioError as e:
            _fail(e, EXIT_INPUT)
        except KeyboardInterrupt:
            _fail(f"interrupted; {output} was left as it was", EXIT_INTERRUPT)
        except OSError as e:
            _fail(f"cannot write {output}: {e.strerror or e}", EXIT_IO)
    if not quiet:
        print_summary(result, out)
        if output is not None:
            out.print(f"results written to [bold]{output}[/]")


def _replicate(scenario: str, sets: list[str], n: int, output: str | None, quiet: bool) -> None:
    if output is not None:
        _fail(
            "--output writes one run; for replications use ccsim.fluid_batch(..., "
            "replications=N), which returns every run as a table",
            EXIT_INPUT,
        )
    try:
        est = ccsim.fluid_replicate(scenario, n, set=sets)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except ccsim.SimulationError as e:
        _fail(f"simulation failed: {e}", EXIT_SIM)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPT)
    if quiet:
        return
    t = _table(title=f"{scenario}: {n} replications (mean ± 95 % interval)", title_justify="left")
    t.add_column("metric")
    t.add_column("mean", justify="right")
    t.add_column("± 95 %", justify="right")
    for metric, row in est.iterrows():
        t.add_row(str(metric), _fmt(row["mean"]), _fmt(row["ci95"], 2))
    out.print(t)


@main.command("validate")
@click.argument("scenario")
@click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE", help="Override a field.")
@_memory_limit
def validate_cmd(scenario: str, overrides: tuple[str, ...]) -> None:
    """Check SCENARIO without running it."""
    sets = list(overrides)
    try:
        ccsim.validate(scenario, set=sets)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except ccsim.SimulationError as e:
        _fail(f"simulation failed: {e}", EXIT_SIM)
    click.echo(f"{scenario}: ok")  # plain: validation never loads rich


@main.command("bench")
@click.option("--only", metavar="A,B", help="Run only these configurations (A, B, C, D).")
@click.option(
    "--duration-scale",
    type=float,
    default=1.0,
    show_default=True,
    help="Multiply every configuration's simulated duration by this.",
)
@click.option("--fluid", is_flag=True, help="Benchmark the fluid engine instead.")
@click.option(
    "--batch",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="With --fluid: scenarios in the all-cores batch (0: skip it).",
)
@click.option(
    "--scale",
    is_flag=True,
    help="The scale rows instead: a 10,000-flow dumbbell at 10 Gb/s (5 s) and a "
    "1,000-node graph (1 s), with wall time, cost per event and peak RSS (about half a "
    "minute of CPU).",
)
def bench_cmd(
    only: str | None, duration_scale: float, fluid: bool, batch: int, scale: bool
) -> None:
    """Time the packet engine on four fixed dumbbell configurations (or, with --fluid,
    the fluid engine: one 3000 s run on one core and a batch on every core; with
    --scale, the scale rows, each in a process of its own for its peak memory)."""
    from ccsim.bench import CONFIGS

    if not (duration_scale > 0 and math.isfinite(duration_scale)):
        _fail(f"--duration-scale must be positive, got {duration_scale}", EXIT_INPUT)
    if scale:
        from ccsim.bench import run_scale, scale_table

        try:
            out.print(scale_table(run_scale(duration_scale)))
        except RuntimeError as e:
            _fail(f"bench --scale: {e}", EXIT_SIM)
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPT)
        return
    if fluid:
        from ccsim.bench import fluid_table, run_fluid

        try:
            out.print(fluid_table(run_fluid(duration_scale, batch)))
        except ccsim.ScenarioError as e:
            _fail(f"bench --fluid: {e}", EXIT_INPUT)
        except ccsim.SimulationError as e:
            _fail(f"bench --fluid: simulation failed: {e}", EXIT_SIM)
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPT)
        return
    keys = list(CONFIGS)
    if only:
        keys = [k.strip().upper() for k in only.split(",") if k.strip()]
        unknown = [k for k in keys if k not in CONFIGS]
        if unknown:
            _fail(
                f"--only: unknown configuration {', '.join(unknown)} "
                f"(choose from {', '.join(CONFIGS)})",
                EXIT_INPUT,
            )

    table = _table(
        title="ccsim bench (packet engine, NewReno dumbbells)",
        caption="; ".join(f"{k}: {CONFIGS[k].describe()}" for k in keys),
    )
    for col in ("config", "flows", "simulated s", "wall s", "bottleneck packets"):
        table.add_column(col, justify="right" if col != "config" else "left")
    table.add_column("bottleneck pkts / wall s", justify="right")
    table.add_column("events / s", justify="right")
    for key in keys:
        cfg = CONFIGS[key]
        try:
            with LazyProgress(f"{key}: {cfg.describe()}", console=err, delay=0.0) as bar:
                r = ccsim.run(cfg.scenario(duration_scale), progress=bar)
        except ccsim.ScenarioError as e:
            _fail(f"bench {key}: {e}", EXIT_INPUT)
        except ccsim.SimulationError as e:
            _fail(f"bench {key}: simulation failed: {e}", EXIT_SIM)
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPT)
        s = r.summary
        wall = _num(s.get("wall_s"))
        pkts = _num(s.get("bottleneck_packets"))
        events = _num(s.get("events"))
        table.add_row(
            key,
            str(cfg.flows),
            _fmt(s.get("duration_s", cfg.duration_s * duration_scale)),
            _fmt(wall, 3),
            _int(pkts),
            _millions(_ratio(pkts, wall)),
            _millions(_ratio(events, wall)),
        )
    out.print(table)


# ---------------------------------------------------------------- sweeps (ccsim.sweep)


@main.command("sweep")
@click.argument("scenario")
@click.option("-o", "--output", "output", required=True, metavar="DIR", help="Sweep directory.")
@click.option(
    "--grid",
    "grids",
    multiple=True,
    metavar="PATH=[V1,V2,...]",
    help="Sweep a field over these values (repeatable; adds to and overrides [sweep]), "
    'e.g. --grid \'topology.buffer=["0.25bdp","bdp"]\'.',
)
@click.option("--seeds", type=click.IntRange(min=1), default=None, metavar="N",
              help="Replications per grid point (seeds seed, seed+1, ...).")  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
              help="Override a field in every run (repeatable).")  # fmt: skip
@click.option("--scheduler", metavar="ADDRESS", help="Run on this Dask scheduler.")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Local worker processes (default: every core).")  # fmt: skip
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no table.")
@click.option("--force", is_flag=True, help=_FORCE_HELP)
@_memory_limit
def sweep_cmd(
    scenario: str,
    output: str,
    grids: tuple[str, ...],
    seeds: int | None,
    overrides: tuple[str, ...],
    scheduler: str | None,
    workers: int | None,
    quiet: bool,
    force: bool,
) -> None:
    """Run every point of a parameter sweep of SCENARIO into DIR (resumable).

    Exit status 3 if any run failed (the others are kept; run again to retry)."""
    from ccsim.sweep import parse_grid_option, sweep

    sets = list(overrides)
    try:
        grid = dict(parse_grid_option(g) for g in grids)
        result = sweep(
            scenario,
            grid,
            directory=output,
            seeds=seeds,
            set=sets,
            workers=workers,
            scheduler=scheduler,
            progress=not quiet,
            console=err.real,
            force=force,
        )
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except ccsim.SimulationError as e:
        _fail(e, EXIT_SIM)
    except KeyboardInterrupt:
        _fail(
            f"interrupted; finished runs are kept in {output}: run again to go on", EXIT_INTERRUPT
        )
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}", EXIT_IO)
    if not quiet:
        out.print(
            f"{output}: {result.ran} ran, {result.skipped} already done, "
            f"{result.failed} failed ({result.wall_s:.1f} s)",
            markup=False,
            soft_wrap=True,
        )
        _print_sweep_table(result)
    if result.failed:
        for _, r in result.failures().iterrows():
            err.print(f"failed: run {r['run_id']}: {r['error']}", markup=False)
        sys.exit(EXIT_SIM)


@main.command("query")
@click.argument("directory")
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
def query_cmd(directory: str, sql: str, as_csv: bool) -> None:
    """Run SQL (DuckDB) over the sweep in DIRECTORY: views runs, series, flows."""
    from ccsim.store import query

    try:
        df = query(directory, sql)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    if as_csv:
        click.echo(df.to_csv(index=False), nl=False)
    else:
        _print_frame(df, None)


@main.command("plot")
@click.argument("directory")
@click.option("-o", "--output", required=True, metavar="FILE", help=".pdf, .svg or .png")
@click.option("--x", "x", metavar="PATH", help="Swept path on the x axis (with --y).")
@click.option("--y", "y", metavar="METRIC", help="Catalogue metric against --x.")
@click.option("--by", metavar="PATH", help="One line (or curve) per value of this path, or "
              "per flow group: 'group', 'cc'.")  # fmt: skip
@click.option("--series", metavar="METRIC", help="Time series (cwnd_pkts, queue_pkts, ...).")
@click.option("--run", "run_id", metavar="ID", help="With --series in a sweep: which run.")
@click.option("--cdf", metavar="COLUMN", help="CDF of a per-flow column (fct_s, goodput_bps).")
@click.option("--source", type=click.Choice(["flows", "runs", "groups"]), default="flows",
              show_default=True,
              help="With --cdf: per-flow, per-run or per-group values.")  # fmt: skip
@click.option("--logx", is_flag=True, help="Logarithmic x axis.")
@click.option("--logy", is_flag=True, help="Logarithmic y axis.")
@click.option("--force", is_flag=True, help="Replace FILE even if ccsim did not write it.")
def plot_cmd(
    directory: str,
    output: str,
    x: str | None,
    y: str | None,
    by: str | None,
    series: str | None,
    run_id: str | None,
    cdf: str | None,
    source: str,
    logx: bool,
    logy: bool,
    force: bool,
) -> None:
    """Draw a figure from a sweep directory (or, with --series, a run directory).

    \b
      ccsim plot DIR --x topology.buffer --y utilization --by 'flows[0].cc' -o u.pdf
      ccsim plot DIR --series cwnd_pkts [--run ID] -o cwnd.png
      ccsim plot DIR --cdf fct_s --by 'flows[0].cc' -o fct.svg
      ccsim plot DIR --cdf goodput_bps --by cc -o g.svg       (per flow, by algorithm)
      ccsim plot DIR --x topology.buffer --y share --by group -o share.pdf
      ccsim plot DIR --series cwnd_pkts --by group -o cwnd.png
    """
    from ccsim import plots
    from ccsim._layout import SERIES_FILE, check_file_target, is_sweep_dir
    from ccsim.sweep import Sweep

    kinds = [k for k in (y, series, cdf) if k]
    if len(kinds) != 1:
        _fail("give exactly one of --y (with --x), --series, --cdf", EXIT_INPUT)
    try:
        check_file_target(output, force=force)  # before drawing anything
        if y:
            if not x:
                _fail("--y needs --x PATH (a swept path)", EXIT_INPUT)
            fig = plots.metric_vs_param(directory, x, y, by=by, logx=logx, logy=logy)
        elif series:
            d = Path(directory)
            if is_sweep_dir(d):
                sw = Sweep(d)
                ids = sw.run_ids()
                if not ids:
                    _fail(f"{d}: no finished runs", EXIT_INPUT)
                if run_id is not None and run_id not in ids:
                    _fail(f"--run: no finished run {run_id!r} in {d}", EXIT_INPUT)
                d = sw.runs_dir / (run_id or ids[0])
            if not (d / SERIES_FILE).is_file():
                _fail(f"{d}: no {SERIES_FILE} (not a run directory)", EXIT_INPUT)
            fig = plots.timeseries(d, series, by=by)
            if logy:
                fig.axes[0].set_yscale("log")
        else:
            fig = plots.cdf(directory, cdf, by=by, source=source, logx=logx)
        plots.save(fig, output, force=force)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}", EXIT_IO)
    out.print(f"figure written to {output}", markup=False)


@main.command("report")
@click.argument("directory")
@click.option("-o", "--output", required=True, metavar="FILE", help="The HTML file.")
@click.option("--png", is_flag=True, help="Embed figures as PNG instead of inline SVG.")
@click.option("--force", is_flag=True, help="Replace FILE even if ccsim did not write it.")
def report_cmd(directory: str, output: str, png: bool, force: bool) -> None:
    """Write one self-contained HTML page for the sweep in DIRECTORY."""
    from ccsim.report import report

    try:
        report(directory, output, image_format="png" if png else "svg", force=force)
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPT)
    except OSError as e:
        _fail(f"cannot write {output}: {e.strerror or e}", EXIT_IO)
    out.print(f"report written to {output}", markup=False)


@main.command("reproduce")
@click.argument("study")
@click.option("--figure", "figures", multiple=True, metavar="NAME", help="Only this figure.")
@click.option("--quick", is_flag=True, help="Scaled down: fewer points, seeds, shorter runs.")
@click.option("-o", "--output", default=None, metavar="DIR", help="Default: out/reproduce/STUDY.")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=None, metavar="N")
@click.option("--force", is_flag=True, help=_FORCE_HELP)
@_memory_limit
def reproduce_cmd(
    study: str,
    figures: tuple[str, ...],
    quick: bool,
    output: str | None,
    workers: int | None,
    force: bool,
) -> None:
    """Reproduce the figures of STUDY (000-004, docs/reproductions/): run, plot, check claims."""
    from ccsim import reproduce

    target = output or f"out/reproduce/{study}{'-quick' if quick else ''}"
    try:
        res = reproduce.reproduce(
            study,
            figure=list(figures) or None,
            quick=quick,
            out=target,
            workers=workers,
            progress=True,
            log=lambda line: err.print(line, markup=False),
            force=force,
        )
    except ccsim.ScenarioError as e:
        _fail(e, EXIT_INPUT)
    except ccsim.SimulationError as e:
        _fail(f"simulation failed: {e}", EXIT_SIM)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPT)
    except OSError as e:
        _fail(f"cannot write {target}: {e.strerror or e}", EXIT_IO)
    t = _table(title=f"study {study} ({'quick' if quick else 'full'}, {res.wall_s:.0f} s)")
    for col in ("figure", "claim", "study", "ccsim", "holds"):
        t.add_column(col)
    for f in res.figures:
        for c in f.claims:
            mark = {True: "yes", False: "[red]no[/]", None: "—"}[c.holds]
            t.add_row(f.name, c.text, c.study, c.ccsim, mark)
    out.print(t)
    out.print(f"figures and report.md written to {target}", markup=False)


def _print_sweep_table(result: Any) -> None:
    from ccsim.plots import label, quantity

    cat = result.catalogue()
    wanted = ("utilization", "drop_rate", "queue_delay_mean_s", "flows_jain_fairness")
    metrics = [m for m in wanted if m in cat.columns]
    if cat.empty or not metrics or not (cat["status"] == "done").any():
        return
    tab = result.table(metrics=metrics)
    params = [c for c in result.params if c in tab.columns]
    t = _table(title="mean ± 95 % confidence interval across seeds", title_justify="left")
    for col in [*params, "runs", *(label(m) for m in metrics)]:
        t.add_column(col, justify="left" if col in params else "right")
    for _, r in tab.iterrows():
        cells = [str(r[p]) for p in params] + [str(int(r["runs"]))]
        for m in metrics:
            scale = quantity(m)[2]
            mean, ci = r[f"{m}_mean"] * scale, r[f"{m}_ci95"] * scale
            cells.append(_fmt(mean) + ("" if not math.isfinite(ci) else f" ± {_fmt(ci, 2)}"))
        t.add_row(*cells)
    out.print(t)


def _print_frame(df: Any, title: str | None) -> None:
    t = _table(title=title, title_justify="left")
    for col in df.columns:
        t.add_column(str(col), justify="right")
    for row in df.itertuples(index=False):
        t.add_row(*(_fmt(v) if not isinstance(v, str) else v for v in row))
    out.print(t)


# ---------------------------------------------------------------- summary printing


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _fmt(x: Any, digits: int = 4) -> str:
    v = _num(x)
    if v is None:
        return "—" if x is None or isinstance(x, float | int) else str(x)
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _int(x: Any) -> str:
    v = _num(x)
    return "—" if v is None else f"{round(v):,}"


def _millions(x: Any) -> str:
    v = _num(x)
    return "—" if v is None else f"{v / 1e6:.3g} M"


def _scaled(x: Any, factor: float, digits: int = 4) -> str:
    v = _num(x)
    return "—" if v is None else f"{v * factor:.{digits}g}"


def _pct(x: Any) -> str:
    v = _num(x)
    if v is None:
        return "—"
    return f"{100 * v:.2f} %" if abs(v) >= 0.01 or v == 0 else f"{100 * v:.2g} %"


def _rate(x: Any) -> str:
    """A rate in its unit: ``10 Gb/s``, ``622 Mb/s``, ``64 kb/s``."""
    v = _num(x)
    if v is None:
        return "—"
    for scale, unit in ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if abs(v) >= scale:
            return f"{v / scale:.4g} {unit}"
    return f"{v:.4g} b/s"


def _size(x: Any) -> str:
    """Bytes in their unit: ``1.25 MB``, ``688 KB``."""
    v = _num(x)
    if v is None:
        return "—"
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.0f} B"


def _secs(x: Any) -> str:
    """A duration in its unit: ``58.9 ms``, ``1.5 s``."""
    v = _num(x)
    if v is None:
        return "—"
    if v != 0 and abs(v) < 1:
        return f"{v * 1e3:.3g} ms"
    return f"{v:.4g} s"


def print_summary(run: ccsim.Run, console: Console) -> None:
    """The run's summary for a person: labels, units, each quantity once; what a
    scenario has not got (no completed flow, no packet source) is left out. Counts are
    over the measurement window unless a row says "whole run"."""
    s = run.summary
    t = _table(title=f"ccsim run: {s.get('name', '?')}", show_header=False, title_justify="left")
    t.add_column("", style="bold")
    t.add_column("")

    t.add_row("engine / seed", f"{s.get('engine', '—')} / {s.get('seed', '—')}")
    t.add_row(
        "simulated",
        f"{_fmt(s.get('duration_s'))} s, measured over [{_fmt(s.get('warmup_s'))} s, "
        f"{_fmt(s.get('duration_s'))} s]",
    )
    work = (
        f"{_int(s['events'])} events"
        if _num(s.get("events")) is not None
        else f"{_int(s.get('steps'))} integration steps of {_secs(s.get('step_s'))}"
    )
    t.add_row("wall time", f"{_fmt(s.get('wall_s'), 3)} s ({work})")

    b = run.bottleneck
    if b:
        t.add_section()
        t.add_row("", "[italic]over the measurement window[/]")
        bdp = _num(s.get("bdp_pkts"))
        t.add_row(
            "bottleneck",
            f"{s.get('bottleneck')}: {_rate(b.get('rate_bps'))}, buffer {b.get('buffer', '—')}"
            + (f" (BDP {bdp:,.0f} packets)" if bdp else ""),
        )
        u, ud = _num(b.get("utilization")), _num(b.get("utilization_data"))
        both = u is not None and ud is not None and abs(u - ud) > 5e-5
        t.add_row(
            "utilization",
            _pct(u) + (f" (data packets {_pct(ud)})" if both else "")
            + f", {_rate(b.get('throughput_bps'))}",
        )  # fmt: skip
        drops = f"{_pct(b.get('drop_rate'))}: {_int(b.get('drops'))} of {_int(b.get('arrivals'))}"
        if _num(b.get("random_losses")):
            drops += f", {_int(b.get('random_losses'))} lost on the wire"
        t.add_row("drop rate", drops)
        if _num(b.get("ecn_marks")):
            t.add_row("ECN marks", f"{_int(b.get('ecn_marks'))} ({_pct(b.get('mark_rate'))})")
        t.add_row(
            "queue",
            f"max {_fmt(b.get('queue_max_pkts'))} packets ({_size(b.get('queue_max_bytes'))}), "
            f"mean {_fmt(b.get('queue_mean_pkts'))} ({_size(b.get('queue_mean_bytes'))})",
        )
        delay = _secs(b.get("queue_delay_mean_s"))
        if _num(b.get("queue_delay_p50_s")) is not None:
            q = {k: _secs(b.get(f"queue_delay_{k}_s")) for k in ("p50", "p95", "p99", "max")}
            delay += f"; p50 {q['p50']}, p95 {q['p95']}, p99 {q['p99']}, max {q['max']}"
        t.add_row("queueing delay (mean)", delay)
        if b.get("jain") is not None:
            t.add_row(
                "fairness (Jain)",
                f"{_fmt(b.get('jain'))}, RTT-normalized {_fmt(b.get('jain_rtt'))} "
                f"({_int(b.get('flows'))} flows)",
            )
        sync = b.get("sync")
        if isinstance(sync, dict) and _num(sync.get("events")):
            t.add_row(
                "loss synchronization",
                f"mean {_fmt(sync.get('mean'))}, median {_fmt(sync.get('median'))} over "
                f"{_int(sync.get('events'))} congestion events",
            )

    f = s.get("flows")
    if isinstance(f, dict):
        t.add_section()
        flows = f"{_int(f.get('count'))}"
        if _num(f.get("completed")):
            flows += f", {_int(f.get('completed'))} completed"
        t.add_row("flows", flows)
        goodput = _rate(f.get("goodput_bps_total"))
        fwd, total = _num(f.get("goodput_bps_forward")), _num(f.get("goodput_bps_total"))
        if fwd is not None and total is not None and abs(fwd - total) > 1e-9 * max(total, 1):
            goodput += f" (forward flows {_rate(fwd)})"
        t.add_row("total goodput", goodput)
        # The bottleneck's Jain is the forward flows' in a dumbbell: print it once.
        j, jb = _num(f.get("jain_fairness")), _num((b or {}).get("jain"))
        if j is not None and (jb is None or abs(j - jb) > 1e-9):
            t.add_row(
                "fairness, all forward flows",
                f"Jain {j:.4g}, RTT-normalized {_fmt(f.get('jain_fairness_rtt'))}",
            )
        if _num(f.get("fct_mean_s")) is not None:
            t.add_row("mean flow completion time", _secs(f.get("fct_mean_s")))
        if _num(f.get("normalized_latency_mean")) is not None:
            t.add_row("mean normalized latency", _fmt(f.get("normalized_latency_mean")))
        if _num(f.get("cov_mean")) is not None:
            t.add_row("mean throughput CoV", _fmt(f.get("cov_mean")))

    for w in s.get("workloads") or []:
        t.add_row(
            f"workload {w.get('name')}",
            f"{w.get('kind')}: {_int(w.get('started'))} flows started, "
            f"{_int(w.get('completed'))} completed, offered load {_pct(w.get('offered_load'))}"
            " (whole run)",
        )
    for src in s.get("sources") or []:
        t.add_row(
            f"packet source {src.get('name')}",
            f"sent {_int(src.get('sent'))}, delivered {_int(src.get('delivered'))}, "
            f"dropped {_int(src.get('dropped'))} (whole run)",
        )

    t.add_section()
    t.add_row("", "[italic]over the whole run[/]")
    t.add_row("bottleneck packets sent", _int(s.get("bottleneck_packets")))
    c = s.get("conservation")
    if isinstance(c, dict):
        ok = c.get("ok")
        verdict = "ok" if ok else "VIOLATED" if ok is not None else "—"
        if _num(c.get("sent")) is not None:
            verdict += (
                f": sent {_int(c.get('sent'))} = delivered {_int(c.get('delivered'))} + "
                f"dropped {_int(c.get('dropped'))} + in flight {_int(c.get('in_flight'))}"
            )
        else:
            verdict += " (every queue balanced; the fluid model has no end-to-end count)"
        t.add_row("packet conservation", verdict)

    tcp = s.get("tcp")
    if isinstance(tcp, dict) and tcp:
        # The settings that most often differ; every one is in summary.json (docs/tcp.md).
        t.add_section()
        for group, o in tcp.items():
            if not isinstance(o, dict):
                continue
            parts = [
                f"{o.get('profile', '—')} profile",
                f"MSS {_int(o.get('mss'))} B",
                f"initial cwnd {_fmt(o.get('init_cwnd'))}",
            ]
            if o.get("recovery") is not None:  # the packet engine's (null in a fluid run)
                parts[1:1] = [f"{o['recovery']} recovery"]
                parts.append(f"min RTO {_secs(o.get('min_rto_s'))}")
                parts.append("delayed ACKs" if o.get("delayed_ack") else "no delayed ACKs")
            if o.get("rwnd") is not None:
                parts.append(f"rwnd {_int(o['rwnd'])} segments")
            if o.get("ecn"):
                parts.append("ECN")
            if o.get("pacing") not in (None, "none"):
                parts.append(f"pacing {o.get('pacing')}")
            t.add_row(f"TCP of {group}", ", ".join(parts))
    console.print(t)

    groups = s.get("groups") or []
    if groups:
        console.print(_groups_table(groups))
    rows = run.rows("flows")
    if 0 < len(rows) <= 20:
        console.print(_flows_table(rows))


def _groups_table(groups: list[dict[str, Any]]) -> Table:
    # Narrow enough for 80 columns: one unit per column; every field is in summary.json.
    top = max((_num(g.get("goodput_bps")) or 0.0 for g in groups), default=0.0)
    scale, unit = next(
        ((k, u) for k, u in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")) if top >= k),
        (1.0, "b/s"),
    )
    t = _table(title=f"flow groups (measurement window; goodput in {unit})", title_justify="left")
    for h in ("group", "cc", "flows", unit, "share %", "Jain", "losses", "loss %", "RTOs"):
        t.add_column(h, justify="left" if h in ("group", "cc") else "right")

    def pct(x: Any) -> str:
        v = _num(x)
        return "—" if v is None else f"{100 * v:.2g}" if abs(v) < 0.01 else f"{100 * v:.3g}"

    for g in groups:
        t.add_row(
            str(g.get("name")),
            str(g.get("cc")),
            _int(g.get("flows")),
            _scaled(g.get("goodput_bps"), 1 / scale),
            pct(g.get("share")),
            _fmt(g.get("jain"), 3),
            _int(g.get("losses")),
            pct(g.get("loss_rate")),
            _int(g.get("timeouts")),
        )
    return t


# The per-flow columns printed (all columns are in flows.parquet), with label and scale.
_FLOW_COLUMNS = [
    ("flow", "flow", None),
    ("group", "group", None),
    ("cc", "cc", None),
    ("direction", "direction", None),
    ("start_s", "start s", 1.0),
    ("rtt_mean_s", "RTT ms", 1e3),
    ("goodput_bps", "goodput Mb/s", 1e-6),
    ("fct_s", "FCT s", 1.0),
    ("losses", "losses", None),
    ("retransmits", "retx", None),
    ("timeouts", "RTOs", None),
]


def _flows_table(rows: list[dict[str, Any]]) -> Table:
    cols = []
    for name, label, factor in _FLOW_COLUMNS:
        if name not in rows[0]:
            continue
        values = [r[name] for r in rows]
        if name in ("group", "direction") and len(set(values)) <= 1:
            continue  # one value for every flow says nothing
        if name == "fct_s" and all(_num(v) is None for v in values):
            continue
        cols.append((name, label, factor))
    t = _table(
        title="flows (measurement window; RTT: the mean of the sender's samples)",
        title_justify="left",
    )
    for _, label, _ in cols:
        t.add_column(label, justify="right")
    for row in rows:
        cells = []
        for name, _, factor in cols:
            v = row[name]
            if factor is not None:
                cells.append(_scaled(v, factor))
            elif isinstance(v, str):
                cells.append(v)
            else:
                cells.append(_fmt(v))
        t.add_row(*cells)
    return t
