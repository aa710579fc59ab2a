//! Congestion control: what an algorithm sees, what it may change, and the registry
//! that turns a scenario's `cc = ...` into the law of either engine.
//!
//! The contract follows Linux's `tcp_congestion_ops`: an algorithm is a set of laws
//! (`on_ack`, `on_round`, `on_congestion`); the sender owns loss recovery (Open /
//! Recovery / Loss, NewReno or SACK), the RTO, the ECN reaction, pacing, round
//! tracking and the cwnd-limited gate (tcp/sender.rs). In particular an algorithm
//! *returns* ssthresh on a congestion signal and never sets cwnd there: the sender sets
//! it by its recovery policy. Windows are in segments (f64, so that laws with
//! fractional growth are exact).
//!
//! An algorithm is one file and one line of `registry!` below: its typed config
//! (read by [`Params`] with ranges), its law as pure functions, the per-ACK form the
//! packet engine runs ([`CongestionControl`]) and, where one is defensible, the rate
//! form the fluid engine integrates ([`FluidLaw`]), both built from those functions.
//! docs/architecture.md walks through adding one.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod compound;
pub mod contract;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod highspeed;
pub mod htcp;
pub mod illinois;
mod params;
pub mod prague;
pub mod profile;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod xcp;

pub use contract::{
    Ack, Algorithm, CaState, Congestion, CongestionControl, CongestionKind, EcnStyle, FluidLaw,
    LostPacket, NoFluid, RateSample, Round, RttStats, Window, ABC_LIMIT,
};
pub use params::Params;
pub use profile::Profile;

/// The fluid engine's floor on a reduced window: ≥ 2 segments, as the packet sender's
/// ssthresh (RFC 5681 eq. (4)), and never above the window before the loss.
#[inline]
fn fluid_loss_floor(w_new: f64, w: f64) -> f64 {
    w_new.max(2.0).min(w.max(1.0))
}

/// Generates, from one line per algorithm (`Variant => path::Type,`): [`build`],
/// [`KNOWN`], [`fluid_law`] and the enum [`AnyFluidLaw`] with match dispatch (the fluid
/// engine calls the law per flow per step: no `Box<dyn>` there).
macro_rules! registry {
    ($($variant:ident => $algo:ty,)*) => {
        /// The names a scenario may give, per algorithm (aliases after the canonical name).
        pub const KNOWN: &[&[&str]] = &[$(<$algo as Algorithm>::NAMES),*];

        /// Build the per-ACK form of an algorithm by name. `params` are the extra keys of
        /// `cc = { name = ..., ... }`; an error names the offending key. `profile` (the
        /// flow's `tcp.profile`) picks the defaults of the parameters whose form differs
        /// between stacks (`form`, `hystart`; docs/algorithms.md).
        pub fn build(
            name: &str,
            params: &toml::value::Table,
            profile: Profile,
        ) -> Result<Box<dyn CongestionControl>, String> {
            $(
                if <$algo as Algorithm>::NAMES.contains(&name) {
                    let mut p = Params::new(name, params, profile);
                    let cfg = <$algo as Algorithm>::config(&mut p)?;
                    p.finish()?;
                    return Ok(<$algo as Algorithm>::packet(&cfg));
                }
            )*
            Err(unknown(name))
        }

        /// The rate form of an algorithm for the fluid engine, its parameters read by the
        /// same `config` as the packet form (so a parameter means the same under both).
        /// Call `start` before use.
        pub fn fluid_law(
            name: &str,
            params: &toml::value::Table,
            profile: Profile,
        ) -> Result<AnyFluidLaw, String> {
            $(
                if <$algo as Algorithm>::NAMES.contains(&name) {
                    let mut p = Params::new(name, params, profile);
                    let cfg = <$algo as Algorithm>::config(&mut p)?;
                    p.finish()?;
                    return match <$algo as Algorithm>::fluid(&cfg) {
                        Some(law) => Ok(AnyFluidLaw::$variant(law)),
                        None => Err(format!(
                            "\"{name}\" has no fluid law (the fluid engine knows: {})",
                            fluid_names().join(", ")
                        )),
                    };
                }
            )*
            Err(unknown(name))
        }

        /// The names (aliases included) whose algorithm has a rate form.
        pub fn fluid_names() -> Vec<&'static str> {
            let empty = toml::value::Table::new();
            let mut names = Vec::new();
            $(
                let canonical = <$algo as Algorithm>::NAMES[0];
                let cfg = <$algo as Algorithm>::config(&mut Params::new(canonical, &empty, Profile::Ns2));
                if cfg.ok().and_then(|c| <$algo as Algorithm>::fluid(&c)).is_some() {
                    names.extend_from_slice(<$algo as Algorithm>::NAMES);
                }
            )*
            names
        }

        /// The rate form of any registered algorithm (enum dispatch).
        #[derive(Clone, Debug)]
        pub enum AnyFluidLaw {
            $($variant(<$algo as Algorithm>::Fluid),)*
        }

        impl FluidLaw for AnyFluidLaw {
            #[inline]
            fn start(&mut self, t: f64, rtt: f64) {
                match self { $(AnyFluidLaw::$variant(l) => l.start(t, rtt),)* }
            }
            #[inline]
            fn grow(&mut self, w: f64, t: f64, rtt: f64, dt: f64) -> f64 {
                match self { $(AnyFluidLaw::$variant(l) => l.grow(w, t, rtt, dt),)* }
            }
            #[inline]
            fn on_loss(&mut self, w: f64, t: f64) -> f64 {
                let w_new = match self { $(AnyFluidLaw::$variant(l) => l.on_loss(w, t),)* };
                fluid_loss_floor(w_new, w)
            }
            #[inline]
            fn on_exit_slow_start(&mut self, w: f64, t: f64) {
                match self { $(AnyFluidLaw::$variant(l) => l.on_exit_slow_start(w, t),)* }
            }
            #[inline]
            fn observe_rtt(&mut self, rtt: f64) {
                match self { $(AnyFluidLaw::$variant(l) => l.observe_rtt(rtt),)* }
            }
        }
    };
}

