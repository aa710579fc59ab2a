//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux
//! `net/ipv4/tcp_rate.c`), the input of BBR.
//!
//! The connection counts segments `delivered` (cumulatively ACKed or SACKed, each
//! once) and remembers when the count last moved (`delivered_time`, Linux
//! `delivered_mstamp`) and the send time of the most recently delivered segment
//! (`first_sent_time`, Linux `first_tx_mstamp`). Each segment, when sent, takes a
//! snapshot of the three (draft §3.2, `tcp_rate_skb_sent`); each ACK builds one
//! sample from the snapshot of the most recently sent segment it delivers (§3.3,
//! `tcp_rate_skb_delivered`): delivered over max(send interval, ACK interval)
//! (`tcp_rate_gen`).
//!
//! Snapshots live in a ring indexed by sequence number (segments are numbered here),
//! sized to the largest flight seen: it doubles when the flight outgrows it (rarely,
//! and never again once the window has settled), so a packet costs no allocation.
//!
//! The sender calls, per ACK: [`DeliveryRate::ack_begin`], then
//! [`DeliveryRate::cum_acked`] / [`DeliveryRate::sacked`] /
//! [`DeliveryRate::dupack_no_sack`] for what it delivers, then
//! [`DeliveryRate::sample`]; per transmission [`DeliveryRate::on_send`]; and
//! [`DeliveryRate::check_app_limited`] when it stops sending. Only algorithms that
//! ask for it (`CongestionControl::cong_control`) have one.

use crate::cc::{LostPacket, RateSample};
use crate::units::Time;

/// What a segment remembers of the connection when it was (re)sent (Linux
/// `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxSnapshot {
    /// The segment this slot holds (slots are reused modulo the ring size).
    seq: u64,
    sent: Time,
    first_sent: Time,
    delivered_time: Time,
    delivered: u64,
    /// Segments deemed lost when this one left (draft-ietf-ccwg-bbr §5.5.10.2
    /// `P.lost`), and what was in flight just after it left (§4.1.2.2
    /// `P.tx_in_flight`, this segment included): BBRv3's per-round loss rate.
    lost: u64,
    tx_in_flight: u64,
    app_limited: bool,
    retx: bool,
    /// Already counted as delivered (SACKed): a later cumulative ACK skips it
    /// (`tcp_rate_skb_delivered` zeroes `delivered_mstamp`).
    counted: bool,
    valid: bool,
}

/// The sample under construction during one ACK (Linux `rate_sample` fields taken
/// from the chosen segment).
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    have: bool,
    prior_delivered: u64,
    prior_time: Time,
    /// Send time of the chosen segment, and its sequence (ties: the higher one).
    sent: Time,
    seq: u64,
    /// Send interval: from the first-sent time the chosen segment saw to its own send.
    send_elapsed: Time,
    lost: u64,
    tx_in_flight: u64,
    app_limited: bool,
    retx: bool,
}

/// Per-connection delivery-rate state.
#[derive(Clone, Debug)]
pub struct DeliveryRate {
    /// Segments delivered (ACKed or SACKed) so far (Linux `tp->delivered`).
    delivered: u64,
    /// When `delivered` last grew (Linux `delivered_mstamp`).
    delivered_time: Time,
    /// Send time of the most recently delivered segment (Linux `first_tx_mstamp`).
    first_sent_time: Time,
    /// `Some(n)`: samples stay app-limited until `delivered` passes n (draft §3.4,
    /// Linux `tp->app_limited`). Starts at `Some(0)`: the first flight is
    /// app-limited, until the first delivery (Linux: ~0U, cleared by wraparound).
    app_limited: Option<u64>,
    /// Segments deemed lost so far (Linux `tp->lost`): counted as the sender marks
    /// them (`mark_lost`) when `marks_losses`, else as it resends them.
    lost: u64,
    /// The sender tells of each segment it marks lost (SACK recovery), as Linux's
    /// `tcp_mark_skb_lost` counts it; without SACK a resend is the only sign.
    marks_losses: bool,
    lost_at_last_sample: u64,
    /// Of the segments deemed lost since the last sample, the one whose flight saw
    /// the highest loss rate (BBRv3's per-lost-packet check, §5.5.10.2).
    lost_packet: Option<LostPacket>,
    /// Segments SACKed and not yet cumulatively ACKed (Linux `sacked_out`); without
    /// SACK, duplicate ACKs counted as delivered (Linux `tcp_add_reno_sack`).
    sacked_out: u64,
    ring: Vec<TxSnapshot>,
    /// SACKed ranges [start, end) above the cumulative ACK, sorted and disjoint, so
    /// that an ACK's blocks cost only the segments they newly cover (a receiver
    /// repeats its blocks on every ACK).
    known: Vec<(u64, u64)>,
    delivered_at_ack_begin: u64,
    cur: Pending,
}

