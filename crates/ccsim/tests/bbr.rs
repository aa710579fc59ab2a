//! BBR (cc/bbr.rs) and the delivery-rate estimator (tcp/delivery.rs) in the packet
//! engine, against what tcp_bbr.c's design predicts: a lone flow fills the
//! bottleneck with a small standing queue, its queue stays bounded by its inflight
//! cap (2·BDP) however deep the buffer (CUBIC fills it), and against CUBIC it takes
//! more than its share of a shallow buffer and less of a deep one.

use ccsim::run;

/// A dumbbell at 20 Mb/s, 50 ms RTT (BDP 83 packets of 1500 B), Linux-like TCP.
fn dumbbell(flows: &str, buffer: &str, duration: &str, seed: u64) -> ccsim::Output {
    dumbbell_with(flows, buffer, duration, seed, "")
}

/// `dumbbell` with extra `[topology]` lines (e.g. an XCP queue).
fn dumbbell_with(
    flows: &str,
    buffer: &str,
    duration: &str,
    seed: u64,
    topology: &str,
) -> ccsim::Output {
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
{topology}
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

// ---- BBRv3 (cc/bbr3.rs, draft-ietf-ccwg-bbr-04) ---------------------------------------

fn bottleneck_f(o: &ccsim::Output, key: &str) -> f64 {
    o.summary["links"]["bottleneck"][key].as_f64().unwrap()
}

/// One BBRv3 flow on the 20 Mb/s, 50 ms RTT dumbbell with a deep buffer (8 BDP,
/// 667 packets): BBR's model keeps the flight near one BDP (cwnd ≤ 2·BDP, the
/// queue drained in DOWN and at 5 s ProbeRTTs), so the mean queueing delay stays
/// well under one RTT (here under a fifth of it) and the link ≥ 90 % busy.
#[test]
fn bbr3_one_flow_deep_buffer_keeps_the_queue_small() {
    let o = dumbbell(&group("bbr3", 1), "8bdp", "40s", 1);
    let u = bottleneck_f(&o, "utilization");
    let d = bottleneck_f(&o, "queue_delay_mean_s");
    eprintln!("one BBRv3 flow, 8 BDP: utilization {u:.4}, mean queueing delay {d:.4} s");
    assert!(u >= 0.9, "utilization {u}");
    assert!(d < 0.2 * 0.05, "mean queueing delay {d} s, RTT 50 ms");
}

/// Four flows of one version on the 20 Mb/s, 50 ms dumbbell with a shallow buffer
/// (0.25 BDP, 21 packets), 30 s: BBRv1 ignores loss and keeps 2·BDP each in flight,
/// so the queue overflows all the time; BBRv3 caps its flight once a round loses
/// more than 2 % (§5.5.10.2) and cuts by 0.7 per lossy round (§5.5.10.3): its loss
/// rate is several times lower, at the same utilization.
#[test]
fn bbr3_loses_far_less_than_bbr1_in_a_shallow_buffer() {
    let v1 = dumbbell(&group("bbr", 4), "0.25bdp", "30s", 2);
    let v3 = dumbbell(&group("bbr3", 4), "0.25bdp", "30s", 2);
    let (l1, l3) = (
        bottleneck_f(&v1, "drop_rate"),
        bottleneck_f(&v3, "drop_rate"),
    );
    let (u1, u3) = (
        bottleneck_f(&v1, "utilization"),
        bottleneck_f(&v3, "utilization"),
    );
    eprintln!(
        "4 flows, 0.25 BDP: drop rate v1 {l1:.4} v3 {l3:.4}; utilization v1 {u1:.3} v3 {u3:.3}"
    );
    assert!(l3 < 0.4 * l1, "drop rate v3 {l3}, v1 {l1}");
    assert!(u3 >= 0.9, "utilization {u3}");
}

/// BBRv3 against CUBIC, and against Reno, one flow each on a 1 BDP buffer (20 Mb/s,
/// 50 ms), 40 s: where BBRv1 takes most of the link, BBRv3, which backs off on
/// loss, leaves the loss-based flow a real share.
#[test]
fn bbr3_shares_with_cubic_and_reno() {
    let share = |a: &str, b: &str| {
        let flows = format!("{}{}", group(a, 1), group(b, 1));
        let o = dumbbell(&flows, "1bdp", "40s", 3);
        let g = o.flows.f64("goodput_bps").unwrap();
        assert!(bottleneck_f(&o, "utilization") > 0.9);
        g[0] / (g[0] + g[1])
    };
    for other in ["cubic", "reno"] {
        let s1 = share("bbr", other);
        let s3 = share("bbr3", other);
        eprintln!("share vs {other}, 1 BDP: BBRv1 {s1:.3}, BBRv3 {s3:.3}");
        assert!((0.2..=0.8).contains(&s3), "BBRv3 share vs {other}: {s3}");
        assert!(s3 < s1, "v3 {s3} v1 {s1}");
    }
}

/// BBRv3 next to each registered algorithm in turn (one flow each, 20 Mb/s, 50 ms,
/// 1 BDP, 15 s of which 10 s warm-up; XCP through the XCP queue it needs): no
/// panic, packets conserved (checked by `dumbbell`), both deliver.
#[test]
fn bbr3_mixed_with_every_algorithm() {
    for names in ccsim::cc::KNOWN {
        let other = names[0];
        // XCP senders use NewReno; everyone else SACK.
        let recovery = if other == "xcp" { "newreno" } else { "sack" };
        let flows = format!(
            "[[flows]]\ncc = \"bbr3\"\nrecovery = \"sack\"\n[[flows]]\ncc = \"{other}\"\nrecovery = \"{recovery}\"\n"
        );
        let queue = if other == "xcp" {
            "queue = { kind = \"xcp\" }"
        } else {
            ""
        };
        let o = dumbbell_with(&flows, "1bdp", "15s", 4, queue);
        let g = o.flows.f64("goodput_bps").unwrap();
        eprintln!("bbr3 + {other}: goodput {g:?}");
        assert!(g.iter().all(|&x| x > 0.0), "bbr3 + {other}: {g:?}");
    }
}

/// The probe wait's randomness comes from the flow's seeded stream: the same seed
/// gives the same summary.
#[test]
fn bbr3_same_seed_same_summary() {
    let flows = format!("{}{}", group("bbr3", 2), group("cubic", 1));
    let mut a = dumbbell(&flows, "1bdp", "20s", 9);
    let mut b = dumbbell(&flows, "1bdp", "20s", 9);
    a.summary["wall_s"] = serde_json::Value::Null;
    b.summary["wall_s"] = serde_json::Value::Null;
    assert_eq!(a.summary, b.summary);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
}

/// BBRv3, like v1, has no fluid form: refused by name.
#[test]
fn the_fluid_engine_refuses_bbr3() {
    let sc = r#"
engine = "fluid"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
buffer = "bdp"
[[flows]]
cc = "bbr3"
rtt = "40ms"
"#;
    let e = run(sc, &[]).expect_err("refused").to_string();
    assert!(
        e.contains("\"bbr3\" has no fluid law (the fluid engine knows: reno,"),
        "{e}"
    );
}
