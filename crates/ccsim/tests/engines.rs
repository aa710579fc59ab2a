//! One scenario, both engines: the same summary keys, the same flows columns, the same
//! definitions (both summaries come from `summary` over records), and numbers that
//! agree where the fluid model and the packet model should.

use ccsim::summary::table::Column;
use ccsim::Output;
use serde_json::Value;

/// Four Reno flows, 20 Mb/s, RTTs 40–100 ms, a BDP of buffer: a scenario both engines
/// honour (no access-rate or packet-only field).
const BOTH: &str = r#"
duration = "120s"
warmup = "20s"
sample_interval = "1s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
buffer = "bdp"
[metrics]
converge_to = "pre"
[[flows]]
name = "pre"
cc = "newreno"
rtt = "40ms"
[[flows]]
count = 3
cc = "newreno"
rtt = { uniform = ["60ms", "100ms"] }
start = { uniform = ["0s", "5s"] }
"#;

fn run(engine: &str) -> Output {
    ccsim::run(BOTH, &[format!("engine=\"{engine}\"")]).unwrap_or_else(|e| panic!("{e}"))
}

/// Every key path of a JSON value (arrays by their elements' keys).
fn keys(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}.{k}");
                out.push(p.clone());
                keys(x, &p, out);
            }
        }
        Value::Array(a) => {
            if let Some(x) = a.iter().find(|x| x.is_object()) {
                keys(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn dtype(c: &Column) -> &'static str {
    match c {
        Column::F64(_) => "f64",
        Column::I32(_) => "i32",
        Column::I64(_) => "i64",
        Column::Cat(..) | Column::Cat32(..) => "cat",
    }
}

#[test]
fn both_engines_report_the_same_keys_and_columns() {
    let (p, f) = (run("packet"), run("fluid"));
    assert_eq!(p.summary["engine"], "packet");
    assert_eq!(f.summary["engine"], "fluid");
    let (mut kp, mut kf) = (Vec::new(), Vec::new());
    keys(&p.summary, "", &mut kp);
    keys(&f.summary, "", &mut kf);
    kp.sort();
    kf.sort();
    assert_eq!(kp, kf, "summary keys differ between the engines");
    let cols = |o: &Output| -> Vec<(String, &'static str)> {
        o.flows
            .columns
            .iter()
            .map(|(n, c)| (n.clone(), dtype(c)))
            .collect()
    };
    assert_eq!(cols(&p), cols(&f), "flows columns differ");
    for t in [&p.series, &f.series] {
        let names: Vec<&str> = t.columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["time", "entity", "id", "metric", "value"]);
    }
    // The series carry the same metrics (names of the categorical column).
    let metrics = |o: &Output| match o.series.get("metric") {
        Some(Column::Cat(codes, names)) => {
            let mut used: Vec<String> = codes.iter().map(|&c| names[c as usize].clone()).collect();
            used.sort();
            used.dedup();
            used
        }
        _ => panic!("no metric column"),
    };
    assert_eq!(metrics(&p), metrics(&f));
}

/// The definitions of docs/metrics.md hold in both engines' summaries.
#[test]
fn both_engines_follow_the_metric_definitions() {
    for o in [run("packet"), run("fluid")] {
        let engine = o.summary["engine"].as_str().unwrap().to_string();
        let l = &o.summary["links"]["bottleneck"];
        let num = |k: &str| l[k].as_f64().unwrap_or_else(|| panic!("{engine}: {k}"));
        let win = o.get("duration_s") - o.get("warmup_s");
        // Throughput is the utilization's bits: utilization = bits / (rate · window)
        // (busy time counts the packets in transmission at the window's edges in part,
        // bytes count them whole: a packet's worth apart at most).
        let u = num("utilization");
        let edge = 2.0 * 1500.0 * 8.0 / (20e6 * win);
        assert!(
            (num("throughput_bps") / (u * 20e6) - 1.0).abs() < edge,
            "{engine}"
        );
        // Drop rate = (queue drops + wire losses) / arrivals; drops = overflow + AQM.
        assert_eq!(
            num("drops"),
            num("drops_overflow") + num("drops_aqm"),
            "{engine}"
        );
        let dr = (num("drops") + num("random_losses")) / num("arrivals");
        assert!((num("drop_rate") - dr).abs() < 1e-12, "{engine}");
        // Mean queueing delay ≈ mean queue / throughput (Little's law) for a queue
        // that is rarely empty.
        let little = num("queue_mean_bytes") / (num("throughput_bps") / 8.0);
        let d = num("queue_delay_mean_s");
        assert!((d / little - 1.0).abs() < 0.05, "{engine}: {d} vs {little}");
        // Goodput: in-order payload over the window, summed over the flows.
        let g = o.flows.f64("goodput_bps").unwrap();
        let total: f64 = g.iter().sum();
        assert!((total - o.get("flows.goodput_bps_total")).abs() < 1e-6 * total);
        let Some(Column::I64(bytes)) = o.flows.get("bytes_delivered") else {
            panic!()
        };
        for (x, b) in g.iter().zip(bytes) {
            assert!((x - *b as f64 * 8.0 / win).abs() <= 8.0 / win, "{engine}");
        }
        // Jain over the forward flows' goodputs: (Σx)²/(n·Σx²).
        let j = total * total / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
        assert!((o.get("flows.jain_fairness") - j).abs() < 1e-12, "{engine}");
        // Groups: the flows table's rows of each group, summed; shares of the total.
        let groups = o.summary["groups"].as_array().unwrap();
        let names: Vec<&str> = groups.iter().map(|x| x["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["pre", "group1"], "{engine}");
        let Some(Column::Cat(codes, cats)) = o.flows.get("group") else {
            panic!()
        };
        let Some(Column::I64(losses)) = o.flows.get("losses") else {
            panic!()
        };
        let mut share = 0.0;
        for x in groups {
            let rows: Vec<usize> = (0..codes.len())
                .filter(|&i| cats[codes[i] as usize] == x["name"].as_str().unwrap())
                .collect();
            let gp: f64 = rows.iter().map(|&i| g[i]).sum();
            let lost: i64 = rows.iter().map(|&i| losses[i]).sum();
            assert_eq!(
                x["flows"].as_u64().unwrap() as usize,
                rows.len(),
                "{engine}"
            );
            assert!((x["goodput_bps"].as_f64().unwrap() - gp).abs() <= 1e-9 * gp);
            assert!((x["capacity_share"].as_f64().unwrap() - gp / 20e6).abs() < 1e-12);
            // The table rounds the fluid engine's fractional counts per flow.
            let dl = (x["losses"].as_f64().unwrap() - lost as f64).abs();
            assert!(dl <= 0.5 * rows.len() as f64, "{engine}: losses {dl} apart");
            share += x["share"].as_f64().unwrap();
        }
        assert!(
            (share - 1.0).abs() < 1e-12,
            "{engine}: shares sum to {share}"
        );
        // Every queue balanced; the run conserved what the engine can count.
        assert_eq!(
            o.summary["conservation"]["queues_balanced"], true,
            "{engine}"
        );
        assert_eq!(o.summary["conservation"]["ok"], true, "{engine}");
        // CoV and convergence come from the same probe in both engines.
        let cov = o.flows.f64("cov_mean").unwrap();
        assert!(
            cov.iter().all(|c| c.is_finite() && *c >= 0.0),
            "{engine}: {cov:?}"
        );
        let sync = &l["sync"];
        assert!(
            sync["events"].as_u64().unwrap() > 0,
            "{engine}: no congestion event"
        );
        let m = sync["mean"].as_f64().unwrap();
        assert!(m > 0.0 && m <= 1.0, "{engine}: sync {m}");
    }
}

/// Where the models agree: two NewReno flows of equal RTT over a BDP of buffer keep
/// the link busy in both engines, share it equally, react to about as many loss events,
/// and hold about the same standing queue. (Flows of unequal RTT are left out: the
/// deterministic packet engine shows drop-tail phase effects there, Floyd & Jacobson
/// 1992, which the fluid model cannot.)
#[test]
fn both_engines_agree_where_the_models_do() {
    let text = r#"
duration = "200s"
warmup = "50s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
buffer = "bdp"
[tcp]
profile = "ns2"
init_ssthresh = 1e9
[[flows]]
count = 2
cc = "newreno"
rtt = "60ms"
start = { uniform = ["0s", "2s"] }
"#;
    let go = |e: &str| ccsim::run(text, &[format!("engine=\"{e}\"")]).unwrap();
    let (p, f) = (go("packet"), go("fluid"));
    let get = |o: &Output, k: &str| o.get(&format!("links.bottleneck.{k}"));
    for o in [&p, &f] {
        assert!(get(o, "utilization_data") > 0.97);
        assert!(o.get("flows.jain_fairness") > 0.98);
    }
    let (qp, qf) = (get(&p, "queue_mean_pkts"), get(&f, "queue_mean_pkts"));
    assert!((qp / qf - 1.0).abs() < 0.15, "mean queue {qp} vs {qf}");
    let events = |o: &Output| match o.flows.get("fast_retransmits") {
        Some(Column::I64(v)) => v.iter().sum::<i64>() as f64,
        _ => panic!(),
    };
    let (ep, ef) = (events(&p), events(&f));
    assert!((ep / ef - 1.0).abs() < 0.2, "loss events {ep} vs {ef}");
}

/// Each group's effective TCP settings: the same keys in both engines; in the fluid run
/// those the fluid model uses have the packet run's values and the packet engine's
/// others (recovery, timers, delayed ACKs) are null, not settings it would be running.
#[test]
fn the_fluid_summary_shows_only_the_tcp_settings_it_uses() {
    let (p, f) = (run("packet"), run("fluid"));
    for g in ["pre", "group1"] {
        let (tp, tf) = (&p.summary["tcp"][g], &f.summary["tcp"][g]);
        assert!(tp.is_object() && tf.is_object(), "{g}: {tp} / {tf}");
        for (k, v) in tf.as_object().unwrap() {
            if ccsim::fluid::TCP_SETTINGS_USED.contains(&k.as_str()) {
                assert_eq!(v, &tp[k], "{g}.{k}");
            } else {
                assert!(v.is_null(), "{g}.{k} = {v} in a fluid run");
                assert!(!tp[k].is_null(), "{g}.{k} is a packet-engine setting");
            }
        }
        assert_eq!(tf["mss"], 1460);
        assert!(tf["recovery"].is_null() && tf["min_rto_s"].is_null());
    }
}
