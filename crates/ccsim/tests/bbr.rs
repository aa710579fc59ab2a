//! BBR (cc/bbr.rs) and the delivery-rate estimator (tcp/delivery.rs) in the packet
//! engine, against what tcp_bbr.c's design predicts: a lone flow fills the
//! bottleneck with a small standing queue, its queue stays bounded by its inflight
//! cap (2·BDP) however deep the buffer (CUBIC fills it), and against CUBIC it takes
//! more than its share of a shallow buffer and less of a deep one.

use ccsim::run;

/// A dumbbell at 20 Mb/s, 50 ms RTT (BDP 83 packets of 1500 B), Linux-like TCP.
fn dumbbell(flows: &str, buffer: &str, duration: &str, seed: u64) -> ccsim::Output {
    let sc = format!(
        r#"
seed = {seed}
duration = "{duration}"
warmup = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "15ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "{buffer}"
{flows}
"#
    );
    let o = run(&sc, &[]).unwrap();
    assert_eq!(o.summary["conservation"]["ok"], true);
    o
}

fn group(cc: &str, n: u32) -> String {
    format!(
        r#"
[[flows]]
cc = "{cc}"
count = {n}
recovery = "sack"
tcp = {{ init_cwnd = 10, init_ssthresh = 1e9, mss = "1448B", header = "52B" }}
"#
    )
}

fn bottleneck(o: &ccsim::Output, key: &str) -> f64 {
    o.summary["links"]["bottleneck"][key].as_f64().unwrap()
}

const BDP: f64 = 20e6 * 0.05 / 8.0 / 1500.0;

/// One BBR flow: ≥ 0.95 utilization and, in PROBE_BW, a standing queue of at most
/// about a quarter BDP (the 1.25 probe adds 0.25·BDP for one RTT in eight).
#[test]
fn one_flow_fills_the_link_with_a_small_queue() {
    let o = dumbbell(&group("bbr", 1), "1bdp", "40s", 1);
    let u = bottleneck(&o, "utilization");
    let q = bottleneck(&o, "queue_mean_pkts");
    eprintln!("one BBR flow, 1 BDP: utilization {u:.4}, mean queue {q:.2} pkts");
    assert!(u >= 0.95, "utilization {u}");
    assert!(q <= 0.25 * BDP + 3.0, "mean queue {q} packets, BDP {BDP}");
}

/// A deep buffer (8 BDP): BBR's queue stays under its inflight cap of 2·BDP (plus
/// allowances), while CUBIC, loss-driven, fills the buffer.
#[test]
fn deep_buffer_bbr_queue_is_bounded_cubic_fills_it() {
    let b = dumbbell(&group("bbr", 1), "8bdp", "40s", 1);
    let c = dumbbell(&group("cubic", 1), "8bdp", "40s", 1);
    let qb = bottleneck(&b, "queue_max_pkts");
    let qc = bottleneck(&c, "queue_max_pkts");
    eprintln!("8 BDP buffer: max queue BBR {qb}, CUBIC {qc} (BDP {BDP:.1})");
    assert!(qb <= 1.0 * BDP + 10.0, "BBR max queue {qb}, BDP {BDP}");
    assert!(qc >= 4.0 * BDP, "CUBIC max queue {qc}, BDP {BDP}");
    assert!(bottleneck(&b, "utilization") >= 0.95);
}

/// BBR vs CUBIC (one each): BBR takes most of a shallow buffer (0.25 BDP: losses
/// do not slow BBR, they halve CUBIC), and less of a deep one (4 BDP: CUBIC fills
/// the queue while BBR's inflight is capped at 2·its own BDP estimate).
#[test]
fn bbr_dominates_shallow_buffers_not_deep_ones() {
    let share = |buffer: &str| {
        let flows = format!("{}{}", group("bbr", 1), group("cubic", 1));
        let o = dumbbell(&flows, buffer, "60s", 2);
        let g = o.flows.f64("goodput_bps").unwrap();
        g[0] / (g[0] + g[1])
    };
    let shallow = share("0.25bdp");
    let deep = share("4bdp");
    eprintln!("BBR share vs CUBIC: 0.25 BDP {shallow:.3}, 4 BDP {deep:.3}");
    assert!(shallow > 0.6, "BBR share with 0.25 BDP: {shallow}");
    assert!(
        deep < shallow - 0.1,
        "BBR share with 4 BDP: {deep}, shallow {shallow}"
    );
}

/// Determinism: BBR's random ProbeBW phase comes from the flow's seeded stream, so
/// the same seed gives the same summary (wall time aside) and another seed may not.
#[test]
fn same_seed_same_summary() {
    let flows = format!("{}{}", group("bbr", 2), group("cubic", 1));
    let mut a = dumbbell(&flows, "1bdp", "20s", 9);
    let mut b = dumbbell(&flows, "1bdp", "20s", 9);
    a.summary["wall_s"] = serde_json::Value::Null;
    b.summary["wall_s"] = serde_json::Value::Null;
    assert_eq!(a.summary, b.summary);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
}

/// BBR next to every other algorithm on one bottleneck: no panic, conservation
/// holds (checked by `dumbbell`), everyone delivers something.
#[test]
fn mixed_with_every_algorithm() {
    let mut flows = String::new();
    for cc in [
        "reno",
        "newreno",
        "highspeed",
        "scalable",
        "bic",
        "cubic",
        "htcp",
        "vegas",
        "compound",
        "fast",
        "illinois",
        "bbr",
    ] {
        flows.push_str(&format!(
            "[[flows]]\ncc = \"{cc}\"\nrecovery = \"sack\"\ntcp = {{ init_cwnd = 10 }}\n"
        ));
    }
    let o = dumbbell(&flows, "1bdp", "15s", 3);
    let g = o.flows.f64("goodput_bps").unwrap();
    assert!(g.iter().all(|&x| x > 0.0), "{g:?}");
    assert!(bottleneck(&o, "utilization") > 0.9);
}

/// BBR has no fluid form (its window is a model of the path, not a loss law): the
/// fluid engine refuses it by name, at the flow's `cc`.
#[test]
fn the_fluid_engine_refuses_bbr() {
    let sc = r#"
engine = "fluid"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
buffer = "bdp"
[[flows]]
cc = "bbr"
rtt = "40ms"
"#;
    let e = run(sc, &[]).expect_err("refused").to_string();
    eprintln!("{e}");
    assert!(
        e.contains("\"bbr\" has no fluid law (the fluid engine knows: reno,"),
        "{e}"
    );
}
