//! Latency metrics and dynamic networks (`[[events]]`, flow stops, trace-driven
//! links), each against a closed form: the unloaded RTT, M/M/1 waiting-time
//! percentiles, a trace's opportunities, the integrated capacity of a rate change.

use ccsim::summary::table::Column;
use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}"))
}

fn col(o: &Output, name: &str) -> Vec<f64> {
    match o
        .flows
        .get(name)
        .unwrap_or_else(|| panic!("no column {name}"))
    {
        Column::F64(v) => v.clone(),
        Column::I64(v) => v.iter().map(|&x| x as f64).collect(),
        _ => panic!("{name} is not numeric"),
    }
}

/// One Reno flow that may have one segment in flight (rwnd 1), across a 10 Mb/s
/// bottleneck of 20 ms with 100 Mb/s access links of 5 ms; `topology` adds fields.
fn lone_segment(topology: &str) -> String {
    format!(
        r#"
duration = "20s"
warmup = "2s"
[tcp]
profile = "ns2"
delayed_ack = false
rwnd = "1pkt"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
access_rate = "100Mbps"
access_delay = "5ms"
buffer = "100pkt"
{topology}
[[flows]]
cc = "reno"
"#
    )
}

#[test]
fn a_lone_segment_at_a_time_sees_the_unloaded_rtt() {
    // rwnd = 1 segment: every segment crosses an idle path, so every RTT sample is
    // R = 2·(access + bottleneck + access delays) + one data packet's serialization
    // on each forward link + one ACK's on each reverse link.
    let o = must_run(&lone_segment(""));
    let (data, ack) = (1500.0 * 8.0, 40.0 * 8.0);
    let ser = |bits: f64| 2.0 * bits / 100e6 + bits / 10e6;
    let r = 2.0 * (0.005 + 0.020 + 0.005) + ser(data) + ser(ack);
    let min = col(&o, "rtt_min_s")[0];
    assert!((min - r).abs() < 1e-9, "rtt_min {min}, unloaded RTT {r}");
    for c in ["rtt_mean_s", "rtt_p50_s", "rtt_p95_s", "rtt_p99_s"] {
        let v = col(&o, c)[0];
        // Every sample is R: the mean exactly, the percentiles clamped to [min, max].
        assert!((v - r).abs() < 1e-9, "{c} {v}, unloaded RTT {r}");
    }
}

/// Poisson packets of `size` at `load` through a 10 Mb/s bottleneck with an unbounded
/// buffer (warm-up 20 s); `topology` adds fields.
fn poisson_fifo(duration: &str, topology: &str, load: f64, size: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "20s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "1ms"
buffer = "100000pkt"
{topology}
[[poisson]]
load = {load}
size = {size}
"#
    )
}

#[test]
fn queueing_delay_percentiles_match_mm1() {
    // Poisson packets of exponential size through FIFO: M/M/1 with μ = 1250/s
    // (10 Mb/s, mean 1000 B), ρ = 0.8. The waiting time has P(Wq > t) = ρ·e^{−μ(1−ρ)t},
    // so its q-quantile (q > 1 − ρ) is ln(ρ/(1 − q)) / (μ(1 − ρ)).
    let rho: f64 = 0.8;
    let o = must_run(&poisson_fifo(
        "1000s",
        "",
        rho,
        r#"{ exponential = "1000B" }"#,
    ));
    let bn = &o.summary["links"]["bottleneck"];
    let mu = 1250.0;
    for (key, q) in [
        ("queue_delay_p50_s", 0.5),
        ("queue_delay_p95_s", 0.95),
        ("queue_delay_p99_s", 0.99),
    ] {
        let got = bn[key].as_f64().unwrap();
        let expect = (rho / (1.0 - q)).ln() / (mu * (1.0 - rho));
        // About 800 k waits with a relaxation time of ~70 ms: a few percent of
        // sampling error, plus the histogram's 1/64.
        assert!(
            (got - expect).abs() / expect < 0.06,
            "{key}: {got}, M/M/1 {expect}"
        );
    }
    // The mean from the same waits: ρ/(μ(1 − ρ)).
    let mean = bn["queue_delay_mean_s"].as_f64().unwrap();
    let expect = rho / (mu * (1.0 - rho));
    assert!(
        (mean - expect).abs() / expect < 0.06,
        "mean {mean}, {expect}"
    );
    assert!(bn["queue_delay_max_s"].as_f64().unwrap() >= bn["queue_delay_p99_s"].as_f64().unwrap());
}

