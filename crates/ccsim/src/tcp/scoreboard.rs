//! The RFC 6675 scoreboard: which segments above the cumulative ACK the receiver has
//! SACKed, which are deemed lost, the data in the pipe and the next segment to send.
//!
//! Sequence numbers count segments. SACKed data is kept as sorted, disjoint ranges
//! [start, end). A window usually has a handful of holes, but a slow start that
//! overshoots a deep pipe leaves thousands (every other segment of the last round),
//! so nothing done per ACK walks all of them: the SACKed totals that SetPipe needs are
//! kept as counters (as Linux keeps `sacked_out`, `lost_out` and `retrans_out`), and
//! lookups are binary searches. Units are segments: DupThresh SACKed segments stand
//! for RFC 6675's "DupThresh·SMSS bytes".

use std::collections::VecDeque;

/// SACK state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges [start, end) above snd_una, sorted and disjoint.
    /// A deque: ranges leave from the front as the cumulative ACK advances, and
    /// retransmissions fill the lowest holes, so shifts stay short at either end.
    sacked: VecDeque<(u64, u64)>,
    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    rxt_next: u64,
    /// Un-SACKed segments below this are lost (RFC 6675 IsLost, as a boundary).
    lost_end: u64,
    /// SACKed segments in all ranges.
    total: u64,
    /// SACKed segments below `rxt_next` (all ranges lie above snd_una).
    below_rxt: u64,
    /// SACKed segments at or above `lost_end`, as of the last `compute_lost_end`;
    /// valid while `lost_fresh` (no change to the ranges since).
    above_lost: u64,
    lost_fresh: bool,
}

/// Segments of [s, e) below `x`.
#[inline]
fn below(s: u64, e: u64, x: u64) -> u64 {
    e.min(x).saturating_sub(s)
}

impl Scoreboard {
    /// Merge an ACK's SACK blocks (RFC 6675 §5 step (A) "Update"), clipped to
    /// [snd_una, high_tx).
    pub fn update(&mut self, blocks: impl Iterator<Item = (u64, u64)>, snd_una: u64, high_tx: u64) {
        for (s, e) in blocks {
            let s = s.max(snd_una);
            let e = e.min(high_tx);
            if s >= e {
                continue;
            }
            // Ranges that overlap or touch [s, e) are i..j; replace them by one.
            let i = self.sacked.partition_point(|&(_, re)| re < s);
            let j = self.sacked.partition_point(|&(rs, _)| rs <= e);
            let (ns, ne) = if i < j {
                (s.min(self.sacked[i].0), e.max(self.sacked[j - 1].1))
            } else {
                (s, e)
            };
            for &(rs, re) in self.sacked.range(i..j) {
                self.total -= re - rs;
                self.below_rxt -= below(rs, re, self.rxt_next);
            }
            self.total += ne - ns;
            self.below_rxt += below(ns, ne, self.rxt_next);
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
        for (s, e) in self.sacked.drain(..k) {
            self.total -= e - s;
            self.below_rxt -= below(s, e, self.rxt_next);
        }
        if let Some(first) = self.sacked.front_mut() {
            if first.0 < snd_una {
                self.total -= snd_una - first.0;
                self.below_rxt -= below(first.0, snd_una, self.rxt_next);
                first.0 = snd_una;
            }
        }
        if k > 0 {
            self.lost_fresh = false;
        }
    }

    /// Start afresh at `snd_una` (after a timeout: RFC 2018 §8, the receiver may have
    /// reneged).
    pub fn reset(&mut self, snd_una: u64) {
        self.sacked.clear();
        self.rxt_next = snd_una;
        self.lost_end = snd_una;
        self.total = 0;
        self.below_rxt = 0;
        self.lost_fresh = false;
    }

    /// A timeout that keeps what was SACKed (Linux `tcp_timeout_mark_lost`): nothing
    /// retransmitted in this loss episode yet.
    pub fn enter_loss(&mut self, snd_una: u64) {
        self.set_rxt_next(snd_una);
        self.lost_end = snd_una;
        self.lost_fresh = false;
    }

    /// Recovery begins with the retransmission of `seq` (RFC 6675 §5 step (4.3)).
    pub fn enter_recovery(&mut self, seq: u64) {
        self.set_rxt_next(seq + 1);
    }

    /// `seq`, below HighData, was retransmitted: HighRxt moves up to it.
    pub fn retransmitted(&mut self, seq: u64) {
        if seq + 1 > self.rxt_next {
            self.set_rxt_next(seq + 1);
        }
    }

    /// Move HighRxt + 1 to `x`, keeping `below_rxt`: only the ranges between the old
    /// and the new value are visited (HighRxt climbs through a recovery).
    fn set_rxt_next(&mut self, x: u64) {
        let (lo, hi) = (self.rxt_next.min(x), self.rxt_next.max(x));
        let i = self.sacked.partition_point(|&(_, e)| e <= lo);
        let mut between = 0;
        for &(s, e) in self.sacked.range(i..) {
            if s >= hi {
                break;
            }
            between += below(s.max(lo), e, hi);
        }
        if x >= self.rxt_next {
            self.below_rxt += between;
        } else {
            self.below_rxt -= between;
        }
        self.rxt_next = x;
    }

    /// SACKed segments in [x, y).
    pub fn sacked_in(&self, x: u64, y: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(y).saturating_sub(s.max(x)))
            .sum()
    }

