//! TCP profiles (`tcp.profile`, docs/tcp.md): what each gives the options left out,
//! that explicit options win, and that the summary reports what a group ran with.

use ccsim::run;
use serde_json::{json, Value};

/// A one-second run of two groups: `a` with the `[tcp]` given, `b` with its own `tcp`.
fn settings(tcp: &str, b_tcp: &str, cc: &str) -> (Value, Value) {
    let o = run(
        &format!(
            r#"
duration = "1s"
[tcp]
{tcp}
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
name = "a"
cc = "{cc}"
[[flows]]
name = "b"
cc = "{cc}"
tcp = {{ {b_tcp} }}
"#
        ),
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let t = &o.summary["tcp"];
    (t["a"].clone(), t["b"].clone())
}

fn pick(v: &Value, keys: &[&str]) -> Value {
    Value::Object(
        keys.iter()
            .map(|k| (k.to_string(), v[*k].clone()))
            .collect(),
    )
}

const KEYS: &[&str] = &[
    "profile",
    "recovery",
    "mss",
    "header",
    "init_cwnd",
    "init_ssthresh",
    "delayed_ack",
    "quickack",
    "sack_compression",
    "min_rto_s",
    "prr",
    "prr_ns3",
    "partial_ack_send",
    "exit_ack_increase",
    "grow_by_delivered",
    "rto_new_ssthresh",
    "rto_keeps_sack",
    "ssthresh_from_pipe",
    "limited_transmit",
    "cwnd_validation",
    "rack",
    "gso_bursts",
    "tso_defer",
    "rto_estimator",
    "ack_at",
    "read_latency_mean_s",
];

#[test]
fn each_profile_gives_its_defaults() {
    let (linux, _) = settings("", "", "newreno");
    assert_eq!(
        pick(&linux, KEYS),
        json!({
            "profile": "linux", "recovery": "sack", "mss": 1448, "header": 52,
            "init_cwnd": 10.0, "init_ssthresh": "inf", "delayed_ack": true, "quickack": 16,
            "sack_compression": true, "min_rto_s": 0.2, "prr": true, "prr_ns3": false, "partial_ack_send": false,
            "exit_ack_increase": false, "grow_by_delivered": true, "rto_new_ssthresh": false,
            "rto_keeps_sack": true, "ssthresh_from_pipe": false, "limited_transmit": true,
            "cwnd_validation": true,
            "rack": true, "gso_bursts": true, "tso_defer": true, "rto_estimator": "linux",
            "ack_at": "arrival", "read_latency_mean_s": 0.0,
        })
    );
    let (ns2, _) = settings("profile = \"ns2\"", "", "newreno");
    assert_eq!(
        pick(&ns2, KEYS),
        json!({
            "profile": "ns2", "recovery": "newreno", "mss": 1460, "header": 40,
            "init_cwnd": 1.0, "init_ssthresh": 64.0, "delayed_ack": false, "quickack": 0,
            "sack_compression": false, "min_rto_s": 0.2, "prr": false, "prr_ns3": false,
            "partial_ack_send": false, "exit_ack_increase": false, "grow_by_delivered": false,
            "rto_new_ssthresh": false, "rto_keeps_sack": false, "ssthresh_from_pipe": false, "limited_transmit": false,
            "cwnd_validation": false, "rack": false, "gso_bursts": false, "tso_defer": false,
            "rto_estimator": "rfc6298", "ack_at": "arrival", "read_latency_mean_s": 0.0,
        })
    );
    let (ns3, _) = settings("profile = \"ns3\"", "", "newreno");
    assert_eq!(
        pick(&ns3, KEYS),
        json!({
            "profile": "ns3", "recovery": "sack", "mss": 1448, "header": 52,
            "init_cwnd": 10.0, "init_ssthresh": "inf", "delayed_ack": true, "quickack": 1,
            "sack_compression": false, "min_rto_s": 1.0, "prr": true, "prr_ns3": true, "partial_ack_send": true,
            "exit_ack_increase": true, "grow_by_delivered": false, "rto_new_ssthresh": true,
            "rto_keeps_sack": true,
            "ssthresh_from_pipe": true, "limited_transmit": true, "cwnd_validation": false,
            "rack": false, "gso_bursts": false, "tso_defer": false, "rto_estimator": "rfc6298",
            "ack_at": "arrival", "read_latency_mean_s": 0.0,
        })
    );
    // ns-2's Reno agent recovers with Reno; XCP senders use NewReno under every
    // profile (the XCP header takes the SACK option's slot).
    assert_eq!(
        settings("profile = \"ns2\"", "", "reno").0["recovery"],
        "reno"
    );
    assert_eq!(settings("", "", "reno").0["recovery"], "sack");
}

#[test]
fn explicit_options_override_the_profile_and_groups_override_tcp() {
    let (a, b) = settings(
        "profile = \"linux\"\ninit_cwnd = 4\ndelayed_ack = false",
        "profile = \"ns2\", mss = \"1000B\"",
        "cubic",
    );
    assert_eq!(a["profile"], "linux");
    assert_eq!(a["init_cwnd"], 4.0);
    assert_eq!(a["delayed_ack"], false);
    assert_eq!(a["prr"], true, "the rest stays the profile's");
    let (r, _) = settings("read_latency = { exponential = \"150us\" }", "", "cubic");
    assert_eq!(r["ack_at"], "read");
    assert_eq!(r["read_latency_mean_s"], 150e-6);
    // Group b takes ns2 for what it does not set, but [tcp]'s explicit options still
    // reach it (a group's options override [tcp]'s, which override the profile).
    assert_eq!(b["profile"], "ns2");
    assert_eq!(b["mss"], 1000);
    assert_eq!(b["init_cwnd"], 4.0);
    assert_eq!(b["init_ssthresh"], 64.0);
    assert_eq!(b["recovery"], "newreno");
}

/// The error of a one-flow run whose group's `tcp` is `{ tcp }`.
fn refused(tcp: &str) -> String {
    run(
        &format!(
            r#"
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
tcp = {{ {tcp} }}
"#
        ),
        &[],
    )
    .err()
    .unwrap()
    .to_string()
}

#[test]
fn an_unknown_profile_is_refused_with_its_path() {
    let e = refused(r#"profile = "bsd""#);
    assert!(
        e.contains("flows[0].tcp.profile") && e.contains("known: linux, ns2, ns3"),
        "{e}"
    );
}

#[test]
fn an_unknown_rto_estimator_is_refused_with_its_path() {
    let e = refused(r#"rto_estimator = "bsd""#);
    assert!(
        e.contains("flows[0].tcp.rto_estimator") && e.contains("known: linux, rfc6298"),
        "{e}"
    );
}

#[test]
fn a_bad_read_latency_is_refused_with_its_path() {
    let e = refused(r#"read_latency = "-5us""#);
    assert!(
        e.contains("flows[0].tcp.read_latency") && e.contains("negative"),
        "{e}"
    );
    let e = refused(r#"read_latency = { gamma = "1ms" }"#);
    assert!(
        e.contains("flows[0].tcp.read_latency") && e.contains("unknown distribution"),
        "{e}"
    );
}

/// A dumbbell of `n` flows of `cc` over `rate` with a 100 ms RTT and a BDP buffer,
/// every option the default profile's (linux): what a new user gets.
fn new_user(n: u32, cc: &str, rate: &str, secs: u32, extra: &str) -> ccsim::Output {
    run(
        &format!(
            r#"
duration = "{secs}s"
warmup = "{}s"
{extra}
[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}"
bottleneck_delay = "25ms"
access_delay = "12.5ms"
buffer = "bdp"
[[flows]]
count = {n}
cc = "{cc}"
start = {{ uniform = ["0s", "1s"] }}
"#,
            secs / 10
        ),
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn timeouts(o: &ccsim::Output) -> i64 {
    match o.flows.get("timeouts") {
        Some(ccsim::summary::table::Column::I64(v)) => v.iter().sum(),
        other => panic!("timeouts column: {other:?}"),
    }
}

/// Issue 15's first new-user case: one NewReno flow, 100 Mb/s, 100 ms, BDP buffer,
/// 30 s. Under the ns2 profile (ssthresh 64) it used 0.24 of the link; Linux's
/// defaults fill it, with no timeout.
#[test]
fn one_newreno_flow_fills_a_bdp_buffered_path() {
    let o = new_user(1, "newreno", "100Mbps", 30, "");
    let u = o.get("links.bottleneck.utilization");
    eprintln!("linux: utilization {u}, timeouts {}", timeouts(&o));
    assert!(u >= 0.95, "utilization {u}");
    assert_eq!(timeouts(&o), 0);
    let o = new_user(1, "newreno", "100Mbps", 30, "[tcp]\nprofile = \"ns2\"");
    assert!(
        o.get("links.bottleneck.utilization") < 0.5,
        "ns2 is what it was"
    );
}

/// Issue 15's second case at a fifth of its scale (20 CUBIC flows, 200 Mb/s, 30 s: the
/// same BDP per flow and the same regime); the full case is `cubic_100_flows_*`.
#[test]
fn many_cubic_flows_fill_a_bdp_buffered_path_without_timeouts() {
    let o = new_user(20, "cubic", "200Mbps", 30, "");
    let u = o.get("links.bottleneck.utilization");
    eprintln!("linux: utilization {u}, timeouts {}", timeouts(&o));
    assert!(u >= 0.95, "utilization {u}");
    assert_eq!(timeouts(&o), 0);
}

/// The full second case: 100 CUBIC flows, 1 Gb/s, 100 ms, BDP buffer, 60 s (ns2
/// profile before the fixes: 0.669 and 23 timeouts per flow). About 13 s.
#[test]
fn cubic_100_flows_1gbps_fill_the_link_without_timeouts() {
    let o = new_user(100, "cubic", "1Gbps", 60, "");
    let u = o.get("links.bottleneck.utilization");
    eprintln!("linux: utilization {u}, timeouts {}", timeouts(&o));
    assert!(u >= 0.95, "utilization {u}");
    assert_eq!(timeouts(&o), 0);
}

/// The fluid engine takes a profile (its initial window and ssthresh) but refuses the
/// packet mechanisms when a scenario sets them explicitly.
#[test]
fn the_fluid_engine_takes_a_profile_and_refuses_packet_options() {
    let sc = |tcp: &str| {
        format!(
            r#"
engine = "fluid"
duration = "2s"
[tcp]
{tcp}
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
cc = "cubic"
"#
        )
    };
    for p in ["linux", "ns2", "ns3"] {
        let o = run(&sc(&format!("profile = \"{p}\"")), &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.summary["tcp"]["group0"]["profile"], p);
    }
    let e = run(&sc("prr = true\nrto_keeps_sack = false"), &[])
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("cannot honour tcp.prr, tcp.rto_keeps_sack"),
        "{e}"
    );
}

/// RFC 6928: a linux-profile flow's first flight is 10 segments (ns2: 1); an explicit
/// `init_cwnd` wins. 50 ms into a 100 ms RTT no ACK has come back, so every packet
/// injected is first-flight data.
#[test]
fn the_first_flight_is_the_initial_window() {
    for (tcp, want) in [
        ("", 10.0),
        ("profile = \"ns2\"", 1.0),
        ("init_cwnd = 4", 4.0),
    ] {
        let o = run(
            &format!(
                r#"
duration = "50ms"
warmup = "0s"
[tcp]
{tcp}
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "25ms"
access_delay = "12.5ms"
buffer = "bdp"
[[flows]]
cc = "cubic"
"#
            ),
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.get("conservation.sent"), want, "{tcp}");
    }
}
