"""The ``ccsim`` command line: a thin shell over the Python API."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

import ccsim
from ccsim._progress import LazyProgress

# Exit codes: 0 ok, 1 cannot write outputs, 2 bad input, 3 simulator failure,
# 130 interrupted.
EXIT_IO, EXIT_INPUT, EXIT_SIM, EXIT_INTERRUPT = 1, 2, 3, 130

out = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


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
    t = Table(title=f"{scenario}: {n} replications (mean ± 95 % interval)", title_justify="left")
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
    out.print(f"{scenario}: ok", markup=False)


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

    table = Table(
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
            console=err,
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
@click.option("--by", metavar="PATH", help="One line (or curve) per value of this path.")
@click.option("--series", metavar="METRIC", help="Time series (cwnd_pkts, queue_pkts, ...).")
@click.option("--run", "run_id", metavar="ID", help="With --series in a sweep: which run.")
@click.option("--cdf", metavar="COLUMN", help="CDF of a per-flow column (fct_s, goodput_bps).")
@click.option("--source", type=click.Choice(["flows", "runs"]), default="flows",
              show_default=True, help="With --cdf: per-flow or per-run values.")  # fmt: skip
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
            fig = plots.timeseries(d, series)
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
    t = Table(title=f"study {study} ({'quick' if quick else 'full'}, {res.wall_s:.0f} s)")
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
    t = Table(title="mean ± 95 % confidence interval across seeds", title_justify="left")
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
    t = Table(title=title, title_justify="left")
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


def print_summary(run: ccsim.Run, console: Console) -> None:
    s = run.summary
    t = Table(title=f"ccsim run: {s.get('name', '?')}", show_header=False, title_justify="left")
    t.add_column("", style="bold")
    t.add_column("")
    shown = {
        "name",
        "seed",
        "engine",
        "duration_s",
        "warmup_s",
        "wall_s",
        "events",
        "bottleneck_packets",
        "links",
        "bottleneck",
        "flows",
        "conservation",
        "tcp",
    }

    t.add_row("scenario", str(s.get("name", "—")))
    t.add_row("engine / seed", f"{s.get('engine', '—')} / {s.get('seed', '—')}")
    t.add_row(
        "simulated", f"{_fmt(s.get('duration_s'))} s (measured after {_fmt(s.get('warmup_s'))} s)"
    )
    t.add_row("wall time", f"{_fmt(s.get('wall_s'), 3)} s")
    t.add_row("events", _int(s.get("events")))
    t.add_row("bottleneck packets", _int(s.get("bottleneck_packets")))

    b = run.bottleneck
    if b:
        t.add_section()
        t.add_row("bottleneck", f"{s.get('bottleneck')} ({_scaled(b.get('rate_bps'), 1e-6)} Mb/s)")
        t.add_row(
            "utilization (all / data)",
            f"{_pct(b.get('utilization'))} / {_pct(b.get('utilization_data'))}",
        )
        t.add_row(
            "drop rate",
            f"{_pct(b.get('drop_rate'))} ({_int(b.get('drops'))} of {_int(b.get('arrivals'))})",
        )
        t.add_row(
            "queue max / mean (pkts)",
            f"{_fmt(b.get('queue_max_pkts'))} / {_fmt(b.get('queue_mean_pkts'))}",
        )
        t.add_row(
            "queue max / mean (bytes)",
            f"{_fmt(b.get('queue_max_bytes'))} / {_fmt(b.get('queue_mean_bytes'))}",
        )
        t.add_row("mean queueing delay", f"{_scaled(b.get('queue_delay_mean_s'), 1e3)} ms")
        if "jain_rtt" in b:
            t.add_row(
                "fairness: Jain / RTT-normalized",
                f"{_fmt(b.get('jain'))} / {_fmt(b.get('jain_rtt'))} ({_int(b.get('flows'))} flows)",
            )
        sync = b.get("sync")
        if isinstance(sync, dict):
            t.add_row(
                "loss synchronization",
                f"mean {_fmt(sync.get('mean'))}, median {_fmt(sync.get('median'))} over "
                f"{_int(sync.get('events'))} congestion events",
            )

    f = s.get("flows")
    if isinstance(f, dict):
        t.add_section()
        t.add_row("flows", _int(f.get("count")))
        t.add_row("total goodput", f"{_scaled(f.get('goodput_bps_total'), 1e-6)} Mb/s")
        jain = _num(f.get("jain_fairness"))
        t.add_row("Jain fairness", "—" if jain is None else f"{jain:.4f}")
        for k, v in f.items():
            if k in {"count", "goodput_bps_total", "jain_fairness"}:
                continue
            if "_bps" in k:
                t.add_row(f"flows.{k.replace('_bps', '')}", f"{_scaled(v, 1e-6)} Mb/s")
            else:
                t.add_row(f"flows.{k}", _fmt(v))

    tcp = s.get("tcp")
    if isinstance(tcp, dict) and tcp:
        # Each group's effective TCP settings (docs/tcp.md): profile first, then the rest.
        t.add_section()
        for group, opts in tcp.items():
            if not isinstance(opts, dict):
                continue
            rest = ", ".join(
                f"{k} {str(v).lower() if isinstance(v, bool | str) else _fmt(v)}"
                for k, v in opts.items()
                if k != "profile"
            )
            t.add_row(f"tcp {group}", f"profile {opts.get('profile', '—')}: {rest}")

    c = s.get("conservation")
    if isinstance(c, dict):
        t.add_section()
        ok = c.get("ok")
        t.add_row(
            "packet conservation",
            ("ok" if ok else "VIOLATED" if ok is not None else "—")
            + f" (sent {_int(c.get('sent'))}, delivered {_int(c.get('delivered'))}, "
            f"dropped {_int(c.get('dropped'))}, in flight {_int(c.get('in_flight'))})",
        )

    extra = [(k, v) for k, v in s.items() if k not in shown]
    if extra:
        t.add_section()
        for k, v in extra:
            t.add_row(k, _fmt(v) if not isinstance(v, dict | list) else _short(v))
    console.print(t)

    if 0 < len(run.flows) <= 20:
        console.print(_flows_table(run))


def _short(v: Any, limit: int = 100) -> str:
    import json

    text = json.dumps(v, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# The per-flow columns printed (all columns are in flows.parquet), with label and scale.
_FLOW_COLUMNS = [
    ("flow", "flow", None),
    ("group", "group", None),
    ("cc", "cc", None),
    ("direction", "direction", None),
    ("start_s", "start s", 1.0),
    ("rtt_prop_s", "RTT ms", 1e3),
    ("goodput_bps", "goodput Mb/s", 1e-6),
    ("fct_s", "FCT s", 1.0),
    ("losses", "losses", None),
    ("retransmits", "retx", None),
    ("timeouts", "RTOs", None),
]


def _flows_table(run: ccsim.Run) -> Table:
    df = run.flows
    cols = []
    for name, label, factor in _FLOW_COLUMNS:
        if name not in df.columns:
            continue
        col = df[name]
        if name in ("group", "direction") and col.nunique(dropna=False) <= 1:
            continue  # one value for every flow says nothing
        if name == "fct_s" and col.isna().all():
            continue
        cols.append((name, label, factor))
    t = Table(title="flows", title_justify="left")
    for _, label, _ in cols:
        t.add_column(label, justify="right")
    for _, row in df.iterrows():
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
