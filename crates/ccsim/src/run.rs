//! Running scenarios: parse → plan → engine → records → summary, one at a time or in
//! batches with replications. The top of the crate: the Python bindings, the CLI and
//! the tests come in here.

pub use crate::budget::MemoryLimit;
use crate::engine::World;
use crate::error::{RunError, ScenarioError};
use crate::metrics::stats::Estimate;
use crate::net::plan;
use crate::scenario::{parse, Engine, Scenario};
use crate::summary::table::{Column, Table};
use crate::summary::{summarize, Output, PcapFile};
use std::path::PathBuf;

/// Where a run may write files, and the memory it may take.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Directory of the pcap traces (default: the current directory).
    pub pcap_dir: Option<PathBuf>,
    /// A scenario whose estimated memory is over this limit is refused before it
    /// runs (`budget`); default: `CCSIM_MEMORY_LIMIT`, else half of the machine's.
    pub memory_limit: MemoryLimit,
    /// The scenario file's directory: relative trace paths are taken from it
    /// (default: the current directory).
    pub base_dir: Option<PathBuf>,
}

/// Parse scenario text, apply `path=value` overrides, run it.
pub fn run(text: &str, overrides: &[String]) -> Result<Output, RunError> {
    run_with_progress(text, overrides, &mut |_| true)
}