/// A Mahimahi trace: in millisecond k = 1..=100 of each period, k mod 3 opportunities.
fn trace_text() -> String {
    let mut s = String::new();
    for k in 1..=100u32 {
        for _ in 0..k % 3 {
            s.push_str(&format!("{k}\n"));
        }
    }
    s
}

/// Opportunities stamped in (a, b] ms of the repeating trace.
fn opportunities(a: u64, b: u64) -> u64 {
    (a + 1..=b)
        .map(|t| {
            let k = (t - 1) % 100 + 1;
            k % 3
        })
        .sum()
}

/// A scratch directory of this test process, removed (with what the test wrote in
/// it) when the guard drops, also when the test fails.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_trace(name: &str) -> (Scratch, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("ccsim-dynamic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, trace_text()).unwrap();
    (Scratch(dir), p)
}

#[test]
fn a_trace_driven_link_delivers_its_opportunities() {
    let (_scratch, path) = write_trace("pattern.mahimahi");
    // UDP packets of 1500 B (one opportunity each) at 30 Mb/s, above the trace's
    // 12 Mb/s mean: the transmitter never idles in the window [2 s, 10 s].
    let o = must_run(&format!(
        r#"
duration = "10s"
warmup = "2s"
[topology]
kind = "dumbbell"
bottleneck_rate = {{ trace = "{}" }}
bottleneck_delay = "10ms"
access_rate = "1Gbps"
buffer = "2000pkt"
[[poisson]]
rate = "30Mbps"
size = "1500B"
"#,
        path.display()
    ));
    let bn = &o.summary["links"]["bottleneck"];
    let opp = opportunities(2000, 10000) as f64;
    let tx = bn["tx_pkts"].as_f64().unwrap();
    // Packets whose transmission started in the window: the opportunities, within
    // the one in progress at either end.
    assert!(
        (tx - opp).abs() <= 1.0,
        "sent {tx} packets, {opp} opportunities"
    );
    let cap = bn["capacity_bps"].as_f64().unwrap() * 8.0;
    assert!(
        (cap - opp * 1500.0 * 8.0).abs() < 1e-6 * cap,
        "capacity {cap} bit"
    );
    let u = bn["utilization"].as_f64().unwrap();
    assert!(
        (u - 1.0).abs() < 1e-9,
        "a saturated trace link: utilization {u}"
    );
    // The mean rate of the trace: 100 opportunities of 1500 B per 100 ms.
    assert_eq!(bn["rate_bps"].as_f64().unwrap(), 12e6);
}

#[test]
fn a_rate_change_halfway_counts_the_capacity_offered() {
    // 10 Mb/s for 10 s of the window, then 5 Mb/s for 10 s: 150 Mbit offered, a
    // mean capacity of 7.5 Mb/s; a saturated link uses all of it.
    let o = must_run(
        r#"
duration = "21s"
warmup = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_rate = "1Gbps"
buffer = "2000pkt"
[[poisson]]
rate = "20Mbps"
size = "1500B"
[[events]]
at = "11s"
link = "bottleneck"
rate = "5Mbps"
"#,
    );
    let bn = &o.summary["links"]["bottleneck"];
    let cap = bn["capacity_bps"].as_f64().unwrap();
    assert!((cap - 7.5e6).abs() < 1e-6, "capacity {cap}");
    let u = bn["utilization"].as_f64().unwrap();
    // Within the packet in transmission at the change (1.2 ms of 20 s).
    assert!((u - 1.0).abs() < 1e-4, "utilization {u}");
    let thr = bn["throughput_bps"].as_f64().unwrap();
    assert!((thr - 7.5e6).abs() / 7.5e6 < 1e-3, "throughput {thr}");
    assert_eq!(bn["rate_bps"].as_f64().unwrap(), 5e6);
}

