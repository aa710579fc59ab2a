//! Window laws of the fluid engine: per algorithm an increase rate a(·) (packets per
//! RTT, so that dW/dt = a/R, study 004 eq. 1–2) and a multiplicative decrease b(·)
//! applied once per loss indication (W ← (1 − b)·W). The packet versions live in
//! `src/cc/`; these are written here independently, in continuous time, so that the two
//! engines check each other. See docs/fluid.md for the equations.

use crate::scenario::CcSpec;

/// RFC 3649 (HighSpeed TCP) parameters.
#[derive(Clone, Copy, Debug)]
pub struct HsParams {
    pub low_window: f64,
    pub high_window: f64,
    pub low_p: f64,
    pub high_p: f64,
    pub high_decrease: f64,
}

/// The algorithm of one flow, with its constants.
#[derive(Clone, Copy, Debug)]
pub enum Law {
    /// Reno / NewReno / AIMD: a = 1, b = 1/2.
    Aimd,
    /// RFC 3649: a(w), b(w) from the log-log response function.
    HighSpeed(HsParams),
    /// Kelly 2003: a = 0.01·w, b = 0.125 above the legacy window, Reno below.
    Scalable { legacy_window: f64 },
    /// Ha, Rhee, Xu 2008 (RFC 8312): W(t) = C(t − K)³ + W_max, b = β = 0.3.
    Cubic {
        c: f64,
        beta: f64,
        fast_convergence: bool,
    },
    /// Leith & Shorten 2004: α(Δ) from the time since the last loss, β = RTTmin/RTTmax.
    Htcp { delta_l: f64 },
    /// Xu, Harfoush, Rhee 2004: binary search below W_max, max probing above.
    Bic {
        low_window: f64,
        b: f64,
        s_max: f64,
        s_min: f64,
    },
}

/// Names with a fluid law (aliases as in `cc::build`).
pub const KNOWN: &[&str] = &[
    "reno",
    "newreno",
    "aimd",
    "highspeed",
    "hstcp",
    "scalable",
    "stcp",
    "cubic",
    "htcp",
    "bic",
];

fn num(spec: &CcSpec, key: &str, default: f64) -> f64 {
    match spec.params.get(key) {
        Some(toml::Value::Float(f)) => *f,
        Some(toml::Value::Integer(i)) => *i as f64,
        _ => default,
    }
}

impl Law {
    /// The fluid law for a scenario's `cc`; parameters the packet algorithm accepts
    /// with the same name and meaning are honoured (they were range-checked there).
    pub fn from_spec(spec: &CcSpec) -> Result<Law, String> {
        Ok(match spec.name.as_str() {
            "reno" | "newreno" | "aimd" => Law::Aimd,
            "highspeed" | "hstcp" => Law::HighSpeed(HsParams {
                // RFC 3649 §5: Low_Window 38, High_Window 83000, High_P 1e-7,
                // High_Decrease 0.1; Low_P 1e-3 is standard TCP's loss rate at 38
                // packets (1.2/√p = 38).
                low_window: num(spec, "low_window", 38.0),
                high_window: num(spec, "high_window", 83000.0),
                low_p: num(spec, "low_p", 1e-3),
                high_p: num(spec, "high_p", 1e-7),
                high_decrease: num(spec, "high_decrease", 0.1),
            }),
            "scalable" | "stcp" => Law::Scalable {
                legacy_window: num(spec, "legacy_window", 16.0),
            },
            "cubic" => Law::Cubic {
                c: num(spec, "c", 0.4),
                beta: num(spec, "beta", 0.3),
                fast_convergence: true,
            },
            "htcp" => Law::Htcp {
                delta_l: num(spec, "delta_l", 1.0),
            },
            "bic" => Law::Bic {
                low_window: num(spec, "low_window", 14.0),
                // Linux BIC: β = 819/1024 ≈ 0.8, so the decrease is 0.2.
                b: 1.0 - num(spec, "beta", 0.8),
                s_max: num(spec, "max_increment", 32.0),
                s_min: 0.01,
            },
            other => {
                return Err(format!(
                    "\"{other}\" has no fluid law (the fluid engine knows: {})",
                    KNOWN.join(", ")
                ))
            }
        })
    }
}

