//! pcap traces of chosen links: IPv4 + TCP (or UDP) headers synthesized from ccsim's
//! packets, so that Wireshark and tshark decode a run as real TCP.
//!
//! Format: classic libpcap with the nanosecond magic 0xa1b23c4d and LINKTYPE_RAW (101:
//! the packet starts at the IPv4 header; https://www.tcpdump.org/linktypes.html). Only
//! headers are stored (caplen < len is legal): the record's original length is the
//! length the IPv4 header announces. A packet is captured when its transmission on the
//! link starts (where tcpdump on the egress interface would see it).
//!
//! The synthesis, from ccsim's packet (packet.rs):
//! - addresses from the flow index: sender 10.(64 + f/65536).(f/256 % 256).(f % 256),
//!   receiver the same with 128 in place of 64; packet sources (UDP) use 192;
//! - ports: the sender's is 10000 + f % 50000, the receiver's 5001;
//! - sequence numbers in bytes: segment number × MSS (initial sequence number 0, no
//!   SYN: a trace starts established); ACK numbers the same, capped at the flow size;
//! - options: NOP, NOP, timestamps (RFC 7323 §3; TSval/TSecr in microseconds of
//!   simulated time, mod 2³²) on every segment, and NOP, NOP, SACK (RFC 2018 §3) with
//!   the ACK's blocks;
//! - ECN (RFC 3168 §5, §6.1): ECT(0) or CE in the IP TOS, ECE and CWR in the TCP flags;
//! - IPv4 header checksum (RFC 791) exact; the TCP checksum (RFC 793 §3.1) is computed
//!   for an all-zero payload, the payload ccsim does not model.
//!
//! IPv4's total length is 20 + TCP header with options + payload, which can differ
//! from ccsim's wire size (`tcp.header`, default 40 B) by the options' bytes.

use crate::packet::{Packet, PktKind};
use crate::units::Time;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

/// Magic of a nanosecond-resolution pcap file.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: raw IPv4/IPv6.
pub const LINKTYPE_RAW: u32 = 101;
/// Largest header synthesized: IPv4 20 + TCP 20 + options 40.
pub const MAX_HEADER: usize = 80;

/// What the synthesis needs to know about each TCP flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowInfo {
    pub mss: u32,
    /// Payload bytes of the whole flow (`u64::MAX`: unlimited).
    pub bytes: u64,
}

fn host(base: u32, f: u32) -> [u8; 4] {
    [10, (base + ((f >> 16) & 63)) as u8, (f >> 8) as u8, f as u8]
}

