//! The metrics of docs/metrics.md on whole runs whose answer is known in advance
//! (issue 5, validation 4 and the simulation half of validation 1), plus the events
//! table and pcap traces. Closed forms for each metric on hand-made inputs are unit
//! tests beside the code (metrics/*.rs).

use ccsim::run::{run_with_options, RunOptions};
use ccsim::summary::table::Column;
use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    let o = run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}"));
    assert_eq!(o.summary["conservation"]["ok"], true);
    o
}

fn col_f64(o: &Output, name: &str) -> Vec<f64> {
    o.flows
        .f64(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .to_vec()
}

/// One finite flow on an idle 10 Mb/s dumbbell, RTT 2·(10 + 10 + 10) ms = 60 ms
/// (BDP 50 packets), a buffer that never overflows and an ssthresh above the BDP, so
/// that it does what the ideal assumes: slow start up to the whole link.
fn lone_flow(size: &str) -> String {
    format!(
        r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "2000pkt"
[tcp]
profile = "ns2"
init_ssthresh = 100000
[[flows]]
size = "{size}"
"#
    )
}

/// Validation 4: the normalized latency of a flow alone on an idle link that never
/// loses is close to 1, for sizes that end in slow start (1, 10, 40 packets) and
/// ones that mostly run at the full rate (300, 2000 packets). On this deterministic
/// path the ideal's rounds (one unloaded RTT each, packets spaced by the bottleneck's
/// serialization) are what the flow does; the tolerance, 1 %, leaves room for the
/// access links' serialization of the last burst, which the ideal does not model.
#[test]
fn lone_flow_normalized_latency_is_one() {
    for size in ["1pkt", "10pkt", "40pkt", "300pkt", "2000pkt"] {
        let o = must_run(&lone_flow(size));
        let lat = col_f64(&o, "normalized_latency")[0];
        let fct = col_f64(&o, "fct_s")[0];
        let ideal = col_f64(&o, "ideal_latency_s")[0];
        eprintln!("{size}: fct {fct:.6} s, ideal {ideal:.6} s, normalized {lat:.6}");
        assert_eq!(o.get("links.bottleneck.drops"), 0.0);
        assert!((lat - 1.0).abs() < 0.01, "{size}: normalized latency {lat}");
    }
}

/// The same on a bottleneck shaped by a token bucket (`topology.shaper`): the ideal
/// knows that the shaped link releases packets without serializing them, so the
/// normalized latency is still 1 within 1 % (with the serializing ideal it would read
/// low by up to a packet time per round).
#[test]
fn lone_flow_normalized_latency_is_one_through_a_shaper() {
    for size in ["1pkt", "10pkt", "40pkt", "300pkt", "2000pkt"] {
        let text = lone_flow(size).replace(
            "buffer = \"2000pkt\"",
            "buffer = \"2000pkt\"\nshaper = { burst = \"0B\" }",
        );
        assert!(text.contains("shaper"));
        let o = must_run(&text);
        let lat = col_f64(&o, "normalized_latency")[0];
        assert!((lat - 1.0).abs() < 0.01, "{size}: normalized latency {lat}");
    }
}

/// The ideal of a 2000-packet flow is dominated by 2000 packets at the line rate:
/// 2000·1500·8 / 10 Mb/s = 2.4 s plus a handful of slow-start rounds.
#[test]
fn ideal_latency_of_a_long_flow_is_its_transfer_time() {
    let o = must_run(&lone_flow("2000pkt"));
    let ideal = col_f64(&o, "ideal_latency_s")[0];
    // Slow start reaches W = 50 after 6 rounds (63 packets) of 60 ms.
    let expect = 6.0 * 0.0612 + (2000.0 - 63.0) * 1.2e-3 + 0.030;
    assert!((ideal - expect).abs() < 0.01, "{ideal} vs {expect}");
}

/// Two flows held by the same receive window (10 packets, RTT 61.5 ms: 1.95 Mb/s
/// each on a 10 Mb/s link) have the same steady throughput. The reference starts at
/// 0 s, the second at 5.5 s: the 1 s sample ending at 6 s holds half a second of it
/// (< 80 %), the one ending at 7 s is steady (within a 10-packet burst of 100 %):
/// convergence 1.5 s exactly.
#[test]
fn convergence_of_window_limited_flows() {
    let sc = r#"
duration = "12s"
[metrics]
converge_to = "pre"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "1000pkt"
[tcp]
profile = "ns2"
rwnd = "10pkt"
[[flows]]
name = "pre"
[[flows]]
name = "post"
start = "5.5s"
"#;
    let o = must_run(sc);
    let conv = col_f64(&o, "convergence_s");
    assert!(conv[0].is_nan(), "the reference has no convergence time");
    assert!((conv[1] - 1.5).abs() < 1e-9, "convergence {}", conv[1]);
    // Started 1.5 s later, a flow never reaching the reference's 150 %: none.
    let o = run(sc, &["metrics.convergence_fraction=1.5".into()]).unwrap();
    assert!(col_f64(&o, "convergence_s")[1].is_nan());
}

/// A flow whose window (60 packets) exceeds the BDP (51 packets) keeps the link
/// saturated without loss: packets arrive every 1.2 ms, a 100 ms sample holds 83 or 84
/// of them, and the CoV is quantization only (≤ 1/83). A Reno flow on a 10-packet
/// buffer halves its window every few seconds: its 5 s windows are far from constant.
#[test]
fn cov_of_a_saturated_flow_is_quantization_only() {
    let sc = r#"
duration = "22s"
warmup = "2s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "1000pkt"
[tcp]
profile = "ns2"
rwnd = "60pkt"
[[flows]]
"#;
    let o = must_run(sc);
    let cov = col_f64(&o, "cov_mean")[0];
    let Some(Column::I64(n)) = o.flows.get("cov_windows") else {
        panic!()
    };
    // The 5 s windows that start after the 2 s warmup and end by 22 s:
    // [5, 10), [10, 15), [15, 20).
    assert_eq!(n[0], 3);
    assert!(cov < 1.0 / 83.0, "cov {cov}");
    let o = must_run(
        &sc.replace("1000pkt", "10pkt")
            .replace("rwnd = \"60pkt\"", ""),
    );
    let cov_reno = col_f64(&o, "cov_mean")[0];
    eprintln!("saturated {cov:.5}, sawtooth {cov_reno:.4}");
    assert!(cov_reno > 5.0 * cov, "sawtooth cov {cov_reno}");
}

/// A single flow on a small drop-tail buffer: every congestion event at the queue
/// involves the one active flow, so the synchronization is exactly 1; the events
/// table lists every drop the link counted, each in one congestion event whose
/// flows_lost matches its drop rows.
#[test]
fn lone_flow_is_fully_synchronized_and_events_add_up() {
    let sc = r#"
duration = "30s"
[output]
events = true
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "10pkt"
[[flows]]
cc = "newreno"
"#;
    let o = must_run(sc);
    let s = &o.summary["links"]["bottleneck"]["sync"];
    let n_ev = s["events"].as_u64().unwrap();
    assert!(n_ev >= 5, "{s}");
    assert_eq!(s["mean"], 1.0);
    assert_eq!(s["hist"][9].as_u64(), Some(n_ev));
    let ev = o.events.as_ref().expect("events table");
    let Some(Column::Cat(kind, kinds)) = ev.get("kind") else {
        panic!()
    };
    let Some(Column::Cat(link, links)) = ev.get("link") else {
        panic!()
    };
    let Some(Column::I64(event)) = ev.get("event") else {
        panic!()
    };
    let Some(Column::I64(lost)) = ev.get("flows_lost") else {
        panic!()
    };
    let bn = links.iter().position(|n| n == "bottleneck").unwrap() as u8;
    let drop = kinds.iter().position(|n| n == "drop").unwrap() as u8;
    let drops_bn = (0..kind.len())
        .filter(|&i| kind[i] == drop && link[i] == bn)
        .count();
    assert_eq!(drops_bn as f64, o.get("links.bottleneck.drops"));
    let n_cong = kind.iter().filter(|&&k| k != drop).count();
    assert_eq!(
        n_cong as u64, n_ev,
        "warmup 0: every event is in the window"
    );
    for i in 0..kind.len() {
        if kind[i] != drop {
            let rows = (0..kind.len()).filter(|&j| kind[j] == drop && event[j] == event[i]);
            assert!(rows.count() > 0);
            assert_eq!(lost[i], 1);
        }
    }
    let t = ev.f64("time").unwrap();
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "time order");
}

