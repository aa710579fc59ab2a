//! The RFC 6675 scoreboard: which segments above the cumulative ACK the receiver has
//! SACKed, which are deemed lost, the data in the pipe and the next segment to send.
//!
//! Sequence numbers count segments. SACKed data is kept as sorted, disjoint ranges
//! [start, end): a window has a handful of holes, so every query is O(holes), not
//! O(window). Units are segments: DupThresh SACKed segments stand for RFC 6675's
//! "DupThresh·SMSS bytes".

/// SACK state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges [start, end) above snd_una, sorted and disjoint.
    sacked: Vec<(u64, u64)>,
    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    rxt_next: u64,
    /// Un-SACKed segments below this are lost (RFC 6675 IsLost, as a boundary).
    lost_end: u64,
    /// Un-SACKed segments below this are lost by RACK's clock (RFC 8985 §6.2, tcp/rack.rs):
    /// the boundary only moves up until a timeout.
    rack_lost: u64,
    /// RACK's lost retransmissions (RFC 8985 §6.2 step 5 applied to retransmitted
    /// segments): un-SACKed segments in [relost_start, relost_end), below HighRxt, whose
    /// retransmission is lost and that are not resent yet.
    relost_start: u64,
    relost_end: u64,
}

impl Scoreboard {
    /// Merge an ACK's SACK blocks (RFC 6675 §5 step (A) "Update"), clipped to
    /// [snd_una, high_tx).
    #[inline]
    pub fn update(&mut self, blocks: impl Iterator<Item = (u64, u64)>, snd_una: u64, high_tx: u64) {
        self.update_with(blocks, snd_una, high_tx, |_, _| {});
    }

    /// `update`, telling `newly` each range [a, b) that no earlier ACK had SACKed (RACK's
    /// newly delivered segments, RFC 8985 §6.2 step 2).
    pub fn update_with(
        &mut self,
        blocks: impl Iterator<Item = (u64, u64)>,
        snd_una: u64,
        high_tx: u64,
        mut newly: impl FnMut(u64, u64),
    ) {
        for (s, e) in blocks {
            let s = s.max(snd_una);
            let e = e.min(high_tx);
            if s >= e {
                continue;
            }
            // Ranges that overlap or touch [s, e) are i..j; replace them by one.
            let i = self.sacked.partition_point(|&(_, re)| re < s);
            let j = self.sacked.partition_point(|&(rs, _)| rs <= e);
            let mut x = s;
            for &(rs, re) in &self.sacked[i..j] {
                if rs.min(e) > x {
                    newly(x, rs.min(e));
                }
                x = x.max(re);
            }
            if e > x {
                newly(x, e);
            }
            if i < j {
                let ns = s.min(self.sacked[i].0);
                let ne = e.max(self.sacked[j - 1].1);
                self.sacked[i] = (ns, ne);
                self.sacked.drain(i + 1..j);
            } else {
                self.sacked.insert(i, (s, e));
            }
        }
    }