/// Internet checksum (RFC 1071): one's-complement sum of 16-bit words.
pub fn checksum(parts: &[&[u8]]) -> u16 {
    let mut sum: u32 = 0;
    for p in parts {
        let mut chunks = p.chunks_exact(2);
        for c in &mut chunks {
            sum += u16::from_be_bytes([c[0], c[1]]) as u32;
        }
        if let [last] = chunks.remainder() {
            sum += (*last as u32) << 8;
        }
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Write the IPv4 + TCP/UDP headers of `pkt` into `buf`; returns (header bytes,
/// IPv4 total length).
pub fn synthesize(
    pkt: &Packet,
    info: Option<&FlowInfo>,
    ip_id: u16,
    buf: &mut [u8; MAX_HEADER],
) -> (usize, u32) {
    buf.fill(0);
    let f = pkt.flow;
    let (src, dst, sport, dport) = match pkt.kind {
        PktKind::Data => (
            host(64, f),
            host(128, f),
            10_000 + (f % 50_000) as u16,
            5001,
        ),
        PktKind::Ack => (
            host(128, f),
            host(64, f),
            5001,
            10_000 + (f % 50_000) as u16,
        ),
        PktKind::Udp => (
            host(192, f),
            host(128, 0x3f_ffff),
            20_000 + (f % 40_000) as u16,
            9,
        ),
    };
    let l4 = &mut buf[20..];
    let (l4_len, proto, payload) = if pkt.kind == PktKind::Udp {
        let payload = pkt.size.saturating_sub(28);
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        l4[4..6].copy_from_slice(&((8 + payload) as u16).to_be_bytes());
        (8usize, 17u8, payload) // UDP checksum 0: none (RFC 768)
    } else {
        let mss = info.map_or(1460, |i| i.mss) as u64;
        let cap = info.map_or(u64::MAX, |i| i.bytes);
        let (seq, ack, payload) = match pkt.kind {
            PktKind::Data => (pkt.seq * mss, 0, pkt.payload),
            _ => (0, (pkt.seq * mss).min(cap), 0),
        };
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        l4[4..8].copy_from_slice(&(seq as u32).to_be_bytes());
        l4[8..12].copy_from_slice(&(ack as u32).to_be_bytes());
        // Options: NOP NOP TS(10) = 12 bytes, then NOP NOP SACK(2 + 8n).
        let mut o = 20;
        l4[o..o + 4].copy_from_slice(&[1, 1, 8, 10]);
        let us = |t: Time| ((t.0 / 1_000_000) as u32).to_be_bytes();
        l4[o + 4..o + 8].copy_from_slice(&us(pkt.ts_val));
        l4[o + 8..o + 12].copy_from_slice(&us(pkt.ts_ecr));
        o += 12;
        if pkt.kind == PktKind::Ack && pkt.nsack() > 0 {
            let n = pkt.nsack();
            l4[o..o + 4].copy_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
            o += 4;
            for (s, e) in pkt.sack_blocks() {
                let le = (s * mss).min(cap) as u32;
                let re = (e * mss).min(cap) as u32;
                l4[o..o + 4].copy_from_slice(&le.to_be_bytes());
                l4[o + 4..o + 8].copy_from_slice(&re.to_be_bytes());
                o += 8;
            }
        }
        l4[12] = ((o / 4) as u8) << 4;
        let mut flags = 0x10u8; // ACK
        if pkt.kind == PktKind::Data && pkt.payload > 0 && pkt.psh {
            // PSH: on every data segment, or on the last of each skb when the flow's
            // receiver reads it (tcp.read_latency; tcp/sender.rs).
            flags |= 0x08;
        }
        if pkt.ece {
            flags |= 0x40;
        }
        if pkt.cwr {
            flags |= 0x80;
        }
        l4[13] = flags;
        l4[14..16].copy_from_slice(&65535u16.to_be_bytes());
        (o, 6u8, payload)
    };
    let total = 20 + l4_len as u32 + payload;
    let ip = &mut buf[..20];
    ip[0] = 0x45;
    ip[1] = pkt.ecn as u8; // RFC 3168 §5 codepoints
    ip[2..4].copy_from_slice(&(total.min(65535) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = checksum(&[&buf[..20]]);
    buf[10..12].copy_from_slice(&c.to_be_bytes());
    if proto == 6 {
        // Pseudo-header (RFC 793 §3.1); zero payload bytes add nothing to the sum.
        let tcp_len = (l4_len as u32 + payload) as u16;
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&src);
        pseudo[4..8].copy_from_slice(&dst);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&tcp_len.to_be_bytes());
        let c = checksum(&[&pseudo, &buf[20..20 + l4_len]]);
        buf[36..38].copy_from_slice(&c.to_be_bytes());
    }
    (20 + l4_len, total)
}

/// One pcap file.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    ip_id: u16,
    buf: [u8; MAX_HEADER],
    pub packets: u64,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W, snaplen: u32) -> io::Result<Self> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            ip_id: 0,
            buf: [0; MAX_HEADER],
            packets: 0,
        })
    }

    /// Append one packet seen at `at`.
    pub fn write(&mut self, at: Time, pkt: &Packet, info: Option<&FlowInfo>) -> io::Result<()> {
        self.ip_id = self.ip_id.wrapping_add(1);
        let (hlen, total) = synthesize(pkt, info, self.ip_id, &mut self.buf);
        let caplen = (hlen as u32).min(self.snaplen);
        let ns = at.0 / 1000; // ps -> ns
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&caplen.to_le_bytes());
        rec[12..16].copy_from_slice(&total.to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(&self.buf[..caplen as usize])?;
        self.packets += 1;
        Ok(())
    }

    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The taps of one run: which links write to which file.
pub struct Taps {
    /// Per link: index into `writers`, or `u32::MAX`.
    by_link: Vec<u32>,
    writers: Vec<(PathBuf, PcapWriter<BufWriter<File>>)>,
    flows: Vec<FlowInfo>,
    error: Option<io::Error>,
}

