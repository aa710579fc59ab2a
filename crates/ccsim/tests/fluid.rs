//! Validation of the fluid engine (issue 6) against closed forms and study 004 §3.2.
//! Each test can fail; tolerances are justified next to them.

use ccsim::fluid;
use ccsim::metrics::Column;
use ccsim::{parse, Output};

fn run(text: &str, overrides: &[&str]) -> Output {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ccsim::run(text, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// One Reno/AIMD flow, no buffer: 10 Mb/s, RTT 100 ms (BDP 83 packets).
const ONE_AIMD: &str = r#"
engine = "fluid"
duration = "300s"
warmup = "20s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "0pkt"
[[flows]]
cc = "reno"
rtt = "100ms"
tcp = { init_ssthresh = 1e9 }
"#;

#[test]
fn one_aimd_flow_without_buffer_uses_three_quarters() {
    // Without a buffer the window saws between BDP/2 and BDP: mean 3/4 of capacity.
    // 280 s are ~65 sawtooth cycles of 4.2 s, so a partial cycle moves the mean by
    // < 0.4 points; the one-RTT feedback delay lets W overshoot the BDP by ~1 packet
    // (+0.6 points at BDP 83). Both inside the brief's ±2 points.
    let out = run(ONE_AIMD, &[]);
    let u = out.get("links.bottleneck.utilization");
    assert_eq!(out.summary["engine"], "fluid");
    eprintln!("one AIMD flow, no buffer: utilization {u:.4}");
    assert!((u - 0.75).abs() < 0.02, "utilization {u}");
    // Halving the step changes the figure by < 0.5 points (discretization check for the
    // default step's justification in fluid::step_for).
    let u2 = run(ONE_AIMD, &["fluid.step=\"0.5ms\""]).get("links.bottleneck.utilization");
    assert!((u - u2).abs() < 0.005, "{u} vs {u2} at half the step");
}

#[test]
fn full_synchronization_keeps_identical_flows_identical() {
    // X = 1: every flow loses at every event (the classical model), so identical flows
    // (same RTT, same start) must stay identical to rounding.
    let text = r#"
engine = "fluid"
duration = "60s"
sample_interval = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
buffer = "0.2bdp"
[[flows]]
count = 5
cc = "reno"
rtt = "60ms"
[fluid]
sync = { min_level = 1.0 }
"#;
    let out = run(text, &[]);
    let Column::F64(w) = out.flows.get("cwnd_final").unwrap() else {
        panic!()
    };
    for x in w {
        assert!((x - w[0]).abs() <= 1e-9 * w[0], "{w:?}");
    }
    assert!(out.get("links.bottleneck.congestion_events") > 3.0);
    assert!((out.get("links.bottleneck.sync_level_mean") - 1.0).abs() < 1e-12);
    assert!((out.get("flows.jain_fairness") - 1.0).abs() < 1e-9);
}

/// Study 004 Fig. 2: STCP + AIMD at 1 Gb/s, RTT 120 ms, buffer 0.1 BDP (1000 packets).
const STCP_AIMD: &str = r#"
engine = "fluid"
duration = "200s"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "10ms"
buffer = "0.1bdp"
[tcp]
init_ssthresh = 1e9
[[flows]]
cc = "scalable"
rtt = "120ms"
[[flows]]
cc = "reno"
rtt = "120ms"
"#;

#[test]
fn study004_stcp_with_aimd_fairness_follows_synchronization() {
    // Full synchronization: STCP (MIMD, b = 1/8) takes nearly all (study: Jain 0.50).
    // Dropping only the fastest flow: fair (study: 0.95). Thresholds: < 0.7 is
    // "strongly unfair" (a 2-flow Jain of 0.7 means a 80/20 split), >= 0.9 as the brief.
    let full = run(STCP_AIMD, &["fluid.sync.min_level=1.0"]);
    let one = run(
        STCP_AIMD,
        &["fluid.sync.level=1", "fluid.sync.policy=\"highest_rate\""],
    );
    let (jf, jo) = (
        full.get("flows.jain_fairness"),
        one.get("flows.jain_fairness"),
    );
    eprintln!(
        "STCP+AIMD: full sync Jain {jf:.3} util {:.3}; drop fastest Jain {jo:.3} util {:.3}",
        full.get("links.bottleneck.utilization"),
        one.get("links.bottleneck.utilization")
    );
    assert!(jf < 0.7, "full synchronization Jain {jf}");
    assert!(jo >= 0.9, "drop-the-fastest Jain {jo}");
    // The STCP flow is the one that wins under full synchronization.
    let g = out_goodput(&full);
    assert!(g[0] > 3.0 * g[1], "{g:?}");
}

fn out_goodput(o: &Output) -> Vec<f64> {
    o.flows.f64("goodput_bps").unwrap().to_vec()
}

#[test]
fn study004_two_stcp_rtt_40_and_120_fairness_follows_synchronization() {
    // Study 004 Fig. 3: the 40 ms flow starves the 120 ms one under full
    // synchronization (study: Jain 0.50); dropping only the fastest flow restores
    // fairness (study: 0.999).
    let text = r#"
engine = "fluid"
duration = "200s"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "5ms"
buffer = "1000pkt"
[tcp]
init_ssthresh = 1e9
[[flows]]
cc = "scalable"
rtt = "40ms"
[[flows]]
cc = "scalable"
rtt = "120ms"
"#;
    let full = run(text, &["fluid.sync.min_level=1.0"]);
    let one = run(text, &["fluid.sync.level=1"]);
    let (jf, jo) = (
        full.get("flows.jain_fairness"),
        one.get("flows.jain_fairness"),
    );
    eprintln!(
        "STCP 40/120 ms: full sync Jain {jf:.3} util {:.3}; drop fastest Jain {jo:.3} util {:.3}",
        full.get("links.bottleneck.utilization"),
        one.get("links.bottleneck.utilization")
    );
    assert!(jf < 0.7, "full synchronization Jain {jf}");
    assert!(jo >= 0.9, "drop-the-fastest Jain {jo}");
    let g = out_goodput(&full);
    assert!(g[0] > 3.0 * g[1], "the short-RTT flow should win: {g:?}");
}

// (3) Study 004 §5.1 model verification (HSTCP, 1 Gb/s, RTT 115.5–124.5 ms, buffer
// fractions of 12 500 packets, against NS2): to be added once the packet engine has
// HSTCP, comparing fluid X = 0.3/0.6/1 with packet runs of the same scenario.

#[test]
fn every_law_runs_finite_and_nonnegative_under_droptail_and_red() {
    // Heterogeneous mix, tiny buffer and RED, random policy: state must stay finite and
    // non-negative (queues within [0, limit], windows ≥ 1, rates ≥ 0).
    for law in ["droptail", "red"] {
        let text = format!(
            r#"
engine = "fluid"
duration = "30s"
warmup = "5s"
sample_interval = "0.5s"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "5ms"
buffer = "tiny"
[[flows]]
count = 2
cc = "highspeed"
rtt = {{ uniform = ["20ms", "200ms"] }}
[[flows]]
cc = "cubic"
rtt = "50ms"
start = "2s"
[[flows]]
cc = "htcp"
rtt = "80ms"
[[flows]]
cc = "bic"
rtt = "100ms"
[[flows]]
cc = "scalable"
direction = "reverse"
rtt = "30ms"
[fluid]
loss_law = "{law}"
sync = {{ level = {{ normal = {{ mean = 2, sd = 1 }} }}, min_level = 0.2, policy = "random" }}
"#
        );
        let out = run(&text, &[]);
        let v = out.series.f64("value").unwrap();
        assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0));
        let u = out.get("links.bottleneck.utilization");
        assert!((0.0..=1.0 + 1e-9).contains(&u), "{law}: {u}");
        assert!(out.get("links.bottleneck.queue_max_pkts") <= 20.0 + 1e-9);
        let w = out.flows.f64("cwnd_final").unwrap();
        assert!(w.iter().all(|x| x.is_finite() && *x >= 1.0), "{w:?}");
        assert!(out.get("flows.goodput_bps_total") > 0.0);
    }
}

