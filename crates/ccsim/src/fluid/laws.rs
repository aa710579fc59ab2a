//! Window laws of the fluid engine: per algorithm, how W grows in congestion avoidance
//! (dW/dt = a(·)/R, study 004 eq. 1–2) and what a loss indication does to it
//! (W ← (1 − b(·))·W).
//!
//! One formula, two engines (STYLE.md §9): the constants and the formulas are those of
//! the packet algorithms in `src/cc/` — `HsParams::a`/`b` (RFC 3649), `CubicParams::k`/
//! `w_cubic`/`alpha_cubic` (RFC 9438), `HtcpParams::alpha` (Leith–Shorten), `Bic::
//! increment` (Linux `bictcp_update`), `StcpParams` (Kelly) — read from the scenario by
//! the same `from_params`, so a parameter means the same thing under both engines. This
//! file only turns their per-ACK rules into rates: "x per acknowledged segment" is
//! x·W per RTT, "x/cwnd per segment" is x per RTT. See docs/fluid.md.

use crate::cc::bic::{Bic, BicParams};
use crate::cc::cubic::CubicParams;
use crate::cc::highspeed::HsParams;
use crate::cc::htcp::HtcpParams;
use crate::cc::scalable::StcpParams;
use crate::cc::Params;
use crate::scenario::CcSpec;

/// The algorithm of one flow, with its constants.
#[derive(Clone, Copy, Debug)]
pub enum Law {
    /// Reno / NewReno / AIMD: a = 1, b = 1/2 (RFC 5681 §3.1).
    Aimd,
    /// RFC 3649: a(w), b(w) from the log-log response function.
    HighSpeed(HsParams),
    /// Kelly 2003: a = 0.01 per ACK (0.01·W per RTT), b = 0.125, Reno below 16.
    Scalable(StcpParams),
    /// RFC 9438: W follows W_cubic(t) = C(t − K)³ + W_max, Reno-friendly floor W_est.
    Cubic(CubicParams),
    /// Leith & Shorten: α(Δ) from the time since the last loss, β = RTT_min/RTT_max.
    Htcp(HtcpParams),
    /// Xu, Harfoush, Rhee 2004 (Linux constants): binary search, then max probing.
    Bic(BicParams),
}

/// Names with a fluid law (aliases as in `cc::build`).
pub const KNOWN: &[&str] = &[
    "reno",
    "newreno",
    "highspeed",
    "hstcp",
    "scalable",
    "stcp",
    "cubic",
    "htcp",
    "bic",
];

impl Law {
    /// The fluid law for a scenario's `cc`, its parameters read (and range-checked)
    /// by the packet algorithm's own `from_params`.
    pub fn from_spec(spec: &CcSpec) -> Result<Law, String> {
        let mut p = Params::new(&spec.name, &spec.params);
        let law = match spec.name.as_str() {
            "reno" | "newreno" => Law::Aimd,
            "highspeed" | "hstcp" => Law::HighSpeed(HsParams::from_params(&mut p)?),
            "scalable" | "stcp" => Law::Scalable(StcpParams::from_params(&mut p)?),
            "cubic" => Law::Cubic(CubicParams::from_params(&mut p)?),
            "htcp" => Law::Htcp(HtcpParams::from_params(&mut p)?),
            "bic" => Law::Bic(BicParams::from_params(&mut p)?),
            other => {
                return Err(format!(
                    "\"{other}\" has no fluid law (the fluid engine knows: {})",
                    KNOWN.join(", ")
                ))
            }
        };
        p.finish()?;
        Ok(law)
    }
}

/// Per-flow state a law needs besides the window.
#[derive(Clone, Copy, Debug)]
pub struct LawState {
    /// W_max: the window at the last reduction (after fast convergence; CUBIC, BIC).
    pub w_max: f64,
    /// Time of the last reduction (CUBIC epoch, H-TCP Δ), seconds.
    pub t_last: f64,
    /// CUBIC: K of the current epoch (RFC 9438 eq. 2), the curve's plateau (W_max or
    /// cwnd_epoch if higher), W_est (§4.3) and cwnd_prior (§4.6).
    pub k: f64,
    pub origin: f64,
    pub w_est: f64,
    pub cwnd_prior: f64,
    /// H-TCP: smallest RTT seen, largest since the last reduction (0: none yet), and
    /// the backoff β of the last reduction (used in α until the next one).
    pub rtt_min: f64,
    pub rtt_max: f64,
    pub beta: f64,
    /// HSTCP: a(w) costs a ln and an exp; cached, refreshed when W moves by 0.1 %
    /// (a(w) ∝ w^0.8 there, so the cached value is off by < 0.1 %).
    a_cache: f64,
    a_w: f64,
}

