//! RACK-TLP (RFC 8985) state of one SACK sender: time-based loss detection and the Tail
//! Loss Probe. `sender.rs` drives it; the scoreboard keeps the lost boundary it moves.
//!
//! Each segment remembers when its latest transmission left (`xmit`, a ring indexed by
//! sequence number and grown, like the delivery-rate ring, only when the flight
//! outgrows it: no allocation per packet). An ACK hands the segments it newly delivers
//! to [`Rack::delivered`] (RFC 8985 §6.2 steps 2-3); [`Rack::detect`] (§6.2 step 5)
//! then walks the un-SACKed segments above the lost boundary in sending order and marks
//! lost every one sent before RACK.xmit_ts that has waited RACK.rtt + reo_wnd.
//!
//! The scoreboard's lost set is a boundary (every un-SACKed segment below it is lost),
//! so the walk stops at the first segment it cannot mark: first transmissions leave in
//! sequence order, so later ones would be younger anyway. The sender runs the same walk
//! over the recovery's retransmissions (below HighRxt, also sent in sequence order) to
//! find lost retransmissions, and starts it again from snd.una once every one it found
//! was resent, so that a resend lost in turn is found as well (Linux's walk, over every
//! segment in order of transmission, marks a segment lost as often as it is resent).

use crate::units::Time;

/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK time added to the PTO when one
/// segment is in flight (Linux adds TCP_RTO_MIN, also 200 ms).
pub const WC_DEL_ACK_T: Time = Time::from_millis(200);

/// One segment's latest transmission.
#[derive(Clone, Copy, Debug, Default)]
struct Tx {
    sent: Time,
    retx: bool,
}

/// When each outstanding segment last left, and whether as a retransmission: a ring
/// indexed by sequence number, doubled when the flight outgrows it. RACK's, and the
/// sender's own for TSO deferral when RACK is off (Linux keeps it in each skb).
#[derive(Clone, Debug)]
pub struct XmitRing {
    xmit: Vec<Tx>,
}

impl Default for XmitRing {
    fn default() -> Self {
        XmitRing {
            xmit: vec![Tx::default(); 64],
        }
    }
}

impl XmitRing {
    #[inline]
    fn slot(&self, seq: u64) -> usize {
        (seq as usize) & (self.xmit.len() - 1)
    }

    /// Segment `seq` leaves now (a first transmission or a retransmission); segments
    /// `snd_una..` are live.
    #[inline]
    pub fn on_send(&mut self, seq: u64, now: Time, retx: bool, snd_una: u64) {
        let need = (seq - snd_una.min(seq) + 1) as usize;
        if need > self.xmit.len() {
            self.grow(snd_una, seq, need);
        }
        let i = self.slot(seq);
        self.xmit[i] = Tx { sent: now, retx };
    }

    #[cold]
    fn grow(&mut self, snd_una: u64, seq: u64, need: usize) {
        let mut n = self.xmit.len();
        while n < need {
            n *= 2;
        }
        let old = std::mem::replace(&mut self.xmit, vec![Tx::default(); n]);
        let mask = old.len() - 1;
        for s in snd_una..seq {
            let i = self.slot(s);
            self.xmit[i] = old[(s as usize) & mask];
        }
    }

    /// When segment `seq` (outstanding) last left.
    #[inline]
    pub fn sent(&self, seq: u64) -> Time {
        self.xmit[self.slot(seq)].sent
    }

    /// Whether segment `seq`'s latest transmission is a retransmission.
    #[inline]
    pub fn retransmitted(&self, seq: u64) -> bool {
        self.xmit[self.slot(seq)].retx
    }

    #[inline]
    fn get(&self, seq: u64) -> Tx {
        self.xmit[self.slot(seq)]
    }
}

/// RACK's per-connection state (RFC 8985 §5.2's RACK.* variables) and the segments'
/// transmit times.
#[derive(Clone, Debug)]
pub struct Rack {
    xmit: XmitRing,
    /// RACK.xmit_ts and RACK.end_seq (as the segment number, end_seq − 1): the most
    /// recently sent segment delivered so far.
    xmit_ts: Time,
    seq: Option<u64>,
    /// RACK.rtt: the RTT of that segment's delivery.
    pub rtt: Time,
    /// RACK.fack: one past the highest segment delivered.
    fack: u64,
    /// RACK.reordering_seen (§6.2 step 3).
    pub reordering_seen: bool,
    /// RACK.min_RTT: the least `now − xmit_ts` of a first transmission delivered. As
    /// Linux's `tcp_min_rtt`, which `tcp_ack_update_rtt` feeds with `ca_rtt_us`, the RTT
    /// of the most recently sent segment an ACK delivers; not SRTT's samples, which time
    /// the first of two delayed-ACKed segments and so run a serialization time above it.
    pub min_rtt: Option<Time>,
}

