//! The RFC 6675 scoreboard: which segments above the cumulative ACK the receiver has
//! SACKed, which are deemed lost (by DupThresh, and by RACK's clock), the data in the
//! pipe and the next segment to send.
//!
//! Sequence numbers count segments. SACKed data is kept as sorted, disjoint ranges
//! [start, end). A window usually has a handful of holes, but a slow start that
//! overshoots a deep pipe leaves thousands (every other segment of the last round),
//! so nothing done per ACK walks all of them: the SACKed counts that SetPipe needs are
//! kept as counters (as Linux keeps `sacked_out`, `lost_out` and `retrans_out`), each
//! boundary a `Mark` that knows how many SACKed segments lie below it, and lookups are
//! binary searches. Units are segments: DupThresh SACKed segments stand for RFC 6675's
//! "DupThresh·SMSS bytes".

use std::collections::VecDeque;

/// A boundary in sequence space and the number of SACKed segments below it. The
/// scoreboard's boundaries move up through a recovery, so moving one visits only the
/// ranges it passes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Mark {
    at: u64,
    below: u64,
}

/// Segments of [s, e) below `x`.
#[inline]
fn below(s: u64, e: u64, x: u64) -> u64 {
    e.min(x).saturating_sub(s)
}

/// SACK state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges [start, end) above snd_una, sorted and disjoint. A deque: ranges
    /// leave from the front as the cumulative ACK advances, and retransmissions fill
    /// the lowest holes, so shifts stay short at either end.
    sacked: VecDeque<(u64, u64)>,
    /// SACKed segments in all ranges.
    total: u64,
    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    rxt_next: Mark,
    /// Un-SACKed segments below this are lost (RFC 6675 IsLost, as a boundary).
    lost_end: u64,
    /// SACKed segments at or above `lost_end`, as of the last `compute_lost_end`;
    /// valid while `lost_fresh` (no change to the ranges since).
    above_lost: u64,
    lost_fresh: bool,
    /// The (snd_una, DupThresh) `lost_end` was computed for: while `lost_fresh`, a call
    /// with the same two returns it as it is (the sender asks several times per ACK).
    lost_for: (u64, u64),
    /// Un-SACKed segments below this are lost by RACK's clock (RFC 8985 §6.2, tcp/rack.rs):
    /// the boundary only moves up until a timeout.
    rack_lost: Mark,
    /// RACK's lost retransmissions (RFC 8985 §6.2 step 5 applied to retransmitted
    /// segments): un-SACKed segments in [relost_start, relost_end), below HighRxt, whose
    /// retransmission is lost and that are not resent yet.
    relost_start: Mark,
    relost_end: Mark,
}

impl Scoreboard {
    /// The boundaries whose SACKed counts the range changes must keep.
    #[inline]
    fn marks(&mut self) -> [&mut Mark; 4] {
        [
            &mut self.rxt_next,
            &mut self.rack_lost,
            &mut self.relost_start,
            &mut self.relost_end,
        ]
    }

    /// A range [s, e) leaves (`sign` false) or joins (true) the SACKed set.
    #[inline]
    fn count(&mut self, s: u64, e: u64, joins: bool) {
        if joins {
            self.total += e - s;
        } else {
            self.total -= e - s;
        }
        for m in self.marks() {
            let n = below(s, e, m.at);
            if joins {
                m.below += n;
            } else {
                m.below -= n;
            }
        }
    }