/// `output.links = "all"`: every link reports, and the access link in front of the
/// bottleneck carries the same data packets, so its utilization is the bottleneck's
/// scaled by the rate ratio (the access rate is 10× by default).
#[test]
fn every_link_reports_and_access_carries_what_the_bottleneck_does() {
    let sc = r#"
duration = "10s"
warmup = "2s"
[output]
links = "all"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "bdp"
[[flows]]
"#;
    let o = must_run(sc);
    let links = o.summary["links"].as_object().unwrap();
    assert_eq!(
        links.len(),
        6,
        "two bottleneck directions and four access links"
    );
    let ub = o.get("links.bottleneck.throughput_bps");
    let ua = links["flow0.src_up"]["throughput_bps"].as_f64().unwrap();
    // Equal within the packets in flight between the two at the window's ends.
    assert!((ua / ub - 1.0).abs() < 0.01, "{ua} vs {ub}");
    let u_acc = links["flow0.src_up"]["utilization"].as_f64().unwrap();
    let u_bn = o.get("links.bottleneck.utilization");
    assert!(
        (u_acc * 10.0 / u_bn - 1.0).abs() < 0.02,
        "{u_acc} vs {u_bn}"
    );
}

/// A scratch directory of this test process, removed (with what the run wrote in it)
/// when the guard drops, also when the test fails.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A pcap of the bottleneck holds one record per packet the link transmitted, in
/// time order, each a valid IPv4 header whose TCP sequence numbers are segment × MSS.
#[test]
fn pcap_has_every_transmitted_packet() {
    let dir = std::env::temp_dir().join(format!("ccsim-pcap-{}", std::process::id()));
    let _scratch = Scratch(dir.clone());
    let sc = r#"
duration = "2s"
[output]
pcap = ["bottleneck"]
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "10ms"
buffer = "20pkt"
[[flows]]
count = 2
"#;
    let o = run_with_options(
        sc,
        &[],
        &mut |_| true,
        &RunOptions {
            pcap_dir: Some(dir.clone()),
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert_eq!(o.pcap.len(), 1);
    let bytes = std::fs::read(dir.join("bottleneck.pcap")).unwrap();
    assert_eq!(&bytes[0..4], &0xa1b2_3c4du32.to_le_bytes());
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 101);
    let mut at = 24;
    let (mut n, mut last_t) = (0u64, 0u64);
    while at < bytes.len() {
        let w = |i: usize| u32::from_le_bytes(bytes[at + i..at + i + 4].try_into().unwrap());
        let t = w(0) as u64 * 1_000_000_000 + w(4) as u64;
        assert!(t >= last_t);
        last_t = t;
        let caplen = w(8) as usize;
        let ip = &bytes[at + 16..at + 16 + caplen];
        assert_eq!(ccsim::pcap::checksum(&[&ip[..20]]), 0, "IPv4 checksum");
        assert_eq!(ip[9], 6);
        let seq = u32::from_be_bytes(ip[24..28].try_into().unwrap());
        assert_eq!(seq % 1460, 0);
        at += 16 + caplen;
        n += 1;
    }
    assert_eq!(at, bytes.len());
    assert_eq!(
        n,
        o.summary["links"]["bottleneck"]["tx_pkts"]
            .as_u64()
            .unwrap()
    );
    assert_eq!(n, o.pcap[0].packets);
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad `[metrics]` and `[output]` fields are named.
#[test]
fn errors_name_the_metrics_and_output_fields() {
    let base = lone_flow("10pkt");
    for (set, field) in [
        ("metrics.cov_window=\"5.05s\"", "metrics.cov_window"),
        ("metrics.cov_sample=\"0s\"", "metrics.cov_sample"),
        ("metrics.converge_to=\"nobody\"", "metrics.converge_to"),
        ("output.pcap=[\"nowhere\"]", "output.pcap[0]"),
        ("output.pcap_snaplen=4", "output.pcap_snaplen"),
        ("output.bogus=1", "output"),
    ] {
        let e = run(&base, &[set.to_string()]).unwrap_err().to_string();
        assert!(e.starts_with(field), "{set}: {e}");
    }
}

/// The transient series: per-interval drops at the bottleneck add up to the link's
/// drop count (sampling covers the whole run, no warmup), RTT-normalized fairness is
/// in (0, 1], and every complete 5 s window of each flow has a CoV sample.
#[test]
fn transient_series_add_up() {
    let sc = r#"
duration = "20s"
sample_interval = "500ms"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = { uniform = ["5ms", "40ms"] }
buffer = "15pkt"
[[flows]]
count = 3
"#;
    let o = must_run(sc);
    let s = &o.series;
    let Some(Column::Cat(metric, names)) = s.get("metric") else {
        panic!()
    };
    let Some(Column::Cat(entity, _)) = s.get("entity") else {
        panic!()
    };
    let Some(Column::I32(id)) = s.get("id") else {
        panic!()
    };
    let value = s.f64("value").unwrap();
    let code = |n: &str| names.iter().position(|x| x == n).unwrap() as u8;
    let bn = 0; // the dumbbell's first link
    let rows = |m: &str| {
        let c = code(m);
        (0..value.len()).filter(move |&i| metric[i] == c)
    };
    let drops: f64 = rows("drops")
        .filter(|&i| entity[i] == 0 && id[i] == bn)
        .map(|i| value[i])
        .sum();
    assert!(drops > 0.0);
    assert_eq!(drops, o.get("links.bottleneck.drops"));
    let j: Vec<f64> = rows("jain_rtt")
        .filter(|&i| id[i] == bn)
        .map(|i| value[i])
        .collect();
    assert_eq!(j.len(), 40, "one per 500 ms sample");
    assert!(j.iter().all(|&x| x > 0.0 && x <= 1.0 + 1e-12), "{j:?}");
    // Windows [0, 5) ... [15, 20): four per flow (all start at 0 and never finish).
    assert_eq!(rows("cov").count(), 4 * 3);
    let Some(Column::I64(n)) = o.flows.get("cov_windows") else {
        panic!()
    };
    assert_eq!(n, &vec![4, 4, 4]);
}

/// Same scenario and seed twice: identical events table, flow table and series.
#[test]
fn metrics_are_deterministic() {
    let sc = r#"
duration = "10s"
sample_interval = "1s"
[output]
events = true
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = { uniform = ["5ms", "40ms"] }
buffer = "10pkt"
[[flows]]
count = 4
"#;
    let (a, b) = (must_run(sc), must_run(sc));
    assert!(a.events.as_ref().unwrap().rows() > 0);
    // Compared as text: NaN (a drop row's `sync`) is not equal to itself as f64.
    let same =
        |x: &dyn std::fmt::Debug, y: &dyn std::fmt::Debug| format!("{x:?}") == format!("{y:?}");
    assert!(same(&a.events, &b.events), "events differ");
    assert!(same(&a.flows, &b.flows), "flows differ");
    assert!(same(&a.series, &b.series), "series differ");
    assert_eq!(a.summary["links"], b.summary["links"]);
}

/// With a closed-loop workload (study 001 §5.4: 20 node pairs, one 100-packet flow at
/// a time each) beside one long flow, at most 21 flows are ever active at the queue:
/// every congestion event counts between its losers and 21, and the metrics survive
/// slots that are reused for flow after flow.
#[test]
fn synchronization_counts_workload_instances() {
    let sc = r#"
duration = "20s"
warmup = "2s"
sample_interval = "1s"
[output]
events = true
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_delay = "20ms"
buffer = "0.25bdp"
[[workloads]]
kind = "closed_loop"
nodes = 20
size = "100pkt"
[[flows]]
name = "long"
"#;
    let o = must_run(sc);
    let ev = o.events.as_ref().unwrap();
    let Some(Column::Cat(kind, _)) = ev.get("kind") else {
        panic!()
    };
    let Some(Column::I64(lost)) = ev.get("flows_lost") else {
        panic!()
    };
    let Some(Column::I64(active)) = ev.get("flows_active") else {
        panic!()
    };
    let n = (0..kind.len()).filter(|&i| kind[i] == 1).count();
    assert!(n >= 5, "{n} congestion events");
    for i in (0..kind.len()).filter(|&i| kind[i] == 1) {
        assert!(
            1 <= lost[i] && lost[i] <= active[i] && active[i] <= 21,
            "{} of {}",
            lost[i],
            active[i]
        );
    }
    let s = &o.summary["links"]["bottleneck"]["sync"];
    let mean = s["mean"].as_f64().unwrap();
    assert!(mean > 0.0 && mean <= 1.0, "{s}");
}