impl Default for Rack {
    fn default() -> Self {
        Self::new()
    }
}

impl Rack {
    pub fn new() -> Self {
        Rack {
            xmit: XmitRing::default(),
            xmit_ts: Time::ZERO,
            seq: None,
            rtt: Time::ZERO,
            fack: 0,
            reordering_seen: false,
            min_rtt: None,
        }
    }

    /// Segment `seq` leaves now (a first transmission or a retransmission); segments
    /// `snd_una..` are live.
    #[inline]
    pub fn on_send(&mut self, seq: u64, now: Time, retx: bool, snd_una: u64) {
        self.xmit.on_send(seq, now, retx, snd_una);
    }

    /// When segment `seq` (outstanding) last left.
    #[inline]
    pub fn sent(&self, seq: u64) -> Time {
        self.xmit.sent(seq)
    }

    /// Whether segment `seq`'s latest transmission is a retransmission.
    pub fn retransmitted(&self, seq: u64) -> bool {
        self.xmit.retransmitted(seq)
    }

    /// RFC 8985 §6.1 RACK_sent_after(t1, seq1, t2, seq2): sent later, or at the same
    /// time with a higher sequence.
    #[inline]
    fn sent_after(t1: Time, s1: u64, t2: Time, s2: u64) -> bool {
        t1 > t2 || (t1 == t2 && s1 > s2)
    }

    /// RFC 8985 §6.2 steps 1-3 for segments [a, b) newly delivered (cumulatively or
    /// selectively) by an ACK at `now`.
    pub fn delivered(&mut self, a: u64, b: u64, now: Time) {
        for seq in a..b {
            let tx = self.xmit.get(seq);
            // Step 3: a first transmission delivered below RACK.fack was reordered.
            if !tx.retx && seq + 1 < self.fack {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(seq + 1);
            let rtt = now.saturating_sub(tx.sent);
            // Step 2: an ACK of a retransmitted segment may be for the original: skip it
            // if its RTT is below the minimum. As Linux (`tcp_rack_advance`), not the
            // RFC's second test (TSecr older than the retransmission): a receiver echoes
            // TS.Recent, of its first in-order segment after its last ACK (RFC 7323
            // §4.3), so the SACK of a retransmission that arrives out of order — a
            // tail-loss probe's — always echoes an older time, and RACK would never
            // learn from it.
            if tx.retx {
                if self.min_rtt.is_none_or(|m| rtt < m) {
                    continue;
                }
            } else {
                // Step 1: RACK.min_RTT.
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            }
            if self
                .seq
                .is_none_or(|s| Self::sent_after(tx.sent, seq, self.xmit_ts, s))
            {
                self.rtt = rtt;
                self.xmit_ts = tx.sent;
                self.seq = Some(seq);
            }
        }
    }

    /// RFC 8985 §6.2 step 4, RACK_update_reo_wnd, as Linux `tcp_rack_reo_wnd`
    /// (net/ipv4/tcp_recovery.c): while no reordering has been seen the window is 0 in
    /// loss recovery and once DupThresh segments are SACKed (so RACK subsumes the
    /// DupThresh rule), else min_RTT/4, at most SRTT. RACK.reo_wnd_mult stays 1: the
    /// receivers here send no DSACK to widen it. `dupthresh_sacked`: at least DupThresh
    /// segments are SACKed (asked only when it matters: it costs a scoreboard walk).
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        dupthresh_sacked: impl FnOnce() -> bool,
        srtt: Time,
    ) -> Time {
        if !self.reordering_seen && (in_recovery || dupthresh_sacked()) {
            return Time::ZERO;
        }
        Time(self.min_rtt.unwrap_or(Time::ZERO).ps() / 4).min(srtt)
    }

