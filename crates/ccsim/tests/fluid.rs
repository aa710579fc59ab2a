//! Validation of the fluid engine (issue 6) against closed forms and study 004 §3.2.
//! Each test can fail; tolerances are justified next to them.

use ccsim::summary::table::Column;
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
[tcp]
profile = "ns2"
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
[tcp]
profile = "ns2"
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
    // Every congestion event takes every flow (the metric groups the drops as the
    // packet engine does, docs/metrics.md).
    assert!(out.get("links.bottleneck.sync.events") > 3.0);
    assert!((out.get("links.bottleneck.sync.mean") - 1.0).abs() < 1e-12);
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
profile = "ns2"
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
profile = "ns2"
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

/// Study 004 §5.1 (model verification against NS2): 10 HighSpeed TCP flows on 1 Gb/s,
/// RTTs 115.5–124.5 ms evenly spread (1 ms apart, mean 120 ms), 1000-byte packets,
/// the buffer a fraction of 12 500 packets. Slow start ends at 1000 packets per flow
/// (below the fair share of ~1560) so that neither engine starts with a slow-start
/// overshoot, which the study's fluid model does not simulate.
fn hstcp_5_1(engine: &str, buffer_frac: f64, duration_s: f64, warmup_s: f64) -> String {
    let mut s = format!(
        r#"
name = "study004-5.1"
engine = "{engine}"
duration = "{duration_s}s"
warmup = "{warmup_s}s"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "10ms"
buffer = "{}pkt"
[tcp]
profile = "ns2"
mss = "960B"
header = "40B"
init_ssthresh = 1000
"#,
        (buffer_frac * 12_500.0).round()
    );
    for i in 0..10 {
        s += &format!(
            "[[flows]]\ncc = \"highspeed\"\nrtt = \"{}ms\"\n",
            115.5 + i as f64
        );
        if engine == "packet" {
            // The study's NS2 runs used SACK (RFC 6675): with NewReno, HSTCP's
            // multi-packet losses at these windows end in timeouts.
            s += "recovery = \"sack\"\n";
        }
    }
    s
}

/// Packet-engine run length for the side-by-side test: 1 Gb/s of 1000-byte packets is
/// 125 000 packets per simulated second. HSTCP's sawtooth at W ≈ 1500 lasts ~5 s, so
/// 100 s measured (after 20 s) holds ~20 of them.
const PACKET_S: f64 = 120.0;
const WARMUP_S: f64 = 20.0;

#[test]
fn study004_hstcp_fluid_with_x_0_3_matches_the_packet_engine() {
    // Study 004 §5.1 / Fig. 8: with X = 0.3 the fluid model matches the packet
    // simulator's utilization; the issue's tolerance is 5 points. The fluid side is
    // the mean of 5 replications of 600 s (its only randomness is the draw of m_k).
    for frac in [0.1, 0.5] {
        let pkt = run(&hstcp_5_1("packet", frac, PACKET_S, WARMUP_S), &[]);
        let u_pkt = pkt.get("links.bottleneck.utilization");
        let sc = parse(
            &hstcp_5_1("fluid", frac, 600.0, WARMUP_S),
            &["fluid.sync.min_level=0.3".into()],
        )
        .unwrap();
        let r = ccsim::run::replicate(&sc, 5).unwrap();
        let u_fl = r.utilization.mean;
        eprintln!(
            "HSTCP 5.1, buffer {frac} x 12500 pkt: packet {u_pkt:.4} ({:.1} s wall), fluid X=0.3 {u_fl:.4} ± {:.4}",
            pkt.get("wall_s"),
            r.utilization.half_width
        );
        assert!(
            (u_fl - u_pkt).abs() <= 0.05,
            "buffer {frac}: fluid {u_fl:.4} vs packet {u_pkt:.4}"
        );
    }
}