impl Default for DeliveryRate {
    fn default() -> Self {
        Self::new()
    }
}

impl DeliveryRate {
    pub fn new() -> Self {
        DeliveryRate {
            delivered: 0,
            delivered_time: Time::ZERO,
            first_sent_time: Time::ZERO,
            app_limited: Some(0),
            lost: 0,
            lost_at_last_sample: 0,
            lost_packet: None,
            marks_losses: false,
            sacked_out: 0,
            ring: vec![TxSnapshot::default(); 64],
            known: Vec::new(),
            delivered_at_ack_begin: 0,
            cur: Pending::default(),
        }
    }

    /// Segments delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Segments SACKed above the cumulative ACK (or duplicate ACKs without SACK).
    pub fn sacked_out(&self) -> u64 {
        self.sacked_out
    }

    /// Whether samples are currently app-limited.
    pub fn app_limited(&self) -> bool {
        self.app_limited.is_some()
    }

    #[inline]
    fn slot(&self, seq: u64) -> usize {
        (seq as usize) & (self.ring.len() - 1)
    }

    /// Make room for segments `snd_una..=seq` (double the ring, re-placing the live
    /// snapshots).
    fn reserve(&mut self, snd_una: u64, seq: u64) {
        let need = (seq - snd_una.min(seq) + 1) as usize;
        if need <= self.ring.len() {
            return;
        }
        let mut n = self.ring.len();
        while n < need {
            n *= 2;
        }
        let old = std::mem::replace(&mut self.ring, vec![TxSnapshot::default(); n]);
        for s in old.into_iter().filter(|s| s.valid && s.seq >= snd_una) {
            let i = self.slot(s.seq);
            self.ring[i] = s;
        }
    }

