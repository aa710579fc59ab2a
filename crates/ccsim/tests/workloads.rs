//! Dynamic workloads (traffic/): Poisson flow arrivals at an offered load, web-like
//! ON/OFF sources, closed-loop flows; staged flows. Issue 5, validation 2.

use ccsim::engine::World;
use ccsim::run;

/// Study 003's background: finite TCP flows arriving as a Poisson process at load
/// ρ = 0.5 of a 50 Mb/s bottleneck, each capped by its own 1 Mb/s access link.
const POISSON_FLOWS: &str = r#"
duration = "64s"
warmup = "4s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "50Mbps"
bottleneck_delay = "10ms"
buffer = "625pkt"
[metrics]
fair_share_flows = 1   # ideal latency at the 1 Mb/s access rate (see below)
[[workloads]]
kind = "poisson_flows"
load = 0.5
size = { exponential = "15KB" }
access_rate = "1Mbps"
rtt = "40ms"
"#;

/// Validation 2: the offered load, measured from the flow table — payload bytes of
/// the flows that arrived in the window / (capacity · window) — is within 5 % of ρ.
/// About λ·T = 0.5·50e6/(8·15e3)·60 = 12 500 arrivals, so the sampling error of the
/// offered bytes is √(2/12 500) = 1.3 % (exponential sizes): 5 % is 4 standard
/// errors. The bottleneck then carries that load plus the 40-byte headers.
#[test]
fn poisson_flows_offer_the_configured_load() {
    let out = run(POISSON_FLOWS, &[]).expect("runs");
    let wl = &out.summary["workloads"][0];
    assert_eq!(wl["blocked"], 0, "the host pool was large enough");
    let start = out.flows.f64("start_s").expect("start_s");
    let size = out.flows.f64("size_bytes").expect("size_bytes");
    let (warmup, end, capacity) = (4.0, 64.0, 50e6);
    let offered: f64 = start
        .iter()
        .zip(size)
        .filter(|(&s, _)| s >= warmup)
        .map(|(_, &b)| b)
        .sum();
    let rho = offered * 8.0 / (capacity * (end - warmup));
    eprintln!(
        "poisson_flows: offered load {rho:.4} (ρ = 0.5), arrivals {}",
        wl["arrivals"]
    );
    assert!((rho - 0.5).abs() < 0.05 * 0.5, "offered load {rho}");
    // The workload's own count agrees with the table.
    assert!((wl["offered_load"].as_f64().expect("number") - rho).abs() < 1e-12);
    let n = start.iter().filter(|&&s| s >= warmup).count() as f64;
    let expect_n = 0.5 * capacity / (8.0 * 15e3) * (end - warmup);
    assert!((n - expect_n).abs() < 4.0 * expect_n.sqrt(), "{n} arrivals");
    // Carried: the data packets on the wire, (1460 + 40)/1460 of the payload.
    let carried = out.get("links.bottleneck.utilization_data");
    let wire = rho * 1500.0 / 1460.0;
    eprintln!("poisson_flows: carried data utilization {carried:.4}, expected {wire:.4}");
    assert!(
        (carried - wire).abs() < 0.05 * wire,
        "carried {carried} vs {wire}"
    );
    // Every finished flow is reported with an FCT, capped by its 1 Mb/s access link.
    let fct = out.flows.f64("fct_s").expect("fct_s");
    let done: Vec<(f64, f64)> = fct
        .iter()
        .zip(size)
        .filter(|(f, _)| f.is_finite())
        .map(|(&f, &b)| (f, b))
        .collect();
    assert!(done.len() as f64 > 0.99 * start.len() as f64);
    assert!(
        done.iter().all(|&(f, b)| f >= b * 8.0 / 1e6),
        "no flow beats its access link"
    );
    // The flows are access-limited: the bottleneck has 25 Mb/s to spare, so each
    // flow's real bottleneck is its private 1 Mb/s access link. With the fair share
    // of a shared link set to the whole link (fair_share_flows = 1) the ideal latency
    // is slow start up to 1 Mb/s, which a flow alone on its access link follows: the
    // normalized latency is close to 1. (Only flows of 30+ segments: the model sends
    // full-size segments, so a short flow's small last segment beats the "ideal".)
    let norm_all = out.flows.f64("normalized_latency").expect("column");
    let mut norm: Vec<f64> = norm_all
        .iter()
        .zip(size)
        .filter(|(x, &b)| x.is_finite() && b >= 30.0 * 1460.0)
        .map(|(&x, _)| x)
        .collect();
    norm.sort_unstable_by(|a, b| a.partial_cmp(b).expect("finite"));
    let med = norm[norm.len() / 2];
    eprintln!(
        "poisson_flows: {} flows of 30+ segments, normalized latency min {:.4} median {med:.4}",
        norm.len(),
        norm[0]
    );
    assert!(norm.len() > 100);
    assert!(
        norm[0] > 0.95 && (med - 1.0).abs() < 0.03,
        "median {med}, min {}",
        norm[0]
    );
    assert_eq!(out.summary["conservation"]["ok"], true);
}

