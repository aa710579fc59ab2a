//! Run one scenario file and print its summary JSON (wall time removed), so two
//! builds can be compared byte for byte on the same scenario:
//!
//!     cargo run --release -p ccsim --example print_summary -- SCENARIO.toml > a.json

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: print_summary SCENARIO.toml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut o = ccsim::run(&text, &[]).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    o.summary["wall_s"] = serde_json::Value::Null;
    println!("{}", serde_json::to_string_pretty(&o.summary).unwrap());
    println!("{:?}", o.flows);
}
