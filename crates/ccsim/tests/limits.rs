//! Bounded by construction (docs/limits.md): a scenario whose estimated memory is over
//! the limit is refused before anything big is allocated, with an error naming the
//! field that drives it; the drop log stops at its limit and the summary says so.
//!
//! Each refused input below aborted the process (allocation failure, exit 134) under a
//! 4 GB address-space limit before `budget` existed.

use ccsim::{validate_with, MemoryLimit};

const DUMBBELL: &str = r#"
duration = "60s"
warmup = "20s"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "25ms"
access_rate = "1Gbps"
access_delay = "12.5ms"
buffer = "bdp"
[[flows]]
count = 4
cc = "newreno"
"#;

const FLUID: &str = r#"
engine = "fluid"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
cc = "newreno"
rtt = "100ms"
[[flows]]
cc = "newreno"
rtt = "50ms"
"#;

const FOUR_GB: MemoryLimit = MemoryLimit::Bytes(4_000_000_000);

fn refused(text: &str, set: &[&str]) -> String {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let e = validate_with(text, &set, FOUR_GB).expect_err("over the limit");
    assert!(e.0.contains("over the limit of 4 GB"), "{e}");
    assert!(e.0.contains("--memory-limit"), "{e}");
    e.0
}

#[test]
fn the_examples_fit() {
    validate_with(DUMBBELL, &[], FOUR_GB).unwrap();
    validate_with(FLUID, &[], FOUR_GB).unwrap();
}

#[test]
fn ten_million_flows_are_refused_naming_the_count() {
    let e = refused(DUMBBELL, &["flows[0].count=10000000"]);
    assert!(e.contains("flows[0].count"), "{e}");
    // Without series the flows alone are the reason.
    let e = refused(
        DUMBBELL,
        &["flows[0].count=10000000", "sample_interval=\"60s\""],
    );
    assert!(e.starts_with("flows[0].count: "), "{e}");
}

#[test]
fn a_huge_workload_pool_is_refused_before_it_is_laid_out() {
    // load = 9e18 gives poisson_flows its largest default pool, 100 000 slots, which
    // took 5 s to lay out before the plan-level estimate refused it (fuzz input).
    let text = format!(
        "{DUMBBELL}\n[[workloads]]\nkind = \"poisson_flows\"\nload = 9e18\n\
         size = {{ pareto = {{ shape = 1.5, mean = \"30KB\" }} }}\naccess_rate = \"1Mbps\"\n"
    );
    let t = std::time::Instant::now();
    let e = refused(&text, &[]);
    assert!(e.contains("400026 series points"), "{e}"); // 100 000 slots × 4 + 26 (srtt_s: 4 per flow)
    assert!(
        t.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        t.elapsed()
    );
    let e = refused(&text, &["workloads[0].hosts=4294967295"]);
    assert!(e.contains("; workloads alone: "), "{e}");
}

#[test]
fn a_nanosecond_sample_interval_is_refused() {
    let e = refused(DUMBBELL, &["sample_interval=\"1ns\""]);
    assert!(e.starts_with("sample_interval: "), "{e}");
}

#[test]
fn a_huge_initial_window_is_refused() {
    let e = refused(DUMBBELL, &["tcp={init_cwnd=1e8}"]);
    assert!(e.starts_with("tcp.init_cwnd: "), "{e}");
    let e = refused(DUMBBELL, &["flows[0].tcp={init_cwnd=1e8}"]);
    assert!(e.starts_with("flows[0].tcp.init_cwnd: "), "{e}");
    // A receive window bounds the burst.
    validate_with(
        DUMBBELL,
        &["tcp={init_cwnd=1e8, rwnd=\"1000pkt\"}".into()],
        FOUR_GB,
    )
    .unwrap();
}

#[test]
fn fluid_history_of_a_huge_rtt_or_a_slow_link_is_refused() {
    // 4294967 s (the fuzzer's value) is beyond any duration a scenario may give.
    let set = ["flows[0].rtt=\"4294967s\"".to_string()];
    let e = validate_with(FLUID, &set, FOUR_GB).expect_err("out of range");
    assert!(
        e.0.starts_with("flows[0].rtt: duration out of range"),
        "{e}"
    );
    // Within range, still far too much history to hold.
    let e = refused(FLUID, &["flows[0].rtt=\"900000s\""]);
    assert!(e.starts_with("flows[0].rtt: "), "{e}");
    assert!(e.contains("fluid history"), "{e}");
    let e = refused(
        FLUID,
        &[
            "topology.bottleneck_rate=\"1bps\"",
            "topology.buffer=\"100pkt\"",
        ],
    );
    assert!(e.contains("fluid history"), "{e}");
}

#[test]
fn off_means_no_limit_and_bad_limits_are_named() {
    // Off: the estimate is not consulted (validate builds nothing big for a short run).
    validate_with(
        DUMBBELL,
        &["sample_interval=\"1us\"".into()],
        MemoryLimit::Off,
    )
    .unwrap();
    assert!(ccsim::budget::parse_limit("a lot").is_err());
}

#[test]
fn the_drop_log_stops_at_its_limit_and_says_so() {
    let text = r#"
duration = "5s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "5pkt"
[[flows]]
count = 4
cc = "reno"
[output]
events = true
drop_log_limit = 10
"#;
    let out = ccsim::run(text, &[]).unwrap();
    let log = &out.summary["drop_log"];
    assert_eq!(log["rows"], 10, "{log}");
    assert_eq!(log["limit"], 10);
    assert_eq!(log["complete"], false);
    let unlogged = log["unlogged"].as_u64().unwrap();
    let drops = out.get("links.bottleneck.drops");
    assert!(
        unlogged > 0 && drops >= (10 + unlogged) as f64 * 0.5,
        "{log} {drops}"
    );
    // The default keeps every drop of a short run.
    let out = ccsim::run(text, &["output.drop_log_limit=1000000".into()]).unwrap();
    assert_eq!(out.summary["drop_log"]["complete"], true);
    assert_eq!(out.summary["drop_log"]["unlogged"], 0);
}