/// Study 000 §4.3's web-like sources on a dumbbell, in both directions.
const WEB: &str = r#"
duration = "40s"
warmup = "5s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
count = 2
start = { uniform = ["0s", "1s"] }
rtt = { uniform = ["64ms", "100ms"] }
[[workloads]]
kind = "web"
nodes = 20
direction = "both"
start = { uniform = ["0s", "1s"] }
rtt = { uniform = ["64ms", "100ms"] }
"#;

/// Each node carries one flow at a time and waits an OFF time, exponential with
/// mean 0.2 s, after each; the slots are reused (the world holds 2 long flows plus
/// 2 × 20 slots however many files are sent); sizes follow the study's Pareto.
#[test]
fn web_sources_alternate_files_and_off_times() {
    let sc = ccsim::parse(WEB, &[]).expect("parses");
    let plan = ccsim::net::plan(&sc, sc.seed).expect("plans");
    let mut w = World::build(&sc, &plan, sc.seed).expect("builds");
    w.run(&mut |_| true).expect("runs");
    assert_eq!(w.flows.len(), 2 + 40, "one slot per node and direction");
    let recs = w.finished();
    assert!(recs.len() > 1000, "{} files", recs.len());
    assert!(recs.iter().any(|r| r.reverse) && recs.iter().any(|r| !r.reverse));
    // Per node: consecutive files never overlap; the gap is the OFF time.
    let mut gaps = Vec::new();
    for slot in 2..42u32 {
        let mine: Vec<_> = recs.iter().filter(|r| r.flow == slot).collect();
        for pair in mine.windows(2) {
            let finish = pair[0].finished.expect("a finished flow");
            assert!(pair[1].start >= finish, "one flow at a time");
            gaps.push((pair[1].start - finish).as_secs_f64());
        }
    }
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    eprintln!(
        "web: {} files, mean OFF {mean:.4} s over {n} gaps (theory 0.2 ± {:.4})",
        recs.len(),
        0.2 / n.sqrt()
    );
    // s.e. of the mean of exponential(0.2) gaps: 0.2/√n.
    assert!(
        (mean - 0.2).abs() < 4.0 * 0.2 / n.sqrt(),
        "mean OFF {mean} over {n}"
    );
    // Sizes: Pareto(1.35) with mean 30 packets of 1460 B has its median at
    // x_m·2^(1/α) with x_m = 30·0.35/1.35 packets (one draw per file started).
    let mut sizes: Vec<f64> = recs
        .iter()
        .map(|r| r.size.expect("sized") as f64 / 1460.0)
        .collect();
    sizes.sort_unstable_by(|a, b| a.partial_cmp(b).expect("finite"));
    let xm = 30.0 * 0.35 / 1.35;
    assert!(sizes[0] >= xm - 1.0 / 1460.0, "smallest {}", sizes[0]);
    let median = sizes[sizes.len() / 2];
    let theory = xm * 2f64.powf(1.0 / 1.35);
    eprintln!("web: median size {median:.3} pkt (theory {theory:.3})");
    assert!(
        (median - theory).abs() < 0.06 * theory,
        "median {median} vs {theory}"
    );

    // The same through the public run: every file is a row of the flow table.
    let out = run(WEB, &[]).expect("runs");
    assert_eq!(
        out.summary["flows"]["count"].as_u64().expect("count") as usize,
        2 + recs.len()
            + w.workloads
                .iter()
                .map(|wl| wl.slots.iter().filter(|s| s.busy).count())
                .sum::<usize>()
    );
    assert_eq!(out.summary["conservation"]["ok"], true);
    // Deterministic: the same seed twice, the same results.
    let again = run(WEB, &[]).expect("runs");
    assert_eq!(
        format!("{:?}", out.flows),
        format!("{:?}", again.flows),
        "same seed, same flows"
    );
}

