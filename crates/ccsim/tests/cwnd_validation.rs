//! `tcp.cwnd_validation` (RFC 7661 spirit, Linux `tcp_is_cwnd_limited`): an ACK that
//! was not cwnd-limited does not let the window grow. On in the linux profile, off in
//! ns2 (ns-2 never gates), where a receive-window-limited flow's cwnd keeps growing
//! without bound. The scenarios pin the ns2 profile and set the option explicitly.

use ccsim::{run, Output};

/// One flow over 100 Mb/s with a 20 ms RTT (BDP 167 packets, no loss) whose receive
/// window is 20 segments: it can never have more than 20 in flight.
fn rwnd_limited(validation: bool, init_ssthresh: f64, cc: &str) -> Output {
    let o = run(
        &format!(
            r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
access_delay = "2.5ms"
buffer = "bdp"
[tcp]
profile = "ns2"
rwnd = "20pkt"
init_ssthresh = {init_ssthresh}
cwnd_validation = {validation}
[[flows]]
cc = "{cc}"
"#
        ),
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        o.get("links.bottleneck.drops"),
        0.0,
        "the path must not lose"
    );
    o
}

fn cwnd(o: &Output) -> f64 {
    o.flows.f64("cwnd_final").unwrap()[0]
}

/// Congestion avoidance: while cwnd < 21 the 20 segments in flight fill ⌊cwnd⌋ = 20,
/// so ACKs are cwnd-limited and cwnd grows; from 21 on they are not, and it stops
/// (at most one more window of ACKs, ≤ 20/21 segment, still sees the last limited
/// window). Without validation it grows by rwnd/cwnd per RTT for ever (ns-2): after
/// 500 RTTs, cwnd ≈ √(2·20·500) ≈ 141.
#[test]
fn an_rwnd_limited_window_stops_growing_in_congestion_avoidance() {
    for cc in ["newreno", "cubic", "htcp"] {
        let gated = cwnd(&rwnd_limited(true, 10.0, cc));
        eprintln!("{cc}: gated {gated}");
        assert!(
            (21.0..22.0).contains(&gated),
            "{cc}: cwnd {gated} with validation"
        );
        let free = cwnd(&rwnd_limited(false, 10.0, cc));
        eprintln!("{cc}: free {free}");
        assert!(free > 100.0, "{cc}: cwnd {free} without validation");
    }
}

/// Slow start (Linux's rule): an ACK is cwnd-limited while cwnd < 2·(the most
/// segments out in the window), so slow start may double what was used and no more:
/// with 20 out, cwnd stops at 40 (the 20 ACKs of the last limited window add one
/// each), never reaching ssthresh = 64. Without validation it passes 64.
#[test]
fn an_rwnd_limited_slow_start_stops_at_twice_the_flight() {
    let gated = rwnd_limited(true, 64.0, "newreno");
    assert!(
        (40.0..=41.0).contains(&cwnd(&gated)),
        "cwnd {}",
        cwnd(&gated)
    );
    let free = rwnd_limited(false, 64.0, "newreno");
    eprintln!("slow start: gated {}, free {}", cwnd(&gated), cwnd(&free));
    assert!(cwnd(&free) > 64.0, "cwnd {}", cwnd(&free));
}

/// A bulk flow with no receive window and no pacer fills its window after every ACK:
/// every ACK is cwnd-limited and the option changes nothing, losses and recovery
/// included.
#[test]
fn a_window_limited_flow_is_unchanged() {
    for (cc, recovery) in [("newreno", "newreno"), ("cubic", "sack"), ("vegas", "reno")] {
        let sc = |v: bool| {
            format!(
                r#"
duration = "20s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
buffer = "tiny"
[tcp]
profile = "ns2"
cwnd_validation = {v}
[[flows]]
count = 3
cc = "{cc}"
recovery = "{recovery}"
"#
            )
        };
        let (on, off) = (run(&sc(true), &[]).unwrap(), run(&sc(false), &[]).unwrap());
        assert!(off.get("links.bottleneck.drops") > 10.0, "{cc}: no losses");
        for col in ["goodput_bps", "cwnd_final"] {
            assert_eq!(on.flows.f64(col), off.flows.f64(col), "{cc}: {col}");
        }
    }
}

#[test]
fn the_fluid_engine_refuses_the_option() {
    let e = run(
        r#"
engine = "fluid"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
buffer = "bdp"
[tcp]
cwnd_validation = true
[[flows]]
cc = "newreno"
"#,
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("tcp.cwnd_validation") && e.contains("cannot honour"),
        "{e}"
    );
}
