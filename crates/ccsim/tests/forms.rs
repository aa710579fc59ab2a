//! One law, two forms: every registered algorithm's per-ACK form (packet engine) and
//! rate form (fluid engine) must grow the window alike.
//!
//! For each algorithm with a rate form, at RTTs of 10, 100 and 200 ms, the per-ACK form
//! is driven one window of ACKs per RTT with fixed RTT samples, closing a round at the
//! end of each (as `cc::test_util::one_rtt`), and the rate form is integrated for the
//! same time from the same state (5 s, or until W passes 50 000), in 1000 steps per
//! RTT; the windows are compared at
//! every round's end. Regimes: (a) after a loss at W = 100 from a fresh start, (b)
//! congestion avoidance from W = 100, (c) for the delay-based laws, a standing queue
//! (every sample at 1.5× the base RTT). Then the loss response of both forms from the
//! state (b) left.
//!
//! Tolerance, from the discretisations (the rate form is the per-ACK form's limit),
//! accumulated round by round from the per-ACK run's own growth g (segments per round):
//! - a round has ⌊W⌋ ACKs, not W: the per-ACK form's growth is short by up to g/W;
//! - within a round each ACK adds its share at the window it sees, which grows
//!   meanwhile: short by up to g·g/(2W) (W' = √(W² + 2gW) instead of W + g);
//! - the per-ACK form steps once per ACK (in effect once per round) where the rate
//!   form integrates: the explicit step's local error is half the change of the step
//!   from one round to the next, |g_n − g_{n−1}|/2 (BIC's max probing grows ×4/3 per
//!   round against e^{1/3} for the rate form; Scalable ×1.01 against e^{0.01});
//! - these add up as relative errors of W (they carry over through laws that grow
//!   with W), so the bound at round n is W·Σ_m [g_m(1 + g_m/2)/W_m + |Δg_m|/2]/W_m;
//! - laws that act once per round (Vegas, FAST, Compound's dwnd, Illinois's α and β)
//!   hold their step for a round where the rate form moves continuously: add one
//!   round's change, the largest either form made so far (FAST's min{2w, ·} bound: from 50 the
//!   per-round form reaches 100 after one RTT where the rate form reaches 130.7);
//! - plus one segment.

use ccsim::cc::{
    build, fluid_law, AnyFluidLaw, CongestionControl, CongestionKind, FluidLaw, RttStats, Window,
    KNOWN,
};
use ccsim::cc::{Ack, Congestion, Profile, Round};
use ccsim::units::Time;

const RTTS_MS: [u64; 3] = [10, 100, 200];
/// Simulated time per regime, or until the window passes `W_STOP` segments (BIC
/// without a loss grows 5 % per RTT: 500 RTTs at 10 ms would be 10¹²).
const SECS: f64 = 5.0;
const W_STOP: f64 = 50_000.0;
/// Laws that decide once per round (sample and hold for one RTT).
const PER_ROUND: [&str; 4] = ["vegas", "fast", "compound", "illinois"];

/// The per-ACK form with the state the sender would hold.
struct PerAck {
    cc: Box<dyn CongestionControl>,
    w: Window,
    now: Time,
}

impl PerAck {
    fn new(name: &str, cwnd: f64, ssthresh: f64) -> Self {
        PerAck {
            cc: build(name, &Default::default(), Profile::Ns2).unwrap(),
            w: Window::new(cwnd, ssthresh),
            now: Time::ZERO,
        }
    }

    /// A fast retransmit and the end of its recovery, as the sender applies them:
    /// ssthresh from the law (≥ 2), then cwnd = ssthresh (RFC 6582 §3.2 step 3).
    fn loss(&mut self) -> f64 {
        let ev = Congestion::new(self.now, CongestionKind::FastRetransmit, self.w.cwnd);
        let s = self.cc.on_congestion(&self.w, &ev).max(2.0);
        self.w.ssthresh = s;
        self.w.cwnd = s;
        self.cc.on_recovery_exit(&mut self.w, self.now);
        s
    }