impl Taps {
    /// Open one file per tapped link (`(link index, path)`).
    pub fn open(
        n_links: usize,
        taps: &[(usize, PathBuf)],
        snaplen: u32,
        flows: Vec<FlowInfo>,
    ) -> io::Result<Self> {
        let mut by_link = vec![u32::MAX; n_links];
        let mut writers = Vec::new();
        for (l, path) in taps {
            let f = File::create(path)?;
            by_link[*l] = writers.len() as u32;
            writers.push((
                path.clone(),
                PcapWriter::new(BufWriter::with_capacity(1 << 20, f), snaplen)?,
            ));
        }
        Ok(Taps {
            by_link,
            writers,
            flows,
            error: None,
        })
    }

    /// Record `pkt` starting transmission on link `l` at `at` (if `l` is tapped).
    #[inline]
    pub fn capture(&mut self, l: usize, at: Time, pkt: &Packet) {
        let w = self.by_link[l];
        if w == u32::MAX || self.error.is_some() {
            return;
        }
        let info = match pkt.kind {
            PktKind::Udp => None,
            _ => self.flows.get(pkt.flow as usize),
        };
        if let Err(e) = self.writers[w as usize].1.write(at, pkt, info) {
            self.error = Some(e);
        }
    }

    /// Flush and close; the files written and their packet counts.
    pub fn finish(self) -> io::Result<Vec<(PathBuf, u64)>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut out = Vec::new();
        for (p, w) in self.writers {
            let n = w.packets;
            w.into_inner()?;
            out.push((p, n));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1071 §3's worked example: words 0001 f203 f4f5 f6f7 sum to ddf2 (after the
    /// end-around carry); the checksum is its complement, 220d.
    #[test]
    fn rfc1071_example() {
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(&[&d]), !0xddf2);
        // A header with its checksum filled in sums to zero (checks to 0).
        let mut pkt = Packet::new(PktKind::Data, 3, 0, 7, 1500, 1460, Time::from_millis(5));
        pkt.ecn = crate::packet::Ecn::Ect0;
        let mut b = [0u8; MAX_HEADER];
        let (h, total) = synthesize(
            &pkt,
            Some(&FlowInfo {
                mss: 1460,
                bytes: u64::MAX,
            }),
            1,
            &mut b,
        );
        assert_eq!(checksum(&[&b[..20]]), 0);
        assert_eq!((h, total), (52, 20 + 32 + 1460));
        assert_eq!(b[1] & 3, 0b10, "ECT(0)");
        assert_eq!(u32::from_be_bytes(b[24..28].try_into().unwrap()), 7 * 1460);
        assert_eq!(&b[12..16], &[10, 64, 0, 3]);
        assert_eq!(&b[16..20], &[10, 128, 0, 3]);
    }

    /// The TCP checksum verifies over pseudo-header + header (+ zero payload).
    #[test]
    fn tcp_checksum_verifies() {
        let mut ack = Packet::new(PktKind::Ack, 1, 0, 10, 40, 0, Time::from_millis(1));
        ack.set_sack(&[(2, 4), (6, 7)]);
        ack.ece = true;
        let mut b = [0u8; MAX_HEADER];
        let (h, total) = synthesize(
            &ack,
            Some(&FlowInfo {
                mss: 1000,
                bytes: 16_500,
            }),
            9,
            &mut b,
        );
        assert_eq!(h, 20 + 20 + 12 + 4 + 16);
        assert_eq!(total as usize, h);
        let tcp_len = (h - 20) as u16;
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&b[12..16]);
        pseudo[4..8].copy_from_slice(&b[16..20]);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&tcp_len.to_be_bytes());
        assert_eq!(checksum(&[&pseudo, &b[20..h]]), 0);
        // ACK 10 segments; SACK [12, 14) and [16, 17) capped at the 16 500-byte flow.
        let word = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
        assert_eq!(word(28), 10_000);
        assert_eq!((word(56), word(60)), (12_000, 14_000));
        assert_eq!((word(64), word(68)), (16_000, 16_500));
        assert_eq!(b[33] & 0x40, 0x40, "ECE");
    }
}
