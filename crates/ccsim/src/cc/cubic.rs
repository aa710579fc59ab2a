//! CUBIC (RFC 9438): the window is a cubic function of the time since the last
//! congestion event, W_cubic(t) = C·(t − K)³ + W_max, with a Reno-friendly floor W_est.
//!
//! Both forms use `CubicConfig`'s functions: `k` (eq. 2), `w_cubic` (eq. 1), `target`
//! (§4.4–4.5), `alpha_est` (§4.3), `w_max_after` (§4.7) and `beta`. Per ACK cwnd moves
//! (target − cwnd)/cwnd, which is target − cwnd per RTT in the rate form; W_est grows
//! α/cwnd per ACK, α per RTT.
//!
//! Two forms (`form`, defaulting by the TCP profile; docs/algorithms.md):
//! - `"rfc"` (profile ns2): RFC 9438 as written — the epoch starts at the congestion
//!   event from ssthresh, the look-ahead is one SRTT, α switches to 1 once W_est passes
//!   cwnd_prior, and in the Reno-friendly region cwnd = W_est.
//! - `"linux"` (profiles linux, ns3): Linux's `tcp_cubic.c` (`bictcp_update`) — the
//!   epoch starts at the first ACK after recovery from the cwnd then; the look-ahead is
//!   the minimum RTT (`delay_min`); W_est keeps α_cubic; cwnd moves toward
//!   max(W_cubic, W_est) and never falls on an ACK; at least 1/20 segment per ACK while
//!   W_max is unknown; a timeout forgets W_max and delay_min (`cubictcp_state(Loss)` →
//!   `bictcp_reset`). All of it in Linux's whole segments: the target, cnt, W_max and
//!   ssthresh are truncated as `snd_cwnd` and the kernel's integers truncate them.
//!
//! HyStart (`hystart`): `"classic"` (= `true`; the linux and ns3 profiles) is Linux's
//! ACK-train and delay detectors (`hystart_update` in `tcp_cubic.c`), which end slow start
//! by setting ssthresh = cwnd: Linux runs this, not RFC 9406. `"hystart++"` is RFC 9406:
//! a delay increase between rounds moves slow start into Conservative Slow Start (CSS,
//! growth ÷ 4), which ends in congestion avoidance after 5 rounds or, if the RTT falls
//! back below its baseline, resumes slow start. `"off"` (= `false`; the ns2 profile).

use super::contract::{
    cong_avoid_ai, Ack, Algorithm, Congestion, CongestionControl, CongestionKind, FluidLaw, Round,
    Window,
};
use super::params::Params;
use super::profile::Profile;
use crate::units::Time;

/// RFC 9438 parameters.
#[derive(Clone, Copy, Debug)]
pub struct CubicConfig {
    /// Cubic scaling constant C, segments/s³ (RFC 9438 §5.1: C = 0.4).
    pub c: f64,
    /// Multiplicative decrease factor β_cubic (RFC 9438 §4.6: 0.7). Range (0, 1).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3, W_est).
    pub reno_friendly: bool,
    /// Linux's `tcp_cubic.c` forms instead of RFC 9438's (see the module doc).
    pub linux: bool,
    /// In the Linux form, keep cnt for HZ/32 while cwnd is unchanged, as `bictcp_update`
    /// does (linux profile); ns-3.44's `TcpCubic::Update` recomputes it on every ACK.
    pub cnt_hold: bool,
    /// HyStart's ACK train waits a whole delay_min when the sender paces, as Linux's
    /// does (linux profile).
    pub paced_train: bool,
    /// The Linux form's clock, ticks a second: `bictcp_update` reads jiffies
    /// (`tcp_jiffies32`; 6.18's machine code, validation/linux/kernel_clock.py), so the
    /// epoch's time, the hold of cnt (HZ/32 ticks) and its once-per-jiffy recomputation
    /// move in steps of 1/hz s. [`LINUX_HZ`] in the linux profile; 0, a continuous
    /// clock with a 31 ms hold, in the others.
    pub hz: u32,
    /// HyStart's thresholds as ns-3.44's `TcpCubic::HystartUpdate` sets them (ns3
    /// profile; `HyStartThresholds::Ns3`) instead of Linux's.
    pub ns3_hystart: bool,
    /// The Linux form in `tcp_cubic.c`'s fixed point (linux profile): β and C held as
    /// the module's integers (`beta` in 1/1024, C = `bic_scale`·10/1024: 717 and 41 for
    /// 0.7 and 0.4), K by `cubic_root` (a table and one Newton step, not ∛), the curve's
    /// distance `cube_rtt_scale`·offs³ >> 40 in 1/1024 s, and W_max and ssthresh in
    /// integer division. [`KernelCubic`]. `fixed_point = true | false`, on by default
    /// in the linux profile.
    pub kernel: bool,
    /// The slow-start exit heuristic (per-ACK form only).
    pub hystart: HyStartMode,
}

/// `hystart = "classic" | "hystart++" | "off"` (or `true` / `false`: classic / off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartMode {
    Off,
    /// Linux's `tcp_cubic.c` HyStart (ACK train and delay increase).
    Classic,
    /// RFC 9406 HyStart++.
    PlusPlus,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            linux: false,
            cnt_hold: false,
            paced_train: false,
            hz: 0,
            ns3_hystart: false,
            kernel: false,
            hystart: HyStartMode::Off,
        }
    }
}

impl CubicConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = CubicConfig::default();
        let linux = p.profile() != Profile::Ns2;
        let c = p.pos("c", d.c, 1e6)?;
        let beta = p.pos("beta", d.beta, 0.999)?;
        let linux_form = p.choice(
            "form",
            &["rfc", "linux"],
            if linux { "linux" } else { "rfc" },
        )? == "linux";
        let kernel = linux_form && p.flag("fixed_point", p.profile() == Profile::Linux)?;
        if kernel {
            KernelCubic::check(c, beta)?;
        }
        Ok(CubicConfig {
            c,
            beta,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
            reno_friendly: p.flag("reno_friendly", d.reno_friendly)?,
            linux: linux_form,
            cnt_hold: p.profile() == Profile::Linux,
            paced_train: p.profile() == Profile::Linux,
            hz: hz(p)?,
            ns3_hystart: p.profile() == Profile::Ns3,
            kernel,
            hystart: hystart_mode(p, linux)?,
        })
    }

    /// The fixed point of [`kernel`](Self::kernel), for this β and C.
    pub fn kernel_cubic(&self) -> KernelCubic {
        KernelCubic::new(self.c, self.beta)
    }

    /// RFC 9438 §4.3: α_cubic = 3(1 − β_cubic)/(1 + β_cubic), so that AIMD(α, β) has
    /// Reno's average throughput.
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// Linux's `beta_scale` = 8·(1 + β)/(3·(1 − β)), truncated (15 at β = 717/1024):
    /// tcp_cwnd gains one segment per cwnd·beta_scale/8 ACKs, α_cubic per RTT.
    pub fn beta_scale(&self) -> f64 {
        if self.kernel {
            return self.kernel_cubic().beta_scale as f64;
        }
        (8.0 * (1.0 + self.beta) / (3.0 * (1.0 - self.beta))).floor()
    }

    /// RFC 9438 §4.3: W_est grows by α per RTT: α_cubic until W_est reaches cwnd_prior,
    /// then 1 (Reno's own increase).
    /// Linux (`tcp_friendliness`, beta_scale) keeps α_cubic throughout.
    pub fn alpha_est(&self, w_est: f64, cwnd_prior: f64) -> f64 {
        if w_est >= cwnd_prior && !self.linux {
            1.0
        } else {
            self.alpha_cubic()
        }
    }

    /// RFC 9438 eq. 2: K = ∛((W_max − cwnd_epoch)/C); 0 when cwnd_epoch ≥ W_max.
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.c).cbrt()
    }

    /// RFC 9438 eq. 1: W_cubic(t) = C·(t − K)³ + W_max.
    pub fn w_cubic(&self, t: f64, k: f64, w_max: f64) -> f64 {
        self.c * (t - k).powi(3) + w_max
    }

    /// RFC 9438 §4.4–4.5: the window to reach one RTT ahead, W_cubic(t + RTT), clamped
    /// to [cwnd, 1.5·cwnd].
    pub fn target(&self, t: f64, rtt: f64, k: f64, origin: f64, cwnd: f64) -> f64 {
        self.w_cubic(t + rtt, k, origin).clamp(cwnd, 1.5 * cwnd)
    }

    /// RFC 9438 §4.7 fast convergence: a reduction at `w` below the previous W_max
    /// lowers W_max to w·(1 + β)/2 to release bandwidth to newer flows.
    pub fn w_max_after(&self, w: f64, w_max: f64) -> f64 {
        if w < w_max && self.fast_convergence {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        }
    }
}

/// The linux profile's CUBIC clock: CONFIG_HZ's Kconfig default (kernel/Kconfig.hz),
/// and the testbed kernel's, whose `cubictcp_cong_avoid` compares jiffies − last_time
/// with HZ/32 = 7 (validation/linux/kernel_clock.json; docs/linux.md, "CUBIC's clock").
pub const LINUX_HZ: u32 = 250;

/// `tcp_cubic.c`'s fixed point: β in 1/1024 (`BICTCP_BETA_SCALE`), the curve's time in
/// 1/1024 s (`BICTCP_HZ` = 10), and the constants `cubictcp_register` derives from the
/// module parameters `beta` and `bic_scale` (validation/linux/kernel_clock.json reads
/// them from the testbed's kernel: 717 and 41).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelCubic {
    /// `beta`: β·1024, rounded (717 for 0.7, β = 0.7002).
    pub beta: u64,
    /// `cube_rtt_scale` = bic_scale·10 = C·1024 (410 for 0.4, C = 0.4004).
    pub cube_rtt_scale: u64,
    /// `cube_factor` = 2⁴⁰/cube_rtt_scale, truncated (`do_div`): K³ per segment of
    /// W_max − cwnd, in (1/1024 s)³.
    pub cube_factor: u64,
    /// `beta_scale` = 8·(1024 + beta)/3/(1024 − beta) in integer division (15 at 717):
    /// tcp_cwnd (W_est) gains one segment per cwnd·beta_scale/8 ACKs.
    pub beta_scale: u64,
}

impl KernelCubic {
    const BETA_SCALE: u64 = 1024;

    fn beta_int(beta: f64) -> u64 {
        (beta * Self::BETA_SCALE as f64).round() as u64
    }

    /// `bic_scale` = C·1024/10 rounded: the module holds C as a whole bic_scale.
    fn bic_scale(c: f64) -> u64 {
        (c * Self::BETA_SCALE as f64 / 10.0).round() as u64
    }

    /// Whether `c` and `beta` have the module's integers.
    pub fn check(c: f64, beta: f64) -> Result<(), String> {
        if Self::bic_scale(c) == 0 {
            return Err(format!(
                "c: the linux profile's CUBIC holds C as tcp_cubic's bic_scale·10/1024 with a \
                 whole bic_scale of at least 1, so c must be at least 0.005; got {c}"
            ));
        }
        if !(1..Self::BETA_SCALE).contains(&Self::beta_int(beta)) {
            return Err(format!(
                "beta: the linux profile's CUBIC holds β as tcp_cubic's beta/1024 with a \
                 whole beta from 1 to 1023, so beta must be in [0.0005, 0.9995); got {beta}"
            ));
        }
        Ok(())
    }