    /// One RTT: ⌊cwnd⌋ single-segment ACKs evenly spread, each with the sample `rtt`
    /// (base RTT `base`), then the round closes.
    fn round(&mut self, rtt: Time, base: Time) {
        let n = self.w.cwnd.floor().max(1.0) as u64;
        let start = self.now;
        let stats = RttStats {
            latest: Some(rtt),
            srtt: rtt,
            min: base,
        };
        for k in 1..=n {
            let mut ack = Ack::new(start + Time(rtt.ps() * k / n), 1.0);
            ack.rtt = stats;
            ack.in_flight = self.w.cwnd;
            ack.cwnd_limited = true;
            self.now = ack.now;
            self.cc.on_ack(&mut self.w, &ack);
        }
        let mut r = Round::new(self.now);
        r.samples = n as u32;
        r.min_rtt = Some(rtt);
        r.mean_rtt = Some(rtt);
        r.rtt = stats;
        r.delivered = n as f64;
        self.cc.on_round(&mut self.w, &r);
    }
}

/// The rate form with the window the fluid engine would hold.
struct Rate {
    law: AnyFluidLaw,
    w: f64,
    t: f64,
}

impl Rate {
    fn new(name: &str, w: f64, rtt: f64) -> Self {
        let mut law = fluid_law(name, &Default::default(), Profile::Ns2).unwrap();
        law.start(0.0, rtt);
        Rate { law, w, t: 0.0 }
    }

    /// One RTT of congestion avoidance in 1000 steps, the engine's order: the RTT,
    /// then the growth.
    fn round(&mut self, rtt: f64) {
        let dt = rtt / 1000.0;
        for _ in 0..1000 {
            self.law.observe_rtt(rtt);
            self.w = self.law.grow(self.w, self.t, rtt, dt);
            self.t += dt;
        }
    }
}

/// Drive both forms round by round for `SECS` and check the windows at every round's
/// end against the tolerance above. Returns the largest discrepancy relative to it.
fn compare(name: &str, p: &mut PerAck, f: &mut Rate, rtt_ms: u64, rtt: f64, base: f64) -> f64 {
    let (rtt_t, base_t) = (Time::from_millis(rtt_ms), Time::from_secs_f64(base));
    let (mut acc, mut lag, mut worst, mut g_prev) = (0.0f64, 0.0f64, 0.0f64, None);
    let rounds = (SECS / rtt).round() as usize;
    for i in 0..rounds {
        if p.w.cwnd > W_STOP {
            break;
        }
        let (before, before_f) = (p.w.cwnd, f.w);
        p.round(rtt_t, base_t);
        f.round(rtt);
        let g = (p.w.cwnd - before).abs();
        let w_min = before.min(p.w.cwnd);
        let step_change = (g - g_prev.unwrap_or(g)).abs();
        g_prev = Some(g);
        acc += (g * (1.0 + g / 2.0) / w_min + step_change / 2.0) / w_min;
        if PER_ROUND.contains(&name) {
            lag = lag.max(g).max((f.w - before_f).abs());
        }
        let tol = acc * f.w.max(p.w.cwnd) + lag + 1.0;
        let err = (p.w.cwnd - f.w).abs();
        worst = worst.max(err / tol);
        assert!(
            err <= tol,
            "{name} at {rtt_ms} ms, round {i}: per-ACK {:.3}, rate {:.3} (tolerance {tol:.3})",
            p.w.cwnd,
            f.w
        );
    }
    worst
}

fn with_fluid_form() -> Vec<&'static str> {
    KNOWN
        .iter()
        .map(|names| names[0])
        .filter(|n| fluid_law(n, &Default::default(), Profile::Ns2).is_ok())
        .collect()
}

