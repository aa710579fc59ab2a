//! Validation of the packet engine against theory: the Reno sawtooth, queueing
//! results (M/M/1, M/M/1/K), the Mathis formula, packet conservation, determinism.
//! Every tolerance is justified next to its assertion.

use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    let o = run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}"));
    assert_eq!(
        o.summary["conservation"]["ok"], true,
        "packet conservation: {}",
        o.summary["conservation"]
    );
    o
}

/// One Reno flow on a dumbbell whose bandwidth-delay product is `bdp_pkts` packets
/// of 1500 B (RTT 100 ms), with the given buffer.
fn one_reno(rate: &str, buffer: &str, duration: &str, warmup: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}"
bottleneck_delay = "30ms"
access_rate = "1Gbps"
access_delay = "10ms"
buffer = "{buffer}"
[[flows]]
cc = "reno"
"#
    )
}

/// Utilization of the Reno sawtooth (Mathis et al. 1997; Appenzeller et al. 2004):
/// W grows by one packet per RTT from W_max/2 to W_max = BDP + B; below the BDP the
/// RTT is the propagation RTT and the link is W/BDP busy, above it the queue grows,
/// the RTT is W/C and the link is fully busy. In units of BDP and propagation RTTs.
fn sawtooth_utilization(b: f64) -> f64 {
    let wm = 1.0 + b;
    if wm / 2.0 >= 1.0 {
        return 1.0;
    }
    let t_below = 1.0 - wm / 2.0;
    let u_below = (wm / 2.0 + 1.0) / 2.0;
    let t_above = (wm * wm - 1.0) / 2.0;
    (t_below * u_below + t_above) / (t_below + t_above)
}

#[test]
fn reno_with_a_bdp_buffer_fills_the_link() {
    // 12 Mb/s × 100 ms = 100 packets of 1500 B. With B = BDP the window never falls
    // below the BDP after a loss, so the link never idles in steady state.
    let o = must_run(&one_reno("12Mbps", "bdp", "300s", "30s"));
    let u = o.get("links.bottleneck.utilization");
    assert!(u >= 0.99, "utilization {u}");
}

#[test]
fn reno_with_no_buffer_gets_three_quarters() {
    // A one-packet buffer: the window halves from BDP+1 to about BDP/2, average 3/4.
    // ±3 points covers the discreteness of a 100-packet window and the extra packet.
    let o = must_run(&one_reno("12Mbps", "1pkt", "400s", "40s"));
    let u = o.get("links.bottleneck.utilization");
    assert!((u - 0.75).abs() <= 0.03, "utilization {u}");
}

#[test]
fn reno_follows_the_sawtooth_model_with_small_buffers() {
    for b in [0.25, 0.5] {
        let o = must_run(&one_reno("12Mbps", &format!("{b}bdp"), "400s", "40s"));
        let u = o.get("links.bottleneck.utilization");
        let model = sawtooth_utilization(b);
        // Two points: the model ignores the packets sent during fast recovery and
        // the one-packet granularity of a 100-packet window.
        assert!(
            (u - model).abs() <= 0.02,
            "B = {b} BDP: utilization {u}, model {model}"
        );
    }
}

fn mm1(load: f64, buffer: &str, duration: &str) -> Output {
    must_run(&format!(
        r#"
duration = "{duration}"
warmup = "20s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "1ms"
buffer = "{buffer}"
[[poisson]]
load = {load}
size = {{ exponential = "1000B" }}
"#
    ))
}