    /// A segment leaves (draft §3.2, `tcp_rate_skb_sent`). `packets_out` is what was
    /// outstanding before it (Linux `packets_out`, not the loss-adjusted flight).
    pub fn on_send(&mut self, seq: u64, now: Time, retx: bool, snd_una: u64, packets_out: u64) {
        if packets_out == 0 {
            // Nothing in flight: the sample interval starts now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        self.reserve(snd_una, seq);
        if retx && !self.marks_losses {
            // Without SACK the resend is the mark.
            self.mark_lost(seq);
        }
        let i = self.slot(seq);
        let counted = self.ring[i].valid && self.ring[i].seq == seq && self.ring[i].counted;
        self.ring[i] = TxSnapshot {
            seq,
            sent: now,
            first_sent: self.first_sent_time,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            lost: self.lost,
            // Sent and not SACKed, this segment included (a retransmission was
            // counted in `packets_out` already). The estimator does not see the
            // scoreboard's lost marks, so segments awaiting retransmission count as
            // in flight: an upper bound of the pipe during recovery.
            tx_in_flight: (packets_out + u64::from(!retx)).saturating_sub(self.sacked_out),
            app_limited: self.app_limited.is_some(),
            retx,
            counted,
            valid: true,
        };
    }

    /// Losses are counted by `mark_lost` from now on, not by resends.
    pub fn count_losses_when_marked(&mut self) {
        self.marks_losses = true;
    }

    /// The sender deemed `seq` lost, once per transmission of it (Linux
    /// `tcp_mark_skb_lost`: `tp->lost` grows, a lost retransmission counting again).
    /// Of the segments marked since the last sample, the one whose flight saw the
    /// highest loss rate since its send is kept (BBRv3 checks each lost packet; a check
    /// "rate > threshold" holds for some iff it holds for that one).
    pub fn mark_lost(&mut self, seq: u64) {
        self.lost += 1;
        let s = self.ring[self.slot(seq)];
        if !(s.valid && s.seq == seq && !s.counted) {
            return;
        }
        let p = LostPacket {
            tx_in_flight: s.tx_in_flight,
            lost: self.lost - s.lost,
            app_limited: s.app_limited,
        };
        if self
            .lost_packet
            .is_none_or(|q| p.loss_rate() > q.loss_rate())
        {
            self.lost_packet = Some(p);
        }
    }

    /// Losses marked outside an ACK (a timeout's) reach no sample's `losses`, as
    /// Linux's `tcp_ack` counts only what it marks itself (`tp->lost` grows all the
    /// same, so later samples' loss rates include them).
    pub fn settle_losses(&mut self) {
        self.lost_at_last_sample = self.lost;
    }

    /// An ACK arrives: start a sample.
    pub fn ack_begin(&mut self) {
        self.cur = Pending::default();
        self.delivered_at_ack_begin = self.delivered;
    }

    /// One segment delivered by this ACK (`tcp_rate_skb_delivered`): keep the snapshot
    /// of the most recently sent of them (draft §3.3).
    fn deliver(&mut self, seq: u64, sack: bool) {
        let i = self.slot(seq);
        let s = self.ring[i];
        if !(s.valid && s.seq == seq) {
            // Never sent through on_send (cannot happen) or evicted: count only.
            self.delivered += 1;
            return;
        }
        if s.counted {
            return;
        }
        self.delivered += 1;
        let later = !self.cur.have
            || s.sent > self.cur.sent
            || (s.sent == self.cur.sent && seq > self.cur.seq);
        if later {
            self.cur = Pending {
                have: true,
                prior_delivered: s.delivered,
                prior_time: s.delivered_time,
                sent: s.sent,
                seq,
                send_elapsed: s.sent.saturating_sub(s.first_sent),
                lost: s.lost,
                tx_in_flight: s.tx_in_flight,
                app_limited: s.app_limited,
                retx: s.retx,
            };
            // Send time of the most recently delivered segment.
            self.first_sent_time = s.sent;
        }
        if sack {
            self.ring[i].counted = true;
            self.sacked_out += 1;
        } else {
            self.ring[i].valid = false;
        }
    }

    /// The cumulative ACK moved from `old_una` to `new_una` (segments).
    pub fn cum_acked(&mut self, old_una: u64, new_una: u64) {
        let k = self.known.partition_point(|&(_, e)| e <= new_una);
        self.known.drain(..k);
        if let Some(first) = self.known.first_mut() {
            first.0 = first.0.max(new_una);
        }
        let mut was_sacked = 0;
        for seq in old_una..new_una {
            let i = self.slot(seq);
            let s = self.ring[i];
            if s.valid && s.seq == seq && s.counted {
                was_sacked += 1;
                self.ring[i].valid = false;
            } else {
                self.deliver(seq, false);
            }
        }
        self.sacked_out = self.sacked_out.saturating_sub(was_sacked);
    }

    /// Without SACK: a cumulative ACK of `n` segments after `reno_sacked` duplicates
    /// already counted each as one delivery (Linux `tcp_remove_reno_sacks`): the
    /// count moves by max(n − dupacks, 1).
    pub fn cum_acked_no_sack(&mut self, old_una: u64, new_una: u64) {
        let n = new_una - old_una;
        if self.sacked_out == 0 {
            self.cum_acked(old_una, new_una);
            return;
        }
        let credit = self.sacked_out.min(n - 1);
        // The last segments of the range carry the sample; the first `credit` were
        // counted by duplicates already.
        for seq in old_una..old_una + credit {
            let i = self.slot(seq);
            self.ring[i].valid = false;
        }
        self.sacked_out = if n > self.sacked_out {
            0
        } else {
            self.sacked_out - (n - 1)
        };
        for seq in old_una + credit..new_una {
            self.deliver(seq, false);
        }
    }

    /// SACK blocks [start, end) of one ACK, clipped to what is outstanding: each
    /// segment not SACKed before is delivered (Linux `tcp_sacktag_walk`).
    pub fn sacked(&mut self, blocks: impl Iterator<Item = (u64, u64)>, snd_una: u64, high_tx: u64) {
        for (s, e) in blocks {
            let (s, e) = (s.max(snd_una), e.min(high_tx));
            if s >= e {
                continue;
            }
            // Known ranges overlapping or touching [s, e) are i..j: deliver the gaps
            // between them, then merge them all into one.
            let i = self.known.partition_point(|&(_, ke)| ke < s);
            let j = self.known.partition_point(|&(ks, _)| ks <= e);
            let mut x = s;
            for r in i..j {
                let (ks, ke) = self.known[r];
                for seq in x..ks.min(e) {
                    self.deliver(seq, true);
                }
                x = x.max(ke);
            }
            for seq in x..e {
                self.deliver(seq, true);
            }
            if i < j {
                let ns = s.min(self.known[i].0);
                let ne = e.max(self.known[j - 1].1);
                self.known[i] = (ns, ne);
                self.known.drain(i + 1..j);
            } else {
                self.known.insert(i, (s, e));
            }
        }
    }

    /// A duplicate ACK without SACK: one segment left the network (Linux
    /// `tcp_add_reno_sack`), with no snapshot to sample from.
    pub fn dupack_no_sack(&mut self, in_flight: u64) {
        if self.sacked_out + 1 < in_flight {
            self.sacked_out += 1;
            self.delivered += 1;
        }
    }

    /// The sender stopped sending for want of data with room in the window and
    /// nothing left to retransmit (draft §3.4, `tcp_rate_check_app_limited`): the
    /// "bubble" ends when what is now in flight has been delivered.
    pub fn check_app_limited(&mut self, in_flight: u64) {
        self.mark_app_limited(in_flight);
    }

    /// Mark the current flight app-limited (also BBR's PROBE_RTT, which writes
    /// `tp->app_limited` itself).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = Some((self.delivered + in_flight).max(1));
    }

