//! Topologies: the general graph, the dumbbell and the parking lot as builders over
//! it (issue 5, validations 3 and 5), routing, and the errors of bad topologies.

use ccsim::run;
use serde_json::Value;

fn summary_without_wall(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut()
        .expect("summary is an object")
        .remove("wall_s");
    v
}

const DUMBBELL: &str = r#"
duration = "6s"
warmup = "2s"
sample_interval = "500ms"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
access_rate = "200Mbps"
buffer = "bdp"
[[flows]]
name = "a"
cc = "newreno"
start = { uniform = ["0s", "1s"] }
rtt = "60ms"
[[flows]]
name = "a"
cc = "newreno"
start = { uniform = ["0s", "1s"] }
rtt = "60ms"
[[flows]]
name = "b"
cc = "reno"
size = "300KB"
start = { uniform = ["0s", "1s"] }
rtt = "100ms"
[[flows]]
name = "back"
direction = "reverse"
start = { uniform = ["0s", "1s"] }
rtt = "60ms"
[[poisson]]
load = 0.1
"#;

/// The same network written as a graph: nodes, then the links in the dumbbell's
/// order (bottleneck, then per flow its sender's and its receiver's access link),
/// access delays (RTT − 2·10 ms)/4, access buffers of the dumbbell's 100 000 packets.
const GRAPH: &str = r#"
duration = "6s"
warmup = "2s"
sample_interval = "500ms"
[tcp]
profile = "ns2"
[topology]
kind = "graph"
nodes = ["left", "right", "a0s", "a0d", "a1s", "a1d", "b0s", "b0d", "k0s", "k0d"]
links = [
  { from = "left", to = "right", rate = "20Mbps", delay = "10ms", buffer = "bdp", name = "bottleneck" },
  { from = "a0s", to = "left", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
  { from = "right", to = "a0d", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
  { from = "a1s", to = "left", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
  { from = "right", to = "a1d", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
  { from = "b0s", to = "left", rate = "200Mbps", delay = "20ms", buffer = "100000pkt", monitor = false },
  { from = "right", to = "b0d", rate = "200Mbps", delay = "20ms", buffer = "100000pkt", monitor = false },
  { from = "k0s", to = "right", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
  { from = "left", to = "k0d", rate = "200Mbps", delay = "10ms", buffer = "100000pkt", monitor = false },
]
[[flows]]
name = "a"
cc = "newreno"
start = { uniform = ["0s", "1s"] }
src = "a0s"
dst = "a0d"
[[flows]]
name = "a"
cc = "newreno"
start = { uniform = ["0s", "1s"] }
src = "a1s"
dst = "a1d"
[[flows]]
name = "b"
cc = "reno"
size = "300KB"
start = { uniform = ["0s", "1s"] }
src = "b0s"
dst = "b0d"
[[flows]]
name = "back"
direction = "reverse"
start = { uniform = ["0s", "1s"] }
src = "k0s"
dst = "k0d"
[[poisson]]
link = "bottleneck"
load = 0.1
"#;

/// Validation 5: a graph equal to a dumbbell gives the same results as the
/// dumbbell builder with the same seed — summary, flow table and series identical.
/// (Each dumbbell flow has its own host pair, so the graph lists one per flow.)
#[test]
fn graph_equal_to_a_dumbbell_reproduces_it() {
    for seed in [1u64, 7] {
        let set = vec![format!("seed={seed}")];
        let d = run(DUMBBELL, &set).expect("dumbbell runs");
        let g = run(GRAPH, &set).expect("graph runs");
        // Not vacuous: traffic flowed, the finite flow finished, a buffer rule resolved.
        assert!(d.get("links.bottleneck.utilization") > 0.5);
        assert_eq!(d.summary["flows"]["completed"], 1);
        assert!(d.get("bdp_bytes") > 0.0);
        assert_eq!(
            summary_without_wall(&d.summary),
            summary_without_wall(&g.summary),
            "seed {seed}"
        );
        assert_eq!(format!("{:?}", d.flows), format!("{:?}", g.flows));
        assert_eq!(format!("{:?}", d.series), format!("{:?}", g.series));
    }
}

/// The parking lot of study 000 §4.4, scaled down: 3 middle links of 20 Mb/s, long
/// flows across all three, cross flows on link 1 and on link 2, one reverse long flow.
const PARKING: &str = r#"
duration = "20s"
warmup = "8s"
[tcp]
profile = "ns2"
[topology]
kind = "parking_lot"
middle_links = 3
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "long"
count = 3
start = { uniform = ["0s", "2s"] }
rtt = { uniform = ["64ms", "100ms"] }
[[flows]]
name = "cross1"
count = 3
span = [1, 1]
start = { uniform = ["0s", "2s"] }
rtt = { uniform = ["24ms", "60ms"] }
[[flows]]
name = "cross2"
count = 3
span = [2, 2]
start = { uniform = ["0s", "2s"] }
rtt = { uniform = ["24ms", "60ms"] }
[[flows]]
name = "long_back"
direction = "reverse"
start = { uniform = ["0s", "2s"] }
rtt = { uniform = ["64ms", "100ms"] }
"#;

/// Validation 3. Cross flows off (their groups pushed past the end of the run):
/// every middle link carries the long flows alone, so the three links send exactly
/// the same data packets. Cross flows on: links 1 and 2 are bottlenecks (saturated,
/// dropping), link 3 carries only the long flows, whose rate is set upstream — it
/// never drops and is clearly less used.
#[test]
fn parking_lot_bottlenecks_follow_the_cross_traffic() {
    let off = run(
        PARKING,
        &[
            "flows[1].start=\"30s\"".into(),
            "flows[2].start=\"30s\"".into(),
        ],
    )
    .expect("runs");
    let u = |o: &ccsim::Output, l: &str| o.get(&format!("links.{l}.utilization_data"));
    let pkts = |o: &ccsim::Output, l: &str| o.get(&format!("links.{l}.tx_pkts"));
    for l in ["link1", "link2", "link3"] {
        assert_eq!(off.get(&format!("links.{l}.flows")), 3.0, "{l}");
    }
    // Same packets through all three (each link forwards what it got; only the first
    // can drop, being the first that the long flows' bursts meet at line rate).
    let (p1, p3) = (pkts(&off, "link1"), pkts(&off, "link3"));
    assert!((p1 - p3).abs() / p1 < 0.01, "link1 {p1} vs link3 {p3}");
    assert_eq!(off.get("links.link2.drops"), 0.0);
    assert_eq!(off.get("links.link3.drops"), 0.0);
    assert!(u(&off, "link1") > 0.6, "the long flows use the chain");

    let on = run(PARKING, &[]).expect("runs");
    for (o, what) in [(&off, "off"), (&on, "on")] {
        eprintln!(
            "parking lot, cross flows {what}: utilization link1 {:.3} link2 {:.3} link3 {:.3}; drops {} {} {}",
            u(o, "link1"), u(o, "link2"), u(o, "link3"),
            o.get("links.link1.drops"), o.get("links.link2.drops"), o.get("links.link3.drops")
        );
    }
    assert_eq!(on.get("links.link1.flows"), 6.0);
    assert_eq!(on.get("links.link2.flows"), 6.0);
    assert_eq!(on.get("links.link3.flows"), 3.0);
    assert_eq!(on.get("links.link3_rev.flows"), 1.0);
    for l in ["link1", "link2"] {
        assert!(u(&on, l) > 0.9, "{l} is a bottleneck: {}", u(&on, l));
        assert!(on.get(&format!("links.{l}.drops")) > 0.0, "{l} drops");
    }
    assert_eq!(
        on.get("links.link3.drops"),
        0.0,
        "link 3 is never the bottleneck"
    );
    assert!(
        u(&on, "link3") < 0.75 * u(&on, "link1"),
        "link3 {} vs link1 {}",
        u(&on, "link3"),
        u(&on, "link1")
    );
}

/// Static routes follow the metric: a direct but slow-to-propagate link wins by
/// hops, the two-hop path wins by delay; traffic appears only on the chosen links.
#[test]
fn graph_routes_by_hops_or_delay() {
    let text = r#"
duration = "2s"
[tcp]
profile = "ns2"
[topology]
kind = "graph"
buffer = "100pkt"
nodes = ["a", "b", "c"]
links = [
  { from = "a", to = "c", rate = "10Mbps", delay = "40ms", name = "direct" },
  { from = "a", to = "b", rate = "10Mbps", delay = "5ms", name = "ab" },
  { from = "b", to = "c", rate = "10Mbps", delay = "5ms", name = "bc" },
]
[[flows]]
src = "a"
dst = "c"
"#;
    let hops = run(text, &[]).expect("runs");
    assert!(hops.get("links.direct.tx_pkts") > 0.0);
    assert_eq!(hops.get("links.ab.tx_pkts"), 0.0);
    assert!(
        hops.get("links.direct_rev.tx_pkts") > 0.0,
        "ACKs come back the same way"
    );
    let delay = run(text, &["topology.routing=\"delay\"".into()]).expect("runs");
    assert_eq!(delay.get("links.direct.tx_pkts"), 0.0);
    assert!(delay.get("links.ab.tx_pkts") > 0.0 && delay.get("links.bc.tx_pkts") > 0.0);
    // The flow's propagation RTT is its route's: 2·40 ms direct, 2·10 ms by delay.
    let rtt = |o: &ccsim::Output| o.flows.f64("rtt_prop_s").expect("column")[0];
    assert!((rtt(&hops) - 0.080).abs() < 1e-9);
    assert!((rtt(&delay) - 0.020).abs() < 1e-9);
}

#[test]
fn bad_topologies_name_the_field() {
    let graph = r#"
duration = "1s"
[tcp]
profile = "ns2"
[topology]
kind = "graph"
buffer = "10pkt"
nodes = ["a", "b"]
links = [{ from = "a", to = "b", rate = "1Mbps", delay = "1ms" }]
[[flows]]
src = "a"
dst = "b"
"#;
    let err = |text: &str, set: &[&str]| {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        run(text, &set).expect_err("must fail").to_string()
    };
    assert!(run(graph, &[]).is_ok());
    let e = err(graph, &["topology.links[0].to=\"z\""]);
    assert!(
        e.starts_with("topology.links[0].to: no node named \"z\""),
        "{e}"
    );
    let e = err(graph, &["flows[0].src=\"q\""]);
    assert!(e.starts_with("flows[0].src: no node named \"q\""), "{e}");
    let e = err(graph, &["topology.links[0].duplex=false"]);
    assert!(e.starts_with("flows[0]: no route"), "{e}");
    let e = err(graph, &["topology.bottleneck_rate=\"1Mbps\""]);
    assert!(
        e.starts_with("topology.bottleneck_rate: not a field of kind = \"graph\""),
        "{e}"
    );
    let e = err(graph, &["flows[0].rtt=\"50ms\""]);
    assert!(e.starts_with("flows[0].rtt: not used in a graph"), "{e}");
    let e = err(graph, &["topology.links[0].rate=\"0Mbps\""]);
    assert!(e.starts_with("topology.links[0].rate:"), "{e}");

    let e = err(PARKING, &["flows[1].span=[2, 4]"]);
    assert!(
        e.starts_with("flows[1].span: expected [first, last] with 1 <= first <= last <= 3"),
        "{e}"
    );
    let e = err(PARKING, &["topology.middle_links=0"]);
    assert!(
        e.starts_with("topology.middle_links: must be at least 1"),
        "{e}"
    );
    let e = err(PARKING, &["flows[1].rtt=\"15ms\""]);
    assert!(
        e.starts_with("flows[1].rtt: an RTT of 0.015s does not exceed"),
        "{e}"
    );
    let e = err(DUMBBELL, &["flows[0].span=[1, 1]"]);
    assert!(
        e.starts_with("flows[0].span: a span of middle links is for kind = \"parking_lot\""),
        "{e}"
    );
    let e = err(DUMBBELL, &["flows[0].src=\"x\""]);
    assert!(
        e.starts_with("flows[0].src: endpoints are for kind = \"graph\""),
        "{e}"
    );
    let no_rate = DUMBBELL.replace("bottleneck_rate = \"20Mbps\"\n", "");
    let e = err(&no_rate, &[]);
    assert!(e.starts_with("topology.bottleneck_rate: missing"), "{e}");
}

/// Every example scenario (docs/scenarios.md points at them) parses, validates and
/// runs; shortened to 2 s so that this stays a smoke test.
#[test]
fn every_example_scenario_runs_briefly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("scenarios/examples exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "{names:?}");
    for p in names {
        let set = ["duration=\"2s\"".to_string(), "warmup=\"0s\"".to_string()];
        // From the file, so that a trace path is taken relative to it.
        let sc = ccsim::scenario::parse_file(&p, &set)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let out = ccsim::run::run_scenario(&sc, &mut |_| true)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(out.summary["conservation"]["ok"], true, "{}", p.display());
        assert!(out.summary["links"]
            .as_object()
            .is_some_and(|l| !l.is_empty()));
    }
}