registry! {
    Reno => reno::Reno,
    HighSpeed => highspeed::HighSpeed,
    Scalable => scalable::Scalable,
    Bic => bic::Bic,
    Cubic => cubic::Cubic,
    Htcp => htcp::Htcp,
    Vegas => vegas::Vegas,
    Compound => compound::Compound,
    Fast => fast::Fast,
    Illinois => illinois::Illinois,
    Xcp => xcp::Xcp,
    Dctcp => dctcp::Dctcp,
    Prague => prague::Prague,
    Bbr => bbr::Bbr,
    Bbr3 => bbr3::Bbr3,
}

fn unknown(name: &str) -> String {
    let known: Vec<&str> = KNOWN.iter().flat_map(|n| n.iter().copied()).collect();
    format!(
        "unknown congestion control \"{name}\" (known: {})",
        known.join(", ")
    )
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;
    use crate::units::Time;

    pub fn state(cwnd: f64, ssthresh: f64) -> Window {
        Window::new(cwnd, ssthresh)
    }

    /// An ACK of `acked` segments carrying the sample `rtt` (also the minimum, or
    /// `srtt` without a sample).
    pub fn ack_at(now: Time, acked: u64, rtt: Option<Time>, srtt: Time) -> Ack {
        Ack {
            rtt: RttStats {
                latest: rtt,
                srtt,
                min: rtt.unwrap_or(srtt),
            },
            cwnd_limited: true,
            ..Ack::new(now, acked as f64)
        }
    }

    pub fn cong(now: Time, kind: CongestionKind, in_flight: u64) -> Congestion {
        Congestion::new(now, kind, in_flight as f64)
    }

    /// A round (sender Open) whose every sample equals `rtt`.
    pub fn round(now: Time, rtt: Time, base: Time) -> Round {
        Round {
            samples: 1,
            min_rtt: Some(rtt),
            mean_rtt: Some(rtt),
            rtt: RttStats {
                latest: Some(rtt),
                srtt: rtt,
                min: base,
            },
            ..Round::new(now)
        }
    }

    /// Deliver one window of single-segment ACKs (one RTT's worth) spread evenly over
    /// the RTT, each with the sample `rtt` and base RTT `base`, then close the round.
    pub fn one_rtt(
        cc: &mut dyn CongestionControl,
        w: &mut Window,
        now: &mut Time,
        rtt: Time,
        base: Time,
    ) {
        let n = w.cwnd.floor().max(1.0) as u64;
        let step = Time(rtt.ps() / n);
        for _ in 0..n {
            *now += step;
            let mut a = ack_at(*now, 1, Some(rtt), rtt);
            a.rtt.min = base;
            cc.on_ack(w, &a);
        }
        let mut r = round(*now, rtt, base);
        r.samples = n as u32;
        r.delivered = n as f64;
        cc.on_round(w, &r);
    }

    pub fn table(src: &str) -> toml::value::Table {
        toml::from_str(src).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::table;
    use super::*;

    #[test]
    fn every_known_name_builds_with_defaults() {
        for n in KNOWN.iter().flat_map(|n| n.iter()) {
            let a =
                build(n, &Default::default(), Profile::Ns2).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(a.name(), KNOWN.iter().find(|k| k.contains(n)).unwrap()[0]);
        }
    }

    #[test]
    fn parameters_override_and_errors_name_the_key() {
        assert!(build("fast", &table("alpha = 200"), Profile::Ns2).is_ok());
        assert!(build("fast", &table("alpha = 50.5\ngamma = 0.3"), Profile::Ns2).is_ok());
        let e = build("fast", &table("alfa = 1"), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("alfa:"), "{e}");
        let e = build("cubic", &table("beta = -0.5"), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("beta:"), "{e}");
        let e = build("vegas", &table("alpha = \"two\""), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("alpha:"), "{e}");
        let e = build("bic", &table("fast_convergence = 1"), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("fast_convergence:"), "{e}");
        let e = build("reno", &table("beta = 0.5"), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("beta:"), "{e}");
        let e = build("warp", &Default::default(), Profile::Ns2)
            .err()
            .unwrap();
        assert!(
            e.contains("known: reno, newreno, highspeed, hstcp")
                && e.ends_with("prague, bbr, bbr1, bbr3)"),
            "{e}"
        );
        // The fluid constructor reads the same parameters with the same checks.
        let e = fluid_law("cubic", &table("beta = 1.5"), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.starts_with("beta:"), "{e}");
        let e = fluid_law("warp", &Default::default(), Profile::Ns2)
            .err()
            .unwrap();
        assert!(e.contains("known:"), "{e}");
    }

    /// XCP (routers set its window), the ECN-driven laws DCTCP and Prague (the fluid
    /// queues do not mark) and BBR v1 and v3 (rate-based models of the path, no loss
    /// law) have no rate form.
    #[test]
    fn only_xcp_dctcp_prague_and_bbr_lack_a_fluid_form() {
        let names = fluid_names();
        for n in KNOWN.iter().flat_map(|n| n.iter()) {
            let law = fluid_law(n, &Default::default(), Profile::Ns2);
            if ["xcp", "dctcp", "prague", "bbr", "bbr1", "bbr3"].contains(n) {
                let e = law.err().unwrap();
                assert!(
                    e.starts_with(&format!(
                        "\"{n}\" has no fluid law (the fluid engine knows: reno,"
                    )),
                    "{e}"
                );
                assert!(!names.contains(n));
            } else {
                assert!(law.is_ok(), "{n}");
                assert!(names.contains(n), "{n}");
            }
        }
    }

    /// RFC 5681 §3.1 + RFC 3465 (L = 2): slow start adds min(acked, 2) up to ssthresh;
    /// what passes ssthresh is left for congestion avoidance.
    #[test]
    fn slow_start_counts_bytes_up_to_l_and_stops_at_ssthresh() {
        let mut w = Window::new(4.0, 10.0);
        assert_eq!(w.slow_start(1.0), 0.0);
        assert_eq!(w.cwnd, 5.0);
        assert_eq!(w.slow_start(5.0), 0.0, "at most L = 2 per ACK");
        assert_eq!(w.cwnd, 7.0);
        w.cwnd = 9.5;
        assert_eq!(w.slow_start(2.0), 1.5);
        assert_eq!(w.cwnd, 10.0);
        assert!(!w.in_slow_start());
        assert_eq!(w.slow_start(3.0), 3.0, "outside slow start all is left");
        w.additive_increase(1.0, 10.0);
        assert_eq!(w.cwnd, 11.0);
    }

    /// The fluid engine's floor on a reduced window (the packet sender's ssthresh ≥ 2).
    #[test]
    fn fluid_loss_is_floored_at_two_and_below_w() {
        let mut l = fluid_law("reno", &Default::default(), Profile::Ns2).unwrap();
        l.start(0.0, 0.1);
        assert_eq!(l.on_loss(100.0, 1.0), 50.0);
        assert_eq!(l.on_loss(3.0, 1.0), 2.0);
        assert_eq!(l.on_loss(1.5, 1.0), 1.5);
    }
}
