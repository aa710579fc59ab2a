//! Each algorithm's signature in a simulation (issue 3, validation 2), checked
//! against its defining law: CUBIC's W(t) (RFC 9438 eq. 1-2), HighSpeed TCP's b(w)
//! (RFC 3649 §5), Scalable TCP's constant recovery time (Kelly 2003), the queue that
//! Vegas and FAST hold (Brakmo & Peterson 1995; Jin, Wei, Low 2004), Compound's dwnd
//! retreat (Tan et al. 2006), and RTT-independent growth of CUBIC and H-TCP.

use ccsim::summary::table::Column;
use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    let o = run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}\n{sc}"));
    assert_eq!(o.summary["conservation"]["ok"], true);
    o
}

/// (time, value) samples of one entity's metric.
fn series(o: &Output, entity: &str, id: i32, metric: &str) -> Vec<(f64, f64)> {
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
        .filter(|&i| ent[i] == e && met[i] == m && ids[i] == id)
        .map(|i| (t[i], v[i]))
        .collect()
}

/// Congestion events of a flow, from its sampled ssthresh (set only at congestion
/// events) and cwnd: (time detected, cwnd just before, ssthresh just after,
/// whether the flow was in congestion avoidance).
fn events(o: &Output, flow: i32) -> Vec<(f64, f64, f64, bool)> {
    let ss = series(o, "flow", flow, "ssthresh_pkts");
    let cw = series(o, "flow", flow, "cwnd_pkts");
    (1..ss.len())
        .filter(|&i| ss[i].1 != ss[i - 1].1 || cw[i].1 < 0.9 * cw[i - 1].1)
        .map(|i| (ss[i].0, cw[i - 1].1, ss[i].1, cw[i - 1].1 >= ss[i - 1].1))
        .collect()
}

fn one_flow(cc: &str, rate: &str, one_way_ms: f64, buffer: &str, duration: &str) -> String {
    one_flow_ss(cc, rate, one_way_ms, buffer, duration, 1e9)
}