#[test]
fn a_rate_change_in_the_fluid_engine() {
    let o = must_run(
        r#"
engine = "fluid"
duration = "60s"
warmup = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
count = 4
cc = "reno"
rtt = "50ms"
[[events]]
at = "35s"
link = "bottleneck"
rate = "10Mbps"
"#,
    );
    let bn = &o.summary["links"]["bottleneck"];
    let cap = bn["capacity_bps"].as_f64().unwrap();
    // 20 Mb/s for 25 s, 10 Mb/s for 25 s (to the integration step).
    assert!((cap - 15e6).abs() / 15e6 < 1e-3, "capacity {cap}");
    let u = bn["utilization"].as_f64().unwrap();
    assert!(u <= 1.0 + 1e-9 && u > 0.9, "utilization {u}");
}

/// Two groups; `b` stops at 5 s (by `flows[1].stop`, or by an event).
fn stopping(engine: &str, by_event: bool) -> Output {
    let (stop, event) = if by_event {
        (
            "",
            "[[events]]\nat = \"5s\"\ngroup = \"b\"\naction = \"stop\"\n",
        )
    } else {
        ("stop = \"5s\"\n", "")
    };
    must_run(&format!(
        r#"
engine = "{engine}"
duration = "12s"
warmup = "6s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "a"
cc = "reno"
rtt = "60ms"
[[flows]]
name = "b"
cc = "reno"
rtt = "60ms"
{stop}{event}"#
    ))
}

