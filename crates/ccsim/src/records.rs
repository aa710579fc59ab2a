//! Records: what an engine measured in a run, before any metric is computed.
//!
//! Both engines emit the same `Records` — per-link counters over the measurement
//! window, per-flow totals, the congestion events at each reported queue, the drop log
//! (with a reason on every drop) and the sampled series — and `summary` turns them
//! into the one summary, flows table and events table of docs/metrics.md. A metric is
//! therefore defined once, for both engines, and can be tested on hand-made records.
//!
//! Counts are `f64`: whole numbers in the packet engine, fractional packets in the
//! fluid engine (whose traffic is a fluid). Times are `Time` (integer picoseconds) so
//! that comparisons of instants are exact in both engines.

use crate::units::Time;

/// Which engine produced the records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    Packet,
    Fluid,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Packet => "packet",
            EngineKind::Fluid => "fluid",
        }
    }
}

/// Everything a run reports.
#[derive(Debug)]
pub struct Records {
    pub info: RunInfo,
    /// Every link of the network, by link id; `monitored` ones are reported.
    pub links: Vec<LinkRecord>,
    /// Routes as link ids; flows name theirs by index.
    pub paths: Vec<Vec<u32>>,
    /// One per static flow (by flow id, first), then one per workload flow instance.
    pub flows: Vec<FlowRecord>,
    /// Congestion events at each monitored link (link order, then time order), from
    /// its queue's drops of TCP data; `flows_active` is left for the summary.
    pub congestion: Vec<CongestionEvent>,
    /// Every drop anywhere, when the scenario asks for the events table.
    pub drops: Vec<DropRecord>,
    /// Sampled series as measured (derived series such as fairness are the summary's).
    pub series: SeriesBuf,
    /// Every complete CoV window of every flow (metrics::probe).
    pub covs: Vec<CovSample>,
    pub sources: Vec<SourceRecord>,
    pub workloads: Vec<WorkloadRecord>,
    /// Packets injected, delivered, dropped and in the network (packet engine; the
    /// fluid model's multi-link flows are not mass-conserving end to end, as in
    /// Misra–Gong–Towsley, so it reports only each queue's balance).
    pub conservation: Option<Conservation>,
}

/// The run as a whole.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub engine: EngineKind,
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    /// Start of the measurement window; it ends at `end`.
    pub warmup: Time,
    /// The clock when the run ended (the duration, in a run that was not stopped).
    pub end: Time,
    pub wall_s: f64,
    /// Packet engine: events processed. Fluid engine: none.
    pub events: Option<u64>,
    /// Fluid engine: integration steps and their length. Packet engine: none.
    pub steps: Option<u64>,
    pub step_s: Option<f64>,
    /// The link the summary calls the bottleneck (the first monitored one).
    pub bottleneck: usize,
    /// The bottleneck's buffer basis: bandwidth-delay product, the mean two-way
    /// propagation RTT of its flows, their mean packet size, and the resolved limit.
    pub bdp_bytes: f64,
    pub mean_rtt_s: f64,
    pub packet_size: f64,
    pub buffer: String,
    /// Each flow group's (and workload's) effective TCP settings, by name.
    pub tcp: Vec<(String, serde_json::Value)>,
    pub sample_interval: Option<Time>,
    /// `metrics.fair_share_flows` (the ideal latency's fair share).
    pub fair_share_flows: Option<u32>,
}

impl RunInfo {
    /// Length of the measurement window, seconds.
    pub fn window_s(&self) -> f64 {
        (self.end.saturating_sub(self.warmup)).as_secs_f64()
    }
}

/// A link: what it is and what crossed it during the measurement window.
#[derive(Clone, Debug, Default)]
pub struct LinkRecord {
    pub name: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    /// A token bucket releases the packets whole (`topology.shaper`): no
    /// serialization time on this link.
    pub shaped: bool,
    /// Reported in the summary and the series.
    pub monitored: bool,
    /// The buffer limit, as resolved (`"42pkt"`, `"64000B"`).
    pub buffer: String,
    /// Gap between two drops that separates congestion events here (docs/metrics.md).
    pub sync_gap: Time,
    /// Counters over the measurement window.
    pub window: LinkCounts,
    /// Largest queue in the measurement window, packets and bytes.
    pub queue_max_pkts: f64,
    pub queue_max_bytes: f64,
    /// Time-weighted distribution of the number in system (queue + in service), one
    /// bin per packet, the last one collecting the rest; empty where not measured.
    pub occupancy: Vec<f64>,
    /// Packets transmitted over the whole run.
    pub tx_pkts_total: f64,
    /// Flows (and workload slots) whose data route crosses the link.
    pub crossers: u32,
    /// The queue's own balance over the whole run (arrived = departed + dropped +
    /// stored), checked by the link that kept it.
    pub balance: QueueBalance,
    /// The capacity over the window of a link whose rate is not one constant from
    /// time 0 (a trace, a rate change); none: `rate_bps` × window.
    pub capacity: Option<Capacity>,
    /// Queueing delay (sojourn) of the packets that left the queue in the window
    /// (packet engine), or of the time-weighted queue q/C (fluid); NaN: not measured.
    pub sojourn: DelaySummary,
}