    /// `cubictcp_register`'s constants for this C and β (`check` bounds them).
    pub fn new(c: f64, beta: f64) -> Self {
        let beta = Self::beta_int(beta).clamp(1, Self::BETA_SCALE - 1);
        let cube_rtt_scale = Self::bic_scale(c).max(1) * 10;
        KernelCubic {
            beta,
            cube_rtt_scale,
            cube_factor: (1u64 << 40) / cube_rtt_scale,
            beta_scale: 8 * (Self::BETA_SCALE + beta) / 3 / (Self::BETA_SCALE - beta),
        }
    }

    /// `cubictcp_recalc_ssthresh`: max(cwnd·beta/1024, 2), truncated.
    pub fn ssthresh(&self, cwnd: u64) -> u64 {
        (cwnd * self.beta / Self::BETA_SCALE).max(2)
    }

    /// Fast convergence's W_max for a loss at `cwnd` below the last W_max:
    /// cwnd·(1024 + beta)/2048, truncated.
    pub fn w_max_below(&self, cwnd: u64) -> u64 {
        cwnd * (Self::BETA_SCALE + self.beta) / (2 * Self::BETA_SCALE)
    }

    /// `bic_K`, in 1/1024 s: cubic_root(cube_factor·(W_max − cwnd)).
    pub fn k(&self, below_w_max: u64) -> u64 {
        u64::from(cubic_root(self.cube_factor * below_w_max))
    }

    /// The curve's distance from its plateau at `offs` = |t − K| (1/1024 s), in whole
    /// segments: cube_rtt_scale·offs³ >> (10 + 3·BICTCP_HZ), in u64 as the kernel
    /// computes it (it wraps past offs ≈ 330 s, as the kernel's does).
    pub fn delta(&self, offs: u64) -> u64 {
        self.cube_rtt_scale
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> 40
    }
}