    /// The mark moved to `x`: its count visits only the ranges between the old and the
    /// new place.
    fn moved(sacked: &VecDeque<(u64, u64)>, m: Mark, x: u64) -> Mark {
        let (lo, hi) = (m.at.min(x), m.at.max(x));
        let i = sacked.partition_point(|&(_, e)| e <= lo);
        let mut between = 0;
        for &(s, e) in sacked.range(i..) {
            if s >= hi {
                break;
            }
            between += below(s.max(lo), e, hi);
        }
        Mark {
            at: x,
            below: if x >= m.at {
                m.below + between
            } else {
                m.below - between
            },
        }
    }

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
            for k in i..j {
                let (rs, re) = self.sacked[k];
                if rs.min(e) > x {
                    newly(x, rs.min(e));
                }
                x = x.max(re);
                self.count(rs, re, false);
            }
            if e > x {
                newly(x, e);
            }
            let (ns, ne) = if i < j {
                (s.min(self.sacked[i].0), e.max(self.sacked[j - 1].1))
            } else {
                (s, e)
            };
            self.count(ns, ne, true);
            self.lost_fresh = false;
            if i < j {
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
        for n in 0..k {
            let (s, e) = self.sacked[n];
            self.count(s, e, false);
        }
        self.sacked.drain(..k);
        if let Some(&(s, e)) = self.sacked.front() {
            if s < snd_una {
                self.count(s, snd_una, false);
                self.sacked[0] = (snd_una, e);
            }
        }
        if k > 0 {
            self.lost_fresh = false;
        }
    }

    /// Every boundary at `x`, nothing SACKed below it.
    fn all_marks_at(&mut self, x: u64) {
        let sacked = &self.sacked;
        let m = Self::moved(sacked, Mark::default(), x);
        self.rxt_next = m;
        self.rack_lost = m;
        self.relost_start = m;
        self.relost_end = m;
        self.lost_end = x;
        self.lost_fresh = false;
    }

    /// Start afresh at `snd_una` (after a timeout: RFC 2018 §8, the receiver may have
    /// reneged).
    pub fn reset(&mut self, snd_una: u64) {
        self.sacked.clear();
        self.total = 0;
        self.all_marks_at(snd_una);
    }

    /// A timeout that keeps what was SACKed (Linux `tcp_timeout_mark_lost`): nothing
    /// retransmitted in this loss episode yet.
    pub fn enter_loss(&mut self, snd_una: u64) {
        self.all_marks_at(snd_una);
    }

    /// Whether anything above snd_una is SACKed (RACK.segs_sacked > 0).
    pub fn any_sacked(&self) -> bool {
        !self.sacked.is_empty()
    }

    /// RACK's lost boundary (tcp/rack.rs): where its walk starts.
    pub fn rack_lost(&self) -> u64 {
        self.rack_lost.at
    }

    /// RACK marked every un-SACKed segment below `end` lost.
    pub fn set_rack_lost(&mut self, end: u64) {
        if end > self.rack_lost.at {
            self.rack_lost = Self::moved(&self.sacked, self.rack_lost, end);
            self.lost_fresh = false;
        }
    }

    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    pub fn rxt_next(&self) -> u64 {
        self.rxt_next.at
    }

    /// Where RACK's walk over this recovery's retransmissions starts.
    pub fn relost_end(&self) -> u64 {
        self.relost_end.at
    }

    /// RACK found the retransmissions of every un-SACKed segment below `end` (and below
    /// HighRxt) lost: NextSeg sends them again first, and they leave the pipe.
    pub fn set_relost(&mut self, end: u64) {
        let end = end.min(self.rxt_next.at);
        if end > self.relost_end.at {
            self.relost_end = Self::moved(&self.sacked, self.relost_end, end);
        }
    }

    /// Every retransmission RACK found lost has been resent (or SACKed since).
    pub fn relost_all_resent(&self, snd_una: u64) -> bool {
        self.next_unsacked(self.relost_start.at.max(snd_una)) >= self.relost_end.at
    }

    /// Whether `seq` is a segment whose retransmission RACK found lost and that is not
    /// resent yet.
    pub fn relost_awaits(&self, seq: u64) -> bool {
        seq >= self.relost_start.at && seq < self.relost_end.at
    }

