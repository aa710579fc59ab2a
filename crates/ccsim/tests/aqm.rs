//! ECN-era queues and the algorithms made for them, end to end through `ccsim::run`:
//! DCTCP on a step-marking queue (RFC 8257; Alizadeh et al. 2010), PIE (RFC 8033),
//! FQ-PIE, DualPI2 (RFC 9332) with Prague and classic flows. Each check is against
//! the specification's law; the figures measured when the tolerances were set are in
//! docs/queues.md.

use ccsim::summary::table::Column;
use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    let o = run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}\n{sc}"));
    assert_eq!(o.summary["conservation"]["ok"], true);
    o
}

/// (time, value) samples of one entity's metric after `from` seconds.
fn series(o: &Output, entity: &str, id: i32, metric: &str, from: f64) -> Vec<f64> {
    let t = o.series.f64("time").unwrap();
    let v = o.series.f64("value").unwrap();
    let Some(Column::I32(ids)) = o.series.get("id") else {
        panic!("no id")
    };
    let Some(Column::Cat(ent, ecats)) = o.series.get("entity") else {
        panic!()
    };
    let Some(Column::Cat(met, mcats)) = o.series.get("metric") else {
        panic!()
    };
    let e = ecats.iter().position(|c| c == entity).unwrap() as u8;
    let m = mcats.iter().position(|c| c == metric).unwrap() as u8;
    (0..t.len())
        .filter(|&i| ent[i] == e && met[i] == m && ids[i] == id && t[i] >= from)
        .map(|i| v[i])
        .collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// A dumbbell: `rate`, bottleneck one-way delay `delay_ms`, 0.5 ms access links at
/// 10 Gb/s, the given queue and buffer, delayed ACKs, and the flow groups `flows`.
fn dumbbell(
    rate: &str,
    delay_ms: f64,
    queue: &str,
    buffer: &str,
    dur: &str,
    flows: &str,
) -> String {
    format!(
        r#"
duration = "{dur}"
warmup = "5s"
sample_interval = "1ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}"
bottleneck_delay = "{delay_ms}ms"
access_rate = "10Gbps"
access_delay = "0.5ms"
buffer = "{buffer}"
queue = {queue}
[tcp]
init_ssthresh = 1e9
delayed_ack = true
{flows}
"#
    )
}

/// DCTCP on a step-marking queue (Alizadeh et al. 2010, §3.3): with K above the
/// paper's bound C·RTT/7 the link stays busy, and the queue oscillates just around K:
/// Q_max = K + N and amplitude A = ½·√(2N(C·RTT + K)) (eq. 11–13), i.e. for N = 2,
/// C·RTT = 83 packets (100 Mb/s, 10 ms, 1500 B) and K = 20: Q_max = 22, A ≈ 10, so
/// Q_min ≈ 12. No packet is dropped: the marks do all the work.
#[test]
fn dctcp_holds_the_queue_at_k_with_full_throughput() {
    let q = "{ kind = \"step\", threshold = \"20pkt\" }";
    let flows = "[[flows]]\ncount = 2\ncc = \"dctcp\"\nrecovery = \"sack\"";
    let o = must_run(&dumbbell("100Mbps", 4.0, q, "300pkt", "20s", flows));
    let util = o.get("links.bottleneck.utilization");
    let qmean = o.get("links.bottleneck.queue_mean_pkts");
    let marks = o.get("links.bottleneck.ecn_marks");
    let drops = o.get("links.bottleneck.drops");
    let qs = series(&o, "link", 0, "queue_pkts", 5.0);
    let qmax = qs.iter().cloned().fold(0.0, f64::max);
    let qmin = qs.iter().cloned().fold(f64::INFINITY, f64::min);
    let ce: Vec<i64> = match o.flows.get("ce_marks") {
        Some(Column::I64(v)) => v.clone(),
        _ => panic!("no ce_marks"),
    };
    eprintln!(
        "dctcp: util {util:.4} queue mean {qmean:.1} min {qmin} max {qmax} marks {marks} \
         drops {drops} ce per flow {ce:?} sampled mean {:.1}",
        mean(&qs)
    );
    assert!(util > 0.99, "utilization {util}");
    assert_eq!(drops, 0.0);
    // The queue sits within the paper's band [Q_min, Q_max] = [12, 22] on average,
    // and its sampled extremes stay within a few packets of it (the 1 ms samples see
    // the sawtooth's ends; delayed ACKs release two segments at a time).
    assert!((12.0..=22.0).contains(&qmean), "queue mean {qmean}");
    assert!(qmax <= 30.0 && qmin >= 2.0, "queue range {qmin}..{qmax}");
    // Every mark reaches a receiver (no marked packet is lost): the per-flow counts
    // add up to the link's, but for the marked packets between queue and receiver at
    // the window's two ends (at most a queue and a pipe's worth, ~100 packets).
    assert!(marks > 0.0);
    let sum: i64 = ce.iter().sum();
    assert!((sum as f64 - marks).abs() <= 100.0, "{sum} vs {marks}");
}

/// PIE (RFC 8033) with long-lived Reno flows: the controller settles the queueing
/// delay at its target (15 ms) in steady state, whatever the buffer (here 10× the
/// BDP, which drop-tail would fill), and the link stays busy. Reno's window halves on
/// a drop, so the delay swings around the target; its mean over 40 s is the check.
#[test]
fn pie_settles_the_delay_at_target_with_reno() {
    let flows = "[[flows]]\ncount = 10\ncc = \"reno\"\nrecovery = \"sack\"";
    for (q, label) in [
        ("\"pie\"", "timestamp"),
        ("{ kind = \"pie\", estimator = \"rate\" }", "rate"),
    ] {
        let o = must_run(&dumbbell("20Mbps", 19.0, q, "700pkt", "45s", flows));
        let util = o.get("links.bottleneck.utilization");
        let d = o.get("links.bottleneck.queue_delay_mean_s");
        let aqm = o.get("links.bottleneck.drops_aqm");
        let ovf = o.get("links.bottleneck.drops_overflow");
        eprintln!(
            "pie ({label}): util {util:.4} delay {:.2} ms aqm drops {aqm} overflow {ovf}",
            d * 1e3
        );
        assert!(util > 0.95, "{label}: utilization {util}");
        assert!((0.010..=0.020).contains(&d), "{label}: mean delay {d}");
        assert_eq!(ovf, 0.0, "{label}: the buffer never fills");
    }
}

/// FQ-PIE: each flow queue's own PIE holds that flow's delay near the target; a
/// sparse flow next to bulk ones keeps a low delay and loses nothing. The link's mean
/// delay (over all packets, ACK-sized ones included) stays near the target too.
#[test]
fn fq_pie_holds_each_flow_near_target() {
    let flows = "[[flows]]\ncount = 4\ncc = \"cubic\"\nrecovery = \"sack\"";
    let o = must_run(&dumbbell(
        "20Mbps",
        19.0,
        "\"fq_pie\"",
        "1000pkt",
        "40s",
        flows,
    ));
    let util = o.get("links.bottleneck.utilization");
    let d = o.get("links.bottleneck.queue_delay_mean_s");
    let aqm = o.get("links.bottleneck.drops_aqm");
    let jain = o.get("flows.jain_fairness");
    eprintln!(
        "fq_pie: util {util:.4} delay {:.2} ms aqm drops {aqm} jain {jain:.4}",
        d * 1e3
    );
    assert!(util > 0.95, "utilization {util}");
    assert!((0.008..=0.022).contains(&d), "mean delay {d}");
    assert!(aqm > 0.0 && jain > 0.98);
}

/// Per-flow congestion signals: (cc, segments delivered, CE marks, losses, goodput).
fn flow_signals(o: &Output) -> Vec<(String, f64, f64, f64, f64)> {
    let cc: Vec<String> = match o.flows.get("cc") {
        Some(Column::Cat(codes, cats)) => codes.iter().map(|&c| cats[c as usize].clone()).collect(),
        _ => panic!("no cc column"),
    };
    let i64s = |k: &str| match o.flows.get(k) {
        Some(Column::I64(v)) => v.iter().map(|&x| x as f64).collect::<Vec<f64>>(),
        _ => panic!("no {k}"),
    };
    let bytes = i64s("bytes_delivered");
    let ce = i64s("ce_marks");
    let losses = i64s("losses");
    let gp = o.flows.f64("goodput_bps").unwrap().to_vec();
    (0..cc.len())
        .map(|i| (cc[i].clone(), bytes[i] / 1460.0, ce[i], losses[i], gp[i]))
        .collect()
}

/// DualPI2 (RFC 9332) with only L4S traffic (Prague, paced, ECT(1)): the native step
/// at 1 ms holds the L4S queue's delay around 1 ms with the link busy; with only
/// classic traffic (Reno) the PI2 controller holds the delay near its 15 ms target.
#[test]
fn dualpi2_holds_l4s_at_its_step_and_classic_at_target() {
    let q = "\"dualpi2\"";
    let prague = "[[flows]]\ncount = 4\ncc = \"prague\"\nrecovery = \"sack\"";
    let o = must_run(&dumbbell("40Mbps", 9.0, q, "1000pkt", "30s", prague));
    let util = o.get("links.bottleneck.utilization");
    let d = o.get("links.bottleneck.queue_delay_mean_s");
    let drops = o.get("links.bottleneck.drops");
    eprintln!(
        "dualpi2 + prague: util {util:.4} delay {:.3} ms drops {drops}",
        d * 1e3
    );
    assert!(util > 0.95, "utilization {util}");
    assert!(d < 0.002, "L4S delay {d}");
    assert_eq!(drops, 0.0);
    let reno = "[[flows]]\ncount = 4\ncc = \"reno\"\nrecovery = \"sack\"";
    let o = must_run(&dumbbell("40Mbps", 9.0, q, "1000pkt", "30s", reno));
    let util = o.get("links.bottleneck.utilization");
    let d = o.get("links.bottleneck.queue_delay_mean_s");
    eprintln!("dualpi2 + reno: util {util:.4} delay {:.2} ms", d * 1e3);
    assert!(util > 0.95, "utilization {util}");
    assert!((0.010..=0.020).contains(&d), "classic delay {d}");
}

/// The coupling in a mix (RFC 9332 §2.1): scalable flows (Prague, and DCTCP sending
/// ECT(1)) against CUBIC over DualPI2. The classic flows' signal probability must be
/// the square of the L4S flows' marking probability over k = 2, p_C = (p_L/k)², as
/// long as the L4S marks come from the coupling (the L4S queue below its step), and
/// the rates come out roughly equal (the coupling's purpose: k = 2 balances Reno-like
/// and DCTCP-like flows at equal RTT within a factor of about 2, RFC 9332 §2.1). The
/// classic flows here are Linux's CUBIC at 10-20 segments, whose truncated ssthresh
/// (⌊0.7·cwnd⌋: β 0.67 at 15) backs off a little more than a real-valued β = 0.7 would:
/// L4S/classic 1.82 (Prague) and 2.15 (DCTCP), where the real-valued form read 1.74
/// and 1.82; the bound allows "about 2" that margin.
#[test]
fn dualpi2_couples_scalable_and_classic_flows() {
    for scalable in ["\"prague\"", "{ name = \"dctcp\", ect1 = true }"] {
        let flows = format!(
            "[[flows]]\ncount = 2\ncc = {scalable}\nrecovery = \"sack\"\n\
             [[flows]]\ncount = 2\ncc = \"cubic\"\nrecovery = \"sack\""
        );
        let o = must_run(&dumbbell(
            "40Mbps",
            9.0,
            "\"dualpi2\"",
            "1000pkt",
            "60s",
            &flows,
        ));
        let f = flow_signals(&o);
        let (mut l_seg, mut l_ce, mut c_seg, mut c_sig) = (0.0, 0.0, 0.0, 0.0);
        let (mut l_gp, mut c_gp) = (0.0, 0.0);
        for (cc, seg, ce, loss, gp) in &f {
            if cc == "cubic" {
                c_seg += seg + loss;
                c_sig += ce + loss;
                c_gp += gp;
            } else {
                l_seg += seg;
                l_ce += ce;
                l_gp += gp;
            }
        }
        let p_l = l_ce / l_seg;
        let p_c = c_sig / c_seg;
        let util = o.get("links.bottleneck.utilization");
        eprintln!(
            "dualpi2 {scalable} + cubic: util {util:.4} p_L {p_l:.4} p_C {p_c:.5} (p_L/2)² {:.5} \
             rates L {:.1} C {:.1} Mb/s",
            (p_l / 2.0).powi(2),
            l_gp / 1e6,
            c_gp / 1e6
        );
        assert!(util > 0.95, "utilization {util}");
        let want = (p_l / 2.0).powi(2);
        assert!(
            (p_c / want - 1.0).abs() < 0.35,
            "p_C {p_c} vs (p_L/k)² {want}"
        );
        let ratio = l_gp / c_gp;
        assert!((0.4..=2.5).contains(&ratio), "L4S/classic rate {ratio}");
    }
}

/// Prague's reduced RTT dependence (draft-briscoe-iccrg-prague-congestion-control,
/// Linux RTT_CONTROL_RATE): two Prague flows with RTTs of 4 and 24 ms share a DualPI2
/// link. Without it (rtt_target_ms = 0) the short-RTT flow's rate grows 36 times as
/// fast (1/R² segments/s²) and it takes most of the link; with the 25 ms target both
/// grow as a 25 ms flow would (Linux: "flows with e2e RTT <= target RTT achieve the
/// same throughput"), so the ratio must come much closer to 1 (in log distance).
/// Measured: 35.0 vs 3.6 Mb/s without, 15.2 vs 23.6 Mb/s with (the short flow then
/// gets somewhat less: its reductions are limited to one per R_t like the long
/// flow's, but its α is averaged over R_t = six of its RTTs).
#[test]
fn prague_rtt_independence_narrows_the_rate_ratio() {
    let ratio = |target_ms: f64| {
        let flows = format!(
            "[[flows]]\ncc = {{ name = \"prague\", rtt_target_ms = {target_ms}, rtt_transition = 50 }}\n\
             recovery = \"sack\"\nrtt = \"4ms\"\n\
             [[flows]]\ncc = {{ name = \"prague\", rtt_target_ms = {target_ms}, rtt_transition = 50 }}\n\
             recovery = \"sack\"\nrtt = \"24ms\""
        );
        let o = must_run(&dumbbell(
            "40Mbps",
            1.0,
            "\"dualpi2\"",
            "1000pkt",
            "40s",
            &flows,
        ));
        let gp = o.flows.f64("goodput_bps").unwrap();
        let util = o.get("links.bottleneck.utilization");
        eprintln!(
            "prague rtt_target {target_ms} ms: 4 ms flow {:.1} Mb/s, 24 ms flow {:.1} Mb/s, util {util:.3}",
            gp[0] / 1e6,
            gp[1] / 1e6
        );
        assert!(util > 0.9, "utilization {util}");
        gp[0] / gp[1]
    };
    let dependent = ratio(0.0);
    let independent = ratio(25.0);
    assert!(dependent > 3.0, "RTT-dependent ratio {dependent}");
    assert!(
        independent.ln().abs() < 0.3 * dependent.ln().abs() && (0.5..2.0).contains(&independent),
        "ratio {independent} with the target vs {dependent} without"
    );
}

/// The fluid engine models neither marking queues nor ECN-driven laws: it refuses
/// them by name rather than run something else.
#[test]
fn fluid_engine_refuses_the_ecn_disciplines_and_laws() {
    for q in ["\"step\"", "\"pie\"", "\"fq_pie\"", "\"dualpi2\""] {
        let sc = dumbbell(
            "40Mbps",
            9.0,
            q,
            "100pkt",
            "10s",
            "[[flows]]\ncc = \"reno\"",
        )
        .replace("[tcp]\ninit_ssthresh = 1e9\ndelayed_ack = true\n", "")
        .replace("access_rate = \"10Gbps\"\n", "")
        .replacen("duration", "engine = \"fluid\"\nduration", 1);
        let Err(e) = run(&sc, &[]).map(|_| ()) else {
            panic!("accepted: {sc}")
        };
        let e = e.to_string();
        let kind = q.trim_matches('"');
        assert!(
            e.contains(&format!("topology.queue (kind \"{kind}\")"))
                && e.contains("packet-engine only"),
            "{e}"
        );
    }
    for cc in ["dctcp", "prague"] {
        let sc = dumbbell(
            "40Mbps",
            9.0,
            "\"droptail\"",
            "100pkt",
            "10s",
            &format!("[[flows]]\ncc = \"{cc}\""),
        )
        .replace("[tcp]\ninit_ssthresh = 1e9\ndelayed_ack = true\n", "")
        .replace("access_rate = \"10Gbps\"\n", "")
        .replacen("duration", "engine = \"fluid\"\nduration", 1);
        let Err(e) = run(&sc, &[]).map(|_| ()) else {
            panic!("accepted: {sc}")
        };
        let e = e.to_string();
        assert!(e.contains(&format!("\"{cc}\" has no fluid law")), "{e}");
    }
}