/// A link's capacity over the window, in bits: offered (∫ C dt), and used by the
/// transmitter (all packets; data packets).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Capacity {
    pub offered_bits: f64,
    pub used_bits: f64,
    pub used_data_bits: f64,
}

/// Counters of a link over the measurement window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounts {
    /// Packets that reached the link's input (queue or idle transmitter).
    pub arrivals: f64,
    /// Dropped by the discipline, by reason.
    pub drops_overflow: f64,
    pub drops_aqm: f64,
    /// Lost on the wire (Bernoulli loss).
    pub wire_losses: f64,
    /// Transmitted packets and bytes.
    pub tx_pkts: f64,
    pub tx_bytes: f64,
    /// Seconds the transmitter was busy: with any packet, with data packets.
    pub busy_s: f64,
    pub busy_data_s: f64,
    /// Time integrals of the queue length, packet·s and byte·s.
    pub q_area_pkts: f64,
    pub q_area_bytes: f64,
    /// Packets that left the queue (or passed an idle one) and the sum of the time
    /// they waited, s.
    pub departed: f64,
    pub sojourn_s: f64,
    /// Packets the discipline marked CE (ECN) instead of dropping; zero in the fluid
    /// engine, whose queues do not mark.
    pub ecn_marks: f64,
}

/// A queue's conservation over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueBalance {
    pub arrived: f64,
    pub departed: f64,
    pub dropped: f64,
    pub stored: f64,
}

impl QueueBalance {
    /// arrived = departed + dropped + stored (to a part in 10⁹ for fluid counts).
    pub fn ok(&self) -> bool {
        let out = self.departed + self.dropped + self.stored;
        (self.arrived - out).abs() <= 1e-9 * self.arrived.max(1.0)
    }
}

/// One flow, or one instance of a workload's flow slot.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// Flow id (a workload instance: its slot's id).
    pub flow: u32,
    pub group: String,
    pub cc: String,
    pub reverse: bool,
    /// A workload instance (docs/scenarios.md#workloads); its row is in the flows
    /// table but not in the summary's fairness.
    pub instance: bool,
    pub started: bool,
    pub start: Time,
    /// Two-way propagation delay of the flow's path.
    pub rtt_prop: Time,
    /// Bytes to send; none: unlimited.
    pub size: Option<u64>,
    /// Indices into `Records::paths`.
    pub data_path: u32,
    pub ack_path: u32,
    pub mss: u32,
    pub header: u32,
    pub init_cwnd: f64,
    /// The receiver got the last byte (FCT = completed − start).
    pub completed: Option<Time>,
    /// A workload instance: the sender had every byte acknowledged.
    pub finished: Option<Time>,
    /// Counters over the measurement window.
    pub window: FlowCounts,
    pub cwnd_final: f64,
    /// cwnd, and segments in flight, when the network first dropped the flow's data.
    pub cwnd_at_first_drop: Option<f64>,
    pub flight_at_first_drop: Option<f64>,
    /// Mean CoV over the complete windows inside the measurement window, and how many.
    pub cov_mean: f64,
    pub cov_windows: u32,
    /// Study 002's convergence time to the reference flow.
    pub convergence: Option<Time>,
    /// A workload instance: its fair rate (bit/s) when it started and the hop of its
    /// data route that set it (ideal latency).
    pub fair_share: Option<(f64, u32)>,
    /// RTT samples over the window: each new ACK's, as the sender takes them (packet
    /// engine), or the model's RTT at every step (fluid, time-weighted).
    pub rtt: DelaySummary,
}

/// Counters of a flow over the measurement window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowCounts {
    /// In-order payload bytes delivered to the receiver.
    pub bytes_delivered: f64,
    /// Data packets dropped anywhere (queues and wire).
    pub losses: f64,
    pub retransmits: f64,
    pub timeouts: f64,
    pub fast_retransmits: f64,
    pub back_to_back: f64,
    pub ecn_reductions: f64,
    /// Data segments that reached the receiver CE-marked (the flow's ECN marks); zero
    /// in the fluid engine.
    pub ce_marks: f64,
    /// Seconds spent in loss recovery.
    pub recovery_s: f64,
}

/// A delay distribution's summary, seconds (NaN: no value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelaySummary {
    pub n: u64,
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Default for DelaySummary {
    fn default() -> Self {
        DelaySummary {
            n: 0,
            min: f64::NAN,
            mean: f64::NAN,
            p50: f64::NAN,
            p95: f64::NAN,
            p99: f64::NAN,
            max: f64::NAN,
        }
    }
}

/// What was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropKind {
    Data = 0,
    Ack = 1,
    Udp = 2,
}

pub const DROP_KINDS: &[&str] = &["data", "ack", "udp"];