impl LawState {
    pub fn new(law: &Law, t0: f64, rtt: f64) -> Self {
        LawState {
            w_max: 0.0,
            t_last: t0,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            rtt_min: rtt,
            rtt_max: 0.0,
            // The packet H-TCP starts with β = beta_min (its `Htcp::new`).
            beta: match law {
                Law::Htcp(p) => p.beta_min,
                _ => 0.5,
            },
            a_cache: 1.0,
            a_w: -1.0,
        }
    }

    /// Record the flow's current RTT (H-TCP's RTT_min and RTT_max).
    #[inline]
    pub fn observe_rtt(&mut self, r: f64) {
        self.rtt_min = self.rtt_min.min(r);
        self.rtt_max = self.rtt_max.max(r);
    }
}

impl Law {
    /// Congestion avoidance over one step of `dt` seconds at time `t` with RTT `rtt`:
    /// the new window.
    #[inline]
    pub fn grow(&self, s: &mut LawState, w: f64, t: f64, rtt: f64, dt: f64) -> f64 {
        let per_rtt = match *self {
            Law::Aimd => 1.0,
            Law::HighSpeed(hp) => {
                // RFC 3649 §4: w += a(w)/w per ACK, i.e. a(w) per RTT.
                if (w - s.a_w).abs() > 1e-3 * s.a_w {
                    s.a_cache = hp.a(w);
                    s.a_w = w;
                }
                s.a_cache
            }
            Law::Scalable(p) => {
                // Kelly eq. (1): cwnd += a per ACK, a·W per RTT; Reno below the legacy
                // window (as cc/scalable.rs).
                if w < p.legacy_window {
                    1.0
                } else {
                    p.a * w
                }
            }
            Law::Cubic(p) => {
                // RFC 9438 §4.3: W_est += α_cubic per RTT (1 once it passes cwnd_prior).
                let alpha = if s.w_est >= s.cwnd_prior {
                    1.0
                } else {
                    p.alpha_cubic()
                };
                s.w_est += alpha * dt / rtt;
                let te = t - s.t_last;
                if p.reno_friendly && p.w_cubic(te, s.k, s.origin) < s.w_est {
                    // §4.3: in the Reno-friendly region cwnd = W_est.
                    return s.w_est.max(w);
                }
                // §4.4–4.5: per RTT, cwnd moves to target = W_cubic(t + RTT), clamped
                // to [cwnd, 1.5·cwnd].
                p.w_cubic(te + rtt, s.k, s.origin).clamp(w, 1.5 * w) - w
            }
            Law::Htcp(p) => p.alpha(t - s.t_last, s.beta),
            Law::Bic(p) => Bic { p, w_max: s.w_max }.increment(w),
        };
        w + per_rtt * dt / rtt
    }

    /// Apply a loss indication at time t: returns the new window and updates the
    /// law's state (W_max, epoch, K, β), as the packet algorithm's `on_congestion`.
    pub fn on_loss(&self, s: &mut LawState, w: f64, t: f64) -> f64 {
        let w_new = match *self {
            Law::Aimd => w / 2.0,
            Law::HighSpeed(hp) => (1.0 - hp.b(w)) * w,
            Law::Scalable(p) => {
                if w < p.legacy_window {
                    w / 2.0
                } else {
                    (1.0 - p.b) * w
                }
            }
            Law::Cubic(p) => {
                // RFC 9438 §4.7 fast convergence; §4.6 cwnd ← β_cubic·cwnd; the new
                // epoch starts now with cwnd_epoch = the reduced window.
                s.w_max = if w < s.w_max && p.fast_convergence {
                    w * (1.0 + p.beta) / 2.0
                } else {
                    w
                };
                s.cwnd_prior = w;
                let w_new = w * p.beta;
                s.origin = s.w_max.max(w_new);
                s.k = p.k(s.origin, w_new);
                s.w_est = w_new;
                w_new
            }
            Law::Htcp(p) => {
                // Leith & Shorten §III adaptive backoff, over the epoch just ended.
                s.beta = if p.adaptive_backoff && s.rtt_max > 0.0 {
                    (s.rtt_min / s.rtt_max).clamp(p.beta_min, p.beta_max)
                } else {
                    p.beta_min
                };
                s.rtt_max = 0.0;
                s.beta * w
            }
            Law::Bic(p) => {
                s.w_max = if w < s.w_max && p.fast_convergence {
                    w * (1.0 + p.beta) / 2.0
                } else {
                    w
                };
                if w <= p.low_window {
                    w / 2.0
                } else {
                    p.beta * w
                }
            }
        };
        if !matches!(self, Law::Cubic(_) | Law::Bic(_)) {
            s.w_max = w;
        }
        s.t_last = t;
        // The packet sender's floor: ssthresh ≥ 2 segments (RFC 5681 §3.1).
        w_new.max(2.0).min(w.max(1.0))
    }