    /// The end of an ACK (`tcp_rate_gen`): the sample, with `interval` zero when it is
    /// not valid (no snapshot, or an interval under `min_rtt`).
    pub fn sample(&mut self, now: Time, min_rtt: Time, prior_in_flight: u64) -> RateSample {
        // Clear the app-limited mark once the bubble is delivered.
        if self.app_limited.is_some_and(|n| self.delivered > n) {
            self.app_limited = None;
        }
        let newly = self.delivered - self.delivered_at_ack_begin;
        if newly > 0 {
            self.delivered_time = now;
        }
        let losses = self.lost - self.lost_at_last_sample;
        self.lost_at_last_sample = self.lost;
        let mut rs = RateSample {
            delivered: 0,
            interval: Time::ZERO,
            app_limited: self.cur.app_limited,
            prior_delivered: self.cur.prior_delivered,
            delivered_total: self.delivered,
            delivered_time: self.delivered_time,
            acked_sacked: newly,
            losses,
            lost_total: self.lost,
            prior_in_flight,
            retx: self.cur.retx,
            lost_packet: self.lost_packet.take(),
            lost: if self.cur.have {
                self.lost - self.cur.lost
            } else {
                0
            },
            tx_in_flight: self.cur.tx_in_flight,
        };
        if !self.cur.have {
            return rs;
        }
        rs.delivered = self.delivered - self.cur.prior_delivered;
        // "Model sending data and receiving ACKs as separate pipeline phases": the
        // longer of the two, so ACK compression cannot inflate the rate (draft §3.3).
        let ack_elapsed = now.saturating_sub(self.cur.prior_time);
        let interval = self.cur.send_elapsed.max(ack_elapsed);
        // "Normally we expect interval >= min-rtt": shorter ones are discarded.
        if interval < min_rtt || interval == Time::ZERO {
            return rs;
        }
        rs.interval = interval;
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// A window of `n` segments sent back to back at t0, ACKed one by one `gap` apart
    /// after `rtt`: each ACK's sample is (segments ACKed since the snapshot) over the
    /// ACK interval (the send interval is zero).
    #[test]
    fn ack_clocked_samples_measure_the_ack_rate() {
        let mut d = DeliveryRate::new();
        for seq in 0..10 {
            d.on_send(seq, ms(0), false, 0, seq);
        }
        let mut last = RateSample::default();
        for k in 1..=10u64 {
            d.ack_begin();
            d.cum_acked(k - 1, k);
            last = d.sample(ms(100 + k), ms(100), 10 - k + 1);
        }
        // The first flight is app-limited (Linux app_limited = ~0 at start).
        assert!(last.app_limited);
        assert_eq!(last.delivered, 10);
        assert_eq!(last.interval, ms(110));
        assert_eq!(last.acked_sacked, 1);
        // Segment 10 sent at t = 111 ms, after the mark cleared: not app-limited,
        // and its sample spans the delivered count since then.
        d.on_send(10, ms(111), false, 10, 0);
        d.ack_begin();
        d.cum_acked(10, 11);
        let s = d.sample(ms(211), ms(100), 1);
        assert!(!s.app_limited);
        assert_eq!((s.delivered, s.interval), (1, ms(100)));
    }

    /// ACK compression: segments paced 10 ms apart (100 segments/s) whose ACKs
    /// arrive together. The ACK phase (105 ms) is shorter than the send phase
    /// (190 ms); the interval is the longer, so the sample is the send rate, not the
    /// 181 segments/s the ACK phase alone would give.
    #[test]
    fn ack_compression_does_not_inflate_beyond_the_send_rate() {
        let mut d = DeliveryRate::new();
        d.app_limited = None;
        for seq in 0..10 {
            d.on_send(seq, ms(10 * seq), false, 0, seq);
        }
        d.ack_begin();
        d.cum_acked(0, 1);
        d.sample(ms(100), ms(50), 10);
        // Segments 10..20 go out while no ACK comes back.
        for seq in 10..20 {
            d.on_send(seq, ms(10 * seq), false, 1, seq - 1);
        }
        // One compressed ACK for 1..20 at 205 ms.
        d.ack_begin();
        d.cum_acked(1, 20);
        let s = d.sample(ms(205), ms(50), 19);
        assert_eq!(s.delivered, 19);
        assert_eq!(s.interval, ms(190), "send phase 190 ms > ACK phase 105 ms");
        let rate = s.delivered as f64 / s.interval.as_secs_f64();
        assert!((rate - 100.0).abs() < 1e-9, "{rate}");
    }

    /// The send phase longer than the ACK phase: the sample interval is the send
    /// phase (draft §3.3: "use the longer phase").
    #[test]
    fn interval_is_the_longer_of_send_and_ack_phases() {
        let mut d = DeliveryRate::new();
        d.app_limited = None;
        d.on_send(0, ms(0), false, 0, 0);
        d.on_send(1, ms(0), false, 0, 1);
        d.ack_begin();
        d.cum_acked(0, 1);
        d.sample(ms(100), ms(10), 2);
        // Now first_sent_time = 0 and delivered_time = 100 ms. Send 2 at 100 ms and
        // 3 at 190 ms (a slow sender); 1 is ACKed at 101 ms, 2 and 3 at 200 ms.
        d.on_send(2, ms(100), false, 1, 1);
        d.on_send(3, ms(190), false, 1, 2);
        d.ack_begin();
        d.cum_acked(1, 2);
        d.sample(ms(101), ms(10), 3);
        d.ack_begin();
        d.cum_acked(2, 4);
        let s = d.sample(ms(200), ms(10), 2);
        // Snapshot of 3: first_sent = 0 (segment 0's send), delivered_time = 100 ms:
        // send phase 190 ms > ACK phase 100 ms.
        assert_eq!(s.interval, ms(190));
        assert_eq!(s.delivered, 3);
    }

    /// Intervals shorter than min_rtt are not valid samples (`tcp_rate_gen`).
    #[test]
    fn intervals_below_min_rtt_are_discarded() {
        let mut d = DeliveryRate::new();
        d.on_send(0, ms(0), false, 0, 0);
        d.ack_begin();
        d.cum_acked(0, 1);
        let s = d.sample(ms(5), ms(10), 1);
        assert_eq!(s.interval, Time::ZERO);
        assert_eq!(s.acked_sacked, 1);
    }

    /// SACKed segments count once: the later cumulative ACK that covers them adds
    /// only the hole; a retransmission counts one loss.
    #[test]
    fn sacked_segments_are_delivered_once() {
        let mut d = DeliveryRate::new();
        for seq in 0..5 {
            d.on_send(seq, ms(0), false, 0, seq);
        }
        d.ack_begin();
        d.sacked([(1, 5)].into_iter(), 0, 5);
        let s = d.sample(ms(100), ms(50), 5);
        assert_eq!((s.acked_sacked, d.sacked_out()), (4, 4));
        d.ack_begin();
        d.sacked([(1, 5)].into_iter(), 0, 5);
        assert_eq!(d.sample(ms(101), ms(50), 1).acked_sacked, 0);
        d.on_send(0, ms(101), true, 0, 5);
        d.ack_begin();
        d.cum_acked(0, 5);
        let s = d.sample(ms(201), ms(50), 1);
        assert_eq!(
            (s.acked_sacked, s.losses, d.delivered(), d.sacked_out()),
            (1, 1, 5, 0)
        );
        assert!(s.retx);
    }

    /// draft-ietf-ccwg-bbr §4.1.2.2 / §5.5.10.2: a sample carries the flight just
    /// after its segment left (P.tx_in_flight, the segment included, SACKed ones
    /// not) and the segments deemed lost since (C.lost − P.lost).
    #[test]
    fn samples_carry_tx_in_flight_and_losses_since_the_send() {
        let mut d = DeliveryRate::new();
        for seq in 0..10 {
            d.on_send(seq, ms(seq), false, 0, seq);
        }
        // 1..5 SACKed (0 lost): the sample is segment 4's, sent with 5 in flight.
        d.ack_begin();
        d.sacked([(1, 5)].into_iter(), 0, 10);
        let s = d.sample(ms(100), ms(50), 10);
        assert_eq!((s.tx_in_flight, s.lost), (5, 0));
        // 0 resent (one loss); 10 sent with 10 outstanding, 4 SACKed: 7 in flight.
        d.on_send(0, ms(101), true, 0, 10);
        d.on_send(10, ms(102), false, 0, 10);
        d.ack_begin();
        d.sacked([(1, 8)].into_iter(), 0, 11);
        let s = d.sample(ms(110), ms(50), 10);
        assert_eq!(
            (s.tx_in_flight, s.lost),
            (8, 1),
            "segment 7: sent before the loss"
        );
        d.ack_begin();
        d.cum_acked(0, 11);
        let s = d.sample(ms(210), ms(50), 3);
        assert_eq!(
            (s.tx_in_flight, s.lost),
            (7, 0),
            "segment 10: sent after it"
        );
    }

    /// §5.5.10.2 BBRHandleLostPacket: a resent segment's own snapshot (its flight
    /// at send, the losses since, itself included) reaches the next sample; of
    /// several, the one whose flight saw the highest loss rate.
    #[test]
    fn a_resend_reports_the_lost_segments_snapshot() {
        let mut d = DeliveryRate::new();
        d.app_limited = None;
        for seq in 0..10 {
            d.on_send(seq, ms(seq), false, 0, seq);
        }
        // 2 (sent with 3 in flight) and 6 (7 in flight) resent: losses 1 then 2.
        d.on_send(2, ms(20), true, 0, 10);
        d.on_send(6, ms(21), true, 0, 10);
        d.ack_begin();
        d.sacked([(7, 10)].into_iter(), 0, 10);
        let s = d.sample(ms(100), ms(50), 10);
        assert_eq!(
            s.lost_packet,
            Some(LostPacket {
                tx_in_flight: 3,
                lost: 1,
                app_limited: false
            }),
            "1/3 beats 2/7"
        );
        d.ack_begin();
        d.sacked([(7, 10)].into_iter(), 0, 10);
        assert_eq!(
            d.sample(ms(101), ms(50), 10).lost_packet,
            None,
            "reported once"
        );
    }

    /// The ring grows past its initial size and keeps the live snapshots.
    #[test]
    fn the_ring_grows_with_the_flight() {
        let mut d = DeliveryRate::new();
        for seq in 0..1000 {
            d.on_send(seq, Time::from_micros(seq), false, 0, seq);
        }
        assert_eq!(d.ring.len(), 1024);
        d.ack_begin();
        d.cum_acked(0, 1000);
        let s = d.sample(ms(200), ms(100), 1000);
        assert_eq!(s.delivered, 1000);
    }

    /// A flow alone on a bottleneck of C = 1000 segments/s, RTT 50 ms (BDP 50), its
    /// window 100 (≥ BDP, so the link is always busy): every sample after the first
    /// two rounds measures C. When the data runs out, the rest is marked app-limited.
    #[test]
    fn a_lone_window_limited_flow_measures_the_bottleneck_rate() {
        use std::collections::VecDeque;
        let c = 1000.0;
        let service = Time::from_secs_f64(1.0 / c);
        let delay = ms(50);
        let window = 100u64;
        let last = 3000u64;
        let mut d = DeliveryRate::new();
        let mut acks = VecDeque::new();
        let mut busy_until = Time::ZERO;
        let mut send = |d: &mut DeliveryRate, acks: &mut VecDeque<(u64, Time)>, seq, now, una| {
            d.on_send(seq, now, false, una, seq - una);
            busy_until = busy_until.max(now) + service;
            acks.push_back((seq, busy_until + delay));
        };
        for seq in 0..window {
            send(&mut d, &mut acks, seq, Time::ZERO, 0);
        }
        let mut rates = Vec::new();
        let mut end = Time::ZERO;
        while let Some((k, t)) = acks.pop_front() {
            d.ack_begin();
            d.cum_acked(k, k + 1);
            let rs = d.sample(t, delay, acks.len() as u64 + 1);
            let next = k + window;
            if next < last {
                send(&mut d, &mut acks, next, t, k + 1);
            } else {
                // Out of data with room in the window (tcp_rate_check_app_limited).
                d.check_app_limited(acks.len() as u64);
            }
            // The second round still sees the initial burst: its send phase (from
            // segment 0's send at t = 0) is longer than its ACK phase, and its
            // samples are lower (by design: the longer phase). From the third on, C.
            if k >= 2 * window && k < last - window {
                rates.push(rs.rate().unwrap());
                assert!(!rs.app_limited, "segment {k}");
            }
            end = t;
        }
        let (lo, hi) = rates
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
        assert!(
            lo > 0.98 * c && hi < 1.02 * c,
            "samples in [{lo}, {hi}], C = {c}"
        );
        // The application writes one more segment after the flight drained: its
        // sample is app-limited (it was sent inside the marked "bubble").
        d.on_send(last, end, false, last, 0);
        d.ack_begin();
        d.cum_acked(last, last + 1);
        assert!(d.sample(end + delay, delay, 1).app_limited);
        assert!(
            !d.app_limited(),
            "the mark clears once the bubble is delivered"
        );
    }

    /// The sender's hooks (tcp/sender.rs) for an algorithm with `cong_control`: every
    /// ACK reaches it with a rate sample, duplicates and recovery included, and the
    /// sender leaves its cwnd alone when recovery starts and ends.
    #[test]
    fn the_sender_hands_every_ack_to_a_cong_control_algorithm() {
        use crate::cc::CaState;
        use crate::packet::{Packet, PktKind};
        use crate::tcp::pacer::PacingMode;
        use crate::tcp::recorder::{Heard, Recorder};
        use crate::tcp::sender::{Recovery, Sender, SenderConfig};

        let heard = Heard::default();
        let cfg = SenderConfig {
            mss: 1000,
            header: 40,
            init_cwnd: 10.0,
            init_ssthresh: 1e9,
            rwnd: u64::MAX,
            min_rto: ms(200),
            max_rto: Time::from_secs(60),
            initial_rto: Time::from_secs(1),
            timestamps: true,
            dupthresh: 3,
            recovery: Recovery::Sack,
            pacing: PacingMode::None,
            ecn: false,
            cwnd_validation: false,
            rack: false,
            gso_bursts: false,
            linux_rto: false,
            tso_defer: false,
            mark_psh: false,
            linux_rounds: false,
            prr: true,
            rto_new_ssthresh: false,
            rto_keeps_sack: true,
            ssthresh_from_pipe: false,
            limited_transmit: false,
            prr_ns3: false,
            partial_ack_send: false,
            exit_ack_increase: false,
            grow_by_delivered: false,
        };
        let mut s = Sender::new(cfg, Box::new(Recorder(heard.clone())), 0, 0, None);
        let mut out = Vec::new();
        s.start(Time::ZERO, &mut out);
        assert_eq!(out.len(), 10);
        let ack = |seq: u64, now: Time, sack: Option<(u32, u32)>| {
            let mut p = Packet::new(PktKind::Ack, 0, 1, seq, 40, 0, now);
            p.ts_ecr = Time(1);
            if let Some(b) = sack {
                p.set_sack(&[b]);
            }
            p
        };
        // Segment 0 lost; 1..=4 SACKed one by one: recovery starts on the third.
        for k in 1..=4u32 {
            s.on_ack(
                &ack(0, ms(100) + Time(k as u64), Some((1, 1 + k))),
                ms(100),
                &mut out,
            );
        }
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(s.cwnd(), 10.0, "cwnd is the algorithm's at recovery entry");
        // Everything sent before recovery is ACKed: recovery ends.
        s.on_ack(&ack(10, ms(200), None), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.cwnd(), 10.0, "and at exit");
        let h = heard.lock().unwrap();
        let states: Vec<CaState> = h.iter().map(|a| a.0).collect();
        assert_eq!(
            states,
            [
                CaState::Open,
                CaState::Open,
                CaState::Recovery,
                CaState::Recovery,
                CaState::Open
            ]
        );
        // Each duplicate delivered one segment (SACK); the cumulative ACK the hole and
        // 5..10, not the SACKed 1..5 again.
        let delivered: Vec<u64> = h.iter().map(|a| a.1.acked_sacked).collect();
        assert_eq!(delivered, [1, 1, 1, 1, 6]);
    }
}