/// Why a packet was dropped (ns-3 keeps a reason with every drop too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// No room under the buffer limit (drop-tail, fair queueing's push-out).
    Overflow = 0,
    /// An active queue management decision (RED early or forced, CoDel, XCP's
    /// queue, PIE ...), with room left.
    Aqm = 1,
    /// Bernoulli loss on the wire.
    Wire = 2,
    /// A scripted first-transmission drop (`flows[i].drop_segments`).
    Scripted = 3,
}

pub const DROP_REASONS: &[&str] = &["overflow", "aqm", "wire", "scripted"];

/// One drop in the log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropRecord {
    pub at: Time,
    /// Segment number (data), cumulative ACK (acks) or datagram number (udp).
    pub seq: u64,
    /// Link id; `u32::MAX` for a scripted drop of a flow with no route.
    pub link: u32,
    /// Flow id (TCP) or source index (udp).
    pub flow: u32,
    pub kind: DropKind,
    pub reason: DropReason,
    /// Index of its congestion event among its link's (−1: none).
    pub event: i64,
}

/// One congestion event at a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    pub link: u32,
    /// First and last drop of the event.
    pub start: Time,
    pub end: Time,
    /// Packets dropped (fractional in the fluid engine).
    pub drops: f64,
    /// Distinct flows that lost at least one packet.
    pub flows_lost: u32,
    /// Flows active at some time during the event (never fewer than `flows_lost`);
    /// filled in after the run, from the flows' activity (`summary`).
    pub flows_active: u32,
}

impl CongestionEvent {
    /// The event's synchronization: flows_lost / flows_active.
    pub fn fraction(&self) -> f64 {
        self.flows_lost as f64 / self.flows_active.max(1) as f64
    }
}

/// One window's CoV of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CovSample {
    pub end: Time,
    pub flow: u32,
    pub cov: f64,
}

/// An open-loop packet source.
#[derive(Clone, Debug, Default)]
pub struct SourceRecord {
    pub name: String,
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
}

/// A dynamic workload (docs/scenarios.md#workloads).
#[derive(Clone, Debug, Default)]
pub struct WorkloadRecord {
    pub name: String,
    pub kind: &'static str,
    pub slots: usize,
    pub arrivals: u64,
    pub blocked: u64,
    pub started: u64,
    pub completed: u64,
    pub drain_waits: u64,
    /// Payload bytes of the flows started, in total and in the measurement window.
    pub offered_bytes: u64,
    pub offered_bytes_window: u64,
    /// The rate its offered load refers to, bit/s.
    pub capacity_bps: f64,
}

/// Packets (fluid: packets' worth of bytes) over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Conservation {
    pub sent: f64,
    pub delivered: f64,
    pub dropped: f64,
    pub in_flight: f64,
}

impl Conservation {
    pub fn ok(&self) -> bool {
        let out = self.delivered + self.dropped + self.in_flight;
        (self.sent - out).abs() <= 1e-9 * self.sent.max(1.0)
    }
}

/// A sampled series metric (docs/metrics.md#series).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SeriesMetric {
    Utilization = 0,
    QueuePkts = 1,
    QueueBytes = 2,
    Throughput = 3,
    Cwnd = 4,
    Ssthresh = 5,
    /// Per flow: CoV of the throughput over the window ending at `time`.
    Cov = 6,
    /// Per link: drops at the queue during the sample interval.
    Drops = 7,
    /// Per link: RTT-normalized Jain fairness of the interval's throughputs of the
    /// flows crossing it (study 001).
    JainRtt = 8,
    /// Per flow: the sender's smoothed RTT (RFC 6298) at the sample time, s; no row
    /// before its first RTT sample (fluid: the model's RTT, once the flow started).
    Srtt = 9,
}

pub const SERIES_METRICS: &[&str] = &[
    "utilization",
    "queue_pkts",
    "queue_bytes",
    "throughput_bps",
    "cwnd_pkts",
    "ssthresh_pkts",
    "cov",
    "drops",
    "jain_rtt",
    "srtt_s",
];
pub const SERIES_ENTITIES: &[&str] = &["link", "flow"];

/// Sampled time series in tidy form: (time, entity, id, metric, value).
#[derive(Default, Debug)]
pub struct SeriesBuf {
    pub time: Vec<f64>,
    pub entity: Vec<u8>,
    pub id: Vec<i32>,
    pub metric: Vec<u8>,
    pub value: Vec<f64>,
}

impl SeriesBuf {
    pub fn push_link(&mut self, t: f64, id: u32, m: SeriesMetric, v: f64) {
        self.push(t, 0, id, m, v);
    }
    pub fn push_flow(&mut self, t: f64, id: u32, m: SeriesMetric, v: f64) {
        self.push(t, 1, id, m, v);
    }
    fn push(&mut self, t: f64, e: u8, id: u32, m: SeriesMetric, v: f64) {
        self.time.push(t);
        self.entity.push(e);
        self.id.push(id as i32);
        self.metric.push(m as u8);
        self.value.push(v);
    }
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
