use ccsim::run;

#[test]
#[ignore]
fn smoke() {
    let sc = std::fs::read_to_string(std::env::var("SC").unwrap()).unwrap();
    let o = run(&sc, &[]).unwrap();
    let mut s = o.summary.clone();
    s["links"]["bottleneck"]["occupancy_dist"] = serde_json::Value::Null;
    s["links"]["bottleneck_rev"]["occupancy_dist"] = serde_json::Value::Null;
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
    println!("{:?}", o.flows);
}