/// `tcp_cubic.c`'s `cubic_root`: ∛a from a 64-entry table of the top bits and one
/// Newton-Raphson step, x ← (2x + a/(x(x − 1)))·341/1024 (its comment: average error
/// about 0.195 %).
pub fn cubic_root(a: u64) -> u32 {
    // v[x] = ∛(x·2¹⁸) − 1, refined by hand (Willy Tarreau): ∛x = (v[x] + 10) >> 6.
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let fls = 64 - a.leading_zeros();
    if fls < 7 {
        return (u32::from(V[a as usize]) + 35) >> 6;
    }
    let b = ((fls * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = ((u32::from(V[shift]) + 10) << b) >> 6;
    // u32 as in the kernel (no overflow below a = 2⁶⁴: x < 2²²).
    let x = (2 * x).wrapping_add((a / (u64::from(x) * u64::from(x - 1))) as u32);
    x.wrapping_mul(341) >> 10
}

/// `hz`: the Linux form's clock, ticks a second (CONFIG_HZ: 100, 250, 300 or 1000), or 0
/// for a continuous clock. Default: [`LINUX_HZ`] in the linux profile, continuous in
/// ns3 (ns-3's `Simulator::Now`) and ns2 (the RFC form, which has no ticks).
fn hz(p: &mut Params) -> Result<u32, String> {
    let d = if p.profile() == Profile::Linux {
        f64::from(LINUX_HZ)
    } else {
        0.0
    };
    let x = p.num("hz", d, 0.0, 100_000.0)?;
    if x.fract() != 0.0 {
        return Err(format!(
            "hz: expected a whole number of ticks a second (0 for a continuous clock), got {x}"
        ));
    }
    Ok(x as u32)
}

/// `hystart`: a flag (true = classic, as before) or one of the three names.
fn hystart_mode(p: &mut Params, linux: bool) -> Result<HyStartMode, String> {
    const NAMES: [&str; 3] = ["classic", "hystart++", "off"];
    let by_flag = p.flag("hystart", linux);
    let mode = match by_flag {
        Ok(true) => HyStartMode::Classic,
        Ok(false) => HyStartMode::Off,
        Err(_) => match p.choice("hystart", &NAMES, "classic") {
            Ok("hystart++") => HyStartMode::PlusPlus,
            Ok("off") => HyStartMode::Off,
            Ok(_) => HyStartMode::Classic,
            Err(_) => {
                return Err(
                    "hystart: expected \"classic\", \"hystart++\", \"off\", true or false".into(),
                )
            }
        },
    };
    Ok(mode)
}

/// RFC 9406 §4.3 constants.
pub mod hspp {
    use crate::units::Time;
    pub const MIN_RTT_THRESH: Time = Time::from_millis(4);
    pub const MAX_RTT_THRESH: Time = Time::from_millis(16);
    pub const MIN_RTT_DIVISOR: u64 = 8;
    pub const N_RTT_SAMPLE: u32 = 8;
    pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
    pub const CSS_ROUNDS: u32 = 5;
    /// L for a sender that is not paced (a paced one SHOULD use infinity). ccsim's CUBIC
    /// does not know whether the flow is paced and takes 8; the window's own RFC 3465
    /// limit of 2 segments per ACK (`Window::slow_start`) is tighter anyway.
    pub const L: f64 = 8.0;

    /// §4.2: RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR,
    /// MAX_RTT_THRESH)).
    pub fn rtt_thresh(last_round_min_rtt: Time) -> Time {
        Time(last_round_min_rtt.ps() / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
    }
}

/// RFC 9406 §4.2 state (its variable names).
#[derive(Clone, Copy, Debug, Default)]
pub struct HyStartPP {
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    /// Some while in Conservative Slow Start.
    css_baseline_min_rtt: Option<Time>,
    /// CSS rounds completed.
    css_rounds: u32,
    /// Slow start ended (CSS_ROUNDS, or a loss): §4.2 uses HyStart++ only in the
    /// initial slow start, standard slow start after.
    pub done: bool,
}

impl HyStartPP {
    /// Whether the sender is in CSS.
    pub fn in_css(&self) -> bool {
        self.css_baseline_min_rtt.is_some()
    }

    /// §4.2 at the start of each round: lastRoundMinRTT = currentRoundMinRTT; reset
    /// the current round's. A CSS round completed: after CSS_ROUNDS, congestion
    /// avoidance (ssthresh = cwnd).
    fn new_round(&mut self, w: &mut Window) {
        if self.in_css() && !self.done {
            self.css_rounds += 1;
            if self.css_rounds >= hspp::CSS_ROUNDS {
                w.ssthresh = w.cwnd;
                self.done = true;
                self.css_baseline_min_rtt = None;
            }
        }
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
    }

    /// §4.2 per ACK in slow start: take the RTT sample, test for the delay increase
    /// (slow start → CSS) or a spurious exit (CSS → slow start), and grow cwnd by
    /// min(acked, L), divided by CSS_GROWTH_DIVISOR in CSS. Returns the part of `acked`
    /// left for congestion avoidance.
    fn on_ack(&mut self, w: &mut Window, acked: f64, rtt: Option<Time>) -> f64 {
        if let Some(r) = rtt {
            self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(r, |m| m.min(r)));
            self.rtt_sample_count += 1;
        }
        let enough = self.rtt_sample_count >= hspp::N_RTT_SAMPLE;
        match (self.css_baseline_min_rtt, self.current_round_min_rtt) {
            (None, Some(cur)) if enough => {
                if let Some(last) = self.last_round_min_rtt {
                    if cur >= last + hspp::rtt_thresh(last) {
                        self.css_baseline_min_rtt = Some(cur);
                        self.css_rounds = 0;
                    }
                }
            }
            (Some(base), Some(cur)) if enough && cur < base => {
                // The exit was spurious: back to slow start.
                self.css_baseline_min_rtt = None;
            }
            _ => {}
        }
        let acked = acked.min(hspp::L);
        if self.in_css() {
            w.cwnd += acked.min(super::contract::ABC_LIMIT) / hspp::CSS_GROWTH_DIVISOR;
            0.0
        } else {
            w.slow_start(acked)
        }
    }
}

/// The state of one congestion-avoidance epoch (RFC 9438 §4.1.2's variables).
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    pub start: Time,
    pub k: f64,
    /// The plateau of this epoch's curve: W_max, or cwnd_epoch if that is higher.
    pub origin: f64,
    pub w_est: f64,
    /// Linux's `ack_cnt`: segments acknowledged towards tcp_cwnd's next increment.
    pub ack_cnt: f64,
}

/// The per-ACK form.
pub struct Cubic {
    pub p: CubicConfig,
    /// W_max: the window just before the last reduction (after fast convergence).
    pub w_max: f64,
    /// cwnd_prior: the window just before the last reduction (§4.6), for α_cubic's switch.
    pub cwnd_prior: f64,
    pub epoch: Option<Epoch>,
    /// Linux's `delay_min`: the least RTT sample since the last timeout.
    pub delay_min: Option<Time>,
    pub hystart: HyStart,
    pub hystart_pp: HyStartPP,
    /// The Linux form's `cnt` and when it was computed, for which whole-segment cwnd
    /// (`last_cwnd`, `last_time`).
    cnt: f64,
    cnt_stamp: Option<(f64, Time)>,
    /// Linux's `snd_cwnd_cnt` (segments acknowledged toward the next +1), kept apart from
    /// cwnd when cnt is held (linux profile): credits counted at one cnt meet the next
    /// one whole (`tcp_cong_avoid_ai`), which a fraction of cwnd cannot carry.
    cwnd_cnt: f64,
    /// `cubictcp_register`'s constants (used when `p.kernel`), and beta_scale, computed
    /// once.
    kc: KernelCubic,
    beta_scale: f64,
}

/// bictcp_update keeps cnt for HZ/32 while cwnd is unchanged: with a continuous clock
/// (`hz = 0`) 31 ms, its length at HZ = 1000.
const CNT_HOLD: Time = Time(31_000_000_000);

/// `tcp_jiffies32` at `now` for a clock of `hz` ticks a second, started with the run.
/// 0 for a continuous clock (`hz = 0`). The product fits 64 bits for runs up to 5 hours
/// at HZ = 1000, so the per-ACK division is by a constant; past that, 128 bits.
#[inline]
fn jiffies(now: Time, hz: u32) -> u64 {
    const PS_PER_S: u64 = 1_000_000_000_000;
    if hz == 0 {
        return 0;
    }
    match now.ps().checked_mul(u64::from(hz)) {
        Some(x) => x / PS_PER_S,
        None => (u128::from(now.ps()) * u128::from(hz) / u128::from(PS_PER_S)) as u64,
    }
}

/// Linux's HyStart state (`tcp_cubic.c`: found, round_start, last_ack, curr_rtt,
/// sample_cnt).
#[derive(Clone, Copy, Debug, Default)]
pub struct HyStart {
    pub found: bool,
    round_start: Option<Time>,
    last_ack: Time,
    curr_rtt: Option<Time>,
    samples: u32,
}

/// `hystart_low_window`: HyStart watches slow start from 16 segments on.
pub const HYSTART_LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`: ACKs at most 2 ms apart form a train.
pub const HYSTART_ACK_DELTA: Time = Time(2_000_000_000);
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const HYSTART_MIN_SAMPLES: u32 = 8;

/// Whose HyStart thresholds a flow runs: both stacks test an ACK train and a delay
/// increase per round, with different bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartThresholds {
    /// Linux `hystart_update`: the train must span delay_min + ack_delay, halved
    /// unless `whole_rtt` (the sender paces); the delay test's margin is
    /// clamp(delay_min/8, 4 ms, 16 ms) (HYSTART_DELAY_THRESH).
    Linux { whole_rtt: bool },
    /// ns-3.44 `TcpCubic::HystartUpdate`: the train must span delay_min, with no
    /// allowance and never halved; the margin is `HystartDelayThresh(m_delayMin)` =
    /// clamp(delay_min, HyStartDelayMin 4 ms, HyStartDelayMax 1 s): the delay test ends
    /// slow start only once the RTT has doubled.
    Ns3,
}

/// ns-3.44's `TcpCubic` attribute `HyStartDelayMax` (1 s; Linux's bound is 16 ms).
pub const NS3_HYSTART_DELAY_MAX: Time = Time(1_000_000_000_000);

impl HyStart {
    /// `bictcp_hystart_reset`: a new round begins at `now`.
    fn new_round(&mut self, now: Time) {
        self.round_start = Some(now);
        self.last_ack = now;
        self.curr_rtt = None;
        self.samples = 0;
    }

    /// `hystart_update`, per ACK in slow start with cwnd ≥ 16 and an RTT sample
    /// `delay`: true when slow start should end (the caller sets ssthresh = cwnd).
    pub fn update(
        &mut self,
        now: Time,
        delay: Time,
        delay_min: Time,
        srtt: Time,
        cwnd: f64,
        thresholds: HyStartThresholds,
    ) -> bool {
        let start = *self.round_start.get_or_insert(now);
        // ACK train: the ACKs of this round, each within 2 ms of the previous, have
        // spread over more than delay_min plus the allowance hystart_ack_delay =
        // min(1 ms, 4·GSO size / pacing rate), with Linux's slow-start pacing rate
        // 2·cwnd/srtt and 64 KB GSO over 1448 B segments: 90.5·srtt/cwnd; halved when
        // the sender does not pace ("Pacing might have delayed packets up to RTT/2
        // during slow start": `sk_pacing_status == SK_PACING_NONE`).
        if now.saturating_sub(self.last_ack) <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            let threshold = match thresholds {
                HyStartThresholds::Linux { whole_rtt } => {
                    let ack_delay = Time::from_secs_f64(90.5 * srtt.as_secs_f64() / cwnd.max(1.0))
                        .min(Time::from_millis(1));
                    let train = delay_min + ack_delay;
                    if whole_rtt {
                        train
                    } else {
                        Time(train.ps() / 2)
                    }
                }
                HyStartThresholds::Ns3 => delay_min,
            };
            if now.saturating_sub(start) > threshold {
                self.found = true;
                return true;
            }
        }
        // Delay increase: the least RTT of the round's first 8+ samples exceeds
        // delay_min by clamp(delay_min/8, 4 ms, 16 ms) (HYSTART_DELAY_THRESH; ns-3.44:
        // clamp(delay_min, 4 ms, 1 s)).
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.samples < HYSTART_MIN_SAMPLES {
            self.samples += 1;
        } else {
            let thresh = match thresholds {
                HyStartThresholds::Linux { .. } => {
                    Time(delay_min.ps() / 8).clamp(Time::from_millis(4), Time::from_millis(16))
                }
                HyStartThresholds::Ns3 => {
                    delay_min.clamp(Time::from_millis(4), NS3_HYSTART_DELAY_MAX)
                }
            };
            if curr > delay_min + thresh {
                self.found = true;
                return true;
            }
        }
        false
    }
}

impl Cubic {
    pub fn new(p: CubicConfig) -> Self {
        Cubic {
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            delay_min: None,
            hystart: HyStart::default(),
            hystart_pp: HyStartPP::default(),
            cnt: 2.0,
            cnt_stamp: None,
            cwnd_cnt: 0.0,
            kc: p.kernel_cubic(),
            beta_scale: p.beta_scale(),
        }
    }

    /// Linux `cubictcp_acked`: keep delay_min (not within 1 s of an epoch's start,
    /// "right after fast recovery") and run HyStart.
    fn acked(&mut self, w: &mut Window, ack: &Ack) {
        let Some(delay) = ack.rtt.latest else {
            return;
        };
        if let Some(e) = self.epoch {
            if ack.now.saturating_sub(e.start) < Time::from_secs(1) {
                return;
            }
        }
        let dm = self.delay_min.map_or(delay, |d| d.min(delay));
        self.delay_min = Some(dm);
        if self.p.hystart == HyStartMode::Classic
            && !self.hystart.found
            && w.in_slow_start()
            && w.cwnd >= HYSTART_LOW_WINDOW
            && self.hystart.update(
                ack.now,
                delay,
                dm,
                ack.rtt.srtt,
                w.cwnd,
                if self.p.ns3_hystart {
                    HyStartThresholds::Ns3
                } else {
                    HyStartThresholds::Linux {
                        whole_rtt: ack.paced && self.p.paced_train,
                    }
                },
            )
        {
            w.ssthresh = w.cwnd;
        }
    }

    fn start_epoch(&mut self, now: Time, cwnd_epoch: f64) {
        let origin = self.w_max.max(cwnd_epoch);
        let k = if self.p.kernel {
            // bic_K in 1/1024 s, held exactly as a binary fraction of a second.
            let below = (origin - cwnd_epoch) as u64;
            self.kc.k(below) as f64 / 1024.0
        } else {
            self.p.k(origin, cwnd_epoch)
        };
        self.epoch = Some(Epoch {
            start: now,
            k,
            origin,
            // §4.3: W_est is set to cwnd_epoch at the start of the epoch.
            w_est: cwnd_epoch,
            ack_cnt: 0.0,
        });
    }
}

impl Algorithm for Cubic {
    const NAMES: &'static [&'static str] = &["cubic"];
    type Config = CubicConfig;
    type Fluid = CubicFluid;
    fn config(p: &mut Params) -> Result<CubicConfig, String> {
        CubicConfig::from_params(p)
    }
    fn packet(cfg: &CubicConfig) -> Box<dyn CongestionControl> {
        Box::new(Cubic::new(*cfg))
    }
    fn fluid(cfg: &CubicConfig) -> Option<CubicFluid> {
        Some(CubicFluid::new(*cfg, 0.0))
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if self.p.linux || self.p.hystart == HyStartMode::Classic {
            self.acked(w, ack);
        }
        if self.p.linux && ack.cwnd_validation && !ack.cwnd_limited {
            // cubictcp_cong_avoid: `if (!tcp_is_cwnd_limited(sk)) return;` before
            // bictcp_update and tcp_cong_avoid_ai, so neither cnt, its stamp, the
            // Reno-friendly ACK count nor snd_cwnd_cnt moves (HyStart, in
            // cubictcp_acked, still sees the ACK).
            return;
        }
        let acked = if self.p.hystart == HyStartMode::PlusPlus
            && !self.hystart_pp.done
            && w.in_slow_start()
        {
            self.hystart_pp.on_ack(w, ack.acked, ack.rtt.latest)
        } else {
            w.slow_start(ack.acked)
        };
        if acked <= 0.0 {
            return;
        }
        if self.p.linux {
            self.linux_update(w, ack, acked);
            return;
        }
        if self.epoch.is_none() {
            // Entering congestion avoidance without a reduction in hand (leaving slow
            // start, or after a timeout's slow start): the epoch begins now, and with no
            // W_max above cwnd the curve starts on its plateau (K = 0).
            self.start_epoch(ack.now, w.cwnd);
        }
        let p = self.p;
        let e = self.epoch.as_mut().expect("epoch set above");
        let t = ack.now.saturating_sub(e.start).as_secs_f64();
        let rtt = if ack.rtt.srtt > Time::ZERO {
            ack.rtt.srtt
        } else {
            ack.rtt.latest.unwrap_or(ack.rtt.min)
        }
        .as_secs_f64();

        // §4.3: W_est += α·segments_acked/cwnd.
        e.w_est += p.alpha_est(e.w_est, self.cwnd_prior) * acked / w.cwnd;

        if p.reno_friendly && p.w_cubic(t, e.k, e.origin) < e.w_est {
            // §4.3: in the Reno-friendly region cwnd is set to W_est on each ACK.
            w.cwnd = e.w_est;
            return;
        }
        // §4.4/§4.5: cwnd grows by (target − cwnd)/cwnd per ACK (per acked segment).
        let target = p.target(t, rtt, e.k, e.origin, w.cwnd);
        w.cwnd += acked * (target - w.cwnd) / w.cwnd;
    }

    /// Classic HyStart's rounds end at the ACK that covers the first segment sent after
    /// the round began, in Linux (`after(snd_una, end_seq)`) and in ns-3.44's
    /// `TcpCubic` (`m_lastAckedSeq > m_endSeq`) alike.
    fn rounds_cover(&self) -> Option<bool> {
        (self.p.hystart == HyStartMode::Classic).then_some(true)
    }

    fn on_round(&mut self, w: &mut Window, r: &Round) {
        // HyStart's rounds are the sender's (Linux tracks end_seq = snd_nxt itself;
        // RFC 9406 §4.2 windowEnd = SND.NXT).
        match self.p.hystart {
            HyStartMode::Classic => self.hystart.new_round(r.now),
            HyStartMode::PlusPlus if !self.hystart_pp.done && w.in_slow_start() => {
                self.hystart_pp.new_round(w)
            }
            _ => {}
        }
    }

    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        // RFC 9406 §4.2: a loss or ECN mark in slow start or CSS ends HyStart++ (the
        // sender sets ssthresh); later slow starts are standard.
        self.hystart_pp.done = true;
        if self.p.linux {
            // Linux's cwnd is a whole number of segments (so is ns-3's GetCwndInSegments):
            // cubictcp_recalc_ssthresh compares it with last_max_cwnd, and both W_max and
            // ssthresh are truncated. With a real-valued cwnd, a loss at the same queue
            // overflow would land a fraction of a segment below the last W_max every other
            // time and take fast convergence where Linux does not.
            let cwnd = (w.cwnd + 1e-9).floor().max(1.0);
            let ssthresh = if self.p.kernel {
                let kc = self.kc;
                let whole = cwnd as u64;
                self.w_max = if cwnd < self.w_max && self.p.fast_convergence {
                    kc.w_max_below(whole)
                } else {
                    whole
                } as f64;
                kc.ssthresh(whole) as f64
            } else {
                self.w_max = self.p.w_max_after(cwnd, self.w_max).floor();
                (cwnd * self.p.beta + 1e-9).floor().max(2.0)
            };
            self.cwnd_prior = cwnd;
            // cubictcp_recalc_ssthresh: epoch_start = 0, so the epoch begins at the
            // first ACK after recovery (bictcp_update). On a timeout, entering Loss
            // resets everything (cubictcp_state → bictcp_reset): W_max is forgotten,
            // and so are delay_min and HyStart's state. Every reduction clears
            // snd_cwnd_cnt (tcp_init_cwnd_reduction, tcp_enter_loss).
            self.epoch = None;
            self.cwnd_cnt = 0.0;
            if ev.kind == CongestionKind::Timeout {
                self.w_max = 0.0;
                self.delay_min = None;
                self.hystart = HyStart::default();
            }
            return ssthresh;
        }
        let cwnd = w.cwnd;
        self.w_max = self.p.w_max_after(cwnd, self.w_max);
        self.cwnd_prior = cwnd;
        // §4.6: ssthresh = max(cwnd·β_cubic, 2) (RFC: flight_size·β; we use cwnd,
        // which the sender keeps ≈ FlightSize outside recovery).
        let ssthresh = (cwnd * self.p.beta).max(2.0);
        match ev.kind {
            // §4.8: after a timeout cwnd restarts from 1 and slow-starts to ssthresh;
            // the epoch begins when congestion avoidance does.
            CongestionKind::Timeout => self.epoch = None,
            // The epoch's clock starts at the congestion event (RFC 9438 §4.2's t), and
            // cwnd_epoch is the window the sender resumes with: ssthresh.
            _ => self.start_epoch(ev.now, ssthresh),
        }
        ssthresh
    }
}

impl Cubic {
    /// Linux `bictcp_update` + `cubictcp_cong_avoid`, per ACK in congestion avoidance,
    /// in Linux's integer arithmetic: cwnd is a whole number of segments (`snd_cwnd`;
    /// the fraction ccsim shows is `snd_cwnd_cnt`/cnt), the curve's distance from
    /// its plateau is truncated (`delta`, so bic_target reaches W_max while the real
    /// curve is still up to one segment below it), and so is `cnt`, the ACKs per segment
    /// of growth. ns-3's TcpCubic::Update does the same in uint32_t.
    fn linux_update(&mut self, w: &mut Window, ack: &Ack, acked: f64) {
        let cwnd = (w.cwnd + 1e-9).floor();
        let new_epoch = self.epoch.is_none();
        if new_epoch {
            // The epoch starts now, from the window now: K = 0 and origin = cwnd when
            // W_max ≤ cwnd; tcp_cwnd (W_est) = cwnd and the ACK count restarts.
            self.start_epoch(ack.now, cwnd);
            self.cnt_stamp = None;
        }
        let p = self.p;
        let w_max_known = self.w_max > 0.0;
        let delay_min = self.delay_min.unwrap_or(ack.rtt.min);
        let e = self.epoch.as_mut().expect("epoch set above");
        e.ack_cnt += acked;
        // bictcp_update recomputes cnt at most every HZ/32 while cwnd is unchanged
        // (ns-3's on every ACK).
        let now_j = jiffies(ack.now, p.hz);
        let fresh = p.cnt_hold
            && self.cnt_stamp.is_some_and(|(c, t)| {
                c == cwnd
                    && if p.hz > 0 {
                        now_j - jiffies(t, p.hz) <= u64::from(p.hz / 32)
                    } else {
                        ack.now.saturating_sub(t) <= CNT_HOLD
                    }
            });
        if !fresh {
            // "The CUBIC function can update ca->cnt at most once per jiffy": within the
            // jiffy of the last computation only tcp_friendliness runs, on the cnt held.
            let same_jiffy = p.hz > 0
                && !new_epoch
                && self
                    .cnt_stamp
                    .is_some_and(|(_, t)| jiffies(t, p.hz) == now_j);
            let mut cnt = if same_jiffy {
                self.cnt
            } else {
                self.cnt_stamp = Some((cwnd, ack.now));
                // t = now − epoch_start + delay_min: the curve one minimum RTT ahead. In
                // jiffies: t = (jiffies − epoch_start) + usecs_to_jiffies(delay_min)
                // (rounded up), then in 1/1024 s (BICTCP_HZ), as K (bic_K) is.
                let (t, k) = if p.hz > 0 {
                    let hz = u64::from(p.hz);
                    let dm_us = delay_min.ps() / 1_000_000;
                    let t_j = now_j - jiffies(e.start, p.hz) + (dm_us * hz).div_ceil(1_000_000);
                    (
                        ((t_j << 10) / hz) as f64 / 1024.0,
                        (e.k * 1024.0).floor() / 1024.0,
                    )
                } else if p.kernel {
                    // A continuous clock in the kernel's 1/1024 s.
                    let ps = ack.now.saturating_sub(e.start).ps() + delay_min.ps();
                    (
                        (u128::from(ps) * 1024 / 1_000_000_000_000) as f64 / 1024.0,
                        e.k,
                    )
                } else {
                    (
                        ack.now.saturating_sub(e.start).as_secs_f64() + delay_min.as_secs_f64(),
                        e.k,
                    )
                };
                let delta = if p.kernel {
                    // t and K are whole 1/1024 s here (exact in f64).
                    let offs = ((t - k).abs() * 1024.0).round() as u64;
                    self.kc.delta(offs) as f64
                } else {
                    (p.c * (t - k).abs().powi(3)).floor()
                };
                let target = if t < k {
                    e.origin - delta
                } else {
                    e.origin + delta
                };
                // cnt: ACKs per +1 segment.
                let mut cnt = if target > cwnd {
                    (cwnd / (target - cwnd)).floor()
                } else {
                    100.0 * cwnd
                };
                if !w_max_known && cnt > 20.0 {
                    // "The initial growth of cubic function may be too conservative".
                    cnt = 20.0;
                }
                cnt
            };
            if p.reno_friendly {
                // tcp_friendliness: tcp_cwnd (W_est) gains one segment per
                // cwnd·beta_scale/8 ACKs (α_cubic per RTT); ahead of cwnd, it caps cnt.
                let per = (cwnd * self.beta_scale / 8.0).floor();
                if per > 0.0 && e.ack_cnt > per {
                    // `while (ack_cnt > delta)`: ack_cnt is left in (0, delta].
                    let n = (e.ack_cnt / per).ceil() - 1.0;
                    e.ack_cnt -= n * per;
                    e.w_est += n;
                }
                if e.w_est > cwnd {
                    cnt = cnt.min((cwnd / (e.w_est - cwnd)).floor());
                }
            }
            // At most one segment per two ACKed (×1.5 per RTT).
            self.cnt = cnt.max(2.0);
        }
        if !p.cnt_hold {
            // One segment per cnt segments acknowledged, the credit a fraction of cwnd
            // (ns-3's TcpCubic recomputes cnt on every ACK).
            w.cwnd += acked / self.cnt;
            return;
        }
        // tcp_cong_avoid_ai(tp, cnt, acked): when bictcp_update lowers cnt (its first
        // recomputation after HZ/32, often an ACK train's first ACK) the credits held
        // give +1 at once; the testbed's unpaced CUBIC sends that segment at the first
        // ACK of 0.17-0.33 of its ACK trains (docs/linux.md, "A second day with every
        // segment acknowledged").
        let cnt = self.cnt;
        let whole = cong_avoid_ai(&mut self.cwnd_cnt, cwnd, cnt, acked);
        // cwnd shows the credit as its fraction (ss reads the whole part).
        w.cwnd = whole + self.cwnd_cnt / cnt;
    }
}

/// The rate form, with the per-ACK form's epoch variables (in seconds).
#[derive(Clone, Copy, Debug)]
pub struct CubicFluid {
    pub p: CubicConfig,
    /// Whether an epoch has begun (a loss, or slow start's end); like the per-ACK form,
    /// the first step of congestion avoidance without one begins it.
    epoch: bool,
    /// The epoch's start, seconds.
    t_epoch: f64,
    /// K of the current epoch (eq. 2), the curve's plateau (W_max or cwnd_epoch if
    /// higher), W_est (§4.3), W_max and cwnd_prior (§4.6).
    k: f64,
    origin: f64,
    w_est: f64,
    w_max: f64,
    cwnd_prior: f64,
}

impl CubicFluid {
    pub fn new(p: CubicConfig, t0: f64) -> Self {
        CubicFluid {
            p,
            epoch: false,
            t_epoch: t0,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            w_max: 0.0,
            cwnd_prior: 0.0,
        }
    }

    /// K of the current epoch.
    pub fn k(&self) -> f64 {
        self.k
    }
}

impl FluidLaw for CubicFluid {
    fn start(&mut self, t: f64, _rtt: f64) {
        *self = CubicFluid::new(self.p, t);
    }

    #[inline]
    fn grow(&mut self, w: f64, t: f64, rtt: f64, dt: f64) -> f64 {
        if !self.epoch {
            self.on_exit_slow_start(w, t);
        }
        let p = &self.p;
        // §4.3: W_est += α per RTT.
        self.w_est += p.alpha_est(self.w_est, self.cwnd_prior) * dt / rtt;
        let te = t - self.t_epoch;
        if p.reno_friendly && p.w_cubic(te, self.k, self.origin) < self.w_est {
            // §4.3: in the Reno-friendly region cwnd = W_est.
            return self.w_est.max(w);
        }
        // §4.4–4.5: per RTT, cwnd moves to the target.
        let per_rtt = p.target(te, rtt, self.k, self.origin, w) - w;
        w + per_rtt * dt / rtt
    }

    fn on_loss(&mut self, w: f64, t: f64) -> f64 {
        // §4.7 fast convergence; §4.6 cwnd ← β_cubic·cwnd; the new epoch starts now
        // with cwnd_epoch = the reduced window.
        self.w_max = self.p.w_max_after(w, self.w_max);
        self.cwnd_prior = w;
        let w_new = w * self.p.beta;
        self.origin = self.w_max.max(w_new);
        self.k = self.p.k(self.origin, w_new);
        self.w_est = w_new;
        self.t_epoch = t;
        self.epoch = true;
        w_new
    }

    /// Leaving slow start without a loss: the epoch starts here on its plateau (K = 0,
    /// as the per-ACK form does with no W_max above cwnd).
    fn on_exit_slow_start(&mut self, w: f64, t: f64) {
        self.origin = self.w_max.max(w);
        self.k = 0.0;
        self.w_est = w;
        self.t_epoch = t;
        self.epoch = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;

    #[test]
    fn w_cubic_plateaus_at_w_max_at_k() {
        let p = CubicConfig::default();
        let (w_max, cwnd_epoch) = (100.0, 70.0);
        let k = p.k(w_max, cwnd_epoch);
        // Eq. 2: K = ∛(W_max·(1 − β)/C) = ∛75.
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        assert!((k - 4.217163).abs() < 1e-5);
        assert!((p.w_cubic(0.0, k, w_max) - cwnd_epoch).abs() < 1e-9);
        assert!((p.w_cubic(k, k, w_max) - w_max).abs() < 1e-12);
        // Concave before K, convex after: second differences change sign at K.
        let d2 = |t: f64| {
            let h = 0.1;
            p.w_cubic(t + h, k, w_max) - 2.0 * p.w_cubic(t, k, w_max) + p.w_cubic(t - h, k, w_max)
        };
        assert!(d2(k / 2.0) < 0.0);
        assert!(d2(1.5 * k) > 0.0);
        // Increasing throughout.
        let mut prev = 0.0;
        for i in 0..100 {
            let w = p.w_cubic(i as f64 * 0.1, k, w_max);
            assert!(w >= prev);
            prev = w;
        }
    }

    #[test]
    fn cwnd_follows_the_cubic_curve() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut st = state(1000.0, 1e9);
        let mut now = Time::from_secs(1);
        let t0 = now;
        st.ssthresh = c.on_congestion(&st, &cong(now, CongestionKind::FastRetransmit, 1000));
        assert!((st.ssthresh - 700.0).abs() < 1e-9);
        st.cwnd = st.ssthresh;
        let k = c.epoch.unwrap().k;
        assert!((k - 750f64.cbrt()).abs() < 1e-9);
        // 100 ms RTT: large window, so the cubic (not W_est) governs.
        let rtt = Time::from_millis(100);
        while (now - t0).as_secs_f64() < k {
            one_rtt(&mut c, &mut st, &mut now, rtt, rtt);
            let t = (now - t0).as_secs_f64();
            let w = c.p.w_cubic(t, k, 1000.0);
            // cwnd tracks W_cubic(t) within about one RTT of growth.
            let w_next = c.p.w_cubic(t + 0.1, k, 1000.0);
            assert!(
                st.cwnd >= w - 1.0 && st.cwnd <= w_next + 1.0,
                "t={t}: cwnd {} vs W {}",
                st.cwnd,
                w
            );
        }
        // Plateau around W_max near t = K.
        assert!((st.cwnd - 1000.0).abs() < 5.0, "{}", st.cwnd);
    }

    #[test]
    fn reno_friendly_w_est() {
        let p = CubicConfig::default();
        assert!((p.alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
        let mut c = Cubic::new(p);
        let mut st = state(10.0, 1e9);
        let mut now = Time::from_secs(1);
        st.ssthresh = c.on_congestion(&st, &cong(now, CongestionKind::FastRetransmit, 10));
        st.cwnd = st.ssthresh;
        assert!((st.cwnd - 7.0).abs() < 1e-12);
        // 1 ms RTT: the cubic is nearly flat over these RTTs (K ≈ 1.96 s), so W_est rules.
        let rtt = Time::from_millis(1);
        let alpha = p.alpha_cubic();
        for i in 0..30 {
            let (w0, n) = (st.cwnd, st.cwnd.floor());
            one_rtt(&mut c, &mut st, &mut now, rtt, rtt);
            // §4.3: in the Reno-friendly region cwnd is W_est itself.
            assert_eq!(st.cwnd, c.epoch.unwrap().w_est, "round {i}");
            // Per ACK W_est += α/cwnd, so one RTT of ⌊cwnd⌋ ACKs adds about α·⌊cwnd⌋/cwnd:
            // α_cubic while below cwnd_prior = 10, then 1 (Reno's own rate).
            let inc = st.cwnd - w0;
            let want = if st.cwnd < 10.0 {
                alpha
            } else if w0 >= 10.0 {
                1.0
            } else {
                continue;
            };
            let lo = want * (n / (w0 + want)) - 0.01;
            assert!(
                inc > lo && inc <= want + 1e-9,
                "round {i}: +{inc}, want ≈{want}"
            );
        }
        // ≈ 6 RTTs at α ≈ 0.53 to regain cwnd_prior = 10, then about 1 per RTT.
        assert!(st.cwnd > 30.0 && st.cwnd < 35.0, "{}", st.cwnd);
    }

    #[test]
    fn fast_convergence() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut st = state(100.0, 1e9);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 0);
        c.on_congestion(&st, &ev);
        st.cwnd = 90.0;
        let ssthresh = c.on_congestion(&st, &ev);
        assert!((c.w_max - 90.0 * 0.85).abs() < 1e-9);
        assert!((ssthresh - 63.0).abs() < 1e-9);
    }

    fn linux() -> CubicConfig {
        CubicConfig {
            linux: true,
            cnt_hold: true,
            paced_train: true,
            hystart: HyStartMode::Classic,
            ..CubicConfig::default()
        }
    }

    fn ack_rtt(now: Time, rtt: Time, srtt: Time) -> Ack {
        let mut a = ack_at(now, 1, Some(rtt), srtt);
        a.rtt.min = rtt;
        a
    }

    /// Linux bictcp_update: the epoch starts at the first ACK after recovery, from the
    /// cwnd then (K = ∛((W_max − cwnd)/C)), not at the congestion event; the curve is
    /// read delay_min ahead, t = now − epoch_start + delay_min, and cwnd grows one
    /// segment per cnt = ⌊cwnd/(target − cwnd)⌋ segments ACKed, target = W_max −
    /// ⌊C·(K − t)³⌋.
    #[test]
    fn linux_epoch_starts_at_the_first_ack_after_recovery_and_looks_delay_min_ahead() {
        let mut c = Cubic::new(linux());
        let mut st = state(1000.0, 1e9);
        // delay_min = 50 ms, learned from a sample (more than 1 s before any epoch).
        c.on_ack(
            &mut state(5.0, 1.0),
            &ack_rtt(
                Time::from_secs(1),
                Time::from_millis(50),
                Time::from_millis(50),
            ),
        );
        assert_eq!(c.delay_min, Some(Time::from_millis(50)));
        let loss = Time::from_secs(10);
        st.ssthresh = c.on_congestion(&st, &cong(loss, CongestionKind::FastRetransmit, 1000));
        assert_eq!(st.ssthresh, 700.0);
        assert!(c.epoch.is_none(), "no epoch at the congestion event");
        // Recovery lasts until t = 10.3 s and leaves cwnd = ssthresh.
        st.cwnd = 700.0;
        let first = Time::from_millis(10_300);
        // srtt 200 ms: the RFC form would look 200 ms ahead; Linux looks 50 ms.
        c.on_ack(
            &mut st,
            &ack_rtt(first, Time::from_millis(200), Time::from_millis(200)),
        );
        let e = c.epoch.unwrap();
        assert_eq!(e.start, first);
        let k = ((1000.0f64 - 700.0) / 0.4).cbrt();
        assert!((e.k - k).abs() < 1e-12);
        assert_eq!(e.origin, 1000.0);
        // One more ACK 1 s later: exactly (W_cubic(1.05) − cwnd)/cwnd.
        let w0 = st.cwnd;
        c.on_ack(
            &mut st,
            &ack_rtt(
                first + Time::from_secs(1),
                Time::from_millis(200),
                Time::from_millis(200),
            ),
        );
        let target = 1000.0 - (0.4 * (k - 1.05).powi(3)).floor();
        let cnt = (700.0 / (target - 700.0)).floor();
        // Two ACKs counted toward it (snd_cwnd_cnt), the first at the epoch's cnt.
        assert!(w0 > 700.0 && w0 < 700.0 + 1.0 / cnt);
        let want = 700.0 + 2.0 / cnt;
        assert!((st.cwnd - want).abs() < 1e-9, "{} vs {want}", st.cwnd);
    }

    /// cubictcp_recalc_ssthresh works on snd_cwnd, whole segments: a loss a fraction of
    /// a segment below the last W_max is a loss at W_max (no fast convergence), and W_max
    /// and ssthresh are truncated. (With the fractions, a sender overflowing the same
    /// queue took fast convergence every other time, and its epochs were 10-23 % longer
    /// than Linux's, docs/linux.md.)
    #[test]
    fn linux_compares_whole_segments_at_a_loss() {
        let mut c = Cubic::new(linux());
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 0);
        let mut st = state(125.6, 1e9);
        assert_eq!(c.on_congestion(&st, &ev), 87.0, "⌊125·0.7⌋");
        assert_eq!(c.w_max, 125.0);
        st.cwnd = 125.2;
        c.on_congestion(&st, &ev);
        assert_eq!(c.w_max, 125.0, "the same 125 segments: no fast convergence");
        st.cwnd = 124.9;
        c.on_congestion(&st, &ev);
        assert_eq!(c.w_max, 105.0, "⌊124·1.7/2⌋");
        // The RFC form keeps the fractions.
        let mut r = Cubic::new(CubicConfig::default());
        r.on_congestion(&state(125.6, 1e9), &ev);
        r.on_congestion(&state(125.2, 1e9), &ev);
        assert!((r.w_max - 125.2 * 0.85).abs() < 1e-9);
    }

    /// bic_target = W_max − ⌊C·(K − t)³⌋: within one segment of the plateau the target is
    /// the plateau itself, so cwnd climbs its last segment at one per RTT (cnt = cwnd)
    /// about ∛(1/C) = 1.36 s before K, where the real-valued curve would still be below.
    /// A Linux-form CUBIC that lost at cwnd 100 (ssthresh 70) and began its epoch at
    /// t0 = 1 s from cwnd 70 with delay_min 10 ms, so K = ∛(30/C); and K.
    fn epoch_after_a_loss_at_100(cfg: CubicConfig) -> (Cubic, Window, f64) {
        let mut c = Cubic::new(cfg);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 0);
        c.on_congestion(&state(100.0, 1e9), &ev);
        let mut st = state(70.0, 70.0);
        c.on_ack(&mut st, &ack_rtt(Time::from_secs(1), MS10, MS10));
        (c, st, (30.0f64 / 0.4).cbrt())
    }

    const MS10: Time = Time(10_000_000_000);

    #[test]
    fn linux_target_reaches_the_plateau_a_segment_early() {
        let (mut c, mut st, k) = epoch_after_a_loss_at_100(linux());
        // Half a segment below the plateau on the real curve: C·(K − t)³ = 0.5.
        let t = 1.0 + k - (0.5f64 / 0.4).cbrt() - 0.010;
        st.cwnd = 99.0;
        c.on_ack(&mut st, &ack_rtt(Time::from_secs_f64(t), MS10, MS10));
        // cnt = cwnd: the epoch's first ACK and this one counted toward it.
        assert!((st.cwnd - (99.0 + 2.0 / 99.0)).abs() < 1e-9, "{}", st.cwnd);
    }

    /// bictcp_update keeps cnt for HZ/32 while snd_cwnd is unchanged (linux profile);
    /// ns-3's TcpCubic::Update recomputes it on every ACK. Just past the plateau the
    /// target steps from W_max to W_max + 1 between two ACKs 20 ms apart: Linux still
    /// grows at the plateau's 1/(100·cwnd), ns-3 at 1/cwnd.
    #[test]
    fn linux_holds_cnt_for_hz_over_32_and_ns3_does_not() {
        for (hold, want) in [(true, 1.0 / 10_000.0), (false, 1.0 / 100.0)] {
            let (mut c, mut st, k) = epoch_after_a_loss_at_100(CubicConfig {
                cnt_hold: hold,
                ..linux()
            });
            // C·(t − K)³ = 0.98 segment (target = W_max), then 1.07 (W_max + 1).
            let t1 = Time::from_secs_f64(1.0 + k + 1.35 - 0.010);
            st.cwnd = 100.0;
            c.on_ack(&mut st, &ack_rtt(t1, MS10, MS10));
            let w1 = st.cwnd;
            c.on_ack(&mut st, &ack_rtt(t1 + Time::from_millis(20), MS10, MS10));
            assert!(
                (st.cwnd - w1 - want).abs() < 1e-12,
                "hold {hold}: {}",
                st.cwnd - w1
            );
        }
    }

    /// `cubic_root` is the kernel's: below 64 it reads the table, v[a] = ∛(a·2¹⁸) − 1,
    /// as (v[a] + 35) >> 6 = ⌊∛a + 34/64⌋; 4³ takes the first Newton step exactly (fls 7,
    /// b = 1, x₀ = (123 + 10)·2/64 = 4, x₁ = (8 + 64/12)·341/1024 = 4); and over a
    /// log-uniform spread of the K³ it
    /// sees (W_max − cwnd from 1 to 10⁶ segments times cube_factor) its error averages
    /// no more than its comment's 0.195 % and stays under 1 %.
    #[test]
    fn cubic_root_is_a_table_and_one_newton_step() {
        for a in 0..64u64 {
            let want = ((a as f64).cbrt() + 34.0 / 64.0).floor();
            assert_eq!(f64::from(cubic_root(a)), want, "{a}");
        }
        assert_eq!(cubic_root(64), 4);
        let (mut sum, mut n, mut worst) = (0.0, 0.0, 0.0f64);
        let factor = KernelCubic::new(0.4, 0.7).cube_factor;
        for i in 0..=6000 {
            let below = 10f64.powf(f64::from(i) / 1000.0);
            let a = factor * below as u64;
            let exact = (a as f64).cbrt();
            let err = (f64::from(cubic_root(a)) - exact).abs() / exact;
            sum += err;
            n += 1.0;
            worst = worst.max(err);
        }
        let mean = sum / n;
        assert!(mean < 0.00195, "mean error {mean}");
        assert!(worst < 0.01, "worst error {worst}");
        // Not ∛ itself: the Newton step's ·341/1024 (1/3.003) and the table leave
        // errors a K rounded to 1/1024 s would not have.
        assert!(mean > 1e-4, "mean error {mean}");
    }

    /// The module's defaults as cubictcp_register holds them (the testbed kernel's
    /// parameters, validation/linux/kernel_clock.json: beta 717, bic_scale 41), and the
    /// integer W_max and ssthresh they give: the same as 0.7's and 0.85's below 517
    /// segments, one segment higher where cwnd·0.7 falls within cwnd·0.0002 of a whole
    /// number (517: 361.9 → 361 with 0.7, 362.0 → 362 with 717/1024).
    #[test]
    fn kernel_cubic_holds_beta_and_c_as_the_modules_integers() {
        let kc = KernelCubic::new(0.4, 0.7);
        assert_eq!((kc.beta, kc.cube_rtt_scale, kc.beta_scale), (717, 410, 15));
        assert_eq!(kc.cube_factor, (1u64 << 40) / 410);
        assert_eq!(kc.ssthresh(100), 70);
        assert_eq!(kc.ssthresh(517), 362);
        assert_eq!((517.0f64 * 0.7).floor(), 361.0);
        assert_eq!(kc.ssthresh(2), 2, "at least 2");
        assert_eq!(kc.w_max_below(100), 85);
        assert_eq!(kc.w_max_below(527), 448);
        assert_eq!((527.0f64 * 0.85).floor(), 447.0);
        // K for a loss at 100 (W_max − cwnd = 30): ∛(30·1024/410) s, in 1/1024 s, to
        // cubic_root's accuracy; and the curve climbs back the 30 segments by K.
        let k = kc.k(30);
        let exact = (30.0f64 * 1024.0 / 410.0).cbrt() * 1024.0;
        assert!((k as f64 - exact).abs() / exact < 0.005, "{k} vs {exact}");
        assert!((kc.delta(k) as i64 - 30).abs() <= 1, "{}", kc.delta(k));
        assert_eq!(kc.delta(0), 0);
        // One second from the plateau: C = 410/1024 of a segment, truncated to 0.
        assert_eq!(kc.delta(1024), 0);
        // Two seconds: 8·0.4004 = 3.2.
        assert_eq!(kc.delta(2048), 3);
    }

    /// The linux profile runs CUBIC in the kernel's fixed point; ns3 (its TcpCubic in
    /// doubles) and ns2 do not, nor does the RFC form. A C or β the module cannot hold
    /// is refused, naming the parameter.
    #[test]
    fn the_linux_profile_runs_cubic_in_the_kernels_fixed_point() {
        let cfg = |p: Profile, extra: &[(&str, toml::Value)]| {
            let mut t = toml::Table::new();
            for (k, v) in extra {
                t.insert((*k).into(), v.clone());
            }
            CubicConfig::from_params(&mut Params::new("cubic", &t, p))
        };
        assert!(cfg(Profile::Linux, &[]).unwrap().kernel);
        assert!(!cfg(Profile::Ns3, &[]).unwrap().kernel);
        assert!(!cfg(Profile::Ns2, &[]).unwrap().kernel);
        let rfc = [("form", toml::Value::String("rfc".into()))];
        assert!(!cfg(Profile::Linux, &rfc).unwrap().kernel);
        let float = [("fixed_point", toml::Value::Boolean(false))];
        assert!(!cfg(Profile::Linux, &float).unwrap().kernel);
        let fixed = [("fixed_point", toml::Value::Boolean(true))];
        assert!(cfg(Profile::Ns3, &fixed).unwrap().kernel);
        let small_c = [("c", toml::Value::Float(0.001))];
        assert!(cfg(Profile::Linux, &small_c).unwrap_err().starts_with("c:"));
        assert!(
            cfg(Profile::Ns3, &small_c).is_ok(),
            "ns-3 holds C in a double"
        );
        let high_beta = [("beta", toml::Value::Float(0.9996))];
        assert!(cfg(Profile::Linux, &high_beta)
            .unwrap_err()
            .starts_with("beta:"));
        // A loss at 517 segments: ssthresh 362 in the kernel's integers, 361 at 0.7.
        for (kernel, want) in [(true, 362.0), (false, 361.0)] {
            let mut c = Cubic::new(CubicConfig { kernel, ..linux() });
            let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 0);
            assert_eq!(c.on_congestion(&state(517.0, 1e9), &ev), want);
        }
    }

    /// In the fixed point the epoch's K is cubic_root's, in whole 1/1024 s, and the
    /// target is W_max − (410·offs³ >> 40): the Linux-form epoch of the test above, with
    /// its cnt from those integers.
    #[test]
    fn kernel_epoch_reads_the_curve_in_the_kernels_integers() {
        let kc = KernelCubic::new(0.4, 0.7);
        let (mut c, mut st, _) = epoch_after_a_loss_at_100(CubicConfig {
            kernel: true,
            ..linux()
        });
        let e = c.epoch.unwrap();
        assert_eq!(e.k * 1024.0, kc.k(30) as f64);
        // 2 s into the epoch, 10 ms ahead: t = ⌊2.01·1024⌋ = 2058 (1/1024 s).
        st.cwnd = 80.0;
        c.on_ack(
            &mut st,
            &ack_rtt(Time::from_secs(1) + Time::from_secs(2), MS10, MS10),
        );
        let target = 100 - kc.delta(kc.k(30) - 2058);
        let cnt = (80 / (target - 80)).max(2);
        assert_eq!(c.cnt, cnt as f64, "target {target}");
    }

    /// jiffies() counts whole ticks from the run's start, the same on its 64-bit path and
    /// past it (u128) as the exact ⌊t·hz⌋.
    #[test]
    fn jiffies_count_whole_ticks_on_both_paths() {
        assert_eq!(jiffies(Time(3_999_999_999), 250), 0);
        assert_eq!(jiffies(Time(4_000_000_000), 250), 1);
        assert_eq!(jiffies(Time::from_secs(60), 250), 15_000);
        assert_eq!(jiffies(Time::from_secs(60), 300), 18_000);
        assert_eq!(jiffies(Time::from_secs(60), 0), 0);
        // 6 hours at HZ = 1000: ps·hz is past u64 (2.16e19 > 1.8e19)
        let long = Time::from_secs(6 * 3600) + Time(999_999_999);
        assert!(long.ps().checked_mul(1000).is_none());
        assert_eq!(jiffies(long, 1000), 6 * 3600 * 1000);
    }

    /// With `hz` ticks a second (tcp_jiffies32) bictcp_update holds cnt while
    /// (jiffies − last_time) ≤ HZ/32, 7 ticks at HZ = 250 (28–32 ms), computes it at
    /// most once a tick even when cwnd changes, and reads the epoch's time in ticks,
    /// delay_min rounded up to one (usecs_to_jiffies). A continuous clock holds 31 ms.
    #[test]
    fn linux_clock_in_jiffies_holds_cnt_seven_ticks_and_computes_it_once_a_tick() {
        let tick = |c: &Cubic| jiffies(c.cnt_stamp.expect("cnt computed").1, 250);
        let cfg = CubicConfig {
            hz: 250,
            reno_friendly: false,
            ..linux()
        };
        // The epoch's first ACK at 1 s: tick 250.
        let (mut c, mut st, _) = epoch_after_a_loss_at_100(cfg);
        assert_eq!(tick(&c), 250);
        let at = |ms: f64| Time::from_secs_f64(1.0 + ms / 1e3);
        // cwnd changed within the tick: the cnt of tick 250 stands.
        let held = c.cnt;
        st.cwnd = 71.0;
        c.on_ack(&mut st, &ack_rtt(at(3.9), MS10, MS10));
        assert_eq!((tick(&c), c.cnt, c.cnt_stamp.unwrap().0), (250, held, 70.0));
        // the next tick computes it for 71
        c.on_ack(&mut st, &ack_rtt(at(4.0), MS10, MS10));
        assert_eq!((tick(&c), c.cnt_stamp.unwrap().0), (251, 71.0));
        // then holds it through tick 251 + 7, and computes it again at 251 + 8
        c.on_ack(&mut st, &ack_rtt(at(35.9), MS10, MS10));
        assert_eq!(tick(&c), 251);
        c.on_ack(&mut st, &ack_rtt(at(36.1), MS10, MS10));
        assert_eq!(tick(&c), 259);
        // t = 9 ticks since the epoch + ⌈10 ms⌉ = 3 ticks: 12/250 s in 1/1024 s units
        let e = c.epoch.unwrap();
        let t = ((12u64 << 10) / 250) as f64 / 1024.0;
        let k = (e.k * 1024.0).floor() / 1024.0;
        let target = e.origin - (0.4 * (k - t).powi(3)).floor();
        assert_eq!(c.cnt, (71.0 / (target - 71.0)).floor().max(2.0));
        // A continuous clock: 31 ms, whatever the tick.
        let (mut c, mut st, _) = epoch_after_a_loss_at_100(linux());
        st.cwnd = 71.0;
        c.on_ack(&mut st, &ack_rtt(at(3.9), MS10, MS10));
        assert_eq!(c.cnt_stamp.unwrap(), (71.0, at(3.9)));
        c.on_ack(&mut st, &ack_rtt(at(34.9), MS10, MS10));
        assert_eq!(c.cnt_stamp.unwrap().1, at(3.9));
        c.on_ack(&mut st, &ack_rtt(at(35.0), MS10, MS10));
        assert_eq!(c.cnt_stamp.unwrap().1, at(35.0));
    }

    /// tcp_cong_avoid_ai counts ACKs toward cnt in snd_cwnd_cnt: credits counted while
    /// cnt was held at the plateau's 100·cwnd meet the next, lower cnt whole ("apply them
    /// gently now": +1 at once, the credits cleared), where a fraction of cwnd would have
    /// kept them as 151/10000 of a segment.
    #[test]
    fn linux_applies_credits_counted_at_a_higher_cnt_at_once() {
        let (mut c, mut st, k) = epoch_after_a_loss_at_100(linux());
        // target = W_max at t1 (cnt = 100·cwnd), W_max + 1 40 ms later (cnt = 100)
        let t1 = Time::from_secs_f64(1.0 + k + 1.35 - 0.010);
        st.cwnd = 100.0;
        for i in 0..150 {
            c.on_ack(&mut st, &ack_rtt(t1 + Time(i * 1_000_000), MS10, MS10));
        }
        // (the epoch's first ACK counted one more)
        assert!(
            (st.cwnd - (100.0 + 151.0 / 10_000.0)).abs() < 1e-9,
            "{}",
            st.cwnd
        );
        c.on_ack(&mut st, &ack_rtt(t1 + Time::from_millis(40), MS10, MS10));
        assert!(
            (st.cwnd - (101.0 + 1.0 / 100.0)).abs() < 1e-9,
            "{}",
            st.cwnd
        );
        // a reduction clears the credits (tcp_init_cwnd_reduction)
        let ev = cong(
            t1 + Time::from_millis(50),
            CongestionKind::FastRetransmit,
            0,
        );
        let ssthresh = c.on_congestion(&st, &ev);
        assert_eq!(c.cwnd_cnt, 0.0);
        assert_eq!(ssthresh, 70.0);
    }

    /// tcp_friendliness counts W_est up `while (ack_cnt > delta)`, delta = ⌊cwnd·15/8⌋:
    /// 2·delta ACKs counted give one segment and leave delta, 2·delta + 1 give two.
    #[test]
    fn linux_reno_friendly_count_leaves_up_to_delta() {
        for (acked, gained, left) in [(262.0, 1.0, 131.0), (263.0, 2.0, 1.0)] {
            let (mut c, mut st, _) = epoch_after_a_loss_at_100(linux());
            let e = c.epoch.as_mut().expect("epoch begun");
            (e.ack_cnt, e.w_est) = (0.0, 70.0);
            let mut a = ack_rtt(Time::from_secs(2), MS10, MS10);
            a.acked = acked;
            c.on_ack(&mut st, &a);
            let e = c.epoch.as_ref().expect("epoch begun");
            assert_eq!((e.w_est, e.ack_cnt), (70.0 + gained, left), "{acked}");
        }
    }

    /// cubictcp_cong_avoid returns before bictcp_update and tcp_cong_avoid_ai when the
    /// window did not limit sending (tcp_is_cwnd_limited): under cwnd validation such an
    /// ACK moves neither cwnd, the count toward the next segment, cnt's stamp nor the
    /// Reno-friendly ACK count; without it (the ns2 and ns3 profiles) it counts.
    #[test]
    fn linux_counts_nothing_on_an_ack_that_was_not_cwnd_limited() {
        let (mut c, mut st, _) = epoch_after_a_loss_at_100(linux());
        let seen = |c: &Cubic, st: &Window| {
            let e = c.epoch.as_ref().expect("epoch begun");
            (st.cwnd, c.cwnd_cnt, c.cnt_stamp, e.ack_cnt)
        };
        let before = seen(&c, &st);
        let mut a = ack_rtt(Time::from_secs(2), MS10, MS10);
        a.cwnd_limited = false;
        a.cwnd_validation = true;
        c.on_ack(&mut st, &a);
        assert_eq!(seen(&c, &st), before);
        a.cwnd_validation = false;
        c.on_ack(&mut st, &a);
        let after = seen(&c, &st);
        assert!(
            after.0 > before.0 && after.1 > before.1,
            "{after:?} {before:?}"
        );
        assert!(after.3 > before.3 && after.2 != before.2);
    }

    /// Linux keeps α_cubic for W_est (no RFC 9438 switch to 1 past cwnd_prior), and
    /// cwnd never falls on an ACK (the RFC form sets cwnd = W_est in the Reno-friendly
    /// region, which may lie below it).
    #[test]
    fn linux_keeps_alpha_cubic_and_never_lowers_cwnd_on_an_ack() {
        let p = linux();
        assert_eq!(p.alpha_est(20.0, 10.0), p.alpha_cubic());
        assert_eq!(CubicConfig::default().alpha_est(20.0, 10.0), 1.0);
        let mut c = Cubic::new(p);
        let mut st = state(100.0, 50.0);
        let mut now = Time::from_secs(5);
        for _ in 0..2000 {
            now += Time::from_millis(1);
            let w0 = st.cwnd;
            c.on_ack(
                &mut st,
                &ack_rtt(now, Time::from_millis(10), Time::from_millis(10)),
            );
            assert!(st.cwnd >= w0);
        }
    }

    /// Linux cubictcp_state(TCP_CA_Loss) → bictcp_reset: a timeout forgets W_max (and
    /// delay_min); the RFC form keeps W_max = the window before the loss (the sender
    /// shows it the pre-recovery window, tcp/sender.rs).
    #[test]
    fn a_timeout_forgets_w_max_in_the_linux_form() {
        for (cfg, want) in [(linux(), 0.0), (CubicConfig::default(), 400.0)] {
            let mut c = Cubic::new(cfg);
            let st = state(400.0, 1e9);
            c.on_congestion(&st, &cong(Time::from_secs(1), CongestionKind::Timeout, 400));
            assert_eq!(c.w_max, want, "linux: {}", cfg.linux);
        }
    }

    /// HyStart's ACK train (Linux hystart_update): ACKs each within 2 ms of the last,
    /// spanning more than (delay_min + ack_delay)/2 since the round began, end slow
    /// start with ssthresh = cwnd. delay_min 100 ms, srtt 100 ms, cwnd 20:
    /// ack_delay = min(1 ms, 90.5·0.1/20 s) = 1 ms, so the threshold is 50.5 ms.
    #[test]
    fn hystart_ack_train_ends_slow_start_past_half_the_min_rtt() {
        let mut c = Cubic::new(linux());
        let rtt = Time::from_millis(100);
        let t0 = Time::from_secs(2);
        c.on_round(&mut state(20.0, 1e9), &round(t0, rtt, rtt));
        let mut exit = None;
        for i in 1..=60u64 {
            let mut st = state(20.0, 1e9);
            let now = t0 + Time::from_millis(i);
            c.on_ack(&mut st, &ack_rtt(now, rtt, rtt));
            if st.ssthresh < 1e9 {
                exit = Some((i, st.ssthresh));
                break;
            }
        }
        assert_eq!(exit, Some((51, 20.0)), "ssthresh = cwnd at the 51st ms");
        // Below hystart_low_window (16) HyStart does not watch.
        let mut c = Cubic::new(linux());
        c.on_round(&mut state(8.0, 1e9), &round(t0, rtt, rtt));
        for i in 1..=60u64 {
            let mut st = state(8.0, 1e9);
            c.on_ack(&mut st, &ack_rtt(t0 + Time::from_millis(i), rtt, rtt));
            assert_eq!(st.ssthresh, 1e9);
        }
    }

    /// A paced sender's ACK train must span the whole delay_min + ack_delay (Linux
    /// halves it only for `SK_PACING_NONE`: "Pacing might have delayed packets up to
    /// RTT/2 during slow start"): 101 ms here, where an unpaced one exits at 51 ms.
    /// ns-3.44's `TcpCubic` (ns3 profile) waits delay_min alone, paced or not: 100 ms.
    #[test]
    fn hystart_ack_train_of_a_paced_sender_spans_the_whole_min_rtt() {
        let rtt = Time::from_millis(100);
        let t0 = Time::from_secs(2);
        let exit_ms = |cfg: CubicConfig, paced: bool| {
            let mut c = Cubic::new(cfg);
            c.on_round(&mut state(20.0, 1e9), &round(t0, rtt, rtt));
            (1..=150u64).find(|&i| {
                let mut st = state(20.0, 1e9);
                let mut a = ack_rtt(t0 + Time::from_millis(i), rtt, rtt);
                a.paced = paced;
                c.on_ack(&mut st, &a);
                st.ssthresh < 1e9
            })
        };
        assert_eq!(exit_ms(linux(), false), Some(51));
        assert_eq!(exit_ms(linux(), true), Some(102));
        let ns3 = CubicConfig {
            paced_train: false,
            ns3_hystart: true,
            ..linux()
        };
        assert_eq!(exit_ms(ns3, true), Some(101));
        assert_eq!(exit_ms(ns3, false), Some(101));
    }

    /// HyStart's delay test: after 8 samples in a round, the round's least RTT above
    /// delay_min + clamp(delay_min/8, 4 ms, 16 ms) ends slow start (ACKs 3 ms apart, so
    /// no ACK train). delay_min 100 ms: the bound is 112.5 ms. ns-3.44's `TcpCubic`
    /// bounds it by clamp(delay_min, 4 ms, 1 s): 200 ms.
    #[test]
    fn hystart_delay_increase_ends_slow_start() {
        let ns3 = CubicConfig {
            paced_train: false,
            ns3_hystart: true,
            ..linux()
        };
        for (cfg, rtt_ms, exits) in [
            (linux(), 113u64, true),
            (linux(), 112, false),
            (ns3, 201, true),
            (ns3, 200, false),
        ] {
            let mut c = Cubic::new(cfg);
            let base = Time::from_millis(100);
            c.on_ack(
                &mut state(20.0, 1e9),
                &ack_rtt(Time::from_secs(1), base, base),
            );
            let t0 = Time::from_secs(2);
            c.on_round(&mut state(20.0, 1e9), &round(t0, base, base));
            let mut st = state(20.0, 1e9);
            for i in 1..=9u64 {
                let mut a = ack_rtt(
                    t0 + Time::from_millis(3 * i),
                    Time::from_millis(rtt_ms),
                    base,
                );
                a.acked = 0.0;
                st.ssthresh = 1e9;
                c.on_ack(&mut st, &a);
                if i < 9 {
                    assert_eq!(st.ssthresh, 1e9, "not before 8 samples");
                }
            }
            assert_eq!(
                st.ssthresh < 1e9,
                exits,
                "rtt {rtt_ms} ms, ns3 {}",
                cfg.ns3_hystart
            );
        }
    }

    fn hspp() -> Cubic {
        Cubic::new(CubicConfig {
            linux: true,
            hystart: HyStartMode::PlusPlus,
            ..CubicConfig::default()
        })
    }

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// One round of HyStart++: `n` ACKs of one segment, each with the sample `rtt`, in
    /// slow start (ssthresh unlimited); then the round closes. The cwnd gained.
    fn hspp_round(c: &mut Cubic, w: &mut Window, now: &mut Time, rtt: Time, n: u32) -> f64 {
        let before = w.cwnd;
        for _ in 0..n {
            *now += ms(1);
            c.on_ack(w, &ack_at(*now, 1, Some(rtt), rtt));
        }
        let gained = w.cwnd - before;
        c.on_round(w, &round(*now, rtt, rtt));
        gained
    }

    /// A HyStart++ CUBIC in CSS: a round at 100 ms, then one at 120 ms (a delay
    /// increase past RttThresh) from cwnd 10; its window and clock.
    fn hspp_in_css() -> (Cubic, Window, Time) {
        let mut c = hspp();
        let mut w = state(10.0, f64::INFINITY);
        let mut now = Time::from_secs(1);
        hspp_round(&mut c, &mut w, &mut now, ms(100), 8);
        hspp_round(&mut c, &mut w, &mut now, ms(120), 8);
        assert!(c.hystart_pp.in_css());
        (c, w, now)
    }

    /// RFC 9406 §4.2: RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
    #[test]
    fn hystart_pp_rtt_threshold_is_an_eighth_of_the_last_round_clamped() {
        assert_eq!(hspp::rtt_thresh(ms(16)), ms(4));
        assert_eq!(hspp::rtt_thresh(ms(80)), ms(10));
        assert_eq!(hspp::rtt_thresh(ms(100)), Time::from_micros(12_500));
        assert_eq!(hspp::rtt_thresh(ms(200)), ms(16));
    }

    /// §4.2: after N_RTT_SAMPLE (8) samples of a round, currentRoundMinRTT ≥
    /// lastRoundMinRTT + RttThresh enters CSS (100 ms → 112.5 ms: 113 does, 112 does
    /// not), where each ACK grows cwnd by a CSS_GROWTH_DIVISOR-th (¼) of slow start's.
    #[test]
    fn hystart_pp_delay_increase_enters_css_growing_a_quarter_as_fast() {
        for (rtt_ms, css) in [(113u64, true), (112, false)] {
            let mut c = hspp();
            let mut w = state(10.0, f64::INFINITY);
            let mut now = Time::from_secs(1);
            assert_eq!(
                hspp_round(&mut c, &mut w, &mut now, ms(100), 8),
                8.0,
                "slow start"
            );
            let mut gains = Vec::new();
            for _ in 0..10 {
                let before = w.cwnd;
                now += ms(1);
                c.on_ack(&mut w, &ack_at(now, 1, Some(ms(rtt_ms)), ms(100)));
                gains.push(w.cwnd - before);
            }
            assert_eq!(c.hystart_pp.in_css(), css, "rtt {rtt_ms} ms");
            // The 8th sample triggers CSS, and its own ACK grows already at ¼.
            let want: Vec<f64> = (1..=10)
                .map(|i| if css && i >= 8 { 0.25 } else { 1.0 })
                .collect();
            assert_eq!(gains, want, "rtt {rtt_ms} ms");
            assert!(w.ssthresh.is_infinite(), "CSS is still slow start");
        }
    }

    /// §4.2: CSS ends in congestion avoidance (ssthresh = cwnd) once CSS_ROUNDS (5)
    /// rounds are complete, and HyStart++ is not used again. The round in which CSS
    /// began counts as the first (as neqo, Firefox's RFC 9406 implementation, counts
    /// it).
    #[test]
    fn hystart_pp_css_ends_in_congestion_avoidance_after_five_rounds() {
        let (mut c, mut w, mut now) = hspp_in_css();
        assert_eq!(c.hystart_pp.css_rounds, 1);
        for k in 2..=4 {
            let g = hspp_round(&mut c, &mut w, &mut now, ms(120), 8);
            assert_eq!(g, 2.0, "8 ACKs at ¼ segment in CSS round {k}");
            assert!(w.ssthresh.is_infinite(), "after {k} CSS rounds");
        }
        hspp_round(&mut c, &mut w, &mut now, ms(120), 8);
        assert_eq!(w.ssthresh, w.cwnd, "5 CSS rounds: congestion avoidance");
        assert!(c.hystart_pp.done && !c.hystart_pp.in_css());
    }

    /// §4.2: in CSS, a round whose minimum RTT (after 8 samples) is below
    /// cssBaselineMinRtt shows the exit was spurious: slow start resumes.
    #[test]
    fn hystart_pp_spurious_css_exit_resumes_slow_start() {
        let (mut c, mut w, mut now) = hspp_in_css();
        // The baseline is 120 ms; 119 ms after 8 samples: spurious.
        let g = hspp_round(&mut c, &mut w, &mut now, ms(119), 10);
        assert!(!c.hystart_pp.in_css());
        assert_eq!(g, 7.0 * 0.25 + 3.0, "¼ for 7 ACKs, then slow start");
        assert!(w.ssthresh.is_infinite());
    }

    /// `hystart` takes the three names, or true / false for classic / off.
    #[test]
    fn hystart_parameter_names() {
        use crate::cc::params::Params;
        let mode = |v: toml::Value, profile| {
            let mut t = toml::value::Table::new();
            t.insert("hystart".into(), v);
            CubicConfig::from_params(&mut Params::new("cubic", &t, profile)).map(|c| c.hystart)
        };
        let s = |x: &str| toml::Value::String(x.into());
        assert_eq!(
            mode(s("hystart++"), Profile::Linux),
            Ok(HyStartMode::PlusPlus)
        );
        assert_eq!(mode(s("classic"), Profile::Ns2), Ok(HyStartMode::Classic));
        assert_eq!(mode(s("off"), Profile::Linux), Ok(HyStartMode::Off));
        assert_eq!(
            mode(toml::Value::Boolean(true), Profile::Ns2),
            Ok(HyStartMode::Classic)
        );
        assert_eq!(
            mode(toml::Value::Boolean(false), Profile::Linux),
            Ok(HyStartMode::Off)
        );
        assert!(mode(s("hystart+"), Profile::Linux)
            .unwrap_err()
            .contains("hystart++"));
        let none = toml::value::Table::new();
        let d = |p| {
            CubicConfig::from_params(&mut Params::new("cubic", &none, p))
                .unwrap()
                .hystart
        };
        assert_eq!(
            d(Profile::Linux),
            HyStartMode::Classic,
            "Linux runs classic HyStart"
        );
        assert_eq!(d(Profile::Ns3), HyStartMode::Classic);
        assert_eq!(d(Profile::Ns2), HyStartMode::Off);
        let hold = |p| {
            CubicConfig::from_params(&mut Params::new("cubic", &none, p))
                .unwrap()
                .cnt_hold
        };
        assert!(hold(Profile::Linux) && !hold(Profile::Ns3) && !hold(Profile::Ns2));
        let hz = |v: toml::Value| {
            let mut t = toml::value::Table::new();
            t.insert("hz".into(), v);
            CubicConfig::from_params(&mut Params::new("cubic", &t, Profile::Linux)).map(|c| c.hz)
        };
        assert_eq!(hz(toml::Value::Integer(1000)), Ok(1000));
        assert_eq!(hz(toml::Value::Integer(0)), Ok(0));
        assert!(hz(toml::Value::Float(2.5))
            .unwrap_err()
            .contains("whole number"));
        assert!(hz(toml::Value::Integer(-1)).unwrap_err().contains("hz"));
        assert_eq!(d_hz(Profile::Linux), 250, "Linux's jiffies at Kconfig's HZ");
        assert_eq!(d_hz(Profile::Ns3), 0, "ns-3's continuous clock");
        assert_eq!(d_hz(Profile::Ns2), 0);
    }

    fn d_hz(p: Profile) -> u32 {
        let none = toml::value::Table::new();
        CubicConfig::from_params(&mut crate::cc::params::Params::new("cubic", &none, p))
            .unwrap()
            .hz
    }

    /// Integrate the rate form at a fixed RTT for `secs` seconds from `t0`.
    fn integrate(l: &mut CubicFluid, mut w: f64, t0: f64, secs: f64, rtt: f64) -> f64 {
        let dt = 1e-3;
        for i in 0..(secs / dt).round() as usize {
            w = l.grow(w, t0 + i as f64 * dt, rtt, dt);
        }
        w
    }

    #[test]
    fn fluid_returns_to_w_max_after_k() {
        // RFC 9438 eq. 1–2 with C = 0.4, β = 0.7: a loss at W = 1000 leaves 700 and
        // K = ∛(300/0.4) = 9.09 s; the curve is back at W_max = 1000 at t = K (the
        // Reno-friendly W_est, 700 + 0.53·91 ≈ 748 by then, stays below).
        let mut l = CubicFluid::new(CubicConfig::default(), 0.0);
        let w = l.on_loss(1000.0, 0.0);
        assert!((w - 700.0).abs() < 1e-9);
        let k = l.k();
        assert!((k - (300.0f64 / 0.4).cbrt()).abs() < 1e-12);
        // The target runs one RTT ahead, so W reaches W_max about one RTT early: at
        // t = K it sits on the plateau within a few packets.
        let w = integrate(&mut l, w, 0.0, k, 0.1);
        assert!((w - 1000.0).abs() < 5.0, "w = {w}");
        // Halfway the curve is at W_max − C(K/2)³ = 1000 − 37.5.
        let mut l = CubicFluid::new(CubicConfig::default(), 0.0);
        let w = l.on_loss(1000.0, 0.0);
        let w = integrate(&mut l, w, 0.0, k / 2.0, 0.1);
        let expect = 1000.0 - 0.4 * (k / 2.0).powi(3);
        assert!((w - expect).abs() < 15.0, "w = {w}, curve {expect}");
    }

    /// Starting in congestion avoidance (init_cwnd ≥ ssthresh, no slow start to leave)
    /// begins the epoch on the plateau at the first step, as the per-ACK form does at
    /// its first ACK: W(t) = W0 + C·t³ (K = 0), not C·t³ from 0.
    #[test]
    fn fluid_starting_in_congestion_avoidance_starts_an_epoch() {
        let mut l = CubicFluid::new(CubicConfig::default(), 0.0);
        l.start(1.0, 0.1);
        let w = integrate(&mut l, 100.0, 1.0, 8.0, 0.1);
        // At t = 8 s the curve (100 + 0.4·8³ = 304.8) is above W_est (100 + 80). The
        // window relaxes toward W_cubic(t + R) in about one RTT, so it lags it by about
        // R·W'(t) = 0.1·1.2·8² = 7.7 and runs W'(t)·R ahead of W_cubic(t) at most.
        let (cubic, lag) = (100.0 + 0.4 * 512.0, 0.1 * 1.2 * 64.0);
        assert!(w > cubic - lag && w < 100.0 + 0.4 * 8.1f64.powi(3), "{w}");
    }

    #[test]
    fn fluid_parameters_mean_what_they_mean_in_the_per_ack_form() {
        let cfg = CubicConfig {
            beta: 0.5,
            ..CubicConfig::default()
        };
        let mut l = CubicFluid::new(cfg, 0.0);
        assert_eq!(l.on_loss(1000.0, 0.0), 500.0);
        let mut c = Cubic::new(cfg);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 1000);
        assert_eq!(c.on_congestion(&state(1000.0, 1e9), &ev), 500.0);
    }
}
