//! The machine's latency of one dependent load from a working set of a given size: a
//! random cyclic pointer chase (each load's address is the previous load's value, so
//! no two overlap and no prefetcher can guess them). What a simulation pays per cache
//! miss once its state outgrows a cache level (docs/limits.md, "Scale").
//!
//!     cargo run --release -p ccsim --example mem_latency -- [MB ...]

use std::time::Instant;

fn chase_ns(bytes: usize) -> f64 {
    // One pointer per 64-byte line, visited in one random cycle (Sattolo's shuffle).
    let lines = (bytes / 64).max(2);
    let mut order: Vec<usize> = (0..lines).collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..lines).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % i as u64) as usize);
    }
    let mut next = vec![0usize; lines * 8];
    for k in 0..lines {
        next[order[k] * 8] = order[(k + 1) % lines] * 8;
    }
    let loads = 20_000_000usize;
    let mut p = 0usize;
    let t = Instant::now();
    for _ in 0..loads {
        p = next[p];
    }
    let ns = t.elapsed().as_nanos() as f64 / loads as f64;
    std::hint::black_box(p);
    ns
}

fn main() {
    let sizes: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("sizes in MB"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![0.03, 1.0, 4.0, 16.0, 64.0]
    } else {
        sizes
    };
    println!("| working set | ns per dependent load |");
    println!("| ---: | ---: |");
    for mb in sizes {
        let ns = chase_ns((mb * 1024.0 * 1024.0) as usize);
        println!("| {mb} MB | {ns:.1} |");
    }
}