#[test]
fn both_forms_grow_alike_after_a_loss() {
    for name in with_fluid_form() {
        for rtt_ms in RTTS_MS {
            let rtt = rtt_ms as f64 / 1000.0;
            let mut p = PerAck::new(name, 100.0, 1e9);
            let mut f = Rate::new(name, 100.0, rtt);
            let sp = p.loss();
            f.w = f.law.on_loss(100.0, 0.0);
            assert!(
                (sp - f.w).abs() < 1e-9,
                "{name}: loss at 100 → {sp} vs {}",
                f.w
            );
            let worst = compare(name, &mut p, &mut f, rtt_ms, rtt, rtt);
            eprintln!(
                "{name:9} {rtt_ms:3} ms after loss: W {:9.1} vs {:9.1}, {worst:.2} of tolerance",
                p.w.cwnd, f.w
            );
        }
    }
}

#[test]
fn both_forms_grow_alike_in_congestion_avoidance_and_cut_alike() {
    for name in with_fluid_form() {
        for rtt_ms in RTTS_MS {
            let rtt = rtt_ms as f64 / 1000.0;
            let mut p = PerAck::new(name, 100.0, 100.0);
            let mut f = Rate::new(name, 100.0, rtt);
            // The fluid engine's slow start ended at W = ssthresh = 100.
            f.law.on_exit_slow_start(100.0, 0.0);
            let worst = compare(name, &mut p, &mut f, rtt_ms, rtt, rtt);
            eprintln!(
                "{name:9} {rtt_ms:3} ms from W = 100: W {:9.1} vs {:9.1}, {worst:.2} of tolerance",
                p.w.cwnd, f.w
            );
            // The loss response from the state each form reached: the same fraction.
            let (wp, wf) = (p.w.cwnd, f.w);
            let kp = p.loss() / wp;
            let kf = f.law.on_loss(wf, f.t) / wf;
            eprintln!("{name:9} {rtt_ms:3} ms loss: ×{kp:.4} vs ×{kf:.4}");
            assert!(
                (kp - kf).abs() < 0.01,
                "{name} at {rtt_ms} ms: loss ×{kp} vs ×{kf}"
            );
        }
    }
}

#[test]
fn delay_based_forms_agree_on_a_standing_queue() {
    for name in PER_ROUND {
        for rtt_ms in RTTS_MS {
            let base = rtt_ms as f64 / 1000.0;
            let rtt = 1.5 * base;
            let mut p = PerAck::new(name, 100.0, 100.0);
            let mut f = Rate::new(name, 100.0, base);
            f.law.observe_rtt(base);
            let worst = compare(name, &mut p, &mut f, rtt_ms * 3 / 2, rtt, base);
            eprintln!("{name:9} {rtt_ms:3} ms base, queue 0.5 RTT: W {:9.1} vs {:9.1}, {worst:.2} of tolerance", p.w.cwnd, f.w);
        }
    }
}

#[test]
fn algorithms_without_a_rate_form_are_refused() {
    let with: Vec<&str> = with_fluid_form();
    for names in KNOWN {
        for n in *names {
            match fluid_law(n, &Default::default(), Profile::Ns2) {
                Ok(_) => assert!(with.contains(&names[0])),
                Err(e) => {
                    // XCP (routers set its window), the ECN-driven DCTCP and Prague
                    // (the fluid queues do not mark) and BBR v1/v3 (rate-based, no loss law)
                    // lack a rate form.
                    assert!(
                        ["xcp", "dctcp", "prague", "bbr", "bbr1", "bbr3"].contains(n),
                        "{n} lacks a rate form"
                    );
                    assert!(
                        e.starts_with(&format!(
                            "\"{n}\" has no fluid law (the fluid engine knows: "
                        )),
                        "{e}"
                    );
                    for w in &with {
                        assert!(e.contains(w), "{e}");
                    }
                }
            }
        }
    }
}

// ---- Both engines on one scenario ---------------------------------------------------

