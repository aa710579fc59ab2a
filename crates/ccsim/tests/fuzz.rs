//! The fuzzer's reduced run (the full one: `examples/fuzz_scenarios.rs`, docs/limits.md)
//! and its regressions: every input it ever found is in `fuzz/regressions/` and must be
//! answered (accepted or refused with an error), never with a panic.

#[path = "../fuzz/mutate.rs"]
mod mutate;

use ccsim::MemoryLimit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const LIMIT: MemoryLimit = MemoryLimit::Bytes(1_000_000_000);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn answers(text: &str) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| ccsim::validate_with(text, &[], LIMIT)))
        .map(|r| r.is_ok())
        .map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
}

#[test]
fn every_regression_input_is_answered() {
    let dir = root().join("fuzz/regressions");
    let seeds = mutate::seeds(&[dir]);
    assert!(
        !seeds.is_empty(),
        "fuzz/regressions holds the inputs found so far"
    );
    for (name, text) in seeds {
        let t = Instant::now();
        let r = answers(&text);
        assert!(r.is_ok(), "{name}: panicked: {}", r.unwrap_err());
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{name}: {:?}",
            t.elapsed()
        );
    }
}

/// A few thousand mutated inputs (seconds): no panic, none slower than 5 s.
#[test]
fn mutated_scenarios_never_panic() {
    let repo = root().join("../..");
    let seeds = mutate::seeds(&[
        repo.join("scenarios"),
        repo.join("python/ccsim/reproduce/scenarios"),
    ]);
    assert!(seeds.len() > 20, "{} seeds", seeds.len());
    let pool = mutate::Pool::of(&seeds);
    let (mut accepted, mut refused) = (0, 0);
    for k in 0..3000 {
        let text = mutate::input(k, 20261124, &seeds, &pool);
        let t = Instant::now();
        match answers(&text) {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(msg) => panic!("input {k} panicked ({msg}):\n{text}"),
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "input {k}: {:?}\n{text}",
            t.elapsed()
        );
    }
    // The mutations reach past the parser: some inputs still build.
    assert!(
        accepted > 100 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}