/// Per-flow state a law needs besides the window.
#[derive(Clone, Copy, Debug)]
pub struct LawState {
    /// W_max: the window at the last reduction (CUBIC, BIC).
    pub w_max: f64,
    /// Time of the last reduction (CUBIC epoch, H-TCP Δ), seconds.
    pub t_last: f64,
    /// CUBIC's K = ∛(W_max·β/C), recomputed at each reduction.
    pub k: f64,
    /// H-TCP: smallest RTT seen, largest RTT since the last reduction.
    pub rtt_min: f64,
    pub rtt_max: f64,
}

impl LawState {
    pub fn new(t0: f64, rtt: f64) -> Self {
        LawState {
            w_max: 0.0,
            t_last: t0,
            k: 0.0,
            rtt_min: rtt,
            rtt_max: rtt,
        }
    }
}

impl HsParams {
    /// RFC 3649 §5: the fraction of the way from Low_Window to High_Window on a log
    /// scale; 0 at or below Low_Window.
    fn frac(&self, w: f64) -> f64 {
        ((w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())).max(0.0)
    }
    /// b(w) = (High_Decrease − 0.5)·frac(w) + 0.5, held at High_Decrease past
    /// High_Window (as Linux's table ends).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * self.frac(w).min(1.0) + 0.5
    }
    /// p(w) = exp(frac(w)·(ln High_P − ln Low_P) + ln Low_P): the loss rate at which
    /// the response function holds window w.
    pub fn p(&self, w: f64) -> f64 {
        (self.frac(w) * (self.high_p.ln() - self.low_p.ln()) + self.low_p.ln()).exp()
    }
    /// a(w) = w²·p(w)·2·b(w)/(2 − b(w)) packets per RTT (RFC 3649 §5), 1 at or below
    /// Low_Window.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        (w * w * self.p(w) * 2.0 * b / (2.0 - b)).max(1.0)
    }
}

impl Law {
    /// Increase in packets per RTT in congestion avoidance (dW/dt = a/R, eq. 1).
    /// `t` is the current time, `rtt` the flow's current RTT.
    #[inline]
    pub fn increase(&self, s: &LawState, w: f64, t: f64, rtt: f64) -> f64 {
        match *self {
            Law::Aimd => 1.0,
            Law::HighSpeed(hp) => hp.a(w),
            Law::Scalable { legacy_window } => {
                // 0.01 per ACK = 0.01·w per RTT (Kelly 2003).
                if w <= legacy_window {
                    1.0
                } else {
                    0.01 * w
                }
            }
            Law::Cubic { c, beta, .. } => {
                // W(t) = C(t − K)³ + W_max ⇒ dW/dt = 3C(t − K)²; in packets per RTT
                // multiply by R. TCP-friendly region (RFC 8312 §4.2): at least the
                // AIMD(3β/(2−β)) growth.
                let e = t - s.t_last - s.k;
                let cubic = 3.0 * c * e * e * rtt;
                cubic.max(3.0 * beta / (2.0 - beta))
            }
            Law::Htcp { delta_l } => {
                // α(Δ) = 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)² past Δ_L, scaled by 2(1 − β)
                // so that the mean rate stays that of AIMD when β ≠ 1/2.
                let d = t - s.t_last - delta_l;
                let alpha = if d <= 0.0 {
                    1.0
                } else {
                    1.0 + 10.0 * d + 0.25 * d * d
                };
                let beta = htcp_beta(s);
                2.0 * (1.0 - beta) * alpha
            }
            Law::Bic {
                low_window,
                s_max,
                s_min,
                ..
            } => {
                if w < low_window {
                    1.0
                } else if w < s.w_max {
                    // Binary search: half the distance to W_max per RTT.
                    (0.5 * (s.w_max - w)).clamp(s_min, s_max)
                } else {
                    // Max probing: slow-start-like 1, 2, 4, ... up to S_max.
                    (w - s.w_max + 1.0).clamp(1.0, s_max)
                }
            }
        }
    }