/// One flow on a 10 Gb/s dumbbell whose BDP (8 333 packets at 10 ms, 166 667 at
/// 200 ms) its window never reaches in the run: no queue, no loss, so each engine's
/// window is its growth law alone. Congestion avoidance from the start (init_cwnd =
/// init_ssthresh = 100) so that the engines' slow starts do not enter.
fn lossless(engine: &str, cc: &str, rtt_ms: u64, secs: f64) -> ccsim::Output {
    let o = ccsim::run(
        &format!(
            r#"
engine = "{engine}"
duration = "{secs}s"
sample_interval = "{}s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Gbps"
bottleneck_delay = "1ms"
buffer = "bdp"
[tcp]
profile = "ns2"
init_cwnd = 100
init_ssthresh = 100
[[flows]]
cc = "{cc}"
rtt = "{rtt_ms}ms"
"#,
            secs / 40.0
        ),
        &[],
    )
    .unwrap_or_else(|e| panic!("{engine} {cc}: {e}"));
    assert_eq!(
        o.get("links.bottleneck.drops"),
        0.0,
        "{engine} {cc} {rtt_ms} ms"
    );
    o
}

fn cwnd_series(o: &ccsim::Output) -> Vec<f64> {
    use ccsim::summary::table::Column;
    let v = o.series.f64("value").unwrap();
    let (Some(Column::Cat(ent, ecats)), Some(Column::Cat(met, mcats))) =
        (o.series.get("entity"), o.series.get("metric"))
    else {
        panic!("series without entity/metric")
    };
    let e = ecats.iter().position(|c| c == "flow").unwrap() as u8;
    let m = mcats.iter().position(|c| c == "cwnd_pkts").unwrap() as u8;
    (0..v.len())
        .filter(|&i| ent[i] == e && met[i] == m)
        .map(|i| v[i])
        .collect()
}

/// Packet and fluid engines on the same lossless path: the cwnd series agree within the
/// discretisation above (per-ACK growth short by up to g/(2W) + 1/W of the growth, g
/// the growth per RTT) plus two RTTs of growth: the packet flow's first ACK comes one
/// RTT after it starts (its law, and the clocks of CUBIC's epoch and H-TCP's Δ, start
/// then), and each RTT's ACKs are those of the window sent one RTT before.
#[test]
fn both_engines_grow_alike_on_a_lossless_path() {
    for cc in ["reno", "cubic", "htcp", "highspeed"] {
        for (rtt_ms, secs) in [(10, 5.0), (100, 10.0), (200, 20.0)] {
            let p = cwnd_series(&lossless("packet", cc, rtt_ms, secs));
            let f = cwnd_series(&lossless("fluid", cc, rtt_ms, secs));
            assert_eq!(p.len(), f.len());
            let (si, rtt) = (secs / 40.0, rtt_ms as f64 / 1000.0);
            let (mut rel, mut worst) = (0.0f64, 0.0f64);
            for i in 1..f.len() - 1 {
                // Growth per RTT of the fluid window, from its neighbouring samples.
                let g = (f[i + 1] - f[i - 1]) / (2.0 * si) * rtt;
                rel = rel.max(g / (2.0 * f[i]) + 1.0 / f[i]);
                let tol = rel * (f[i] - 100.0) + 2.0 * g + 1.0;
                let err = (p[i] - f[i]).abs();
                worst = worst.max(err / tol);
                assert!(
                    err <= tol,
                    "{cc} at {rtt_ms} ms, t = {:.2} s: packet {:.1}, fluid {:.1} (tolerance {tol:.1})",
                    (i + 1) as f64 * si,
                    p[i],
                    f[i]
                );
            }
            eprintln!(
                "{cc:9} {rtt_ms:3} ms: W {:8.1} (packet) vs {:8.1} (fluid), {worst:.2} of tolerance",
                p[p.len() - 2],
                f[f.len() - 2]
            );
        }
    }
}
