//! Pacing as study 001 §5.1 (Aggarwal, Savage, Anderson) shows it: one flow in slow
//! start with a buffer of BDP/4. Without pacing, slow start sends two packets per ACK
//! at the access rate, so the queue grows by one packet per ACK and overflows when the
//! window is about twice the buffer. Paced, the flow sends at cwnd/RTT and queues only
//! once that exceeds the link rate: the first drop comes at about BDP + buffer.

use ccsim::run;

fn one_flow(pacing: &str, duration: &str, warmup: &str) -> ccsim::Output {
    // 10 Mb/s × 100 ms = 83.3 packets of 1500 B; buffer 0.25 BDP = 21 packets.
    let sc = format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "40ms"
access_rate = "40Mbps"
access_delay = "5ms"
buffer = "0.25bdp"
[[flows]]
cc = "reno"
tcp = {{ init_ssthresh = 100000, pacing = "{pacing}" }}
"#
    );
    let o = run(&sc, &[]).unwrap();
    assert_eq!(o.summary["conservation"]["ok"], true);
    o
}

#[test]
fn unpaced_slow_start_overflows_at_twice_the_buffer_paced_at_bdp_plus_buffer() {
    let bdp: f64 = 10e6 * 0.1 / 8.0 / 1500.0;
    let buffer = (0.25 * bdp).round();
    // The window in use: segments in flight when the first packet is dropped.
    let np = one_flow("none", "10s", "0s");
    let p = one_flow("leaky", "10s", "0s");
    let w_np = np.flows.f64("flight_at_first_drop").unwrap()[0];
    let w_p = p.flows.f64("flight_at_first_drop").unwrap()[0];
    // The paced cwnd runs ahead of what is in flight: while the queue fills, cwnd
    // grows by C per second and the excess rate (cwnd − BDP)/RTT fills B when
    // cwnd − BDP = √(2·B·BDP).
    let cwnd_p = p.flows.f64("cwnd_at_first_drop").unwrap()[0];
    let fluid = bdp + (2.0 * buffer * bdp).sqrt();
    assert!(
        (cwnd_p - fluid).abs() / fluid < 0.1,
        "paced cwnd at first drop {cwnd_p}, fluid model {fluid}"
    );
    // "About twice the buffer": the queue grows one packet per ACK from an empty
    // start, so the drop comes between 1.5 and 3 buffers of window.
    assert!(
        w_np >= 1.5 * buffer && w_np <= 3.0 * buffer,
        "unpaced: first drop at cwnd {w_np}, buffer {buffer}"
    );
    // "Once it fills the pipe": within 15 % of BDP + buffer (packets sent in the
    // last pacing interval before the drop, and the one-packet granularity).
    let target = bdp + buffer;
    assert!(
        (w_p - target).abs() / target < 0.15,
        "paced: first drop at cwnd {w_p}, BDP + B = {target}"
    );
    assert!(w_p > 1.5 * w_np);
}

#[test]
fn paced_departures_are_never_back_to_back_in_congestion_avoidance() {
    let paced = one_flow("leaky", "60s", "20s");
    let unpaced = one_flow("none", "60s", "20s");
    let b2b = |o: &ccsim::Output| match o.flows.get("back_to_back").unwrap() {
        ccsim::summary::table::Column::I64(v) => v[0],
        _ => unreachable!(),
    };
    // Unpaced Reno sends two packets on every ACK that grows the window by one
    // and bursts after each recovery: back-to-back pairs are common.
    assert!(
        b2b(&unpaced) > 10,
        "unpaced back-to-back sends: {}",
        b2b(&unpaced)
    );
    assert_eq!(b2b(&paced), 0, "paced back-to-back sends");
}