fn one_flow_ss(
    cc: &str,
    rate: &str,
    one_way_ms: f64,
    buffer: &str,
    duration: &str,
    init_ssthresh: f64,
) -> String {
    // Bottleneck carries most of the delay; 1 ms access links at 10 Gb/s.
    format!(
        r#"
duration = "{duration}"
sample_interval = "10ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}"
bottleneck_delay = "{}ms"
access_rate = "10Gbps"
access_delay = "1ms"
buffer = "{buffer}"
[tcp]
profile = "ns2"
init_ssthresh = {init_ssthresh}
[[flows]]
cc = {cc}
recovery = "sack"
"#,
        one_way_ms - 2.0
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "median of nothing");
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Durations between consecutive congestion events after the first 5 s (slow start
/// from an unbounded ssthresh overshoots and costs a few events of its own).
fn epochs(o: &Output) -> Vec<f64> {
    let ev: Vec<_> = events(o, 0).into_iter().filter(|e| e.0 > 5.0).collect();
    ev.windows(2).map(|w| w[1].0 - w[0].0).collect()
}

#[test]
fn cubic_window_follows_w_cubic_between_losses() {
    // 50 Mb/s, RTT 100 ms: BDP 417 packets and a BDP buffer, so every loss comes at
    // a window of about 834. Fast convergence (RFC 9438 §4.7) then alternates the
    // epochs: a loss just below the last W_max lowers W_max to w·(1+β)/2 ≈ 710, and
    // the window climbs concave to that plateau and convex beyond it; the next epoch
    // has W_max = 834 and is concave up to its plateau.
    let o = must_run(&one_flow(r#""cubic""#, "50Mbps", 50.0, "bdp", "60s"));
    let (c, beta) = (0.4, 0.7);
    let cw = series(&o, "flow", 0, "cwnd_pkts");
    let ev = events(&o, 0);
    assert!(
        ev.len() >= 6,
        "expected several loss epochs, got {}",
        ev.len()
    );
    let (mut checked, mut convex, mut w_max) = (0, 0, 0.0f64);
    for (n, &(t0, _, ss, _)) in ev.iter().enumerate() {
        // The window at the loss is ssthresh/β exactly (§4.6: ssthresh = β·cwnd).
        let w = ss / beta;
        w_max = if w < w_max { w * (1.0 + beta) / 2.0 } else { w };
        let Some(&(t1, ..)) = ev.get(n + 1) else {
            break;
        };
        if t0 < 5.0 {
            continue; // slow-start overshoot and its aftermath
        }
        // §4.2 eq. 2, with cwnd_epoch = ssthresh.
        let k = ((w_max - ss).max(0.0) / c).cbrt();
        for &(t, wnd) in cw.iter().filter(|&&(t, _)| t > t0 + 0.5 && t < t1 - 0.05) {
            // RFC 9438 eq. 1: W_cubic(t) = C(t − K)³ + W_max, t from the event.
            let pred = c * (t - t0 - k).powi(3) + w_max;
            assert!(
                (wnd - pred).abs() <= 0.03 * w_max,
                "at {:.2} s into the epoch cwnd {wnd:.1}, W_cubic {pred:.1} (W_max {w_max:.0}, K {k:.2})",
                t - t0
            );
            checked += 1;
            if t - t0 > k + 0.5 && wnd > w_max + 5.0 {
                convex += 1;
            }
        }
    }
    eprintln!("CUBIC: {checked} samples within 3 % of W_cubic, {convex} beyond the plateau");
    // Both the concave part (up to the plateau) and the convex part were checked.
    assert!(
        checked > 2000 && convex > 100,
        "checked {checked}, convex {convex}"
    );
}

/// RFC 3649 §5: b(w) = (b_high − 0.5)·(ln w − ln W_low)/(ln W_high − ln W_low) + 0.5
/// with W_low = 38, W_high = 83 000, b_high = 0.1.
fn rfc3649_b(w: f64) -> f64 {
    (0.1 - 0.5) * (w.ln() - 38f64.ln()) / (83_000f64.ln() - 38f64.ln()) + 0.5
}

#[test]
fn highspeed_cuts_by_b_of_w_below_one_half() {
    // Buffer 0.1 BDP, so losses come at about 1.1 BDP: 200 Mb/s × 50 ms (BDP 833,
    // RFC 3649 b ≈ 0.33) and 1 Gb/s × 60 ms (BDP 5 000, b ≈ 0.24). Slow start ends
    // below the BDP, paced so that its bursts do not overflow the small buffer.
    let mut windows = Vec::new();
    for (rate, one_way, ss, dur) in [
        ("200Mbps", 25.0, 600.0, "15s"),
        ("1Gbps", 30.0, 4000.0, "20s"),
    ] {
        let sc = one_flow_ss(r#""highspeed""#, rate, one_way, "0.1bdp", dur, ss).replace(
            "recovery = \"sack\"",
            "recovery = \"sack\"\ntcp = { pacing = \"leaky\" }",
        );
        let o = must_run(&sc);
        // Slow start's losses are left out: its window doubles per RTT, so the
        // sample before the event is no measure of the window at the loss.
        let ev: Vec<_> = events(&o, 0).into_iter().filter(|e| e.3).collect();
        assert!(
            ev.len() >= 2,
            "{rate}: expected several losses, got {}",
            ev.len()
        );
        for &(t, w, ss, _) in &ev {
            let kept = ss / w;
            let expect = 1.0 - rfc3649_b(w);
            eprintln!("HSTCP {rate}: w {w:.0}, kept {kept:.3}, RFC 3649 1-b(w) {expect:.3}");
            assert!(
                (kept - expect).abs() < 0.02,
                "{rate}, at {t:.1} s: window {w:.0} cut to {kept:.3}·w, RFC 3649 gives {expect:.3}"
            );
            windows.push(w);
        }
    }
    assert!(windows.len() >= 5, "too few losses: {windows:?}");
    assert!(
        windows.iter().any(|&w| w > 5000.0),
        "no loss at a large window: {windows:?}"
    );
}

#[test]
fn scalable_recovery_time_does_not_depend_on_the_window() {
    // Kelly 2003: cwnd += 0.01 per ACK, × (1 − 0.125) on loss, so the window
    // regains its loss point after ln(1/0.875)/ln(1.01) ≈ 13.4 RTTs, whatever it
    // is. Windows here differ by 8×; a small buffer keeps the RTT near 60 ms.
    let periods: Vec<f64> = ["50Mbps", "400Mbps"]
        .iter()
        .map(|rate| {
            let o = must_run(&one_flow(r#""scalable""#, rate, 30.0, "0.1bdp", "12s"));
            median(epochs(&o))
        })
        .collect();
    let rtt = 0.060;
    let theory = (1.0f64 / 0.875).ln() / 1.01f64.ln();
    for p in &periods {
        let rounds = p / rtt;
        // The RTT is 60 ms plus at most 10 % of queueing, and detection adds one RTT.
        assert!(
            rounds > theory * 0.95 && rounds < theory * 1.25,
            "loss period {rounds:.1} RTTs, theory {theory:.1}"
        );
    }
    eprintln!(
        "STCP: loss periods {periods:?} s, theory {:.3} s",
        theory * rtt
    );
    let ratio = periods[1] / periods[0];
    assert!(
        (ratio - 1.0).abs() < 0.1,
        "periods {:.3} s and {:.3} s differ with the window",
        periods[0],
        periods[1]
    );
}

fn large_buffer(cc: &str, count: u32) -> Output {
    must_run(&format!(
        r#"
duration = "40s"
warmup = "20s"
sample_interval = "10ms"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "40ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "2000pkt"
[[flows]]
count = {count}
cc = {cc}
start = {{ uniform = ["0s", "1s"] }}
"#
    ))
}

#[test]
fn vegas_holds_alpha_to_beta_packets_per_flow() {
    // Brakmo & Peterson: each flow keeps between α = 2 and β = 4 packets queued.
    for n in [1u32, 3] {
        let o = large_buffer(r#""vegas""#, n);
        assert_eq!(o.get("links.bottleneck.drops"), 0.0);
        let q = o.get("links.bottleneck.queue_mean_pkts");
        let per_flow = q / n as f64;
        eprintln!("Vegas x{n}: mean queue {q:.2} packets");
        assert!(
            (1.5..=4.5).contains(&per_flow),
            "{n} Vegas flows keep {q:.2} packets queued ({per_flow:.2} per flow)"
        );
        assert!(o.get("links.bottleneck.utilization") > 0.95);
    }
}

#[test]
fn fast_holds_alpha_packets_per_flow() {
    // FAST's equilibrium (Jin, Wei, Low 2004, eq. 2): each flow keeps α packets queued.
    for (n, alpha) in [(1u32, 40.0), (2, 30.0)] {
        let o = large_buffer(&format!(r#"{{ name = "fast", alpha = {alpha} }}"#), n);
        assert_eq!(o.get("links.bottleneck.drops"), 0.0);
        let q = o.get("links.bottleneck.queue_mean_pkts");
        let expect = alpha * n as f64;
        eprintln!("FAST x{n}, alpha {alpha}: mean queue {q:.1} packets");
        assert!(
            (q - expect).abs() < 0.15 * expect,
            "{n} FAST flows with α = {alpha} keep {q:.1} packets queued, expected {expect}"
        );
    }
}

#[test]
fn compound_dwnd_retreats_as_the_queue_grows() {
    // CTCP: dwnd grows by α·win^k − 1 per RTT while the estimated backlog diff < γ
    // (30 packets) and shrinks by ζ·diff once diff ≥ γ, leaving the Reno component
    // (+1 per RTT). With a 2 000-packet buffer there is no loss, so a falling
    // window can only be dwnd retreating.
    let o = large_buffer(r#""compound""#, 1);
    assert_eq!(o.get("links.bottleneck.drops"), 0.0);
    let cw = series(&o, "flow", 0, "cwnd_pkts");
    let q = series(&o, "link", 0, "queue_pkts");
    let rtt = |qp: f64| 0.09 + qp * 1500.0 * 8.0 / 10e6;
    // Growth per RTT over an interval, counting rounds with the measured queue.
    let growth = |from: usize, to: usize| {
        let rounds: f64 = (from + 1..=to)
            .map(|i| (cw[i].0 - cw[i - 1].0) / rtt(q[i].1))
            .sum();
        (cw[to].1 - cw[from].1) / rounds
    };
    // For one flow the backlog CTCP estimates is its queue at the bottleneck.
    // Congestion avoidance from ssthresh = 64; the last slow-start burst (a
    // transient queue of half a window) has drained 100 ms later.
    let ss_end = cw.iter().position(|&(_, w)| w >= 64.0).expect("no CA") + 10;
    let at_gamma = ss_end
        + q[ss_end..]
            .iter()
            .position(|&(_, v)| v >= 30.0)
            .expect("queue never reached γ");
    // Before the backlog reaches γ the window grows faster than Reno's 1 per RTT:
    // α·win^k − 1 of dwnd (α = 1/8, k = 3/4: ≈ 2 at win ≈ 80) plus Reno's 1.
    let early = growth(ss_end, at_gamma);
    assert!(
        early > 2.0,
        "CTCP grew only {early:.2} packets per RTT with a short queue"
    );
    // Once it does, dwnd shrinks by ζ·diff per RTT: the window falls with no loss.
    let peak = cw[at_gamma.saturating_sub(20)..at_gamma + 50]
        .iter()
        .map(|x| x.1)
        .fold(0.0, f64::max);
    let after_min = cw[at_gamma..at_gamma + 100]
        .iter()
        .map(|x| x.1)
        .fold(f64::INFINITY, f64::min);
    assert!(
        peak - after_min > 10.0,
        "window never fell once the queue reached γ (peak {peak:.0}, then {after_min:.0})"
    );
    // With a standing queue above γ only the Reno component grows: 1 packet per RTT.
    let late = growth(cw.len() - 1000, cw.len() - 1);
    eprintln!(
        "CTCP: early {early:.2}/RTT, fall {:.0} pkts, late {late:.2}/RTT",
        peak - after_min
    );
    assert!(
        late > 0.7 && late < 1.3,
        "with a standing queue CTCP grew {late:.2} packets per RTT (Reno: 1)"
    );
}

#[test]
fn cubic_and_htcp_growth_depends_on_time_not_rtt() {
    // The same BDP (333 packets) at RTT 40 ms and at RTT 160 ms. A window law in
    // time since the loss gives the same epoch in seconds; a per-RTT law (Reno:
    // W/2 RTTs) would give epochs 4× apart.
    for cc in [r#""cubic""#, r#""htcp""#] {
        let short = must_run(&one_flow(cc, "100Mbps", 20.0, "bdp", "60s"));
        let long = must_run(&one_flow(cc, "25Mbps", 80.0, "bdp", "60s"));
        let (es, el) = (median(epochs(&short)), median(epochs(&long)));
        eprintln!("{cc}: epochs {es:.2} s (RTT 40 ms), {el:.2} s (RTT 160 ms)");
        assert!(
            (es / el - 1.0).abs() < 0.2,
            "{cc}: epochs {es:.2} s at RTT 40 ms and {el:.2} s at RTT 160 ms"
        );
    }
}

#[test]
fn mixed_algorithms_paced_and_unpaced_share_one_bottleneck() {
    let o = must_run(
        r#"
duration = "30s"
warmup = "10s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "50Mbps"
bottleneck_delay = "20ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "bdp"
[[flows]]
name = "newreno"
cc = "newreno"
[[flows]]
name = "cubic-paced"
cc = "cubic"
tcp = { pacing = "leaky" }
[[flows]]
name = "hstcp-sack"
cc = "highspeed"
recovery = "sack"
[[flows]]
name = "illinois-rate"
cc = "illinois"
tcp = { pacing = "rate" }
[[flows]]
name = "compound"
cc = "compound"
[[flows]]
name = "vegas-paced"
cc = "vegas"
tcp = { pacing = "leaky" }
"#,
    );
    assert!(o.get("links.bottleneck.utilization") > 0.9);
    let g = o.flows.f64("goodput_bps").unwrap();
    assert_eq!(g.len(), 6);
    assert!(g.iter().all(|&x| x > 0.0), "a flow starved: {g:?}");
    let Some(Column::I64(b2b)) = o.flows.get("back_to_back") else {
        panic!()
    };
    // Leaky-bucket pacing sends no two packets of a flow at the same instant; an
    // unpaced flow bursts on every ACK that opens the window by two.
    // Retransmissions leave at once, unpaced, so each may coincide with a paced
    // departure; nothing else may.
    let Some(Column::I64(rtx)) = o.flows.get("retransmits") else {
        panic!()
    };
    for i in [1, 5] {
        assert!(
            b2b[i] <= rtx[i],
            "paced flow {i}: {} back-to-back pairs",
            b2b[i]
        );
    }
    assert!(b2b[0] > 100, "unpaced NewReno burst only {} times", b2b[0]);
}