#[test]
fn packet_only_fields_are_rejected_by_name() {
    let e = ccsim::run(
        ONE_AIMD,
        &[
            "tcp.delayed_ack=true".into(),
            "flows[0].size=\"100KB\"".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("tcp.delayed_ack") && e.contains("flows[0].size"),
        "{e}"
    );
    let e = ccsim::run(ONE_AIMD, &["flows[0].cc=\"vegas\"".into()])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("flows[0].cc:") && e.contains("vegas"), "{e}");
    let e = parse(ONE_AIMD, &["fluid.sync.min_level=1.5".into()]).map(|sc| {
        ccsim::output::run_scenario(&sc, &mut |_| true)
            .unwrap_err()
            .to_string()
    });
    assert!(e.unwrap().starts_with("fluid.sync.min_level:"));
    let e = parse(ONE_AIMD, &["fluid.bogus=1".into()]).unwrap_err();
    assert!(e.0.contains("bogus"), "{e}");
    let e = ccsim::run(
        ONE_AIMD,
        &["engine=\"packet\"".into(), "fluid.step=\"1ms\"".into()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("fluid:"), "{e}");
}

#[test]
fn outputs_have_the_packet_engine_names() {
    let out = run(ONE_AIMD, &["sample_interval=\"1s\""]);
    for k in [
        "utilization",
        "drop_rate",
        "queue_mean_pkts",
        "queue_max_pkts",
    ] {
        assert!(out.summary["links"]["bottleneck"][k].is_number(), "{k}");
    }
    for k in ["count", "goodput_bps_total", "jain_fairness"] {
        assert!(out.summary["flows"][k].is_number(), "{k}");
    }
    let names: Vec<&str> = out.series.columns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["time", "entity", "id", "metric", "value"]);
    for c in ["flow", "group", "cc", "direction", "goodput_bps"] {
        assert!(out.flows.get(c).is_some(), "{c}");
    }
    // 300 s at 1 s: 300 samples × (3 link metrics × 2 links + 2 flow metrics).
    assert_eq!(out.series.rows(), 300 * 8);
    // Goodput ≈ utilization × rate × payload share.
    let g = out.get("flows.goodput_bps_total");
    let u = out.get("links.bottleneck.utilization");
    assert!((g / (u * 10e6 * 1460.0 / 1500.0) - 1.0).abs() < 0.01);
}

