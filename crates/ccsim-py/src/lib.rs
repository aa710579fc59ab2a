// pyo3 0.22 macros emit cfgs and conversions newer rustc/clippy flag; harmless.
#![allow(unexpected_cfgs, clippy::useless_conversion)]

//! Thin Python bindings: scenario text in, columnar results out.
//!
//! Numeric columns cross as raw little-endian bytes with a numpy dtype string, so a
//! million-row series costs one copy. A Rust panic is caught here and raised as
//! `SimulationError`; it never reaches Python as a crash.

use ccsim::summary::table::{Column, Table};
use ccsim::RunError;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; the message names the field."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulator failed internally."
);

/// The global allocator: the system's, except that an allocation failure (one the
/// memory estimate did not foresee, `ccsim::budget`) ends the process with one line on
/// stderr and exit status 3 instead of Rust's abort (a backtrace, status 134). Rust
/// cannot unwind out of an allocation failure on stable, so exiting is the best left;
/// the check is one branch after the system allocator returns.
struct ExitOnOom;

#[global_allocator]
static ALLOCATOR: ExitOnOom = ExitOnOom;

unsafe impl std::alloc::GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc_zeroed(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        let p = std::alloc::System.realloc(ptr, layout, new);
        if p.is_null() {
            out_of_memory(new);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
}

extern "C" {
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
    fn _exit(status: i32) -> !;
}

/// Say so and exit, allocating nothing (the message is formatted on the stack).
#[cold]
fn out_of_memory(size: usize) -> ! {
    struct Buf([u8; 400], usize);
    impl std::fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let n = s.len().min(self.0.len() - self.1);
            self.0[self.1..self.1 + n].copy_from_slice(&s.as_bytes()[..n]);
            self.1 += n;
            Ok(())
        }
    }
    let mut b = Buf([0; 400], 0);
    let _ = std::fmt::Write::write_fmt(
        &mut b,
        format_args!(
            "error: out of memory: ccsim could not allocate {size} bytes; the run needs more \
             memory than this process may use (see docs/limits.md: lower the flows, the \
             duration or the sampling, or lower --memory-limit so that such runs are \
             refused before they start)\n"
        ),
    );
    unsafe {
        write(2, b.0.as_ptr(), b.1);
        _exit(3)
    }
}

fn bytes_of<T: Copy>(v: &[T], to_le: impl Fn(&T) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(v));
    for x in v {
        out.extend_from_slice(&to_le(x));
    }
    out
}

fn table_to_py<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let cols = PyDict::new_bound(py);
    let cats = PyDict::new_bound(py);
    for (name, c) in &t.columns {
        let (dtype, data): (&str, Vec<u8>) = match c {
            Column::F64(v) => ("<f8", bytes_of(v, |x| x.to_le_bytes().to_vec())),
            Column::I32(v) => ("<i4", bytes_of(v, |x| x.to_le_bytes().to_vec())),
            Column::I64(v) => ("<i8", bytes_of(v, |x| x.to_le_bytes().to_vec())),
            Column::Cat(v, names) => {
                cats.set_item(name, PyList::new_bound(py, names))?;
                ("<u1", v.clone())
            }
            Column::Cat32(v, names) => {
                cats.set_item(name, PyList::new_bound(py, names))?;
                ("<u4", bytes_of(v, |x| x.to_le_bytes().to_vec()))
            }
        };
        let tup = PyTuple::new_bound(
            py,
            [dtype.into_py(py), PyBytes::new_bound(py, &data).into_py(py)],
        );
        cols.set_item(name, tup)?;
    }
    let d = PyDict::new_bound(py);
    d.set_item("columns", cols)?;
    d.set_item("categories", cats)?;
    Ok(d)
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Call the core for a scenario-level answer: a bad scenario raises ScenarioError, a
/// panic SimulationError (never a crash).
fn scenario_call<T>(f: impl FnOnce() -> Result<T, ccsim::ScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Err(panic) => Err(SimulationError::new_err(format!(
            "internal error: {}",
            panic_message(panic)
        ))),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.0)),
        Ok(Ok(v)) => Ok(v),
    }
}

/// `memory_limit` as the core reads it: None → the default (`CCSIM_MEMORY_LIMIT`, else
/// half of the machine's memory), `"8GB"`, `"off"`.
fn memory_limit(text: Option<&str>) -> PyResult<ccsim::MemoryLimit> {
    match text {
        None => Ok(ccsim::MemoryLimit::Default),
        Some(t) => match ccsim::budget::parse_limit(t) {
            Ok(Some(b)) => Ok(ccsim::MemoryLimit::Bytes(b)),
            Ok(None) => Ok(ccsim::MemoryLimit::Off),
            Err(e) => Err(ScenarioError::new_err(format!("memory_limit: {e}"))),
        },
    }
}