/// `run`, reporting the fraction of simulated time done to `progress` now and then;
/// returning false stops the run (`RunError::Interrupted`).
pub fn run_with_progress(
    text: &str,
    overrides: &[String],
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Output, RunError> {
    run_with_options(text, overrides, progress, &RunOptions::default())
}

/// `run_with_progress` with file options (the pcap directory).
pub fn run_with_options(
    text: &str,
    overrides: &[String],
    progress: &mut dyn FnMut(f64) -> bool,
    opts: &RunOptions,
) -> Result<Output, RunError> {
    let mut sc = parse(text, overrides)?;
    sc.base_dir = opts.base_dir.clone();
    run_scenario_with(&sc, progress, opts)
}

pub fn run_scenario(
    sc: &Scenario,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Output, RunError> {
    run_scenario_with(sc, progress, &RunOptions::default())
}

pub fn run_scenario_with(
    sc: &Scenario,
    progress: &mut dyn FnMut(f64) -> bool,
    opts: &RunOptions,
) -> Result<Output, RunError> {
    run_seeded(sc, sc.seed, progress, opts)
}

/// Run with `seed` in place of the scenario's (replications).
pub fn run_seeded(
    sc: &Scenario,
    seed: u64,
    progress: &mut dyn FnMut(f64) -> bool,
    opts: &RunOptions,
) -> Result<Output, RunError> {
    opts.memory_limit.check(sc, None)?;
    let p = plan(sc, seed)?;
    opts.memory_limit.check(sc, Some(&p))?;
    if sc.engine == Engine::Fluid {
        let records = crate::fluid::run(sc, &p, seed, progress)?;
        return Ok(summarize(records, false));
    }
    let mut world = World::build(sc, &p, seed)?;
    let dir = opts.pcap_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    world.open_pcap(sc, &dir)?;
    let wall = std::time::Instant::now();
    let ran = world.run(progress);
    let traces = world.close_pcap()?;
    ran.map_err(|_| RunError::Interrupted)?;
    let wall_s = wall.elapsed().as_secs_f64();
    let (logged, unlogged) = (world.drop_log.len(), world.drops_unlogged);
    let records = world.records(wall_s);
    let mut out = summarize(records, sc.output.events);
    if sc.output.events {
        // The drop log stops at its limit; say so, so that no one reads a truncated
        // events table as the whole.
        out.summary["drop_log"] = serde_json::json!({
            "rows": logged,
            "limit": sc.output.drop_log_limit(),
            "unlogged": unlogged,
            "complete": unlogged == 0,
        });
    }
    out.pcap = traces
        .into_iter()
        .map(|(path, packets)| PcapFile {
            link: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path,
            packets,
        })
        .collect();
    Ok(out)
}

/// Everything a run would refuse, without running: parse the text with its
/// overrides, lay out and route the network, resolve every buffer rule, and build the
/// engine's world (packet) or model (fluid). Returns the scenario as it would run.
pub fn validate(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    validate_with(text, overrides, MemoryLimit::Default)
}

/// `validate` against a given memory limit (`budget`).
pub fn validate_with(
    text: &str,
    overrides: &[String],
    memory_limit: MemoryLimit,
) -> Result<Scenario, ScenarioError> {
    validate_in(text, overrides, memory_limit, None)
}

/// `validate_with`, relative trace paths taken from `base_dir`.
pub fn validate_in(
    text: &str,
    overrides: &[String],
    memory_limit: MemoryLimit,
    base_dir: Option<PathBuf>,
) -> Result<Scenario, ScenarioError> {
    let mut sc = parse(text, overrides)?;
    sc.base_dir = base_dir;
    memory_limit.check(&sc, None)?;
    let p = plan(&sc, sc.seed)?;
    memory_limit.check(&sc, Some(&p))?;
    match sc.engine {
        Engine::Fluid => crate::fluid::check(&sc, &p)?,
        Engine::Packet => {
            World::build(&sc, &p, sc.seed)?.pcap_links(&sc)?;
        }
    }
    Ok(sc)
}

/// Map `f` over `items` on `workers` threads (scoped threads pulling from a shared
/// counter, so long and short items balance); results in input order.
fn par_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = items.len();
    let workers = workers.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i, &items[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// All cores of this machine.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get())
}

/// Run many scenarios at once on all cores; results in input order.
pub fn run_batch(scenarios: &[Scenario]) -> Vec<Result<Output, RunError>> {
    par_map(scenarios, all_cores(), |_, sc| {
        run_scenario(sc, &mut |_| true)
    })
}

/// The per-run scalars of a batch table: column name and summary path (the names of
/// summary.json, so a batch row reads like a run's summary). `links.bottleneck.` is
/// the summary's `bottleneck` link, whatever its name (`link1` in a parking lot).
pub const BATCH_METRICS: &[(&str, &str)] = &[
    ("utilization", "links.bottleneck.utilization"),
    ("utilization_data", "links.bottleneck.utilization_data"),
    ("throughput_bps", "links.bottleneck.throughput_bps"),
    ("drop_rate", "links.bottleneck.drop_rate"),
    ("queue_mean_pkts", "links.bottleneck.queue_mean_pkts"),
    ("queue_max_pkts", "links.bottleneck.queue_max_pkts"),
    ("queue_delay_mean_s", "links.bottleneck.queue_delay_mean_s"),
    ("congestion_events", "links.bottleneck.sync.events"),
    ("sync_level_mean", "links.bottleneck.sync.mean"),
    ("goodput_bps_total", "flows.goodput_bps_total"),
    ("jain_fairness", "flows.jain_fairness"),
    ("flows", "flows.count"),
    ("duration_s", "duration_s"),
    ("step_s", "step_s"),
    ("steps", "steps"),
    ("wall_s", "wall_s"),
];

/// A batch failed: which scenario (its index in the input) and why.
#[derive(Debug, thiserror::Error)]
#[error("scenarios[{index}]: {error}")]
pub struct BatchError {
    pub index: usize,
    pub error: RunError,
}

/// The result of `batch`: one row per run, `BATCH_METRICS` plus `scenario` (index
/// in the input), `replication` and `seed`; `names` has each row's scenario name.
#[derive(Debug)]
pub struct BatchTable {
    pub table: Table,
    pub names: Vec<String>,
}

/// Integrate `scenarios` × `replications` fluid runs on `workers` threads, as one table.
/// With one replication each scenario runs with its own seed (the row equals a
/// single run of it); with more, replication k runs with `replication_seed(seed, k)`
/// (the seeds `replicate` uses). Every scenario must be `engine = "fluid"`; the
/// first failing scenario (lowest index) is reported by its index.
pub fn batch(
    scenarios: &[Scenario],
    replications: usize,
    workers: usize,
) -> Result<BatchTable, BatchError> {
    batch_with_progress(scenarios, replications, workers, &|_, _| true)
}

/// `batch` with `progress(done, total)` called by the workers after each run (from
/// any of them; keep it cheap); returning false stops the batch after the runs in
/// progress (`RunError::Interrupted`, reported at the first scenario not run).
pub fn batch_with_progress(
    scenarios: &[Scenario],
    replications: usize,
    workers: usize,
    progress: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Result<BatchTable, BatchError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    for (index, sc) in scenarios.iter().enumerate() {
        if sc.engine != crate::scenario::Engine::Fluid {
            return Err(BatchError {
                index,
                error: ScenarioError::at(
                    "engine",
                    "a fluid batch runs engine = \"fluid\" scenarios only",
                )
                .into(),
            });
        }
    }
    let reps = replications.max(1);
    let jobs: Vec<(usize, usize, u64)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, sc)| {
            (0..reps).map(move |k| {
                let seed = if reps == 1 {
                    sc.seed
                } else {
                    crate::random::replication_seed(sc.seed, k)
                };
                (i, k, seed)
            })
        })
        .collect();
    // Each worker keeps only the row, not the run's series and flow tables; the runs
    // in flight share the memory limit.
    let (done, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let share = match MemoryLimit::Default.bytes() {
        Ok(Some(l)) => MemoryLimit::Bytes(l / workers.clamp(1, jobs.len().max(1)) as u64),
        _ => MemoryLimit::Default,
    };
    let opts = RunOptions {
        memory_limit: share,
        ..RunOptions::default()
    };
    let rows = par_map(&jobs, workers, |_, &(i, _, seed)| {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let r = run_seeded(&scenarios[i], seed, &mut |_| true, &opts).map(|o| {
            let v: Vec<f64> = BATCH_METRICS.iter().map(|(_, p)| metric(&o, p)).collect();
            (v, o.summary["name"].as_str().unwrap_or("").to_string())
        });
        if !progress(done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len()) {
            stop.store(true, Ordering::Relaxed);
        }
        r
    });
    let mut cols: Vec<Vec<f64>> = vec![Vec::with_capacity(jobs.len()); BATCH_METRICS.len()];
    let mut names = Vec::with_capacity(jobs.len());
    for (r, &(index, _, _)) in rows.into_iter().zip(&jobs) {
        let (v, name) = r.map_err(|error| BatchError { index, error })?;
        for (c, x) in cols.iter_mut().zip(v) {
            c.push(x);
        }
        names.push(name);
    }
    let mut table = Table::default();
    table.push(
        "scenario",
        Column::I64(jobs.iter().map(|j| j.0 as i64).collect()),
    );
    table.push(
        "replication",
        Column::I32(jobs.iter().map(|j| j.1 as i32).collect()),
    );
    table.push(
        "seed",
        Column::I64(jobs.iter().map(|j| j.2 as i64).collect()),
    );
    for ((name, _), c) in BATCH_METRICS.iter().zip(cols) {
        table.push(name, Column::F64(c));
    }
    Ok(BatchTable { table, names })
}

impl BatchTable {
    /// Per scenario: the number of runs and, for every metric, the mean and the 95 %
    /// half-width (Student t; NaN with one run; runs where the metric is undefined,
    /// such as `sync_level_mean` without congestion events, left out). Columns
    /// `scenario`, `runs`, then `{metric}_mean`, `{metric}_ci95`.
    pub fn estimates(&self) -> Table {
        let Some(Column::I64(sc)) = self.table.get("scenario") else {
            unreachable!("batch tables have a scenario column")
        };
        let mut groups: Vec<(i64, Vec<usize>)> = Vec::new();
        for (row, &s) in sc.iter().enumerate() {
            match groups.last_mut() {
                Some((g, rows)) if *g == s => rows.push(row),
                _ => groups.push((s, vec![row])),
            }
        }
        let mut t = Table::default();
        t.push(
            "scenario",
            Column::I64(groups.iter().map(|g| g.0).collect()),
        );
        t.push(
            "runs",
            Column::I64(groups.iter().map(|g| g.1.len() as i64).collect()),
        );
        for (name, _) in BATCH_METRICS {
            let col = self.table.f64(name).expect("batch metric column");
            let est: Vec<Estimate> = groups
                .iter()
                .map(|(_, rows)| {
                    let xs: Vec<f64> = rows
                        .iter()
                        .map(|&r| col[r])
                        .filter(|x| x.is_finite())
                        .collect();
                    Estimate::of(&xs)
                })
                .collect();
            t.push(
                &format!("{name}_mean"),
                Column::F64(
                    est.iter()
                        .map(|e| if e.n > 0 { e.mean } else { f64::NAN })
                        .collect(),
                ),
            );
            t.push(
                &format!("{name}_ci95"),
                Column::F64(est.iter().map(|e| e.half_width).collect()),
            );
        }
        t
    }
}

/// A number in a summary by path; NaN where the summary has none (e.g. the mean
/// synchronization level of a run without congestion events).
fn metric(o: &Output, path: &str) -> f64 {
    let mut v = &o.summary;
    if let Some(rest) = path.strip_prefix("links.bottleneck.") {
        let name = o.summary["bottleneck"].as_str().unwrap_or("bottleneck");
        v = &v["links"][name];
        for k in rest.split('.') {
            v = &v[k];
        }
        return v.as_f64().unwrap_or(f64::NAN);
    }
    for k in path.split('.') {
        v = &v[k];
    }
    v.as_f64().unwrap_or(f64::NAN)
}

/// Results of `replicate`.
#[derive(Debug)]
pub struct Replications {
    pub seeds: Vec<u64>,
    pub utilization: Estimate,
    pub jain: Estimate,
    pub outputs: Vec<Output>,
}

/// Run `n` replications of a scenario, seeds `replication_seed(seed, k)`, on all
/// cores; mean and 95 % CI of bottleneck utilization and Jain fairness.
pub fn replicate(sc: &Scenario, n: usize) -> Result<Replications, RunError> {
    let seeds: Vec<u64> = (0..n)
        .map(|k| crate::random::replication_seed(sc.seed, k))
        .collect();
    let outs = par_map(&seeds, all_cores(), |_, &s| {
        run_seeded(sc, s, &mut |_| true, &RunOptions::default())
    });
    let outputs: Vec<Output> = outs.into_iter().collect::<Result<_, _>>()?;
    let u: Vec<f64> = outputs
        .iter()
        .map(|o| metric(o, "links.bottleneck.utilization"))
        .collect();
    let j: Vec<f64> = outputs
        .iter()
        .map(|o| o.get("flows.jain_fairness"))
        .collect();
    Ok(Replications {
        seeds,
        utilization: Estimate::of(&u),
        jain: Estimate::of(&j),
        outputs,
    })
}

/// The fluid engine's speed benchmark: study 004 §5.2's setting — 10 HSTCP flows, 10 Gb/s, RTTs
/// 80–260 ms (20 ms apart), buffer 0.1 BDP, X = 0.3 — 3000 s on one core (the same
/// scenario as python/ccsim/bench.py). Returns the wall-clock seconds and the output.
pub fn bench_fluid() -> (f64, Output) {
    let mut text = r#"
name = "bench-fluid"
engine = "fluid"
duration = "3000s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Gbps"
bottleneck_delay = "10ms"
buffer = "0.1bdp"
[tcp]
init_ssthresh = 1e9
[fluid]
sync = { min_level = 0.3 }
"#
    .to_string();
    for i in 0..10 {
        text += &format!(
            "[[flows]]\ncc = \"highspeed\"\nrtt = \"{}ms\"\n",
            80 + 20 * i
        );
    }
    let sc = parse(&text, &[]).expect("bench scenario parses");
    let t = std::time::Instant::now();
    let out = run_scenario(&sc, &mut |_| true).expect("bench runs");
    (t.elapsed().as_secs_f64(), out)
}