    /// Forget SACK state below the new cumulative ACK point.
    pub fn advance(&mut self, snd_una: u64) {
        let k = self.sacked.partition_point(|&(_, e)| e <= snd_una);
        self.sacked.drain(..k);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(snd_una);
        }
    }

    /// Start afresh at `snd_una` (after a timeout: RFC 2018 §8, the receiver may have
    /// reneged).
    pub fn reset(&mut self, snd_una: u64) {
        self.sacked.clear();
        self.rxt_next = snd_una;
        self.lost_end = snd_una;
        self.rack_lost = snd_una;
        self.relost_start = snd_una;
        self.relost_end = snd_una;
    }

    /// A timeout that keeps what was SACKed (Linux `tcp_timeout_mark_lost`): nothing
    /// retransmitted in this loss episode yet.
    pub fn enter_loss(&mut self, snd_una: u64) {
        self.rxt_next = snd_una;
        self.lost_end = snd_una;
        self.rack_lost = snd_una;
        self.relost_start = snd_una;
        self.relost_end = snd_una;
    }

    /// Whether anything above snd_una is SACKed (RACK.segs_sacked > 0).
    pub fn any_sacked(&self) -> bool {
        !self.sacked.is_empty()
    }

    /// RACK's lost boundary (tcp/rack.rs): where its walk starts.
    pub fn rack_lost(&self) -> u64 {
        self.rack_lost
    }

    /// RACK marked every un-SACKed segment below `end` lost.
    pub fn set_rack_lost(&mut self, end: u64) {
        self.rack_lost = self.rack_lost.max(end);
    }

    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    pub fn rxt_next(&self) -> u64 {
        self.rxt_next
    }

    /// Where RACK's walk over this recovery's retransmissions starts.
    pub fn relost_end(&self) -> u64 {
        self.relost_end
    }

    /// RACK found the retransmissions of every un-SACKed segment below `end` (and below
    /// HighRxt) lost: NextSeg sends them again first, and they leave the pipe.
    pub fn set_relost(&mut self, end: u64) {
        self.relost_end = self.relost_end.max(end.min(self.rxt_next));
    }

    /// Un-SACKed segments whose retransmission is lost and not yet resent.
    fn relost_pending(&self, snd_una: u64) -> u64 {
        let lo = self.relost_start.max(snd_una);
        let hi = self.relost_end.max(lo);
        (hi - lo) - self.sacked_in(lo, hi)
    }

    /// Recovery begins with the retransmission of `seq` (RFC 6675 §5 step (4.3)).
    pub fn enter_recovery(&mut self, seq: u64) {
        self.rxt_next = seq + 1;
        self.relost_start = seq;
        self.relost_end = seq;
    }

    /// `seq`, below HighData, was retransmitted: HighRxt moves up to it (or, for a
    /// segment whose retransmission RACK found lost, the resend moves past it).
    pub fn retransmitted(&mut self, seq: u64) {
        self.rxt_next = self.rxt_next.max(seq + 1);
        if seq < self.relost_end {
            self.relost_start = self.relost_start.max(seq + 1);
        }
    }

    /// SACKed segments in [x, y).
    pub fn sacked_in(&self, x: u64, y: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(y).saturating_sub(s.max(x)))
            .sum()
    }

    /// Whether at least `n` segments are SACKed, counting from the top only as far as
    /// needed (RACK's reo_wnd asks it on every ACK).
    pub fn sacked_at_least(&self, n: u64) -> bool {
        let mut acc = 0;
        for &(s, e) in self.sacked.iter().rev() {
            acc += e - s;
            if acc >= n {
                return true;
            }
        }
        n == 0
    }

    /// RFC 6675 IsLost, as a boundary: a segment is lost when at least DupThresh
    /// SACKed segments lie above it, so every un-SACKed segment below the
    /// DupThresh-th SACKed segment from the top is lost; so is every un-SACKed segment
    /// RACK marked (`set_rack_lost`). Returns the boundary.
    pub fn compute_lost_end(&mut self, snd_una: u64, dupthresh: u32) -> u64 {
        let need = dupthresh.max(1) as u64;
        let mut acc = 0;
        self.lost_end = snd_una.max(self.rack_lost);
        for &(s, e) in self.sacked.iter().rev() {
            if acc + (e - s) >= need {
                self.lost_end = self.lost_end.max(e - (need - acc));
                break;
            }
            acc += e - s;
        }
        self.lost_end
    }

    /// RFC 6675 §4 SetPipe, in segments: un-SACKed segments not deemed lost, plus
    /// those retransmitted in this recovery (below HighRxt) less those whose
    /// retransmission RACK found lost.
    pub fn pipe(&self, snd_una: u64, high_tx: u64) -> u64 {
        let lo = self.lost_end.clamp(snd_una, high_tx);
        let not_lost = (high_tx - lo) - self.sacked_in(lo, high_tx);
        let rx = self.rxt_next.clamp(snd_una, high_tx);
        let retx = (rx - snd_una) - self.sacked_in(snd_una, rx);
        let relost = if self.relost_end > snd_una {
            self.relost_pending(snd_una)
        } else {
            0
        };
        not_lost + retx - relost
    }

    /// The lowest un-SACKed segment at or above `x`.
    pub fn next_unsacked(&self, mut x: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= x);
        for &(s, e) in &self.sacked[i..] {
            if s > x {
                break;
            }
            x = x.max(e);
        }
        x
    }

    /// The lowest SACKed segment at or above `x` (u64::MAX if none).
    pub fn next_sacked(&self, x: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= x);
        self.sacked.get(i).map_or(u64::MAX, |&(s, _)| s.max(x))
    }

    /// RFC 6675 §4 NextSeg: (1) the lowest lost segment above HighRxt, (2) new data
    /// when `new_data` (the sender has some and the receive window allows it), (3) the
    /// lowest un-SACKed segment above HighRxt below HighACK. Rule 4 (rescue
    /// retransmission) is optional and not used. Call `compute_lost_end` first.
    pub fn next_seg(&self, snd_una: u64, snd_nxt: u64, new_data: bool) -> Option<u64> {
        // Before rule 1: a segment whose retransmission RACK found lost.
        if self.relost_end > snd_una {
            let x = self.next_unsacked(self.relost_start.max(snd_una));
            if x < self.relost_end {
                return Some(x);
            }
        }
        let x = self.next_unsacked(self.rxt_next.max(snd_una));
        if x < self.lost_end {
            return Some(x);
        }
        if new_data {
            return Some(snd_nxt);
        }
        let high_ack = self.sacked.last().map_or(snd_una, |r| r.1);
        (x < high_ack).then_some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 segments out (0..10), 0 and 2 lost, the rest SACKed: RFC 6675 with
    /// DupThresh 3.
    fn two_holes() -> Scoreboard {
        let mut sb = Scoreboard::default();
        sb.update([(3, 6), (1, 2), (6, 10)].into_iter(), 0, 10);
        sb
    }

    /// RACK's lost retransmissions: out of the pipe, first in NextSeg, back in the pipe
    /// once resent.
    #[test]
    fn relost_retransmissions_leave_the_pipe_and_are_resent_first() {
        let mut sb = two_holes();
        sb.compute_lost_end(0, 3);
        sb.enter_recovery(0);
        sb.retransmitted(2);
        assert_eq!(sb.pipe(0, 10), 2);
        sb.set_relost(1);
        assert_eq!(sb.pipe(0, 10), 1, "0's resend is lost");
        assert_eq!(sb.next_seg(0, 10, true), Some(0));
        sb.retransmitted(0);
        assert_eq!(sb.pipe(0, 10), 2);
        assert_eq!(sb.next_seg(0, 10, true), Some(10));
        // Never past HighRxt.
        sb.set_relost(10);
        assert_eq!(sb.relost_end(), 3);
    }

    /// `update_with` reports exactly the segments no earlier block covered.
    #[test]
    fn update_with_reports_newly_sacked_ranges() {
        let mut sb = two_holes();
        let mut got = Vec::new();
        sb.update_with([(0, 12)].into_iter(), 0, 11, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(0, 1), (2, 3), (10, 11)]);
        assert!(sb.sacked_at_least(11) && !sb.sacked_at_least(12));
        got.clear();
        sb.update_with([(3, 5)].into_iter(), 0, 11, |a, b| got.push((a, b)));
        assert!(got.is_empty());
    }

    #[test]
    fn update_merges_touching_ranges_and_advance_drops_below_una() {
        let mut sb = two_holes();
        assert_eq!(sb.sacked, vec![(1, 2), (3, 10)]);
        sb.update([(2, 3)].into_iter(), 0, 10);
        assert_eq!(sb.sacked, vec![(1, 10)]);
        sb.advance(4);
        assert_eq!(sb.sacked, vec![(4, 10)]);
        // Blocks are clipped to [snd_una, high_tx).
        sb.update([(0, 20)].into_iter(), 4, 12);
        assert_eq!(sb.sacked, vec![(4, 12)]);
    }

    /// IsLost (RFC 6675 §4): lost if ≥ DupThresh SACKed segments lie above. With
    /// segments 1 and 3..10 SACKed, both holes (0 and 2) have ≥ 3 above them.
    #[test]
    fn is_lost_pipe_and_next_seg() {
        let mut sb = two_holes();
        assert_eq!(sb.compute_lost_end(0, 3), 7);
        // SetPipe: nothing un-SACKed above the lost boundary, nothing retransmitted.
        assert_eq!(sb.pipe(0, 10), 0);
        // NextSeg rule 1: the lowest lost segment, then the next hole.
        assert_eq!(sb.next_seg(0, 10, true), Some(0));
        sb.enter_recovery(0);
        assert_eq!(sb.pipe(0, 10), 1, "the retransmission is in the pipe");
        assert_eq!(sb.next_seg(0, 10, true), Some(2));
        sb.retransmitted(2);
        assert_eq!(sb.pipe(0, 10), 2);
        // Rule 2 (new data), else rule 3 finds nothing un-SACKed below HighACK.
        assert_eq!(sb.next_seg(0, 10, true), Some(10));
        assert_eq!(sb.next_seg(0, 10, false), None);
        sb.reset(0);
        assert_eq!((sb.compute_lost_end(0, 3), sb.pipe(0, 10)), (0, 10));
    }
}