#[test]
fn poisson_packets_through_fifo_match_mm1() {
    for rho in [0.5, 0.8, 0.9] {
        // 10 Mb/s, mean 1000 B: μ = 1250 packets/s; 2000 s gives 2.5 M services.
        // The standard error of the time-average number in system at ρ = 0.9 is
        // about 1.3 % of ρ/(1−ρ), so 5 % is about four standard errors.
        let o = mm1(rho, "100000pkt", "2000s");
        let bn = &o.summary["links"]["bottleneck"];
        let u = bn["utilization"].as_f64().unwrap();
        let l = bn["queue_mean_pkts"].as_f64().unwrap() + u;
        let expect = rho / (1.0 - rho);
        assert!(
            (l - expect).abs() / expect < 0.05,
            "ρ = {rho}: mean number in system {l}, M/M/1 {expect}"
        );
        assert!((u - rho).abs() < 0.01, "ρ = {rho}: utilization {u}");
        // P(N ≥ k) = ρ^k.
        let dist: Vec<f64> = bn["occupancy_dist"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        for k in 1..=5usize {
            let p: f64 = dist[k..].iter().sum();
            let expect = rho.powi(k as i32);
            // Tail probabilities near 0.5–0.9 are estimated to well under 3 %.
            assert!(
                (p - expect).abs() / expect < 0.05,
                "ρ = {rho}: P(N ≥ {k}) = {p}, ρ^k = {expect}"
            );
        }
    }
}

#[test]
fn finite_buffer_loss_matches_mm1k() {
    // System capacity K = 10 (9 waiting + 1 in service).
    let (rho, k): (f64, i32) = (0.9, 10);
    let o = mm1(rho, "9pkt", "2000s");
    let p_loss = o.get("links.bottleneck.drop_rate");
    let expect = (1.0 - rho) * rho.powi(k) / (1.0 - rho.powi(k + 1));
    // About 1.1 M arrivals and 55 k losses: the estimate is good to a few percent.
    assert!(
        (p_loss - expect).abs() / expect < 0.10,
        "loss {p_loss}, M/M/1/K {expect}"
    );
}

#[test]
fn reno_over_random_loss_follows_mathis() {
    for (p, dur) in [(1e-3f64, "600s"), (1e-4, "1500s")] {
        // 100 Mb/s never limits a loss-limited window here; the buffer is large.
        let sc = format!(
            r#"
duration = "{dur}"
warmup = "30s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "30ms"
access_rate = "1Gbps"
access_delay = "10ms"
buffer = "2bdp"
loss = {p}
[[flows]]
cc = "reno"
"#
        );
        let o = must_run(&sc);
        let thr = o.get("flows.goodput_bps_total");
        // Mathis et al. 1997: BW = (MSS/RTT)·√(3/2)/√p, RTT = 100 ms propagation.
        let mathis = 1460.0 * 8.0 / 0.1 * (1.5f64).sqrt() / p.sqrt();
        let ratio = thr / mathis;
        // The formula is a periodic-loss approximation; random losses and fast
        // recovery move it by 10–20 %, the issue's tolerance is 25 %.
        assert!(
            (ratio - 1.0).abs() < 0.25,
            "p = {p}: goodput {thr}, Mathis {mathis}, ratio {ratio}"
        );
    }
}

const DETERMINISM: &str = r#"
duration = "20s"
warmup = "2s"
sample_interval = "100ms"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
access_delay = { uniform = ["2ms", "20ms"] }
buffer = "0.5bdp"
[[flows]]
count = 5
cc = "newreno"
start = { uniform = ["0s", "2s"] }
[[flows]]
count = 2
cc = "reno"
direction = "reverse"
[[poisson]]
load = 0.1
size = { exponential = "500B" }
"#;

fn strip_wall(mut o: Output) -> Output {
    o.summary["wall_s"] = serde_json::Value::Null;
    o
}

#[test]
fn same_seed_same_results_other_seed_different() {
    let a = strip_wall(must_run(DETERMINISM));
    let b = strip_wall(must_run(DETERMINISM));
    // Debug formatting compares floats bit for bit (NaN included).
    assert_eq!(a.summary, b.summary);
    assert_eq!(format!("{:?}", a.series), format!("{:?}", b.series));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    let c = strip_wall(run(DETERMINISM, &["seed=2".into()]).unwrap());
    assert_ne!(a.summary, c.summary);
    assert_ne!(format!("{:?}", a.flows), format!("{:?}", c.flows));
}

#[test]
fn finite_flows_complete_and_conserve_packets() {
    let sc = r#"
duration = "30s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "5ms"
buffer = "20pkt"
[[flows]]
count = 8
size = "500KB"
start = { uniform = ["0s", "5s"] }
tcp = { delayed_ack = true }
"#;
    let o = must_run(sc);
    assert_eq!(o.summary["flows"]["completed"], 8);
    let fct = o.flows.f64("fct_s").unwrap();
    // 8 × 500 KB = 32 Mbit over 10 Mb/s needs at least 3.2 s in total; each flow
    // at least one RTT plus its own serialization (0.4 s at full rate).
    assert!(fct.iter().all(|&t| t > 0.4 && t < 30.0), "{fct:?}");
}