/// Run a scenario. `progress(fraction)` is called now and then; Ctrl-C interrupts.
/// A scenario whose estimated memory is over `memory_limit` is refused before it runs.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides=Vec::new(), progress=None, memory_limit=None, base_dir=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_toml: &str,
    overrides: Vec<String>,
    progress: Option<PyObject>,
    memory_limit: Option<&str>,
    base_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let limit = self::memory_limit(memory_limit)?;
    let mut py_err: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut cb = |frac: f64| -> bool {
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    py_err = Some(e);
                    return false;
                }
                if let Some(p) = &progress {
                    if let Err(e) = p.call1(py, (frac,)) {
                        py_err = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        // pcap traces go to a fresh temporary directory (created only if the
        // scenario asks for one); Run.write copies them into the run directory.
        let dir = pcap_temp_dir();
        let opts = ccsim::run::RunOptions {
            pcap_dir: Some(dir.clone()),
            memory_limit: limit,
            base_dir,
        };
        let r = catch_unwind(AssertUnwindSafe(|| {
            ccsim::run::run_with_options(scenario_toml, &overrides, &mut cb, &opts)
        }));
        if !matches!(r, Ok(Ok(_))) {
            // A failed or interrupted run leaves no partial traces behind.
            let _ = std::fs::remove_dir_all(&dir);
        }
        r
    });
    let out = match result {
        Err(panic) => {
            return Err(SimulationError::new_err(format!(
                "internal error: {}",
                panic_message(panic)
            )))
        }
        Ok(Err(RunError::Scenario(e))) => return Err(ScenarioError::new_err(e.0)),
        Ok(Err(RunError::Interrupted)) => {
            return Err(py_err.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted")))
        }
        Ok(Err(RunError::Output(e))) => return Err(PyOSError::new_err(e)),
        Ok(Ok(o)) => o,
    };
    let d = PyDict::new_bound(py);
    d.set_item(
        "summary",
        serde_json::to_string(&out.summary).map_err(|e| SimulationError::new_err(e.to_string()))?,
    )?;
    d.set_item("series", table_to_py(py, &out.series)?)?;
    d.set_item("flows", table_to_py(py, &out.flows)?)?;
    match &out.events {
        Some(t) => d.set_item("events", table_to_py(py, t)?)?,
        None => d.set_item("events", py.None())?,
    }
    let pcap = PyList::empty_bound(py);
    for f in &out.pcap {
        pcap.append((
            f.link.as_str(),
            f.path.to_string_lossy().as_ref(),
            f.packets,
        ))?;
    }
    d.set_item("pcap", pcap)?;
    Ok(d)
}

/// A directory name no other run of this process or another uses.
fn pcap_temp_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "ccsim-pcap-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Integrate many fluid scenarios (TOML texts, each with `overrides` applied) ×
/// `replications` on `threads` threads (default: all cores), the GIL released. Returns
/// `{"table": one row per run, "names": each row's scenario name, "estimates": per
/// scenario mean and 95 % interval of every metric}`. A bad scenario raises
/// ScenarioError naming its index (`scenarios[3]: flows[0].cc: ...`). `progress(done,
/// total)` is called after each run; Ctrl-C stops the batch after the runs in flight.
#[pyfunction]
#[pyo3(signature = (scenarios, overrides=Vec::new(), replications=1, threads=None, progress=None))]
fn fluid_batch<'py>(
    py: Python<'py>,
    scenarios: Vec<String>,
    overrides: Vec<String>,
    replications: usize,
    threads: Option<usize>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    use ccsim::run::{batch_with_progress, BatchError};
    use std::sync::Mutex;
    if replications == 0 {
        return Err(ScenarioError::new_err("replications: must be at least 1"));
    }
    if threads == Some(0) {
        return Err(ScenarioError::new_err("threads: must be at least 1"));
    }
    let py_err: Mutex<Option<PyErr>> = Mutex::new(None);
    let cb = |done: usize, total: usize| -> bool {
        Python::with_gil(|py| {
            let err = py.check_signals().err().or_else(|| {
                progress
                    .as_ref()
                    .and_then(|p| p.call1(py, (done, total)).err())
            });
            match err {
                Some(e) => {
                    py_err.lock().unwrap().get_or_insert(e);
                    false
                }
                None => true,
            }
        })
    };
    let result = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let parsed = scenarios
                .iter()
                .enumerate()
                .map(|(index, text)| {
                    ccsim::parse(text, &overrides).map_err(|e| BatchError {
                        index,
                        error: e.into(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            batch_with_progress(
                &parsed,
                replications,
                threads.unwrap_or_else(ccsim::run::all_cores),
                &cb,
            )
        }))
    });
    // An exception from the progress hook (or Ctrl-C) wins, even after the last run.
    let py_err = py_err.into_inner().unwrap_or_else(|p| p.into_inner());
    let bt = match result {
        Err(panic) => {
            return Err(SimulationError::new_err(format!(
                "internal error: {}",
                panic_message(panic)
            )))
        }
        Ok(Err(e)) => {
            return Err(match e.error {
                RunError::Interrupted => {
                    py_err.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
                }
                _ => ScenarioError::new_err(e.to_string()),
            })
        }
        Ok(Ok(_)) if py_err.is_some() => return Err(py_err.unwrap()),
        Ok(Ok(bt)) => bt,
    };
    let d = PyDict::new_bound(py);
    d.set_item("table", table_to_py(py, &bt.table)?)?;
    d.set_item("names", PyList::new_bound(py, &bt.names))?;
    d.set_item("estimates", table_to_py(py, &bt.estimates())?)?;
    Ok(d)
}

