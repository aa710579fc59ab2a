//! `[[events]]`: scheduled changes during a run (docs/scenarios.md#events). An event
//! changes a link (`link` with `rate`, `delay`, `loss` and/or `buffer`) or starts or
//! stops a flow group (`group` with `action`). The checks that need no network are
//! here; link names are resolved by `net` (the layout names the links).

use super::flows::FlowGroup;
use crate::error::ScenarioError;
use crate::quantity::{BufferSpec, Dur, RateQ};
use serde::Deserialize;

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GroupAction {
    /// The group's flows start at the event (each at the event + its own `start`).
    Start,
    /// The group's flows stop sending at the event.
    Stop,
}

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// When, from the start of the run.
    pub at: Dur,
    /// A link by name (`"bottleneck"`, a graph link's name) and its new values.
    pub link: Option<String>,
    pub rate: Option<RateQ>,
    pub delay: Option<Dur>,
    pub loss: Option<f64>,
    /// A size (`"100pkt"`, `"64KB"`); rules such as `"bdp"` are resolved only at the
    /// start.
    pub buffer: Option<BufferSpec>,
    /// A flow group by name, and what happens to it.
    pub group: Option<String>,
    pub action: Option<GroupAction>,
}

/// Checks of `events` that need no network: one kind of change per event, values in
/// range, known groups, a group started by at most one event. An event after the end
/// of the run never happens (so that `--set duration=...` keeps a scenario valid).
pub fn check_events(events: &[EventSpec], flows: &[FlowGroup]) -> Result<(), ScenarioError> {
    let mut started: Vec<&str> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let p = format!("events[{i}]");
        let link_fields =
            e.rate.is_some() || e.delay.is_some() || e.loss.is_some() || e.buffer.is_some();
        match (&e.link, &e.group) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::at(
                    &format!("{p}.group"),
                    "an event changes a link or a flow group, not both",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::at(
                    &p,
                    "give `link` (with rate, delay, loss or buffer) or `group` (with action)",
                ))
            }
            (Some(_), None) => {
                if e.action.is_some() {
                    return Err(ScenarioError::at(
                        &format!("{p}.action"),
                        "only a flow group has an action; a link event sets rate, delay, loss or buffer",
                    ));
                }
                if !link_fields {
                    return Err(ScenarioError::at(
                        &format!("{p}.link"),
                        "nothing to change: give rate, delay, loss or buffer",
                    ));
                }
                if let Some(r) = e.rate {
                    if r.0.bps() == 0 {
                        return Err(ScenarioError::at(
                            &format!("{p}.rate"),
                            "a link needs a positive rate, got 0bps",
                        ));
                    }
                }
                if let Some(l) = e.loss {
                    if !(0.0..1.0).contains(&l) {
                        return Err(ScenarioError::at(
                            &format!("{p}.loss"),
                            format!("a loss probability must be in [0, 1), got {l}"),
                        ));
                    }
                }
                match e.buffer {
                    None | Some(BufferSpec::Packets(_)) | Some(BufferSpec::Bytes(_)) => {}
                    Some(_) => {
                        return Err(ScenarioError::at(
                            &format!("{p}.buffer"),
                            "give a size like \"100pkt\" or \"64KB\" (buffer rules are resolved once, at the start)",
                        ))
                    }
                }
                if matches!(
                    e.buffer,
                    Some(BufferSpec::Packets(0)) | Some(BufferSpec::Bytes(0))
                ) {
                    return Err(ScenarioError::at(
                        &format!("{p}.buffer"),
                        "must be positive",
                    ));
                }
            }
            (None, Some(g)) => {
                if link_fields {
                    return Err(ScenarioError::at(
                        &format!("{p}.group"),
                        "a group event has only an action; rate, delay, loss and buffer are a link's",
                    ));
                }
                let Some(action) = e.action else {
                    return Err(ScenarioError::at(
                        &format!("{p}.action"),
                        "missing: \"start\" or \"stop\"",
                    ));
                };
                if !flows.iter().enumerate().any(|(k, f)| &f.group_name(k) == g) {
                    let known: Vec<String> = flows
                        .iter()
                        .enumerate()
                        .take(6)
                        .map(|(k, f)| f.group_name(k))
                        .collect();
                    return Err(ScenarioError::at(
                        &format!("{p}.group"),
                        format!("no flow group named \"{g}\" (groups: {})", known.join(", ")),
                    ));
                }
                if action == GroupAction::Start {
                    if started.contains(&g.as_str()) {
                        return Err(ScenarioError::at(
                            &format!("{p}.group"),
                            format!("group \"{g}\" is started by an earlier event"),
                        ));
                    }
                    started.push(g);
                }
            }
        }
    }
    Ok(())
}

impl EventSpec {
    /// A start event's group.
    pub fn starts(&self) -> Option<&str> {
        (self.action == Some(GroupAction::Start))
            .then_some(self.group.as_deref())
            .flatten()
    }
    pub fn stops(&self) -> Option<&str> {
        (self.action == Some(GroupAction::Stop))
            .then_some(self.group.as_deref())
            .flatten()
    }
}