    /// Start RACK's walk over this recovery's retransmissions again from `snd_una`,
    /// once every one it found lost was resent: a resend can be lost in turn, and
    /// Linux's RACK marks a segment lost as many times as it is resent (its walk is
    /// over every segment in flight, in order of transmission).
    pub fn restart_relost(&mut self, snd_una: u64) {
        let m = Self::moved(&self.sacked, self.relost_end, snd_una);
        self.relost_start = m;
        self.relost_end = m;
    }

    /// Un-SACKed segments whose retransmission is lost and not yet resent.
    fn relost_pending(&self, snd_una: u64) -> u64 {
        let lo = self.relost_start.at.max(snd_una);
        let hi = self.relost_end.at.max(lo);
        // With nothing SACKed below snd_una (after `advance`), a mark there counts 0.
        let sacked = if self.sacked.front().is_some_and(|r| r.0 < snd_una) {
            self.sacked_in(lo, hi)
        } else if self.relost_end.at < lo {
            0
        } else if self.relost_start.at >= snd_una {
            self.relost_end.below - self.relost_start.below
        } else {
            self.relost_end.below
        };
        debug_assert_eq!(sacked, self.sacked_in(lo, hi));
        (hi - lo) - sacked
    }

    /// Recovery begins with the retransmission of `seq` (RFC 6675 §5 step (4.3)).
    /// `keep_rxt`: what the last recovery retransmitted and is still un-SACKed stays
    /// retransmitted (in flight, not resent) when HighRxt lies above `seq`, as Linux's
    /// per-segment TCPCB_SACKED_RETRANS, which `tcp_xmit_retransmit_queue` skips until
    /// RACK marks the segment lost again. Otherwise HighRxt restarts at `seq`: a
    /// recovery that begins right after another (the cumulative ACK passed the old
    /// recovery point, losses of data sent during it remain) then resends every such
    /// retransmission still on its way.
    pub fn enter_recovery(&mut self, seq: u64, keep_rxt: bool) {
        if !(keep_rxt && self.rxt_next.at > seq + 1) {
            self.rxt_next = Self::moved(&self.sacked, self.rxt_next, seq + 1);
        }
        let m = Self::moved(&self.sacked, self.rxt_next, seq);
        self.relost_start = m;
        self.relost_end = m;
    }

    /// `seq`, below HighData, was retransmitted: HighRxt moves up to it (or, for a
    /// segment whose retransmission RACK found lost, the resend moves past it).
    pub fn retransmitted(&mut self, seq: u64) {
        if seq + 1 > self.rxt_next.at {
            self.rxt_next = Self::moved(&self.sacked, self.rxt_next, seq + 1);
        }
        if seq < self.relost_end.at && seq + 1 > self.relost_start.at {
            self.relost_start = Self::moved(&self.sacked, self.relost_start, seq + 1);
        }
    }

