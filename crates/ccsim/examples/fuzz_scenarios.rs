//! A mutation fuzzer over parse + validate + build (`ccsim::validate_with`: parse, the
//! memory estimate, the plan, the engine built), on the stable toolchain:
//!
//! ```sh
//! (ulimit -v 4000000; cargo run --release -p ccsim --example fuzz_scenarios -- 1000000)
//! ```
//!
//! Arguments: inputs (default 100 000), seed (default 1), threads (default 2). Seeds
//! are every scenario in the repository (`scenarios/`, the reproductions' scenarios
//! and `crates/ccsim/fuzz/regressions/`), mutated by `fuzz/mutate.rs`. A panic is
//! minimized and written to `crates/ccsim/fuzz/crashes/`; an input taking more than 5 s
//! is a hang, written there too; an allocation failure prints its input and exits 3 (the
//! allocator below). Prints inputs, accepted, refused, panics, hangs and the slowest
//! input's time (the input itself goes to `fuzz/crashes/slowest-<seed>.toml`), and
//! exits non-zero if any panic or hang was found.

#[path = "../fuzz/mutate.rs"]
mod mutate;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ccsim::MemoryLimit;

/// The estimate's limit while fuzzing: well under the 4 GB address space it runs in.
const LIMIT: MemoryLimit = MemoryLimit::Bytes(1_000_000_000);
const HANG: Duration = Duration::from_secs(5);

thread_local! {
    /// The input being validated on this thread (pointer, length): what an allocation
    /// failure prints.
    static CURRENT: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
    /// Its number, as decimal digits (printed without allocating).
    static NUMBER: Cell<[u8; 20]> = const { Cell::new([b' '; 20]) };
}

struct Reporting;

#[global_allocator]
static ALLOC: Reporting = Reporting;

extern "C" {
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
    fn _exit(status: i32) -> !;
}

#[cold]
fn oom() -> ! {
    let msg = b"\nALLOCATION FAILURE on input:\n";
    unsafe {
        write(2, msg.as_ptr(), msg.len());
        let k = NUMBER.with(|c| c.get());
        write(2, k.as_ptr(), k.len());
        write(2, b"\n".as_ptr(), 1);
        let (p, n) = CURRENT.with(|c| c.get());
        if !p.is_null() {
            write(2, p, n);
        }
        _exit(3)
    }
}

unsafe impl GlobalAlloc for Reporting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if p.is_null() {
            oom()
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if p.is_null() {
            oom()
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let p = System.realloc(ptr, l, n);
        if p.is_null() {
            oom()
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, l: Layout) {
        System.dealloc(ptr, l)
    }
}

/// Ok(true): accepted, Ok(false): refused with an error, Err: a panic.
fn check(text: &str) -> Result<bool, String> {
    match catch_unwind(AssertUnwindSafe(|| ccsim::validate_with(text, &[], LIMIT))) {
        Ok(r) => Ok(r.is_ok()),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, seed, threads) = (arg(0, 100_000), arg(1, 1), arg(2, 2).max(1));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let repo = root.join("../..");
    let seeds = mutate::seeds(&[
        repo.join("scenarios"),
        repo.join("python/ccsim/reproduce/scenarios"),
        root.join("fuzz/regressions"),
    ]);
    assert!(!seeds.is_empty(), "no seed scenarios found");
    let pool = mutate::Pool::of(&seeds);
    let crashes = root.join("fuzz/crashes");
    std::panic::set_hook(Box::new(|_| {}));
    let next = AtomicU64::new(0);
    let (accepted, refused, panics, hangs) = (
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    );
    let slowest = Mutex::new((Duration::ZERO, String::new()));
    let t0 = Instant::now();
    println!(
        "fuzz: {} seed scenarios, {n} inputs, seed {seed}, {threads} threads",
        seeds.len()
    );
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                let text = mutate::input(k, seed, &seeds, &pool);
                CURRENT.with(|c| c.set((text.as_ptr(), text.len())));
                let mut digits = [b' '; 20];
                for (i, d) in format!("{k:>20}").bytes().enumerate() {
                    digits[i] = d;
                }
                NUMBER.with(|c| c.set(digits));
                let t = Instant::now();
                let r = check(&text);
                let dt = t.elapsed();
                CURRENT.with(|c| c.set((std::ptr::null(), 0)));
                {
                    let mut w = slowest.lock().unwrap();
                    if dt > w.0 {
                        *w = (dt, text.clone());
                    }
                }
                let save = |what: &str, body: &str| {
                    std::fs::create_dir_all(&crashes).ok();
                    let path = crashes.join(format!("{what}-{seed}-{k}.toml"));
                    std::fs::write(&path, body).ok();
                    eprintln!("{what} on input {k}: {}", path.display());
                };
                match r {
                    Ok(true) => accepted.fetch_add(1, Ordering::Relaxed),
                    Ok(false) => refused.fetch_add(1, Ordering::Relaxed),
                    Err(msg) => {
                        let small = mutate::minimize(&text, &|t| check(t).is_err());
                        save("panic", &format!("# {msg}\n{small}"));
                        panics.fetch_add(1, Ordering::Relaxed)
                    }
                };
                if dt > HANG {
                    save("hang", &format!("# {:.1} s\n{text}", dt.as_secs_f64()));
                    hangs.fetch_add(1, Ordering::Relaxed);
                }
                if (k + 1).is_multiple_of(100_000) {
                    println!("  {} inputs, {:.0} s", k + 1, t0.elapsed().as_secs_f64());
                }
            });
        }
    });
    let (w, text) = slowest.into_inner().unwrap();
    std::fs::create_dir_all(&crashes).ok();
    std::fs::write(crashes.join(format!("slowest-{seed}.toml")), &text).ok();
    let (p, h) = (panics.into_inner(), hangs.into_inner());
    println!(
        "fuzz: {n} inputs in {:.0} s: {} accepted, {} refused with an error, {p} panics, \
         {h} hangs (> {} s), 0 allocation failures; slowest input {:.3} s ({} bytes)",
        t0.elapsed().as_secs_f64(),
        accepted.into_inner(),
        refused.into_inner(),
        HANG.as_secs(),
        w.as_secs_f64(),
        text.len()
    );
    if p + h > 0 {
        std::process::exit(1);
    }
}
