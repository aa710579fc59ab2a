//! Run one scenario file and print its event and packet rates: the Rust-only
//! benchmark harness (no Python in the loop), e.g. for instruction counts under
//! `valgrind --tool=callgrind` or comparisons between commits.
//!
//!     cargo run --release -p ccsim --example run_scenario -- SCENARIO.toml [REPEAT]

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario SCENARIO.toml [REPEAT]");
        std::process::exit(2);
    };
    let repeat: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("REPEAT: a count"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut best = f64::INFINITY;
    let mut pkts = 0.0;
    let mut events = 0.0;
    for _ in 0..repeat {
        let t = Instant::now();
        let o = ccsim::run(&text, &[]).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        best = best.min(t.elapsed().as_secs_f64());
        pkts = o.summary["bottleneck_packets"].as_f64().unwrap_or(0.0);
        events = o.summary["events"].as_f64().unwrap_or(0.0);
    }
    println!(
        "{path}: {pkts:.0} bottleneck packets, {events:.0} events, best of {repeat}: {best:.3} s, {:.2} M pkt/s, {:.1} M events/s",
        pkts / best / 1e6,
        events / best / 1e6
    );
}
