//! The scenario mutator shared by the fuzzer (`examples/fuzz_scenarios.rs`) and its
//! reduced run in the test suite (`tests/fuzz.rs`): seeds are every scenario in the
//! repository; a mutation replaces values by extreme ones (4294967295,
//! 18446744073709551615ps, 1e308, NaN, ...), swaps fields between scenarios, renames
//! keys (unicode ones too), truncates, nests arrays deeply, deletes, duplicates and
//! swaps lines, flips bytes. Deterministic: input k of a run is a function of the seed.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// xorshift64*: small, deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Values that have broken simulators: limits of integer types, with and without
/// units, zero, negative, non-finite, tiny and huge quantities, odd strings.
pub const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "1e308",
    "-1e308",
    "1e-308",
    "nan",
    "inf",
    "-inf",
    "0.0",
    "-0.0",
    "0.5",
    "1e8",
    "1e9",
    "100000",
    "10000000",
    "\"4294967295\"",
    "\"18446744073709551615ps\"",
    "\"18446744073709551615\"",
    "\"4294967s\"",
    "\"213days\"",
    "\"1ns\"",
    "\"1ps\"",
    "\"0ps\"",
    "\"0s\"",
    "\"-1s\"",
    "\"1e308s\"",
    "\"nans\"",
    "\"1bps\"",
    "\"0bps\"",
    "\"1Tbps\"",
    "\"18446744073709551615bps\"",
    "\"1e30Gbps\"",
    "\"0B\"",
    "\"1B\"",
    "\"4294967295B\"",
    "\"18446744073709551615B\"",
    "\"1e30KB\"",
    "\"0pkt\"",
    "\"1pkt\"",
    "\"4294967295pkt\"",
    "\"1e9pkt\"",
    "\"0bdp\"",
    "\"1e300bdp\"",
    "\"-1bdp\"",
    "\"nanbdp\"",
    "\"bdp\"",
    "\"stanford\"",
    "\"tiny\"",
    "\"\"",
    "\" \"",
    "\"ключ\"",
    "\"🦀\"",
    "\"\\u0000\"",
    "true",
    "false",
    "[]",
    "{}",
    "[1, 2, 3]",
    "[\"a\", 1]",
    "{ uniform = [\"1s\", \"0s\"] }",
    "{ uniform = [\"0s\", \"18446744073709551615ps\"] }",
    "{ exponential = \"0s\" }",
    "{ exponential = \"4294967s\" }",
    "{ pareto = { shape = 0, mean = \"30pkt\" } }",
    "{ pareto = { shape = 1e-300, mean = \"1e30pkt\" } }",
    "{ pareto = { shape = 1.0, mean = \"30pkt\" } }",
    "{ kind = \"red\" }",
    "{ kind = \"fq\" }",
    "{ kind = \"xcp\" }",
    "{ kind = \"codel\" }",
    "{ name = \"cubic\", beta = 2 }",
    "{ name = \"vegas\", alpha = 1e308 }",
    "\"newreno\"",
    "\"xcp\"",
    "\"cubic\"",
    "\"highspeed\"",
    "\"fluid\"",
    "\"packet\"",
    "\"graph\"",
    "\"parking_lot\"",
    "\"dumbbell\"",
    "\"all\"",
    "\"delay\"",
    "\"both\"",
    "\"reverse\"",
];

/// Keys that do not exist, unicode included.
pub const ODD_KEYS: &[&str] = &[
    "ключ",
    "🦀",
    "\"a.b\"",
    "\"\"",
    "x-y",
    "_",
    "duration2",
    "ÄÖÜ",
];

/// Every `.toml` file under `dirs`, sorted, with a `[sweep]` table cut out (the core
/// never reads it; the Python layer does).
pub fn seeds(dirs: &[PathBuf]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for d in dirs {
        walk(d, &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p.display().to_string(), strip_sweep(&text)))
        })
        .collect()
}