    /// Leaving slow start without a loss: the CUBIC epoch starts here on its plateau
    /// (K = 0, as cc/cubic.rs does with no W_max above cwnd). H-TCP's Δ keeps counting
    /// from the flow's start, as cc/htcp.rs counts it from the first ACK.
    pub fn on_exit_slow_start(&self, s: &mut LawState, w: f64, t: f64) {
        if let Law::Cubic(_) = self {
            s.origin = s.w_max.max(w);
            s.k = 0.0;
            s.w_est = w;
            s.t_last = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(name: &str) -> Law {
        Law::from_spec(&CcSpec {
            name: name.into(),
            params: Default::default(),
        })
        .unwrap()
    }

    /// Integrate congestion avoidance at a fixed RTT for `secs` seconds.
    fn integrate(l: &Law, s: &mut LawState, mut w: f64, t0: f64, secs: f64, rtt: f64) -> f64 {
        let dt = 1e-3;
        let n = (secs / dt).round() as usize;
        for i in 0..n {
            w = l.grow(s, w, t0 + i as f64 * dt, rtt, dt);
        }
        w
    }

    #[test]
    fn cubic_returns_to_w_max_after_k() {
        // RFC 9438 eq. 1–2 with C = 0.4, β = 0.7: a loss at W = 1000 leaves 700 and
        // K = ∛(300/0.4) = 9.09 s; the curve is back at W_max = 1000 at t = K (the
        // Reno-friendly W_est, 700 + 0.53·91 ≈ 748 by then, stays below).
        let l = law("cubic");
        let mut s = LawState::new(&l, 0.0, 0.1);
        let w = l.on_loss(&mut s, 1000.0, 0.0);
        assert!((w - 700.0).abs() < 1e-9);
        assert!((s.k - (300.0f64 / 0.4).cbrt()).abs() < 1e-12);
        // The target runs one RTT ahead, so W reaches W_max about one RTT early: at
        // t = K it sits on the plateau within a few packets.
        let k = s.k;
        let w = integrate(&l, &mut s, w, 0.0, k, 0.1);
        assert!((w - 1000.0).abs() < 5.0, "w = {w}");
        // Halfway the curve is at W_max − C(K/2)³ = 1000 − 37.5.
        let mut s = LawState::new(&l, 0.0, 0.1);
        let w = l.on_loss(&mut s, 1000.0, 0.0);
        let k = s.k;
        let w = integrate(&l, &mut s, w, 0.0, k / 2.0, 0.1);
        let expect = 1000.0 - 0.4 * (k / 2.0).powi(3);
        assert!((w - expect).abs() < 15.0, "w = {w}, curve {expect}");
    }

    #[test]
    fn highspeed_grows_a_w_per_rtt_and_cuts_by_b_w() {
        // RFC 3649 Appendix B rows: at w = 1058, a = 8 and b = 0.33 (to the table's
        // rounding, see cc/highspeed.rs); one RTT of growth adds ~a.
        let l = law("highspeed");
        let mut s = LawState::new(&l, 0.0, 0.1);
        let w = integrate(&l, &mut s, 1058.0, 0.0, 0.1, 0.1);
        assert!((w - 1058.0 - 8.0).abs() < 0.4, "{w}");
        let w = l.on_loss(&mut s, 1058.0, 0.0);
        assert!((w / 1058.0 - 0.67).abs() < 0.01, "{w}");
        // Below Low_Window = 38: Reno.
        assert_eq!(l.on_loss(&mut s, 30.0, 0.0), 15.0);
        let w = integrate(&l, &mut s, 30.0, 0.0, 1.0, 0.1);
        assert!((w - 40.0).abs() < 0.1, "{w}");
    }

    #[test]
    fn scalable_is_mimd_above_the_legacy_window() {
        // Kelly: ×1.01 per RTT, i.e. dW/dt = 0.01·W/R: W(t) = W0·e^{0.01·t/R};
        // 10 s at R = 0.1 s is 100 RTTs: e^1.
        let l = law("scalable");
        let mut s = LawState::new(&l, 0.0, 0.1);
        let w = integrate(&l, &mut s, 100.0, 0.0, 10.0, 0.1);
        assert!((w / (100.0 * 1f64.exp()) - 1.0).abs() < 1e-3, "{w}");
        assert!((l.on_loss(&mut s, 100.0, 0.0) - 87.5).abs() < 1e-12);
    }

    #[test]
    fn htcp_alpha_grows_with_time_since_loss_and_beta_adapts() {
        // β = RTT_min/RTT_max over the epoch: 0.1/0.125 = 0.8 (the clamp's top).
        let l = law("htcp");
        let mut s = LawState::new(&l, 0.0, 0.1);
        s.observe_rtt(0.125);
        let w = l.on_loss(&mut s, 1000.0, 10.0);
        assert!((w - 800.0).abs() < 1e-9 && (s.beta - 0.8).abs() < 1e-12);
        // Within Δ_L = 1 s: 2(1 − β) = 0.4 packet per RTT: 0.5 s = 5 RTTs adds 2.
        let w1 = integrate(&l, &mut s, w, 10.0, 0.5, 0.1);
        assert!((w1 - w - 2.0).abs() < 1e-6, "{}", w1 - w);
        // Δ from 5 to 5.1 s (one RTT): ∫0.4·α(Δ)dΔ/R with α = 1 + 10d + d²/4, d = Δ − 1
        // (Leith–Shorten eq. 4; α(5) = 45): 0.4·(1 + 40.5 + (4.05² + 0.1²/12)/4) = 18.24.
        let w2 = integrate(&l, &mut s, 0.0, 15.0, 0.1, 0.1);
        assert!((w2 - 18.2404).abs() < 0.01, "{w2}");
        // Twice the RTT range: β clamps at 0.5.
        s.observe_rtt(0.3);
        assert!((l.on_loss(&mut s, 1000.0, 20.0) - 500.0).abs() < 1e-9);
    }

    #[test]
    fn bic_searches_toward_w_max() {
        // After a loss at 1000 (β = 0.8 → 800), binary search closes (W_max − W)/4 per
        // RTT but at most S_max = 16: the first 10 RTTs add 160 (distance/4 ≥ 16 until
        // W ≈ 936), and W never passes W_max during the search's slow approach.
        let l = law("bic");
        let mut s = LawState::new(&l, 0.0, 0.1);
        let w = l.on_loss(&mut s, 1000.0, 0.0);
        assert!((w - 800.0).abs() < 1e-9);
        let w = integrate(&l, &mut s, w, 0.0, 0.8, 0.1);
        assert!((w - 928.0).abs() < 0.5, "{w}");
        let w = integrate(&l, &mut s, w, 0.8, 2.0, 0.1);
        assert!(w > 980.0 && w < 1001.0, "{w}");
    }

    #[test]
    fn parameters_mean_what_they_mean_in_the_packet_algorithms() {
        let mut t = toml::value::Table::new();
        t.insert("beta".into(), toml::Value::Float(0.5));
        let cubic = Law::from_spec(&CcSpec {
            name: "cubic".into(),
            params: t.clone(),
        })
        .unwrap();
        let mut s = LawState::new(&cubic, 0.0, 0.1);
        assert_eq!(cubic.on_loss(&mut s, 1000.0, 0.0), 500.0);
        t.insert("bogus".into(), toml::Value::Float(1.0));
        let e = Law::from_spec(&CcSpec {
            name: "cubic".into(),
            params: t,
        })
        .unwrap_err();
        assert!(e.contains("bogus"), "{e}");
    }
}
