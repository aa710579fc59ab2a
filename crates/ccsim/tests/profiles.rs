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
    "min_rto_s",
    "prr",
    "rto_new_ssthresh",
    "rto_keeps_sack",
    "cwnd_validation",
];

#[test]
fn each_profile_gives_its_defaults() {
    let (linux, _) = settings("", "", "newreno");
    assert_eq!(
        pick(&linux, KEYS),
        json!({
            "profile": "linux", "recovery": "sack", "mss": 1448, "header": 52,
            "init_cwnd": 10.0, "init_ssthresh": "inf", "delayed_ack": true, "quickack": 16,
            "min_rto_s": 0.2, "prr": true, "rto_new_ssthresh": false, "rto_keeps_sack": true,
            "cwnd_validation": true,
        })
    );
    let (ns2, _) = settings("profile = \"ns2\"", "", "newreno");
    assert_eq!(
        pick(&ns2, KEYS),
        json!({
            "profile": "ns2", "recovery": "newreno", "mss": 1460, "header": 40,
            "init_cwnd": 1.0, "init_ssthresh": 64.0, "delayed_ack": false, "quickack": 0,
            "min_rto_s": 0.2, "prr": false, "rto_new_ssthresh": false,
            "rto_keeps_sack": false, "cwnd_validation": false,
        })
    );
    let (ns3, _) = settings("profile = \"ns3\"", "", "newreno");
    assert_eq!(
        pick(&ns3, KEYS),
        json!({
            "profile": "ns3", "recovery": "sack", "mss": 1448, "header": 52,
            "init_cwnd": 10.0, "init_ssthresh": "inf", "delayed_ack": true, "quickack": 0,
            "min_rto_s": 1.0, "prr": true, "rto_new_ssthresh": true, "rto_keeps_sack": false,
            "cwnd_validation": false,
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
    // Group b takes ns2 for what it does not set, but [tcp]'s explicit options still
    // reach it (a group's options override [tcp]'s, which override the profile).
    assert_eq!(b["profile"], "ns2");
    assert_eq!(b["mss"], 1000);
    assert_eq!(b["init_cwnd"], 4.0);
    assert_eq!(b["init_ssthresh"], 64.0);
    assert_eq!(b["recovery"], "newreno");
}

#[test]
fn an_unknown_profile_is_refused_with_its_path() {
    let e = run(
        r#"
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
[[flows]]
tcp = { profile = "bsd" }
"#,
        &[],
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("flows[0].tcp.profile") && e.contains("known: linux, ns2, ns3"),
        "{e}"
    );
}