    /// The multiplicative decrease b at a loss indication (W ← (1 − b)·W).
    pub fn decrease(&self, s: &LawState, w: f64) -> f64 {
        match *self {
            Law::Aimd => 0.5,
            Law::HighSpeed(hp) => hp.b(w),
            Law::Scalable { legacy_window } => {
                if w <= legacy_window {
                    0.5
                } else {
                    0.125
                }
            }
            Law::Cubic { beta, .. } => beta,
            Law::Htcp { .. } => 1.0 - htcp_beta(s),
            Law::Bic { low_window, b, .. } => {
                if w < low_window {
                    0.5
                } else {
                    b
                }
            }
        }
    }

    /// Apply a loss indication at time t: returns the new window and updates the
    /// law's state (W_max, epoch, K, RTT range).
    pub fn on_loss(&self, s: &mut LawState, w: f64, t: f64) -> f64 {
        let b = self.decrease(s, w);
        match *self {
            Law::Cubic {
                c,
                beta,
                fast_convergence,
            } => {
                // RFC 8312 §4.6 fast convergence: release bandwidth when W_max shrinks.
                s.w_max = if fast_convergence && w < s.w_max {
                    w * (2.0 - beta) / 2.0
                } else {
                    w
                };
                s.k = (s.w_max * beta / c).cbrt();
            }
            Law::Bic { b, .. } => {
                s.w_max = if w < s.w_max { w * (2.0 - b) / 2.0 } else { w };
            }
            _ => s.w_max = w,
        }
        s.t_last = t;
        s.rtt_max = s.rtt_min;
        (w * (1.0 - b)).max(1.0)
    }

    /// Leaving slow start without a loss: CUBIC and BIC start their epoch here, with
    /// W_max the current window (as Linux does when W_max is below cwnd).
    pub fn on_exit_slow_start(&self, s: &mut LawState, w: f64, t: f64) {
        if matches!(self, Law::Cubic { .. } | Law::Bic { .. }) && s.w_max < w {
            s.w_max = w;
            s.k = 0.0;
            s.t_last = t;
        }
    }
}

/// H-TCP's adaptive backoff β = RTT_min/RTT_max, clamped to [0.5, 0.8].
fn htcp_beta(s: &LawState) -> f64 {
    if s.rtt_max <= 0.0 {
        return 0.5;
    }
    (s.rtt_min / s.rtt_max).clamp(0.5, 0.8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hs() -> HsParams {
        HsParams {
            low_window: 38.0,
            high_window: 83000.0,
            low_p: 1e-3,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }

    #[test]
    fn hstcp_matches_rfc3649_table() {
        // RFC 3649 §5 ends of the line: a(38) = 1, b(38) = 0.5; at High_Window
        // b = 0.1 and a = 83000²·1e-7·0.2/1.9 ≈ 72.5 (the RFC's table lists 72-73 near
        // there); a is increasing in between.
        let h = hs();
        assert_eq!(h.a(38.0), 1.0);
        assert!((h.b(83000.0) - 0.1).abs() < 1e-12);
        let a_hi = h.a(83000.0);
        assert!((a_hi - 72.0).abs() < 0.15 * 72.0, "a(83000) = {a_hi}");
        let mut last = 0.0;
        for w in [40.0, 100.0, 1000.0, 10000.0, 80000.0] {
            let a = h.a(w);
            assert!(a >= last);
            last = a;
        }
    }

    #[test]
    fn cubic_reaches_wmax_after_k() {
        let law = Law::Cubic {
            c: 0.4,
            beta: 0.3,
            fast_convergence: false,
        };
        let mut s = LawState::new(0.0, 0.1);
        let w = law.on_loss(&mut s, 1000.0, 0.0);
        assert!((w - 700.0).abs() < 1e-9);
        // Integrate dW/dt = a/R with R = 0.1 s for K seconds: back at W_max.
        let (mut w, dt) = (w, 1e-4);
        let n = (s.k / dt).round() as usize;
        for i in 0..n {
            w += dt * law.increase(&s, w, i as f64 * dt, 0.1) / 0.1;
        }
        // The TCP-friendly floor adds a little: within 2 %.
        assert!((w - 1000.0).abs() < 20.0, "w = {w}");
    }
}