    /// SACKed segments in [snd_una, high_tx): the kept total when every range lies
    /// there (the case after `advance`), else counted.
    pub fn sacked(&self, snd_una: u64, high_tx: u64) -> u64 {
        let inside = self.sacked.front().is_none_or(|r| r.0 >= snd_una)
            && self.sacked.back().is_none_or(|r| r.1 <= high_tx);
        let n = if inside {
            self.total
        } else {
            self.sacked_in(snd_una, high_tx)
        };
        debug_assert_eq!(n, self.sacked_in(snd_una, high_tx));
        n
    }

    /// RFC 6675 IsLost, as a boundary: a segment is lost when at least DupThresh
    /// SACKed segments lie above it, so every un-SACKed segment below the
    /// DupThresh-th SACKed segment from the top is lost. Returns the boundary.
    pub fn compute_lost_end(&mut self, snd_una: u64, dupthresh: u32) -> u64 {
        let need = dupthresh.max(1) as u64;
        let mut acc = 0;
        self.lost_end = snd_una;
        self.above_lost = self.total;
        for &(s, e) in self.sacked.iter().rev() {
            if acc + (e - s) >= need {
                self.lost_end = e - (need - acc);
                self.above_lost = need;
                break;
            }
            acc += e - s;
        }
        self.lost_fresh = true;
        self.lost_end
    }

    /// RFC 6675 §4 SetPipe, in segments: un-SACKed segments not deemed lost, plus
    /// those retransmitted in this recovery (below HighRxt). O(1) after
    /// `compute_lost_end` (the counters), whatever the number of holes.
    pub fn pipe(&self, snd_una: u64, high_tx: u64) -> u64 {
        let lo = self.lost_end.clamp(snd_una, high_tx);
        let rx = self.rxt_next.clamp(snd_una, high_tx);
        let fast = self.lost_fresh
            && lo == self.lost_end
            && rx == self.rxt_next
            && self.sacked.front().is_none_or(|r| r.0 >= snd_una)
            && self.sacked.back().is_none_or(|r| r.1 <= high_tx);
        let (sacked_above_lo, sacked_below_rx) = if fast {
            (self.above_lost, self.below_rxt)
        } else {
            (self.sacked_in(lo, high_tx), self.sacked_in(snd_una, rx))
        };
        debug_assert_eq!(sacked_above_lo, self.sacked_in(lo, high_tx));
        debug_assert_eq!(sacked_below_rx, self.sacked_in(snd_una, rx));
        let not_lost = (high_tx - lo) - sacked_above_lo;
        let retx = (rx - snd_una) - sacked_below_rx;
        not_lost + retx
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

    /// RFC 6675 §4 NextSeg: (1) the lowest lost segment above HighRxt, (2) new data
    /// when `new_data` (the sender has some and the receive window allows it), (3) the
    /// lowest un-SACKed segment above HighRxt below HighACK. Rule 4 (rescue
    /// retransmission) is optional and not used. Call `compute_lost_end` first.
    pub fn next_seg(&self, snd_una: u64, snd_nxt: u64, new_data: bool) -> Option<u64> {
        let x = self.next_unsacked(self.rxt_next.max(snd_una));
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

    /// The kept counters against RFC 6675 §4 computed segment by segment on a bitmap:
    /// random SACK blocks (hundreds of holes), cumulative ACKs, retransmissions,
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
        let mut most_holes = 0;
        for step in 0..6_000 {
            match rnd(100) {
                0..=69 => {
                    let s = una + rnd(high_tx - una);
                    let e = (s + 1 + rnd(3)).min(high_tx);
                    sb.update([(s, e)].into_iter(), una, high_tx);
                    for b in &mut bits[s as usize..e as usize] {
                        *b = true;
                    }
                }
                70..=79 => {
                    una = (una + rnd(4)).min(high_tx - 1);
                    sb.advance(una);
                }
                80..=94 => {
                    let seq = una + rnd(200).min(high_tx - 1 - una);
                    sb.retransmitted(seq);
                    highrxt = highrxt.max(seq + 1);
                }
                95..=97 => {
                    sb.enter_recovery(una);
                    highrxt = una + 1;
                }
                _ => {
                    sb.enter_loss(una);
                    highrxt = una;
                }
            }
            let lost_end = sb.compute_lost_end(una, 3);
            let sacked = |a: u64, b: u64| (a..b).filter(|&i| bits[i as usize]).count() as u64;
            // IsLost: at least DupThresh SACKed segments above.
            let lo = lost_end.clamp(una, high_tx);
            assert!(sacked(lo, high_tx) <= 3, "step {step}");
            let rx = highrxt.clamp(una, high_tx);
            let expect = (high_tx - lo) - sacked(lo, high_tx) + (rx - una) - sacked(una, rx);
            assert_eq!(sb.pipe(una, high_tx), expect, "step {step}");
            assert_eq!(sb.sacked(una, high_tx), sacked(una, high_tx), "step {step}");
            most_holes = most_holes.max(sb.sacked.len());
        }
        assert!(most_holes > 300, "the test reached hundreds of holes");
    }
}
