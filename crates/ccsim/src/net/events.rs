//! `[[events]]` resolved against the laid-out network: link changes by link id, and
//! each flow group's start and stop times (docs/scenarios.md#events).

use crate::quantity::BufferSpec;
use crate::queue::{Limit, QueueSpec};
use crate::scenario::{Scenario, ScenarioError};
use crate::units::{Rate, Time};

/// A scheduled change of one link; `None`: unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChange {
    pub at: Time,
    pub link: u32,
    pub rate: Option<Rate>,
    pub delay: Option<Time>,
    pub loss: Option<f64>,
    pub buffer: Option<Limit>,
}

/// What `link_changes` needs to know of a link.
pub struct LinkFacts<'a> {
    pub name: &'a str,
    pub traced: bool,
    pub queue: &'a QueueSpec,
}

/// The link events of a scenario, by link id. Errors name the field: an unknown link,
/// a rate change of a trace-driven link, a buffer change of a discipline other than
/// drop-tail.
pub fn link_changes(sc: &Scenario, links: &[LinkFacts]) -> Result<Vec<LinkChange>, ScenarioError> {
    let mut out = Vec::new();
    for (i, e) in sc.events.iter().enumerate() {
        let Some(name) = &e.link else { continue };
        let p = format!("events[{i}]");
        let Some(l) = links.iter().position(|l| l.name == name) else {
            let known: Vec<&str> = links.iter().take(6).map(|l| l.name).collect();
            let more = if links.len() > 6 { ", ..." } else { "" };
            return Err(ScenarioError::at(
                &format!("{p}.link"),
                format!(
                    "no link named \"{name}\" (links: {}{more})",
                    known.join(", ")
                ),
            ));
        };
        if e.rate.is_some() && links[l].traced {
            return Err(ScenarioError::at(
                &format!("{p}.rate"),
                format!("link \"{name}\" is trace-driven: its trace sets the rate"),
            ));
        }
        if e.buffer.is_some() && *links[l].queue != QueueSpec::DropTail {
            return Err(ScenarioError::at(
                &format!("{p}.buffer"),
                format!("only a drop-tail queue's limit can change; link \"{name}\" has another discipline"),
            ));
        }
        let buffer = match e.buffer {
            Some(BufferSpec::Packets(n)) => Some(Limit::Packets(n)),
            Some(BufferSpec::Bytes(b)) => Some(Limit::Bytes(b)),
            _ => None,
        };
        out.push(LinkChange {
            at: e.at.0,
            link: l as u32,
            rate: e.rate.map(|r| r.0),
            delay: e.delay.map(|d| d.0),
            loss: e.loss,
            buffer,
        });
    }
    Ok(out)
}

/// The start and stop of a flow of group `g` whose own start is `start`: a start
/// event of the group shifts it by the event's time; the stop is the earliest of
/// `flows[g].stop` and the group's stop events.
pub fn group_times(sc: &Scenario, g: usize, start: Time) -> (Time, Option<Time>) {
    let name = sc.flows[g].group_name(g);
    let mut start = start;
    let mut stop = sc.flows[g].stop.map(|d| d.0);
    for e in &sc.events {
        if e.starts() == Some(name.as_str()) {
            start = Time(start.0.saturating_add(e.at.0 .0));
        }
        if e.stops() == Some(name.as_str()) {
            stop = Some(stop.map_or(e.at.0, |s| s.min(e.at.0)));
        }
    }
    (start, stop)
}