/// Study 001 §5.4's closed loop: n node pairs, each sending a fixed-size flow and a
/// new one an exponential think time after the last completes. With one node on an
/// idle link and a buffer that never overflows, each flow follows the ideal
/// latency's model (slow start to the fair share, then a full window): normalized
/// latency close to 1.
#[test]
fn closed_loop_alone_meets_its_ideal_latency() {
    let text = r#"
duration = "30s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "1000pkt"
[[workloads]]
kind = "closed_loop"
nodes = 1
size = "50pkt"
think = { exponential = "0.5s" }
rtt = "60ms"
tcp = { init_ssthresh = 1000 }
"#;
    let out = run(text, &[]).expect("runs");
    let norm = out.flows.f64("normalized_latency").expect("column");
    let done: Vec<f64> = norm.iter().copied().filter(|x| x.is_finite()).collect();
    assert!(done.len() > 20, "{} flows", done.len());
    let sizes = out.flows.f64("size_bytes").expect("column");
    assert!(sizes.iter().all(|&b| b == 50.0 * 1460.0));
    let mean = done.iter().sum::<f64>() / done.len() as f64;
    eprintln!(
        "closed_loop: {} flows, mean normalized latency {mean:.4}",
        done.len()
    );
    assert!((mean - 1.0).abs() < 0.05, "normalized latency {mean}");
    assert_eq!(out.get("links.bottleneck.drops"), 0.0);
}

/// Study 002's staged flows are plain flow groups: a name, an algorithm and a start.
#[test]
fn staged_flows_start_when_named() {
    let text = r#"
duration = "6s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "pre"
cc = "newreno"
[[flows]]
name = "test"
cc = "cubic"
start = "2s"
rtt = "40ms"
[[flows]]
name = "post"
cc = "newreno"
start = "4s"
"#;
    let out = run(text, &[]).expect("runs");
    assert_eq!(out.flows.f64("start_s").expect("column"), &[0.0, 2.0, 4.0]);
    let g = out.flows.f64("goodput_bps").expect("column");
    assert!(g.iter().all(|&x| x > 0.0), "{g:?}");
}

#[test]
fn bad_workloads_name_the_field() {
    let err = |text: &str, set: &[&str]| {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        run(text, &set).expect_err("must fail").to_string()
    };
    let e = err(WEB, &["workloads[0].nodes=0"]);
    assert!(
        e.starts_with("workloads[0].nodes: must be at least 1"),
        "{e}"
    );
    let e = err(WEB, &["workloads[0].load=0.5"]);
    assert!(
        e.starts_with("workloads[0].load: only for kind = \"poisson_flows\""),
        "{e}"
    );
    let e = err(POISSON_FLOWS, &["workloads[0].load=-1"]);
    assert!(e.starts_with("workloads[0].load: must be positive"), "{e}");
    let e = err(POISSON_FLOWS, &["workloads[0].kind=\"closed_loop\""]);
    assert!(e.starts_with("workloads[0].nodes: missing"), "{e}");
    let e = err(WEB, &["workloads[0].kind=\"burst\""]);
    assert!(e.starts_with("workloads[0].kind:"), "{e}");
    let e = err(WEB, &["workloads[0].rtt=\"10ms\""]);
    assert!(e.starts_with("workloads[0].rtt: an RTT of 0.01s"), "{e}");
}