/// Everything a run would refuse, without running it: parse (with overrides), lay
/// out and route the network, resolve the buffers and build the engine. Returns the
/// scenario text as it would run (overrides applied).
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides=Vec::new(), memory_limit=None, base_dir=None))]
fn validate(
    scenario_toml: &str,
    overrides: Vec<String>,
    memory_limit: Option<&str>,
    base_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let limit = self::memory_limit(memory_limit)?;
    scenario_call(|| {
        ccsim::run::validate_in(scenario_toml, &overrides, limit, base_dir)?;
        ccsim::scenario::resolve(scenario_toml, &overrides)
    })
}

/// The scenario text with `path=value` overrides applied (the core's grammar: the
/// value is read as TOML, or else taken as a bare string). Only the text is checked
/// to be TOML and the paths to exist; `validate` checks the scenario.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides=Vec::new()))]
fn resolve(scenario_toml: &str, overrides: Vec<String>) -> PyResult<String> {
    scenario_call(|| ccsim::scenario::resolve(scenario_toml, &overrides))
}

/// The seed the scenario runs with, overrides applied: its `seed`, or the core's
/// default. The scenario is parsed and checked as a run would parse it.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides=Vec::new()))]
fn scenario_seed(scenario_toml: &str, overrides: Vec<String>) -> PyResult<u64> {
    scenario_call(|| ccsim::parse(scenario_toml, &overrides).map(|sc| sc.seed))
}

/// The seed of replication `k` of a scenario whose seed is `seed` (the one rule every
/// batch, sweep and replication uses).
#[pyfunction]
fn replication_seed(seed: u64, k: usize) -> u64 {
    ccsim::random::replication_seed(seed, k)
}

/// Mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom) of
/// `values`, and n: `(mean, half_width, n)`; the half-width is NaN below two values.
#[pyfunction]
fn confidence_interval(values: Vec<f64>) -> (f64, f64, usize) {
    let e = ccsim::metrics::stats::Estimate::of(&values);
    let mean = if e.n > 0 { e.mean } else { f64::NAN };
    (mean, e.half_width, e.n)
}

/// The memory limit in bytes that `memory_limit` stands for (None: no limit): the
/// sweep divides it among its worker processes.
#[pyfunction]
#[pyo3(signature = (memory_limit=None))]
fn memory_limit_bytes(memory_limit: Option<&str>) -> PyResult<Option<u64>> {
    self::memory_limit(memory_limit)?
        .bytes()
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Keep panics quiet: they become SimulationError with the message.
    std::panic::set_hook(Box::new(|_| {}));
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_seed, m)?)?;
    m.add_function(wrap_pyfunction!(replication_seed, m)?)?;
    m.add_function(wrap_pyfunction!(confidence_interval, m)?)?;
    m.add_function(wrap_pyfunction!(fluid_batch, m)?)?;
    m.add_function(wrap_pyfunction!(memory_limit_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add(
        "SimulationError",
        m.py().get_type_bound::<SimulationError>(),
    )?;
    Ok(())
}