    /// SACKed segments in [x, y).
    pub fn sacked_in(&self, x: u64, y: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(y).saturating_sub(s.max(x)))
            .sum()
    }

    /// SACKed segments below `y` (every range lies at or above snd_una): the ranges
    /// from the front, stopping at the first at or above `y`.
    pub fn sacked_below(&self, y: u64) -> u64 {
        let mut n = 0;
        for &(s, e) in &self.sacked {
            if s >= y {
                break;
            }
            n += e.min(y) - s;
        }
        n
    }

    /// SACKed segments in [snd_una, high_tx): the kept total when every range lies
    /// there (the case after `advance`), else counted.
    pub fn sacked(&self, snd_una: u64, high_tx: u64) -> u64 {
        let n = if self.inside(snd_una, high_tx) {
            self.total
        } else {
            self.sacked_in(snd_una, high_tx)
        };
        debug_assert_eq!(n, self.sacked_in(snd_una, high_tx));
        n
    }

    /// Every range lies in [snd_una, high_tx).
    #[inline]
    fn inside(&self, snd_una: u64, high_tx: u64) -> bool {
        self.sacked.front().is_none_or(|r| r.0 >= snd_una)
            && self.sacked.back().is_none_or(|r| r.1 <= high_tx)
    }

    /// Whether at least `n` segments are SACKed (RACK's reo_wnd asks it on every ACK).
    pub fn sacked_at_least(&self, n: u64) -> bool {
        self.total >= n
    }

    /// RFC 6675 IsLost, as a boundary: a segment is lost when at least DupThresh
    /// SACKed segments lie above it, so every un-SACKed segment below the
    /// DupThresh-th SACKed segment from the top is lost; so is every un-SACKed segment
    /// RACK marked (`set_rack_lost`). Returns the boundary.
    pub fn compute_lost_end(&mut self, snd_una: u64, dupthresh: u32) -> u64 {
        let need = dupthresh.max(1) as u64;
        if self.lost_fresh && self.lost_for == (snd_una, need) {
            return self.lost_end;
        }
        let mut acc = 0;
        // The DupThresh boundary and the SACKed segments above it, from the top.
        let (mut end, mut above) = (snd_una, self.total);
        for &(s, e) in self.sacked.iter().rev() {
            if acc + (e - s) >= need {
                (end, above) = (e - (need - acc), need);
                break;
            }
            acc += e - s;
        }
        if self.rack_lost.at > end {
            // Ranges lie at or above snd_una, so the mark's count is what lies below it.
            (end, above) = (self.rack_lost.at, self.total - self.rack_lost.below);
        }
        self.lost_end = end;
        self.above_lost = above;
        self.lost_fresh = true;
        self.lost_for = (snd_una, need);
        self.lost_end
    }

    /// RFC 6675 §4 SetPipe, in segments: un-SACKed segments not deemed lost, plus
    /// those retransmitted in this recovery (below HighRxt) less those whose
    /// retransmission RACK found lost. O(1) after `compute_lost_end` (the counters),
    /// whatever the number of holes.
    pub fn pipe(&self, snd_una: u64, high_tx: u64) -> u64 {
        let lo = self.lost_end.clamp(snd_una, high_tx);
        let rx = self.rxt_next.at.clamp(snd_una, high_tx);
        let fast = self.lost_fresh
            && lo == self.lost_end
            && rx == self.rxt_next.at
            && self.inside(snd_una, high_tx);
        let (sacked_above_lo, sacked_below_rx) = if fast {
            (self.above_lost, self.rxt_next.below)
        } else {
            (self.sacked_in(lo, high_tx), self.sacked_in(snd_una, rx))
        };
        debug_assert_eq!(sacked_above_lo, self.sacked_in(lo, high_tx));
        debug_assert_eq!(sacked_below_rx, self.sacked_in(snd_una, rx));
        let not_lost = (high_tx - lo) - sacked_above_lo;
        let retx = (rx - snd_una) - sacked_below_rx;
        let relost = if self.relost_end.at > snd_una {
            self.relost_pending(snd_una)
        } else {
            0
        };
        not_lost + retx - relost
    }

    /// The lowest un-SACKed segment at or above `x`.
    pub fn next_unsacked(&self, mut x: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= x);
        for &(s, e) in self.sacked.range(i..) {
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
        if self.relost_end.at > snd_una {
            let x = self.next_unsacked(self.relost_start.at.max(snd_una));
            if x < self.relost_end.at {
                return Some(x);
            }
        }
        let x = self.next_unsacked(self.rxt_next.at.max(snd_una));
        if x < self.lost_end {
            return Some(x);
        }
        if new_data {
            return Some(snd_nxt);
        }
        let high_ack = self.sacked.back().map_or(snd_una, |r| r.1);
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

    /// SACKed segments below a point, by the front scan, agree with the counting pass:
    /// ranges (1, 2) and (3, 10).
    #[test]
    fn sacked_below_counts_the_ranges_under_a_point() {
        let sb = two_holes();
        for (y, want) in [(0, 0), (1, 0), (2, 1), (3, 1), (5, 3), (10, 8), (12, 8)] {
            assert_eq!(sb.sacked_below(y), want, "below {y}");
            assert_eq!(sb.sacked_below(y), sb.sacked_in(0, y), "below {y}");
        }
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
        sb.enter_recovery(0, false);
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

    /// The kept counters against RFC 6675 §4 (and RACK's marks, RFC 8985 §6.2)
    /// computed segment by segment on a bitmap: random SACK blocks (hundreds of
    /// holes), cumulative ACKs, retransmissions, RACK's lost and re-lost marks,
    /// recovery and loss entries. SetPipe must agree at every step.
    #[test]
    fn pipe_counters_match_a_segment_by_segment_count() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut sb = Scoreboard::default();
        let high_tx = 4_000u64;
        let mut una = 0u64;
        let mut bits = vec![false; high_tx as usize];
        let mut highrxt = 0u64; // HighRxt + 1
        let (mut rack_lost, mut relost_start, mut relost_end) = (0u64, 0u64, 0u64);
        let mut most_holes = 0;
        for step in 0..6_000 {
            match rnd(100) {
                0..=64 => {
                    let s = una + rnd(high_tx - una);
                    let e = (s + 1 + rnd(3)).min(high_tx);
                    sb.update([(s, e)].into_iter(), una, high_tx);
                    for b in &mut bits[s as usize..e as usize] {
                        *b = true;
                    }
                }
                65..=74 => {
                    una = (una + rnd(4)).min(high_tx - 1);
                    sb.advance(una);
                }
                75..=86 => {
                    let seq = una + rnd(200).min(high_tx - 1 - una);
                    sb.retransmitted(seq);
                    highrxt = highrxt.max(seq + 1);
                    if seq < relost_end {
                        relost_start = relost_start.max(seq + 1);
                    }
                }
                87..=90 => {
                    let end = una + rnd(300);
                    sb.set_rack_lost(end);
                    rack_lost = rack_lost.max(end);
                }
                91..=94 => {
                    let end = una + rnd(300);
                    sb.set_relost(end);
                    relost_end = relost_end.max(end.min(highrxt));
                }
                95..=97 => {
                    sb.enter_recovery(una, false);
                    highrxt = una + 1;
                    (relost_start, relost_end) = (una, una);
                }
                _ => {
                    sb.enter_loss(una);
                    highrxt = una;
                    (rack_lost, relost_start, relost_end) = (una, una, una);
                }
            }
            let lost_end = sb.compute_lost_end(una, 3);
            let sacked = |a: u64, b: u64| (a..b).filter(|&i| bits[i as usize]).count() as u64;
            // IsLost: at least DupThresh SACKed segments above, or RACK's mark.
            let lo = lost_end.clamp(una, high_tx);
            assert!(sacked(lo, high_tx) <= 3 || lo == rack_lost, "step {step}");
            assert!(lo >= rack_lost.min(high_tx), "step {step}");
            let rx = highrxt.clamp(una, high_tx);
            let rl = relost_start.max(una);
            let rh = relost_end.max(rl);
            let relost = if relost_end > una {
                (rh - rl) - sacked(rl, rh)
            } else {
                0
            };
            let expect =
                (high_tx - lo) - sacked(lo, high_tx) + (rx - una) - sacked(una, rx) - relost;
            assert_eq!(sb.pipe(una, high_tx), expect, "step {step}");
            assert_eq!(sb.sacked(una, high_tx), sacked(una, high_tx), "step {step}");
            most_holes = most_holes.max(sb.sacked.len());
        }
        assert!(most_holes > 300, "the test reached hundreds of holes");
    }

    /// RACK's lost retransmissions: out of the pipe, first in NextSeg, back in the pipe
    /// once resent.
    #[test]
    fn relost_retransmissions_leave_the_pipe_and_are_resent_first() {
        let mut sb = two_holes();
        sb.compute_lost_end(0, 3);
        sb.enter_recovery(0, false);
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
}