#[test]
fn replications_and_batches() {
    // Random policy so replications differ; 5 seeds give a t-based 95 % CI.
    let sc = parse(
        STCP_AIMD,
        &[
            "fluid.sync.level=1".into(),
            "fluid.sync.policy=\"random\"".into(),
            "duration=\"60s\"".into(),
        ],
    )
    .unwrap();
    let r = fluid::replicate(&sc, 5).unwrap();
    assert_eq!(r.outputs.len(), 5);
    assert!(r.utilization.half_width.is_finite() && r.utilization.half_width >= 0.0);
    assert!(r.utilization.mean > 0.5 && r.utilization.mean <= 1.0);
    assert!(r.seeds.windows(2).all(|w| w[0] != w[1]));
    assert!((fluid::t95(4) - 2.776).abs() < 1e-9);
    assert!((fluid::t95(200) - 1.972).abs() < 2e-3);

    // A batch returns results in input order, identical to single runs.
    let texts = [ONE_AIMD, STCP_AIMD];
    let scs: Vec<_> = texts.iter().map(|t| parse(t, &[]).unwrap()).collect();
    let b = fluid::run_batch(&scs);
    for (t, r) in texts.iter().zip(b) {
        let single = run(t, &[]);
        let r = r.unwrap();
        assert_eq!(
            r.get("links.bottleneck.utilization"),
            single.get("links.bottleneck.utilization")
        );
    }
}

#[test]
#[ignore = "timing: cargo test -p ccsim --test fluid bench -- --ignored --nocapture"]
fn bench() {
    let (wall, out) = fluid::bench();
    eprintln!(
        "fluid bench: 10 flows, 10 Gb/s, RTT 80-260 ms, 3000 s: {wall:.3} s wall, {} steps, utilization {:.4}, Jain {:.4}",
        out.summary["steps"],
        out.get("links.bottleneck.utilization"),
        out.get("flows.jain_fairness")
    );
}