/// A slot takes its next flow only when the last one's packets have all left the
/// network: with wire losses, delayed ACKs and no think time, late ACKs and
/// retransmissions of a finished flow are often still in flight when the next flow
/// is due. Were the slot reused at once, those packets would reach the new flow's
/// endpoints (same flow id, sequence numbers from 0 again) and a flow would be
/// credited bytes it never sent. Here every finished flow delivers exactly its size.
/// (60 s: since redundant go-back-N resends no longer start spurious fast
/// retransmits (RFC 6582 §4), stragglers are rarer, 5 waits in 20 s.)
#[test]
fn slots_wait_for_the_network_to_drain() {
    let text = r#"
duration = "60s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "400pkt"
loss = 0.01
reverse_loss = 0.01
[[workloads]]
kind = "closed_loop"
nodes = 10
size = "100pkt"
think = "0s"
rtt = "30ms"
tcp = { min_rto = "5ms", initial_rto = "20ms", init_cwnd = 10 }
"#;
    let out = run(text, &[]).expect("runs");
    let wl = &out.summary["workloads"][0];
    let waits = wl["drain_waits"].as_u64().expect("count");
    assert!(waits > 10, "the drain path was exercised ({waits} waits)");
    let fct = out.flows.f64("fct_s").expect("column");
    let size = out.flows.f64("size_bytes").expect("column");
    let Some(ccsim::summary::table::Column::I64(bytes)) = out.flows.get("bytes_delivered") else {
        panic!("bytes_delivered column")
    };
    let mut finished = 0;
    for i in 0..fct.len() {
        if fct[i].is_finite() {
            finished += 1;
            assert_eq!(bytes[i] as f64, size[i], "row {i}");
        }
    }
    eprintln!("drain: {waits} waits, {finished} flows finished, each delivered exactly its size");
    assert!(finished > 100, "{finished} flows");
    assert_eq!(out.summary["conservation"]["ok"], true);
}

/// Workloads follow the topology: on a parking lot a `span` puts the nodes' flows on
/// the chosen middle links only; on a graph they run between `src` and `dst`.
#[test]
fn workloads_follow_spans_and_endpoints() {
    let parking = r#"
duration = "5s"
[tcp]
profile = "ns2"
[topology]
kind = "parking_lot"
middle_links = 3
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "50pkt"
[[workloads]]
kind = "web"
nodes = 5
span = [2, 3]
rtt = "40ms"
"#;
    let out = run(parking, &[]).expect("runs");
    assert_eq!(out.get("links.link1.tx_pkts"), 0.0);
    assert!(out.get("links.link2.tx_pkts") > 100.0);
    // Everything link 2 sends goes on through link 3, except what is still on link 2's
    // wire when the run ends: at most 5 ms / 1.2 ms per 1500 B packet, 5 packets.
    let (l2, l3) = (
        out.get("links.link2.tx_pkts"),
        out.get("links.link3.tx_pkts"),
    );
    assert!((0.0..=5.0).contains(&(l2 - l3)), "link2 {l2} vs link3 {l3}");
    assert!(out.get("links.link3_rev.tx_pkts") > 0.0, "ACKs come back");
    let e = run(parking, &["workloads[0].span=[3, 4]".into()])
        .expect_err("span beyond the chain")
        .to_string();
    assert!(e.starts_with("workloads[0].span:"), "{e}");

    let graph = r#"
duration = "5s"
[tcp]
profile = "ns2"
[topology]
kind = "graph"
buffer = "50pkt"
nodes = ["x", "y", "z"]
links = [
  { from = "x", to = "y", rate = "10Mbps", delay = "5ms", name = "xy" },
  { from = "y", to = "z", rate = "10Mbps", delay = "5ms", name = "yz" },
]
[[workloads]]
kind = "poisson_flows"
load = 0.3
size = "10pkt"
src = "y"
dst = "z"
"#;
    let out = run(graph, &[]).expect("runs");
    assert_eq!(out.get("links.xy.tx_pkts"), 0.0);
    assert!(out.get("links.yz.tx_pkts") > 100.0);
    let rows = out.summary["flows"]["count"].as_u64().expect("count");
    assert!(rows > 50, "{rows} flows");
    let e = run(graph, &["workloads[0].dst=\"w\"".into()])
        .expect_err("unknown node")
        .to_string();
    assert!(
        e.starts_with("workloads[0].dst: no node named \"w\""),
        "{e}"
    );
}

