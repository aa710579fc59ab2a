//! Reading scenario text: TOML, `path=value` overrides, typed deserialization with
//! field paths in every error, then the checks (`check`).

use super::document::Scenario;
use crate::error::ScenarioError;

/// Apply `path=value` overrides to a parsed TOML tree. `value` is read as TOML
/// (`3`, `"0.5bdp"`, `true`, `{ uniform = [...] }`), or taken as a bare string.
pub fn apply_override(root: &mut toml::Value, spec: &str) -> Result<(), ScenarioError> {
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError(format!("--set {spec}: expected path=value")))?;
    let path = path.trim();
    let raw = raw.trim();
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap(),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let mut cur = root;
    let parts = split_path(path).map_err(|e| ScenarioError(format!("--set {path}: {e}")))?;
    let n = parts.len();
    for (i, part) in parts.into_iter().enumerate() {
        let last = i + 1 == n;
        cur = match part {
            PathPart::Key(k) => {
                let t = cur.as_table_mut().ok_or_else(|| {
                    ScenarioError(format!("--set {path}: \"{k}\" is not inside a table"))
                })?;
                if last {
                    t.insert(k, value);
                    return Ok(());
                }
                t.entry(k)
                    .or_insert_with(|| toml::Value::Table(Default::default()))
            }
            PathPart::Index(k, idx) => {
                let t = cur.as_table_mut().ok_or_else(|| {
                    ScenarioError(format!("--set {path}: \"{k}\" is not inside a table"))
                })?;
                let arr = t
                    .get_mut(&k)
                    .and_then(|a| a.as_array_mut())
                    .ok_or_else(|| ScenarioError(format!("--set {path}: no array \"{k}\"")))?;
                let len = arr.len();
                let slot = arr.get_mut(idx).ok_or_else(|| {
                    ScenarioError(format!(
                        "--set {path}: index {idx} out of range ({k} has {len})"
                    ))
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
        };
    }
    Ok(())
}

enum PathPart {
    Key(String),
    Index(String, usize),
}

fn split_path(path: &str) -> Result<Vec<PathPart>, String> {
    let mut out = Vec::new();
    for seg in path.split('.') {
        if seg.is_empty() {
            return Err("empty path segment".into());
        }
        if let Some(open) = seg.find('[') {
            let key = &seg[..open];
            let idx = seg[open + 1..]
                .strip_suffix(']')
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| format!("bad index in \"{seg}\""))?;
            out.push(PathPart::Index(key.to_string(), idx));
        } else {
            out.push(PathPart::Key(seg.to_string()));
        }
    }
    Ok(out)
}

/// The scenario text with `path=value` overrides applied, as it will run: what a run
/// directory records (comments are not kept). Checks only the TOML and the paths.
pub fn resolve(text: &str, overrides: &[String]) -> Result<String, ScenarioError> {
    let root = read_tree(text, overrides)?;
    toml::to_string(&root).map_err(|e| ScenarioError(format!("cannot write the scenario: {e}")))
}

/// Parse scenario text with overrides applied. Errors name the field path.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let root = read_tree(text, overrides)?;
    let sc: Scenario = serde_path_to_error::deserialize(root).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let inner = inner.lines().next().unwrap_or("").to_string();
        if path == "." || path.is_empty() {
            ScenarioError(inner)
        } else {
            ScenarioError(format!("{path}: {inner}"))
        }
    })?;
    super::check::validate(&sc)?;
    Ok(sc)
}

/// Read and parse a scenario file; relative trace paths in it are taken from the
/// file's directory.
pub fn parse_file(path: &std::path::Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError(format!("cannot read {}: {e}", path.display())))?;
    let mut sc = parse(&text, overrides)?;
    sc.base_dir = Some(
        path.parent()
            .map_or_else(|| std::path::PathBuf::from("."), |d| d.to_path_buf()),
    );
    Ok(sc)
}

/// The TOML tree of scenario text with the overrides applied.
fn read_tree(text: &str, overrides: &[String]) -> Result<toml::Value, ScenarioError> {
    let mut root: toml::Value = toml::from_str::<toml::Table>(text)
        .map(toml::Value::Table)
        .map_err(|e| {
            // One line: the parser's message can carry a second "expected ..." line.
            let msg = e.message().lines().collect::<Vec<_>>().join("; ");
            match e.span() {
                Some(sp) => {
                    let line = text[..sp.start.min(text.len())].matches('\n').count() + 1;
                    ScenarioError(format!("malformed TOML at line {line}: {msg}"))
                }
                None => ScenarioError(format!("malformed TOML: {msg}")),
            }
        })?;
    for o in overrides {
        apply_override(&mut root, o)?;
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "20ms"
buffer = "bdp"
[[flows]]
count = 2
cc = "reno"
"#;

    #[test]
    fn parses_and_overrides() {
        let sc = parse(BASE, &["seed=5".into(), "flows[0].count=3".into()]).unwrap();
        assert_eq!(sc.seed, 5);
        assert_eq!(sc.flows[0].count, 3);
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse(BASE, &["flows[0].start=\"ten\"".into()]).unwrap_err();
        assert!(e.0.starts_with("flows[0].start:"), "{e}");
        assert!(e.0.contains("\"ten\""), "{e}");
        let e = parse(BASE, &["bogus=1".into()]).unwrap_err();
        assert!(e.0.contains("bogus"), "{e}");
        let e = parse(BASE, &["topology.bottleneck_rate=\"-5Mbps\"".into()]).unwrap_err();
        assert!(e.0.starts_with("topology.bottleneck_rate:"), "{e}");
        let e = parse(BASE, &["topology.bottleneck_rate=\"0Mbps\"".into()]).unwrap_err();
        assert!(e.0.starts_with("topology.bottleneck_rate:"), "{e}");
        let e = parse(BASE, &["flows[0].cc=\"warp\"".into()]).unwrap_err();
        assert!(
            e.0.starts_with("flows[0].cc:") && e.0.contains("warp"),
            "{e}"
        );
        let e = parse("duration = ", &[]).unwrap_err();
        assert!(e.0.contains("malformed TOML"), "{e}");
    }
}