    /// RFC 8985 §6.2 step 5, RACK_detect_loss, over the un-SACKed segments from `from`
    /// upward (`next_unsacked` skips SACKed ones; `high_tx` bounds the walk): the new
    /// lost boundary (every un-SACKed segment below it is lost) and, if a segment sent
    /// before RACK.xmit_ts has not waited long enough yet, when it will have (§6.3, the
    /// reordering timer).
    pub fn detect(
        &self,
        from: u64,
        high_tx: u64,
        now: Time,
        reo_wnd: Time,
        next_unsacked: impl Fn(u64) -> u64,
    ) -> (u64, Option<Time>) {
        let Some(rseq) = self.seq else {
            return (from, None);
        };
        let mut lost_end = from;
        let mut x = next_unsacked(from);
        while x < high_tx {
            let sent = self.sent(x);
            if !Self::sent_after(self.xmit_ts, rseq, sent, x) {
                break;
            }
            // Segment.xmit_ts + RACK.rtt + RACK.reo_wnd − Now() ≤ 0: lost.
            let deadline = sent + self.rtt + reo_wnd;
            if deadline > now {
                return (lost_end, Some(deadline));
            }
            lost_end = x + 1;
            x = next_unsacked(x + 1);
        }
        (lost_end, None)
    }
}

/// RFC 8985 §7.2: PTO = 2·SRTT, plus WCDelAckT when one segment is in flight (Linux
/// `tcp_schedule_loss_probe`, which adds TCP_RTO_MIN), at most the time left to the RTO;
/// 1 s before the first RTT sample.
pub fn pto(srtt: Option<Time>, in_flight: u64, rto_left: Option<Time>) -> Time {
    let mut pto = match srtt {
        Some(s) => {
            let two = Time(2 * s.ps());
            if in_flight == 1 {
                two + WC_DEL_ACK_T
            } else {
                two
            }
        }
        None => Time::from_secs(1),
    };
    if let Some(left) = rto_left {
        pto = pto.min(left);
    }
    pto
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// §7.2: 2·SRTT; + 200 ms with one segment out; capped by the RTO.
    #[test]
    fn pto_formula() {
        assert_eq!(pto(Some(ms(50)), 5, None), ms(100));
        assert_eq!(pto(Some(ms(50)), 1, None), ms(300));
        assert_eq!(pto(Some(ms(50)), 1, Some(ms(250))), ms(250));
        assert_eq!(pto(None, 3, None), Time::from_secs(1));
    }

    /// §6.2 step 5: segments sent before the most recently sent delivered one are lost
    /// once xmit_ts + rtt + reo_wnd ≤ now; otherwise the reordering timer is armed at
    /// that instant.
    #[test]
    fn detect_marks_by_time() {
        let mut r = Rack::new();
        for s in 0..4 {
            r.on_send(s, ms(s), false, 0);
        }
        // Segment 2 (sent at 2 ms) SACKed at 102 ms: RACK.rtt = 100 ms.
        r.delivered(2, 3, ms(102));
        assert_eq!(
            (r.rtt, r.xmit_ts, r.min_rtt),
            (ms(100), ms(2), Some(ms(100)))
        );
        let un = |x: u64| if x == 2 { 3 } else { x };
        // reo_wnd 25 ms: segment 0 is due at 125 ms, segment 1 at 126 ms.
        assert_eq!(r.detect(0, 4, ms(102), ms(25), un), (0, Some(ms(125))));
        assert_eq!(r.detect(0, 4, ms(125), ms(25), un), (1, Some(ms(126))));
        // At 126 ms both are lost; segment 3, sent after RACK.xmit_ts, is not.
        assert_eq!(r.detect(0, 4, ms(126), ms(25), un), (2, None));
        assert!(!r.reordering_seen);
        // Segment 1 arriving after 2: reordering.
        r.delivered(1, 2, ms(130));
        assert!(r.reordering_seen);
    }

    #[test]
    fn reo_wnd_is_zero_in_recovery_or_past_dupthresh_until_reordering() {
        let mut r = Rack::new();
        r.min_rtt = Some(ms(100));
        let s = ms(120);
        assert_eq!(r.reo_wnd(false, || false, s), ms(25));
        assert_eq!(r.reo_wnd(false, || true, s), Time::ZERO);
        assert_eq!(r.reo_wnd(true, || false, s), Time::ZERO);
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, || true, s), ms(25));
        assert_eq!(r.reo_wnd(true, || true, ms(10)), ms(10), "at most SRTT");
    }

    /// The ring grows past 64 segments in flight and keeps the live send times.
    #[test]
    fn ring_grows_keeping_live_entries() {
        let mut r = Rack::new();
        for s in 10..200 {
            r.on_send(s, ms(s), false, 10);
        }
        assert!((10..200).all(|s| r.sent(s) == ms(s)));
    }
}