#[test]
#[ignore = "slow (~10 min): cargo test -p ccsim --test fluid study004_table -- --ignored --nocapture"]
fn study004_table() {
    // The full table of study 004 §5.1 (docs/fluid.md): fluid utilization for
    // X = 1, 0.6, 0.3 (10 replications of 3000 s, mean ± 95 % CI, as the study), the
    // packet engine (one 600 s run, 100 s warmup) with the loss synchronization it
    // measured (mean fraction of flows losing per congestion event), and the fluid
    // model fed that measured distribution of m_k (normal, its mean and sd).
    println!(
        "| buffer (× 12 500 pkt) | fluid X = 1 | fluid X = 0.6 | fluid X = 0.3 | packet (SACK) | packet sync | fluid, packet's m_k |"
    );
    println!("|---|---|---|---|---|---|---|");
    let fluid_est = |frac: f64, set: String| {
        let sc = parse(&hstcp_5_1("fluid", frac, 3000.0, 100.0), &[set]).unwrap();
        let r = ccsim::run::replicate(&sc, 10).unwrap();
        format!(
            " {:.3} ± {:.3} |",
            r.utilization.mean, r.utilization.half_width
        )
    };
    for frac in [0.05, 0.1, 0.2, 0.5, 1.0] {
        let mut row = format!("| {frac} |");
        for x in [1.0, 0.6, 0.3] {
            row += &fluid_est(frac, format!("fluid.sync.min_level={x}"));
        }
        let pkt = run(&hstcp_5_1("packet", frac, 600.0, 100.0), &[]);
        row += &format!(" {:.3} |", pkt.get("links.bottleneck.utilization"));
        // hist[i]: events where a fraction (i + 1)/10 of the 10 flows lost.
        let hist: Vec<f64> = pkt.summary["links"]["bottleneck"]["sync"]["hist"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default();
        let n: f64 = hist.iter().sum();
        if hist.len() == 10 && n > 0.0 {
            let m = |k: usize| (k + 1) as f64;
            let mean = hist.iter().enumerate().map(|(k, h)| h * m(k)).sum::<f64>() / n;
            let var = hist
                .iter()
                .enumerate()
                .map(|(k, h)| h * (m(k) - mean).powi(2))
                .sum::<f64>()
                / n;
            row += &format!(" {:.2} ({} events) |", mean / 10.0, n);
            row += &fluid_est(
                frac,
                format!(
                    "fluid.sync.level={{ normal = {{ mean = {mean}, sd = {} }} }}",
                    var.sqrt()
                ),
            );
        } else {
            row += " — | — |";
        }
        println!("{row}");
    }
}

#[test]
fn red_fluid_law_holds_the_mathis_relation_and_tracks_packet_red() {
    // Under RED with a buffer that never fills, every loss is an early drop, and a flow
    // reduces once per loss event (losses within an RTT of a reduction are one
    // event): a sawtooth whose rate is Mathis et al.'s (1/RTT)·√(3/(2p)) packets per
    // second, p the loss-event rate per packet (CCR 1997, eq. 3), RTT including the
    // mean queueing delay. The 10 flows' RTTs differ, so they do not fire together.
    let text = r#"
engine = "fluid"
duration = "300s"
warmup = "50s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
buffer = "1000pkt"
queue = { kind = "red", min_th = "50pkt", max_th = "150pkt", max_p = 0.1 }
[[flows]]
count = 10
cc = "reno"
rtt = { uniform = ["60ms", "140ms"] }
"#;
    let out = run(text, &[]);
    // RED holds the queue far below the 1000-packet buffer: no overflow.
    assert!(out.get("links.bottleneck.queue_max_pkts") < 400.0);
    let qd = out.get("links.bottleneck.queue_delay_mean_s");
    let f = &out.flows;
    let (g, rtt) = (f.f64("goodput_bps").unwrap(), f.f64("rtt_prop_s").unwrap());
    // The fluid engine's loss indications (window reductions) are its fast
    // retransmits.
    let Some(Column::I64(events)) = f.get("fast_retransmits") else {
        panic!("no fast_retransmits column")
    };
    let mss = 1460.0;
    for i in 0..10 {
        let delivered = g[i] * 250.0 / 8.0 / mss; // packets in the 250 s window
        let p = events[i] as f64 / delivered;
        let mathis = (1.5 / p).sqrt() / (rtt[i] + qd);
        let measured = g[i] / 8.0 / mss;
        eprintln!(
            "flow {i}: RTT {:.0} ms, p {p:.2e}, rate {measured:.0} pkt/s, Mathis {mathis:.0}",
            (rtt[i] + qd) * 1e3
        );
        // 5 %: the queueing delay moves with the sawtooth (the RTT is not constant
        // within a cycle) and a flow's cycles are not all the same length.
        assert!(
            (measured / mathis - 1.0).abs() < 0.05,
            "flow {i}: {measured} vs Mathis {mathis}"
        );
    }
    // The packet engine's RED on the same scenario (1.2 s of wall time): utilization
    // within 5 points and drop rate within 25 % (the fluid RED uses RED's own p_b,
    // EWMA and uniform drop spacing; it has no timeouts and no packet-level bursts).
    let pkt = run(text, &["engine=\"packet\""]);
    let (uf, up) = (
        out.get("links.bottleneck.utilization"),
        pkt.get("links.bottleneck.utilization"),
    );
    let (df, dp) = (
        out.get("links.bottleneck.drop_rate"),
        pkt.get("links.bottleneck.drop_rate"),
    );
    eprintln!(
        "RED: utilization fluid {uf:.4} packet {up:.4}; drop rate fluid {df:.2e} packet {dp:.2e}"
    );
    assert!((uf - up).abs() < 0.05, "utilization fluid {uf} packet {up}");
    assert!(
        (df / dp - 1.0).abs() < 0.25,
        "drop rate fluid {df} packet {dp}"
    );
}

#[test]
fn parking_lot_fluid_tracks_the_packet_engine() {
    // Multi-link routes from a scenario: two middle links of 10 Mb/s under RED, two
    // long flows crossing both, two short flows on each. The long flows see both
    // links' drops (about twice the loss rate at the same RTT), so Mathis gives them
    // ~1/√2 of a short flow's rate, less the second queue's delay. The packet engine
    // on the same scenario (0.3 s of wall time): per-link utilization within 5 points,
    // long/short goodput ratio within 0.1.
    let text = r#"
engine = "fluid"
duration = "300s"
warmup = "50s"
[tcp]
profile = "ns2"
[topology]
kind = "parking_lot"
middle_links = 2
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "200pkt"
queue = { kind = "red", min_th = "10pkt", max_th = "30pkt", max_p = 0.1 }
[[flows]]
count = 2
cc = "reno"
rtt = "100ms"
[[flows]]
count = 2
cc = "reno"
rtt = "100ms"
span = [1, 1]
[[flows]]
count = 2
cc = "reno"
rtt = "100ms"
span = [2, 2]
"#;
    let fl = run(text, &[]);
    let pk = run(text, &["engine=\"packet\""]);
    let ratio = |o: &Output| {
        let g = out_goodput(o);
        (g[0] + g[1]) / (g[2] + g[3] + g[4] + g[5]) * 2.0
    };
    let (rf, rp) = (ratio(&fl), ratio(&pk));
    for l in ["link1", "link2"] {
        let (uf, up) = (
            fl.get(&format!("links.{l}.utilization")),
            pk.get(&format!("links.{l}.utilization")),
        );
        eprintln!("parking lot {l}: utilization fluid {uf:.4} packet {up:.4}");
        assert!((uf - up).abs() < 0.05, "{l}: fluid {uf} packet {up}");
    }
    eprintln!("parking lot: long/short goodput fluid {rf:.3} packet {rp:.3}");
    assert!(rf > 0.45 && rf < 0.75, "fluid long/short {rf}");
    assert!((rf - rp).abs() < 0.1, "long/short fluid {rf} packet {rp}");
    assert_eq!(fl.summary["bottleneck"], "link1");
    // Batch rows and replications read the summary's bottleneck, whatever its name.
    let b = ccsim::run::batch(&[parse(text, &[]).unwrap()], 1, 1).unwrap();
    assert_eq!(
        b.table.f64("utilization").unwrap()[0],
        fl.get("links.link1.utilization")
    );
}

#[test]
fn every_law_runs_finite_and_nonnegative_under_droptail_and_red() {
    // Heterogeneous mix, tiny buffer and RED, random policy: state must stay finite and
    // non-negative (queues within [0, limit], windows ≥ 1, rates ≥ 0).
    for queue in ["droptail", "red"] {
        let text = format!(
            r#"
engine = "fluid"
duration = "30s"
warmup = "5s"
sample_interval = "0.5s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "5ms"
buffer = "tiny"
queue = "{queue}"
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
sync = {{ level = {{ normal = {{ mean = 2, sd = 1 }} }}, min_level = 0.2, policy = "random" }}
"#
        );
        let out = run(&text, &[]);
        let v = out.series.f64("value").unwrap();
        assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0));
        let u = out.get("links.bottleneck.utilization");
        assert!((0.0..=1.0 + 1e-9).contains(&u), "{queue}: {u}");
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
    // Queue kinds without a fluid law, and ECN, are named too.
    for (set, name) in [
        (
            "topology.queue=\"fq_codel\"",
            "topology.queue (kind \"fq_codel\")",
        ),
        (
            "topology.queue=\"codel\"",
            "topology.queue (kind \"codel\")",
        ),
        ("topology.queue=\"fq\"", "topology.queue (kind \"fq\")"),
        (
            "topology.queue={ kind = \"red\", ecn = true }",
            "topology.queue.ecn",
        ),
        ("tcp.ecn=true", "tcp.ecn"),
        ("flows[0].drop_segments=[3]", "flows[0].drop_segments"),
        ("flows[0].recovery=\"sack\"", "flows[0].recovery"),
        ("tcp.pacing=\"rate\"", "tcp.pacing"),
        ("flows[0].tcp.min_rto=\"1s\"", "flows[0].tcp.min_rto"),
        ("metrics.fair_share_flows=2", "metrics.fair_share_flows"),
    ] {
        let e = ccsim::run(ONE_AIMD, &[set.into()]).unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains("engine = \"fluid\" cannot honour"),
            "{set}: {e}"
        );
    }
    // Packet traces and drop tables need packets: refused when the scenario is read.
    let e = parse(ONE_AIMD, &["output.events=true".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("output.events") && e.contains("engine = \"fluid\" cannot honour"),
        "{e}"
    );
    // XCP's window is set by routers: no rate form (cc::fluid_law).
    let e = ccsim::run(ONE_AIMD, &["flows[0].cc=\"xcp\"".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("flows[0].cc: \"xcp\" has no fluid law (the fluid engine knows: reno,"),
        "{e}"
    );
    let e = parse(ONE_AIMD, &["fluid.sync.min_level=1.5".into()]).unwrap_err();
    assert!(e.0.starts_with("fluid.sync.min_level:"), "{e}");
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

/// `fluid.cut = "per_packet"` (study 004 eq. (2) per lost packet) is opt-in: the
/// default and an explicit `"per_rtt"` give the same result to the bit, and a value
/// it does not know is refused in one line naming the field.
#[test]
fn per_packet_cut_is_opt_in_and_cuts_more_than_once_per_rtt() {
    let base = ONE_AIMD.replace("buffer = \"0pkt\"", "buffer = \"0.2bdp\"");
    let def = run(&base, &[]);
    let per_rtt = run(&base, &["fluid.cut=\"per_rtt\""]);
    let u = def.get("links.bottleneck.utilization");
    assert_eq!(u, per_rtt.get("links.bottleneck.utilization"));
    assert_eq!(
        def.get("flows.goodput_bps_total"),
        per_rtt.get("flows.goodput_bps_total")
    );
    // One AIMD flow, buffer 0.2 BDP: a congestion event loses the window's growth
    // over the feedback delay, one to two packets here, so per lost packet the window
    // is cut to W·2^-n, n ≥ 1, where once per RTT halves it: the sawtooth sinks lower
    // and the link idles longer. (Default: U = (3 + 6b − b²)/(4(1 + b)) = 0.867 at
    // b = 0.2, +0.02 from the one-RTT overshoot; measured 0.885 and 0.830.)
    let pp = run(&base, &["fluid.cut=\"per_packet\""]);
    let upp = pp.get("links.bottleneck.utilization");
    eprintln!("one AIMD flow, 0.2 BDP: per_rtt {u:.4}, per_packet {upp:.4}");
    assert!((u - 0.867).abs() < 0.03, "{u}");
    assert!(upp < u - 0.03, "per_packet {upp} vs per_rtt {u}");
    assert!(upp > 0.0);
    for bad in ["\"per_loss\"", "1"] {
        let e = parse(&base, &[format!("fluid.cut={bad}")]).unwrap_err();
        assert!(e.0.starts_with("fluid.cut:") && !e.0.contains('\n'), "{e}");
    }
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
    // 300 s at 1 s: 300 samples × (4 link metrics × 2 links + 4 flow metrics: the
    // flow starts at 0, so it has an RTT from the first sample), the fairness of the
    // one link with flows at each sample, and a CoV every 5 s.
    assert_eq!(out.series.rows(), 300 * (4 * 2 + 4) + 300 + 300 / 5);
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
    let r = ccsim::run::replicate(&sc, 5).unwrap();
    assert_eq!(r.outputs.len(), 5);
    assert!(r.utilization.half_width.is_finite() && r.utilization.half_width >= 0.0);
    assert!(r.utilization.mean > 0.5 && r.utilization.mean <= 1.0);
    // Replication k runs with seed + k (the one rule, random::replication_seed).
    assert_eq!(r.seeds, (0..5).map(|k| sc.seed + k).collect::<Vec<_>>());

    // A batch returns results in input order, identical to single runs.
    let texts = [ONE_AIMD, STCP_AIMD];
    let scs: Vec<_> = texts.iter().map(|t| parse(t, &[]).unwrap()).collect();
    let b = ccsim::run::run_batch(&scs);
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
    let (wall, out) = ccsim::run::bench_fluid();
    eprintln!(
        "fluid bench: 10 flows, 10 Gb/s, RTT 80-260 ms, 3000 s: {wall:.3} s wall, {} steps, utilization {:.4}, Jain {:.4}",
        out.summary["steps"],
        out.get("links.bottleneck.utilization"),
        out.get("flows.jain_fairness")
    );
}

/// A two-link parking lot: flow 0 crosses links 1 and 2, flow 1 only link 1, flow 2
/// only link 2; 10 Mb/s each, RED, equal propagation RTTs (100 ms).
///
/// Each link drops independently (RED early drops at its own average queue), so the
/// long flow's loss-event rate is the sum of what the one-link flows see at each link,
/// and every flow keeps Mathis's relation x = √(3/(2p))/RTT with its own p and RTT
/// (its queues summed): the long flow gets ~1/√2 of the others.
#[test]
fn multi_link_route_sees_both_queues() {
    let text = r#"
engine = "fluid"
duration = "300s"
warmup = "50s"
[tcp]
profile = "ns2"
[topology]
kind = "parking_lot"
middle_links = 2
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "200pkt"
queue = { kind = "red", min_th = "10pkt", max_th = "30pkt", max_p = 0.1 }
[[flows]]
cc = "reno"
rtt = "100ms"
[[flows]]
cc = "reno"
rtt = "100ms"
span = [1, 1]
[[flows]]
cc = "reno"
rtt = "100ms"
span = [2, 2]
"#;
    let out = run(text, &[]);
    let win = 250.0;
    let cap = 10e6 / 8.0;
    let qd = ["link1", "link2"].map(|l| out.get(&format!("links.{l}.queue_mean_bytes")) / cap);
    let rtt = [0.1 + qd[0] + qd[1], 0.1 + qd[0], 0.1 + qd[1]];
    let g = out.flows.f64("goodput_bps").unwrap();
    let Some(Column::I64(ev)) = out.flows.get("fast_retransmits") else {
        panic!()
    };
    let pkts: Vec<f64> = g.iter().map(|x| x * win / 8.0 / 1460.0).collect();
    let p: Vec<f64> = (0..3).map(|i| ev[i] as f64 / pkts[i]).collect();
    let Some(Column::I64(lost)) = out.flows.get("losses") else {
        panic!()
    };
    let (da, db) = (
        out.get("links.link1.drop_rate"),
        out.get("links.link2.drop_rate"),
    );
    eprintln!(
        "loss events {ev:?}, lost {lost:?}, delivered {pkts:.0?}, drop rates {da:.2e} {db:.2e}"
    );
    for i in 0..3 {
        let mathis = (1.5 / p[i]).sqrt() / rtt[i];
        let x = pkts[i] / win;
        eprintln!("flow {i}: {x:.1} pkt/s, Mathis {mathis:.1}");
        // 10 %: with two flows per link each flow's own sawtooth moves the RED
        // queue it sees (windows of ~40 packets), so its RTT and p vary in-cycle.
        assert!(
            (x / mathis - 1.0).abs() < 0.10,
            "flow {i}: {x} pkt/s vs Mathis {mathis} (p {}, RTT {})",
            p[i],
            rtt[i]
        );
    }
    // The long flow loses at the sum of the two links' drop rates (each drops the
    // same fraction of every flow's arrivals).
    let p_long = lost[0] as f64 / (lost[0] as f64 + pkts[0]);
    assert!(
        (p_long / (da + db) - 1.0).abs() < 0.1,
        "long flow loses {p_long}, links drop {da} + {db}"
    );
    let ratio = 2.0 * g[0] / (g[1] + g[2]);
    assert!(ratio > 0.55 && ratio < 0.85, "long/short goodput {ratio}");
    // Both links are used, and equally (the topology is symmetric).
    let (ua, ub) = (
        out.get("links.link1.utilization"),
        out.get("links.link2.utilization"),
    );
    assert!(ua > 0.8 && (ua - ub).abs() < 0.02, "{ua} {ub}");
}