/// XCP flows in a web workload (study 000 Fig. 3: web-like traffic next to long XCP
/// flows through XCP routers). Each file's sender is built per instance and the router
/// keeps no per-flow state, so the files are ordinary XCP flows: the router holds the
/// input traffic at its capacity parameter (0.9, study 000's conservative preset), a
/// BDP buffer never overflows, every finished file delivers exactly its size, and the
/// files grow their windows by the routers' feedback alone (XCP has no slow start).
#[test]
fn web_xcp_flows_next_to_long_xcp_flows() {
    let text = r#"
duration = "20s"
warmup = "8s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
queue = { kind = "xcp", preset = "conservative" }
[[flows]]
name = "long"
count = 4
cc = "xcp"
rtt = { uniform = ["40ms", "80ms"] }
[[workloads]]
name = "web"
kind = "web"
nodes = 10
cc = "xcp"
start = { uniform = ["0s", "2s"] }
rtt = { uniform = ["40ms", "80ms"] }
"#;
    let out = run(text, &[]).expect("runs");
    let cons = &out.summary["conservation"];
    assert_eq!(cons["ok"], true, "packet conservation: {cons}");
    assert_eq!(cons["dropped"], 0, "drops with a BDP buffer: {cons}");
    // The efficiency controller aims the aggregate input at 0.9·C (Katabi et al. §3.5,
    // γ·C in study 000's conservative preset). Without the files (their first file
    // after the end) the long flows hold it, as validation 3 in tests/xcp.rs asks.
    let alone = run(text, &["workloads[0].start=\"30s\"".to_string()]).expect("runs");
    let util_alone = alone.get("links.bottleneck.utilization");
    // With the files the router still never overshoots, but the link runs below the
    // target: feedback given to a file (shuffled from the long flows, and its share of
    // the spare) leaves with it when it ends, and the long flows win it back only
    // over a few control intervals. That is study 000's Fig. 3(b) finding (P. XCP's
    // utilization falls as web nodes are added); the floor (80 % of the target) only
    // catches a router that stops feeding the long flows.
    let util = out.get("links.bottleneck.utilization");
    eprintln!("web XCP: bottleneck utilization {util:.4}, {util_alone:.4} without the files (capacity parameter 0.9)");
    assert!(
        (0.95 * 0.9..=0.9 + 0.02).contains(&util_alone),
        "utilization without the files {util_alone}"
    );
    assert!(
        util <= 0.9 + 0.02 && util < util_alone - 0.02 && util > 0.8 * 0.9,
        "utilization {util} with the files, {util_alone} without"
    );
    let Some(ccsim::summary::table::Column::Cat(codes, names)) = out.flows.get("group") else {
        panic!("group column")
    };
    let web = names.iter().position(|n| n == "web").expect("web group") as u8;
    let fct = out.flows.f64("fct_s").expect("column");
    let size = out.flows.f64("size_bytes").expect("column");
    let cwnd = out.flows.f64("cwnd_final").expect("column");
    let start = out.flows.f64("start_s").expect("column");
    let Some(ccsim::summary::table::Column::I64(bytes)) = out.flows.get("bytes_delivered") else {
        panic!("bytes_delivered column")
    };
    let (mut files, mut grew) = (0, 0);
    for i in 0..fct.len() {
        // Delivered bytes count within the measurement window: files started in it.
        if codes[i] != web || !fct[i].is_finite() || start[i] < 8.0 {
            continue;
        }
        files += 1;
        assert_eq!(
            bytes[i] as f64, size[i],
            "row {i}: a file delivers its size"
        );
        // A window above the initial one can only come from positive feedback.
        if cwnd[i] > 4.0 {
            grew += 1;
        }
    }
    let wl = &out.summary["workloads"][0];
    eprintln!("web XCP: {files} files finished, {grew} ended above the initial window, {wl}");
    assert!(files > 100, "{files} files");
    assert!(grew > files / 4, "{grew} of {files} files grew by feedback");
    // Through a drop-tail queue an XCP file's window could never grow: refused, by path.
    let e = run(
        text,
        &[
            "topology.queue=\"droptail\"".to_string(),
            "flows[0].cc=\"newreno\"".to_string(),
        ],
    )
    .expect_err("must fail")
    .to_string();
    assert!(
        e.starts_with("workloads[0].cc: \"xcp\" senders need XCP routers"),
        "{e}"
    );
}