fn walk(d: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(d) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

fn strip_sweep(text: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('[') {
            skip = t.starts_with("[sweep]") || t.starts_with("[sweep.");
        }
        if !skip {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Keys and whole `key = value` lines seen in the seeds (for renames and field swaps).
pub struct Pool {
    pub keys: Vec<String>,
    pub lines: Vec<String>,
}

impl Pool {
    pub fn of(seeds: &[(String, String)]) -> Pool {
        let mut keys = Vec::new();
        let mut lines = Vec::new();
        for (_, text) in seeds {
            for line in text.lines() {
                if let Some((k, _)) = line.split_once('=') {
                    let k = k.trim();
                    if !k.is_empty() && !k.starts_with('#') && !k.starts_with('[') {
                        keys.push(k.to_string());
                        lines.push(line.to_string());
                    }
                }
            }
        }
        keys.sort();
        keys.dedup();
        lines.sort();
        lines.dedup();
        Pool { keys, lines }
    }
}

fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// The largest char boundary at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One mutation of `text`.
pub fn mutate_once(text: &str, pool: &Pool, rng: &mut Rng) -> String {
    let mut lines = lines_of(text);
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    match rng.below(12) {
        // A value replaced by an extreme one.
        0..=3 => {
            let candidates: Vec<usize> = (0..n).filter(|&i| lines[i].contains('=')).collect();
            if candidates.is_empty() {
                return join(&lines);
            }
            let i = *rng.pick(&candidates);
            let key = lines[i].split_once('=').unwrap().0.to_string();
            lines[i] = format!("{key}= {}", rng.pick(VALUES));
        }
        // A number anywhere replaced by an extreme one.
        4 => {
            let digits: Vec<usize> = text
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            if digits.is_empty() {
                return text.to_string();
            }
            let i = *rng.pick(&digits);
            let end = text[i..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e'))
                .map_or(text.len(), |e| i + e);
            let big = *rng.pick(&["4294967295", "18446744073709551615", "0", "1e308", "9e18"]);
            return format!("{}{}{}", &text[..i], big, &text[end..]);
        }
        // A line from another scenario (a field swap), at a random place.
        5 => {
            let l = rng.pick(&pool.lines).clone();
            lines.insert(rng.below(n + 1), l);
        }
        // A key renamed to another known key, or to one that does not exist.
        6 => {
            let candidates: Vec<usize> = (0..n).filter(|&i| lines[i].contains('=')).collect();
            if candidates.is_empty() {
                return join(&lines);
            }
            let i = *rng.pick(&candidates);
            let value = lines[i].split_once('=').unwrap().1.to_string();
            let key = if rng.below(3) == 0 {
                rng.pick(ODD_KEYS).to_string()
            } else {
                rng.pick(&pool.keys).clone()
            };
            lines[i] = format!("{key} ={value}");
        }
        // Truncated.
        7 => {
            let cut = floor_boundary(text, rng.below(text.len() + 1));
            return text[..cut].to_string();
        }
        // Deep nesting.
        8 => {
            let depth = *rng.pick(&[10usize, 100, 127, 128, 129, 300, 1000, 5000]);
            let key = rng.pick(&pool.keys).clone();
            lines.insert(
                rng.below(n + 1),
                format!("{key} = {}1{}", "[".repeat(depth), "]".repeat(depth)),
            );
        }
        // A line deleted, duplicated, or two swapped.
        9 => {
            lines.remove(rng.below(n));
        }
        10 => {
            let i = rng.below(n);
            let l = lines[i].clone();
            lines.insert(i, l);
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(a, b);
        }
        // A byte changed (kept valid UTF-8).
        _ => {
            if text.is_empty() {
                return text.to_string();
            }
            let i = floor_boundary(text, rng.below(text.len()));
            let c = *rng.pick(&[
                '[', ']', '{', '}', '"', '=', '\n', '.', ',', '-', '0', 'é', '🦀',
            ]);
            let next = text[i..].chars().next().map_or(0, char::len_utf8);
            return format!("{}{}{}", &text[..i], c, &text[i + next..]);
        }
    }
    join(&lines)
}

/// Input `k` of a run seeded with `seed`: a seed scenario and one to four mutations.
pub fn input(k: u64, seed: u64, seeds: &[(String, String)], pool: &Pool) -> String {
    let mut rng = Rng::new(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let (_, base) = rng.pick(seeds);
    let mut text = base.clone();
    for _ in 0..1 + rng.below(4) {
        text = mutate_once(&text, pool, &mut rng);
    }
    text
}

/// Shrink `text` while `bad(text)` holds: drop lines, then trailing characters.
pub fn minimize(text: &str, bad: &dyn Fn(&str) -> bool) -> String {
    let mut lines = lines_of(text);
    let mut i = 0;
    while i < lines.len() {
        let mut t = lines.clone();
        t.remove(i);
        if bad(&join(&t)) {
            lines = t;
        } else {
            i += 1;
        }
    }
    join(&lines)
}