#[test]
fn a_stopped_group_sends_nothing_after_its_stop() {
    for engine in ["packet", "fluid"] {
        for by_event in [false, true] {
            let o = stopping(engine, by_event);
            let bytes = col(&o, "bytes_delivered");
            // The window starts 1 s (many RTTs) after the stop: nothing of b's is
            // even in flight.
            assert_eq!(bytes[1], 0.0, "{engine}: b delivered {} B", bytes[1]);
            assert!(bytes[0] > 0.0, "{engine}: a delivered nothing");
        }
    }
    // Packet engine: b's sender puts no packet on its access link after the stop.
    let o = run(&stopping_text(), &["output.links=\"all\"".into()]).unwrap();
    let up = &o.summary["links"]["flow1.src_up"];
    assert_eq!(up["tx_pkts"].as_f64().unwrap(), 0.0, "{up}");
    assert!(
        o.summary["links"]["flow0.src_up"]["tx_pkts"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

// The window opens 10 ms after the stop: a skb handed to the access link just before it
// may still be serializing at the stop (a pair's second segment, 0.12 ms at 100 Mb/s).
fn stopping_text() -> String {
    r#"
duration = "12s"
warmup = "5.01s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "a"
cc = "reno"
[[flows]]
name = "b"
cc = "reno"
stop = "5s"
"#
    .into()
}

#[test]
fn a_group_started_by_an_event_starts_then() {
    let o = must_run(
        r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "late"
cc = "reno"
start = "1s"
[[events]]
at = "4s"
group = "late"
action = "start"
"#,
    );
    // The event's time plus the group's own start.
    assert_eq!(col(&o, "start_s")[0], 5.0);
}

#[test]
fn a_delay_change_shows_in_the_rtt() {
    // The forward bottleneck's one-way delay goes from 10 ms to 50 ms at 5 s (the
    // reverse direction is another link, unchanged): every RTT sample in the window
    // [6 s, 12 s] is at least 40 ms above the configured path's.
    let sc = |event: bool| {
        let ev = if event {
            "[[events]]\nat = \"5s\"\nlink = \"bottleneck\"\ndelay = \"50ms\"\n"
        } else {
            ""
        };
        must_run(&format!(
            r#"
duration = "12s"
warmup = "6s"
[tcp]
rwnd = "4pkt"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
cc = "reno"
rtt = "60ms"
{ev}"#
        ))
    };
    let (before, after) = (sc(false), sc(true));
    let prop = col(&before, "rtt_prop_s")[0];
    let min0 = col(&before, "rtt_min_s")[0];
    let min1 = col(&after, "rtt_min_s")[0];
    assert!(
        min0 >= prop && min0 < prop + 0.01,
        "no event: rtt_min {min0}, prop {prop}"
    );
    assert!(
        min1 >= prop + 0.04 && min1 < prop + 0.05,
        "after the change: rtt_min {min1}, prop {prop}"
    );
}

/// A 10 s run on a 10 Mb/s, 10 ms dumbbell with a BDP buffer, no flows yet: the base
/// of the error tests.
const SMALL_DUMBBELL: &str = r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
"#;

#[test]
fn event_errors_name_the_field() {
    let base = format!("{SMALL_DUMBBELL}[[flows]]\nname = \"a\"\ncc = \"reno\"\n");
    let bad = |events: &str, path: &str| {
        let e = run(&format!("{base}{events}"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(path), "{e}");
    };
    bad(
        "[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\nrate = \"1Mbps\"\n[[events]]\nat = \"2s\"\nlink = \"x\"\nrate = \"1Mbps\"\n",
        "events[1].link: no link named \"x\"",
    );
    bad(
        "[[events]]\nat = \"1s\"\ngroup = \"zz\"\naction = \"stop\"\n",
        "events[0].group: no flow group",
    );
    bad(
        "[[events]]\nat = \"1s\"\ngroup = \"a\"\n",
        "events[0].action: missing",
    );
    bad(
        "[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\n",
        "events[0].link: nothing to change",
    );
    bad(
        "[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\nbuffer = \"bdp\"\n",
        "events[0].buffer:",
    );
    bad(
        "[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\nloss = 1.5\n",
        "events[0].loss:",
    );
    bad(
        "[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\nspeed = 1\n",
        "events[0]",
    );
    // The fluid engine refuses what it cannot model, naming it.
    let e = run(
        &format!("{base}[[events]]\nat = \"1s\"\nlink = \"bottleneck\"\ndelay = \"5ms\"\n"),
        &["engine=\"fluid\"".into()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("events[0].delay"), "{e}");
}

#[test]
fn a_buffer_change_limits_the_queue() {
    // A 2000-packet buffer cut to 20 packets at 5 s: after it the queue never
    // holds more than 20 (the window starts once the excess has drained).
    let o = must_run(
        r#"
duration = "20s"
warmup = "8s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_rate = "1Gbps"
buffer = "2000pkt"
[[poisson]]
rate = "20Mbps"
size = "1500B"
[[events]]
at = "5s"
link = "bottleneck"
buffer = "20pkt"
"#,
    );
    let bn = &o.summary["links"]["bottleneck"];
    assert_eq!(bn["queue_max_pkts"].as_f64().unwrap(), 20.0);
    assert_eq!(bn["buffer"], "20pkt");
}

#[test]
fn fluid_delays_lie_between_propagation_and_a_full_buffer() {
    // 20 Mb/s with a 100-packet buffer: a queueing delay of at most qmax/C = 60 ms.
    // Every RTT sample lies in [prop, prop + qmax/C], every queueing delay in
    // [0, qmax/C].
    let o = must_run(
        r#"
engine = "fluid"
duration = "60s"
warmup = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
buffer = "100pkt"
[[flows]]
count = 4
cc = "reno"
rtt = "100ms"
"#,
    );
    let bn = &o.summary["links"]["bottleneck"];
    let qmax = 100.0 * 1500.0 * 8.0 / 20e6; // 60 ms
    let p99 = bn["queue_delay_p99_s"].as_f64().unwrap();
    let max = bn["queue_delay_max_s"].as_f64().unwrap();
    assert!(
        p99 > 0.0 && p99 <= max && max <= qmax + 1e-9,
        "p99 {p99}, max {max}"
    );
    let prop = col(&o, "rtt_prop_s");
    for (k, c) in ["rtt_min_s", "rtt_p50_s", "rtt_p99_s"].iter().enumerate() {
        for (i, v) in col(&o, c).iter().enumerate() {
            // 1/64 of histogram error on the percentiles.
            let tol = if k == 0 { 1e-9 } else { v / 64.0 };
            assert!(
                *v >= prop[i] - tol && *v <= prop[i] + qmax + tol,
                "flow {i} {c} {v}, prop {}",
                prop[i]
            );
        }
    }
}

#[test]
fn a_shaped_bottleneck_releases_each_packet_whole() {
    // The lone-segment path of `a_lone_segment_at_a_time_sees_the_unloaded_rtt` with a
    // token bucket in place of the forward bottleneck's transmitter: the data packet
    // leaves the bucket whole, so the unloaded RTT loses exactly its serialization
    // there (the ACK's reverse link still serializes).
    let o = must_run(&lone_segment(r#"shaper = { burst = "3000B" }"#));
    let (data, ack) = (1500.0 * 8.0, 40.0 * 8.0);
    let r = 2.0 * (0.005 + 0.020 + 0.005) + 2.0 * data / 100e6 + (2.0 * ack / 100e6 + ack / 10e6);
    let min = col(&o, "rtt_min_s")[0];
    assert!((min - r).abs() < 1e-9, "rtt_min {min}, unloaded RTT {r}");
}

#[test]
fn a_shaper_without_burst_queues_as_m_d_1() {
    // Poisson arrivals of 1500-byte packets at ρ = 0.8 of 10 Mb/s. With no burst a packet
    // leaves when the previous one's tokens are paid, D = 1.2 ms after it: the same
    // recursion as a serializing FIFO's start times, so the wait is M/D/1's,
    // Pollaczek-Khinchine's ρD / (2(1 − ρ)) on average. A bucket of two packets lets
    // packets that find it full skip that wait: less waiting, the same throughput.
    let run_with = |shaper: &str| must_run(&poisson_fifo("400s", shaper, 0.8, r#""1500B""#));
    let (rho, d) = (0.8, 1500.0 * 8.0 / 10e6);
    let expect = rho * d / (2.0 * (1.0 - rho));
    let mean = |o: &Output| {
        o.summary["links"]["bottleneck"]["queue_delay_mean_s"]
            .as_f64()
            .unwrap()
    };
    let util = |o: &Output| {
        o.summary["links"]["bottleneck"]["utilization"]
            .as_f64()
            .unwrap()
    };
    let flat = run_with("shaper = { burst = \"0B\" }");
    // About 250 k waits with a relaxation time of ~25 D: a few percent of sampling error.
    assert!(
        (mean(&flat) - expect).abs() / expect < 0.05,
        "mean wait {}, M/D/1 {expect}",
        mean(&flat)
    );
    let wire = run_with("");
    assert!(
        (mean(&wire) - mean(&flat)).abs() < 1e-12,
        "serializing {} vs shaped {}",
        mean(&wire),
        mean(&flat)
    );
    let bucket = run_with("shaper = { burst = \"3000B\" }");
    assert!(
        mean(&bucket) < 0.8 * mean(&flat),
        "{} vs {}",
        mean(&bucket),
        mean(&flat)
    );
    for o in [&flat, &wire, &bucket] {
        assert!((util(o) - rho).abs() < 0.01, "utilization {}", util(o));
    }
}

#[test]
fn shaper_errors_name_the_field() {
    let base = SMALL_DUMBBELL;
    let flows = "[[flows]]\ncc = \"reno\"\n";
    let err = |text: String, set: &[String]| run(&text, set).unwrap_err().to_string();
    let e = err(
        format!("{base}shaper = {{ burst = \"-3B\" }}\n{flows}"),
        &[],
    );
    assert!(e.contains("topology.shaper.burst"), "{e}");
    let e = err(
        format!("{base}shaper = {{ burst = \"3000B\", rate = \"1Mbps\" }}\n{flows}"),
        &[],
    );
    assert!(e.contains("topology.shaper") && e.contains("rate"), "{e}");
    let e = err(
        format!("{base}shaper = {{ burst = \"3000B\" }}\n{flows}"),
        &["engine=\"fluid\"".into()],
    );
    assert!(e.contains("topology.shaper"), "{e}");
    let traced = base.replace(
        "bottleneck_rate = \"10Mbps\"",
        "bottleneck_rate = { trace = \"cell.mahimahi\" }",
    );
    let e = err(
        format!("{traced}shaper = {{ burst = \"3000B\" }}\n{flows}"),
        &[],
    );
    assert!(
        e.starts_with("topology.shaper: a shaper needs a constant"),
        "{e}"
    );
    let graph = r#"
duration = "10s"
[topology]
kind = "graph"
buffer = "100pkt"
nodes = ["a", "b"]
"#;
    let e = err(
        format!(
            "{graph}links = [{{ from = \"a\", to = \"b\", rate = \"10Mbps\", delay = \"5ms\", duplex = false, reverse_shaper = {{ burst = \"0B\" }} }}]\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\ncc = \"reno\"\n"
        ),
        &[],
    );
    assert!(e.starts_with("topology.links[0].reverse_shaper"), "{e}");
}

#[test]
fn a_graph_link_takes_a_shaper_per_direction() {
    // Two nodes, one duplex 10 Mb/s link of 20 ms: shaping the forward direction removes
    // the data packet's serialization from the unloaded RTT, shaping the reverse one the
    // ACK's as well.
    let rtt = |shapers: &str| {
        let o = must_run(&format!(
            r#"
duration = "10s"
warmup = "1s"
[tcp]
profile = "ns2"
delayed_ack = false
rwnd = "1pkt"
[topology]
kind = "graph"
buffer = "100pkt"
nodes = ["a", "b"]
links = [{{ from = "a", to = "b", rate = "10Mbps", delay = "20ms"{shapers} }}]
[[flows]]
src = "a"
dst = "b"
cc = "reno"
"#
        ));
        col(&o, "rtt_min_s")[0]
    };
    let (data, ack) = (1500.0 * 8.0 / 10e6, 40.0 * 8.0 / 10e6);
    let none = rtt("");
    assert!((none - (0.040 + data + ack)).abs() < 1e-9, "{none}");
    let fwd = rtt(r#", shaper = { burst = "3000B" }"#);
    assert!((fwd - (0.040 + ack)).abs() < 1e-9, "{fwd}");
    let both = rtt(r#", shaper = { burst = "3000B" }, reverse_shaper = { burst = "0B" }"#);
    assert!((both - 0.040).abs() < 1e-9, "{both}");
}

#[test]
fn bottleneck_jitter_adds_its_delay_both_ways_and_runs_in_the_packet_engine_only() {
    let flows = "[[flows]]\ncc = \"reno\"\n";
    let rtt_min = |jitter: &str| {
        let o = run(&format!("{SMALL_DUMBBELL}{jitter}\n{flows}"), &[]).unwrap();
        o.flows.f64("rtt_min_s").unwrap()[0]
    };
    // A fixed 2 ms on each bottleneck link lengthens every round trip by exactly 4 ms.
    let plain = rtt_min("");
    let fixed = rtt_min("bottleneck_jitter = \"2ms\"");
    assert!((fixed - plain - 4e-3).abs() < 1e-6, "{plain} -> {fixed}");
    // A spread whose least value is 0: the least RTT comes back towards the path's.
    let spread = rtt_min("bottleneck_jitter = { uniform = [\"0ms\", \"2ms\"] }");
    assert!(
        spread > plain && spread < plain + 0.5e-3,
        "{plain} -> {spread}"
    );
    let err = |text: String, set: &[String]| run(&text, set).unwrap_err().to_string();
    let e = err(
        format!("{SMALL_DUMBBELL}bottleneck_jitter = \"2ms\"\n{flows}"),
        &["engine=\"fluid\"".into()],
    );
    assert!(e.contains("topology.bottleneck_jitter"), "{e}");
    let e = err(
        format!(
            "{SMALL_DUMBBELL}bottleneck_jitter = {{ quantiles = [[0, \"1ms\"], [0.5, \"2ms\"]] }}\n{flows}"
        ),
        &[],
    );
    assert!(
        e.contains("topology.bottleneck_jitter") && e.contains("from 0 to 1"),
        "{e}"
    );
    let graph = "duration = \"10s\"\n[topology]\nkind = \"graph\"\nbuffer = \"100pkt\"\nnodes = [\"a\", \"b\"]\nbottleneck_jitter = \"1ms\"\nlinks = [{ from = \"a\", to = \"b\", rate = \"10Mbps\", delay = \"5ms\" }]\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\ncc = \"reno\"\n";
    let e = err(graph.into(), &[]);
    assert!(e.contains("bottleneck_jitter"), "{e}");
}
