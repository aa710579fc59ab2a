//! Loss recovery with several losses in one window (RFC 6675 SACK against RFC 6582
//! NewReno and RFC 5681 Reno), driven by deterministic drops, and ECN end to end
//! (RFC 3168).

use ccsim::{run, Output};

fn must_run(sc: &str) -> Output {
    let o = run(sc, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}"));
    assert_eq!(
        o.summary["conservation"]["ok"], true,
        "packet conservation: {}",
        o.summary["conservation"]
    );
    o
}

fn col(o: &Output, name: &str) -> f64 {
    o.flows
        .f64(name)
        .map(|c| c[0])
        .unwrap_or_else(|| match o.flows.get(name) {
            Some(ccsim::summary::table::Column::I64(v)) => v[0] as f64,
            _ => panic!("no column {name}"),
        })
}

/// One flow, 10 Mb/s, RTT 100 ms (BDP 83 packets), a BDP buffer: no congestion loss
/// in 6 s (the window stays below BDP + buffer = 166). The network drops the first
/// transmission of `drops`, all inside one window (cwnd is about 65 at segment 200).
/// The minimum RTO is raised to 3 s so that NewReno's recovery, one RTT per loss, is
/// not cut short by its timer (RFC 6582's "impatient" variant restarts the timer
/// only on the first partial ACK, so a recovery longer than one RTO ends in a
/// timeout: that is a property of the variant, not of the losses).
fn forced(recovery: &str, drops: &[u64]) -> Output {
    scripted_losses("newreno", recovery, "3s", drops, "")
}

/// The one-flow network of `forced`, with the algorithm, minimum RTO and extra
/// top-level lines (a sample interval) given.
fn scripted_losses(cc: &str, recovery: &str, min_rto: &str, drops: &[u64], top: &str) -> Output {
    let list: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    must_run(&format!(
        r#"
duration = "6s"
{top}
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "40ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "bdp"
[tcp]
profile = "ns2"
min_rto = "{min_rto}"
[[flows]]
cc = "{cc}"
recovery = "{recovery}"
drop_segments = [{}]
"#,
        list.join(", ")
    ))
}

const RTT: f64 = 0.1;

#[test]
fn sack_recovers_four_losses_in_one_round_trip() {
    let o = forced("sack", &[200, 202, 204, 206]);
    assert_eq!(col(&o, "timeouts"), 0.0);
    assert_eq!(col(&o, "fast_retransmits"), 1.0, "one recovery episode");
    // RFC 6675 retransmits exactly the lost segments: no spurious retransmission.
    assert_eq!(col(&o, "retransmits"), 4.0);
    let rec = col(&o, "recovery_s");
    eprintln!("SACK: recovery {rec:.3} s = {:.2} RTT", rec / RTT);
    // All holes are known after the first RTT of duplicate ACKs; recovery ends when
    // the last retransmission is acknowledged, one RTT (plus the wait for pipe to
    // fall below the halved cwnd, under half an RTT) after entry.
    assert!(
        rec > 0.9 * RTT && rec < 1.6 * RTT,
        "SACK recovery took {rec:.3} s, expected about one RTT ({RTT} s)"
    );
}

#[test]
fn newreno_needs_one_round_trip_per_loss() {
    let o = forced("newreno", &[200, 202, 204, 206]);
    assert_eq!(col(&o, "timeouts"), 0.0);
    assert_eq!(col(&o, "fast_retransmits"), 1.0);
    assert_eq!(col(&o, "retransmits"), 4.0);
    let rec = col(&o, "recovery_s");
    eprintln!("NewReno: recovery {rec:.3} s = {:.2} RTT", rec / RTT);
    // RFC 6582: each partial ACK reveals one hole, so four losses take four RTTs.
    assert!(
        rec > 3.6 * RTT && rec < 4.6 * RTT,
        "NewReno recovery took {rec:.3} s, expected about 4 RTTs"
    );
}

#[test]
fn reno_times_out_on_four_losses_in_one_window() {
    // Fall & Floyd (1996): Reno leaves fast recovery on the first partial ACK and
    // halves again per further loss; with several losses in one window it is left
    // without enough duplicate ACKs and waits for the retransmission timer.
    let o = forced("reno", &[200, 202, 204, 206]);
    assert!(
        col(&o, "timeouts") >= 1.0,
        "Reno recovered four losses without a timeout"
    );
    let s = forced("sack", &[200, 202, 204, 206]);
    assert!(
        col(&s, "bytes_delivered") > col(&o, "bytes_delivered"),
        "SACK should deliver more than Reno after the same losses"
    );
}

#[test]
fn sack_recovers_a_burst_of_losses_without_timeout() {
    // Ten losses in one window of ~65 segments, including two adjacent ones.
    let drops = [150, 151, 155, 160, 162, 170, 171, 180, 190, 199];
    let o = forced("sack", &drops);
    assert_eq!(col(&o, "timeouts"), 0.0);
    assert_eq!(col(&o, "fast_retransmits"), 1.0);
    assert_eq!(col(&o, "retransmits"), drops.len() as f64);
    let n = forced("newreno", &drops);
    assert!(
        col(&n, "recovery_s") > 5.0 * col(&o, "recovery_s"),
        "NewReno ({:.3} s) should take several times SACK's recovery ({:.3} s)",
        col(&n, "recovery_s"),
        col(&o, "recovery_s")
    );
}

/// The lowest sampled ssthresh of flow 0 (after the first sample: the initial value
/// is the "infinite" one), in packets.
fn min_ssthresh(o: &Output) -> f64 {
    let v = o.series.f64("value").unwrap();
    let Some(ccsim::summary::table::Column::Cat(met, mcats)) = o.series.get("metric") else {
        panic!("no metric column")
    };
    let m = mcats.iter().position(|c| c == "ssthresh_pkts").unwrap() as u8;
    (0..v.len())
        .filter(|&i| met[i] == m)
        .map(|i| v[i])
        .fold(f64::INFINITY, f64::min)
}

/// The last sampled ssthresh of flow 0, in packets.
fn final_ssthresh(o: &Output) -> f64 {
    let t = o.series.f64("time").unwrap();
    let v = o.series.f64("value").unwrap();
    let Some(ccsim::summary::table::Column::Cat(met, mcats)) = o.series.get("metric") else {
        panic!("no metric column")
    };
    let m = mcats.iter().position(|c| c == "ssthresh_pkts").unwrap() as u8;
    let last = (0..t.len())
        .filter(|&i| met[i] == m)
        .max_by(|&a, &b| t[a].total_cmp(&t[b]));
    v[last.expect("an ssthresh sample")]
}

/// The network of `forced` (one flow, BDP buffer, no congestion loss) with the
/// 200 ms minimum RTO (the default) and segments 200-207 dropped: a loss burst whose
/// recovery ends in a timeout, with ssthresh sampled every 50 ms.
fn eight_losses_in_a_row(cc: &str, recovery: &str) -> Output {
    let drops: Vec<u64> = (200..208).collect();
    scripted_losses(
        cc,
        recovery,
        "200ms",
        &drops,
        r#"sample_interval = "0.05s""#,
    )
}

/// RFC 6582 §4 (and ns-2's `bugFix_`, on by default): after a timeout the sender
/// goes back to snd_una and resends segments the receiver already holds; each brings
/// back a duplicate ACK for the highest segment sent before the timeout. Those
/// duplicates do not "cover more than recover" and must not start a fast retransmit
/// (which would halve a window that has seen no new loss, down to ssthresh 2).
/// Eight scripted losses in a row end in a timeout (Reno: several losses per
/// window; NewReno: its recovery, one RTT per loss, outlasts the default 200 ms
/// minimum RTO); after it no segment is lost, so the timeout is the last congestion
/// reduction and its ssthresh (about half the flight, 30 packets or more) stands to
/// the end of the run. Before the guard both ended the run at ssthresh 4.
#[test]
fn duplicates_from_resent_segments_after_a_timeout_start_no_fast_retransmit() {
    for recovery in ["reno", "newreno"] {
        let o = eight_losses_in_a_row("newreno", recovery);
        let (fr, to, ss) = (
            col(&o, "fast_retransmits"),
            col(&o, "timeouts"),
            final_ssthresh(&o),
        );
        eprintln!("{recovery}: {fr} fast retransmits, {to} timeouts, final ssthresh {ss}");
        assert_eq!(to, 1.0, "{recovery}: one timeout");
        if recovery == "newreno" {
            assert_eq!(
                fr, 1.0,
                "newreno: the fast retransmit before the timeout only"
            );
        }
        assert!(
            ss > 10.0,
            "{recovery}: ssthresh fell to {ss} after the timeout without a new loss \
             ({fr} fast retransmits)"
        );
    }
}

/// A timeout during fast recovery keeps the ssthresh set when the recovery began
/// (Linux's tcp_enter_loss: reduce "if it has not yet been made inside this
/// window"). NewReno's recovery of eight losses in a row outlasts the 200 ms RTO;
/// duplicate ACKs have inflated cwnd by then, and a law that scales cwnd (Illinois,
/// HSTCP) would set an ssthresh above the window that just lost — with a small
/// buffer the next slow start overshoots again, recovery fails again, and the flow
/// cycles through timeouts. No segment is lost after the timeout here, so the
/// ssthresh at the end of the run is the one from the fast retransmit: the lowest
/// the run ever had.
#[test]
fn a_timeout_during_fast_recovery_keeps_the_reduced_ssthresh() {
    for cc in ["newreno", "illinois", "highspeed"] {
        let o = eight_losses_in_a_row(cc, "newreno");
        assert_eq!(col(&o, "fast_retransmits"), 1.0, "{cc}");
        assert_eq!(
            col(&o, "timeouts"),
            1.0,
            "{cc}: the recovery outlasts the RTO"
        );
        let (last, lowest) = (final_ssthresh(&o), min_ssthresh(&o));
        eprintln!("{cc}: ssthresh after the timeout {last}, lowest {lowest}");
        assert_eq!(last, lowest, "{cc}: the timeout raised ssthresh");
    }
}

/// Four flows through RED (min_th 20, max_th 60 packets) in a 300-packet buffer,
/// 20 Mb/s, RTT 60 ms (BDP 100 packets).
fn red_dumbbell(flows_ecn: bool) -> Output {
    must_run(&format!(
        r#"
duration = "20s"
warmup = "5s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "20ms"
access_rate = "1Gbps"
access_delay = "5ms"
buffer = "300pkt"
queue = {{ kind = "red", min_th = "20pkt", max_th = "60pkt", ecn = true }}
[tcp]
profile = "ns2"
ecn = {flows_ecn}
[[flows]]
count = 4
cc = "newreno"
"#
    ))
}

fn sum_i64(o: &Output, name: &str) -> i64 {
    match o.flows.get(name) {
        Some(ccsim::summary::table::Column::I64(v)) => v.iter().sum(),
        _ => panic!("no column {name}"),
    }
}

#[test]
fn ecn_marks_instead_of_dropping_and_senders_back_off() {
    let o = red_dumbbell(true);
    let drops = o.get("links.bottleneck.drops");
    let qmax = o.get("links.bottleneck.queue_max_pkts");
    let reductions = sum_i64(&o, "ecn_reductions");
    eprintln!(
        "ECN: drops {drops}, max queue {qmax} pkt, ECN reductions {reductions}, utilization {:.3}",
        o.get("links.bottleneck.utilization")
    );
    // RFC 3168 with RED: early decisions on ECT packets mark; a drop only happens
    // when the average queue passes max_th. The senders halving once per window on
    // ECE keep it below: no TCP packet is lost anywhere.
    assert_eq!(drops, 0.0, "ECN-capable flows lost packets at RED");
    assert_eq!(sum_i64(&o, "losses"), 0);
    assert!(reductions > 0, "no sender reacted to ECN-Echo");
    // Without a reaction the windows would grow until the 300-packet buffer
    // overflowed; with it the instantaneous queue stays near RED's thresholds.
    assert!(
        qmax <= 120.0,
        "queue reached {qmax} packets: senders did not back off"
    );
    // The same RED queue drops the same flows when they are not ECN-capable.
    let n = red_dumbbell(false);
    assert!(n.get("links.bottleneck.drops") > 0.0);
    assert_eq!(sum_i64(&n, "ecn_reductions"), 0);
}

#[test]
fn sack_with_xcp_is_rejected_naming_the_field() {
    let sc = r#"
duration = "1s"
[tcp]
profile = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "bdp"
queue = { kind = "xcp" }
[[flows]]
cc = "xcp"
recovery = "sack"
"#;
    let e = match run(sc, &[]) {
        Ok(_) => panic!("accepted sack with xcp"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("flows[0].recovery"), "{e}");
}

/// A flow of 70 full segments (1448 B: a short last segment would travel faster than
/// any before it, and RACK would take its ACK for the original's, RFC 8985 §6.2 step 2)
/// under the linux profile, 100 Mb/s, RTT 14 ms, losing the first transmission of
/// `drops`, with `tcp.rack` as given.
fn short_flow(rack: bool, drops: &str) -> Output {
    must_run(&format!(
        r#"
duration = "3s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
access_rate = "1Gbps"
access_delay = "1ms"
buffer = "bdp"
[tcp]
rack = {rack}
[[flows]]
cc = "cubic"
size = "101360B"
drop_segments = [{drops}]
"#
    ))
}

/// RFC 8985 end to end (engine timers included): the last two segments lost, so no
/// duplicate ACK ever comes. With RACK-TLP the PTO (2·SRTT) probes, the probe's SACK
/// lets RACK mark the other segment lost, and the flow ends about 2·SRTT + 2·RTT after
/// the loss-free one, with no timeout; without RACK the RTO (≥ 200 ms) finds the loss.
#[test]
fn a_tail_loss_is_recovered_by_the_loss_probe_not_the_rto() {
    let clean = col(&short_flow(true, ""), "fct_s");
    let o = short_flow(true, "68, 69");
    let srtt = col(&o, "rtt_mean_s");
    let rtt = col(&o, "rtt_min_s");
    let extra = col(&o, "fct_s") - clean;
    eprintln!("RACK-TLP: +{extra:.4} s (SRTT ~{srtt:.4}, RTT {rtt:.4})");
    assert_eq!(col(&o, "timeouts"), 0.0);
    assert_eq!(col(&o, "fast_retransmits"), 1.0, "RACK starts one recovery");
    assert_eq!(
        col(&o, "retransmits"),
        2.0,
        "the probe and the other lost segment"
    );
    // PTO = 2·SRTT after the last ACK, then the probe's round trip and the resend's.
    let want = 2.0 * srtt + 2.0 * rtt;
    assert!(
        (extra - want).abs() < 0.5 * rtt,
        "extra {extra:.4} s vs 2·SRTT + 2·RTT = {want:.4} s"
    );
    let o = short_flow(false, "68, 69");
    assert_eq!(col(&o, "timeouts"), 1.0);
    assert!(col(&o, "fct_s") - clean > 0.2, "the minimum RTO");
}

/// RFC 8985 §6.2: a segment followed by two delivered ones (two duplicate ACKs, below
/// DupThresh) is lost RACK.rtt + min_RTT/4 after it was sent: the flow ends about
/// RTT + RTT/4 + RTT later than without the loss. Without RACK it waits for the RTO.
#[test]
fn a_loss_with_two_dupacks_is_found_after_rtt_plus_a_quarter() {
    let clean = col(&short_flow(true, ""), "fct_s");
    let o = short_flow(true, "67");
    let rtt = col(&o, "rtt_min_s");
    let extra = col(&o, "fct_s") - clean;
    eprintln!("RACK: +{extra:.4} s (RTT {rtt:.4})");
    assert_eq!(col(&o, "timeouts"), 0.0);
    assert_eq!(col(&o, "retransmits"), 1.0);
    assert!(
        extra > 1.1 * rtt && extra < 1.25 * rtt + 0.5 * rtt,
        "extra {extra:.4} s vs RTT + RTT/4 = {:.4} s",
        1.25 * rtt
    );
    let o = short_flow(false, "67");
    assert_eq!(col(&o, "timeouts"), 1.0);
}

/// Four paced flows slow-starting into a 1/√4-BDP buffer (linux profile: SACK, RACK,
/// PRR), at 100 and 200 Mb/s, RTT 100 ms, 10 s. The path is FIFO with no reordering
/// and no wire loss, so a retransmission can only be spurious if the sender resent a
/// segment whose copy was still on its way: every flow must resend no more segments
/// than the bottleneck dropped of it (a retransmission lost again counts as a drop
/// too), and no RTO may fire, since RACK finds every lost retransmission. Two bugs
/// broke this: a recovery starting right after another resent the retransmissions
/// of the last one still in flight (100 Mb/s: 29 spurious, utilization 0.874 instead
/// of 0.934), and an RTO counted from a head retransmission that RACK had found lost
/// and resent fired during the resend's round trip, its go-back-N resending what
/// was in flight (200 Mb/s: 2 timeouts, 249 spurious).
#[test]
fn paced_flows_in_slow_start_overshoot_resend_only_what_was_dropped() {
    for rate in ["100Mbps", "200Mbps"] {
        let o = must_run(&format!(
            r#"
duration = "10s"
warmup = "0s"
[topology]
kind = "dumbbell"
bottleneck_rate = "{rate}"
bottleneck_delay = "25ms"
access_rate = "10Gbps"
access_delay = "12.5ms"
buffer = "stanford"
[[flows]]
count = 4
cc = "newreno"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ pacing = "leaky" }}
"#
        ));
        let per_flow = |name: &str| match o.flows.get(name) {
            Some(ccsim::summary::table::Column::I64(v)) => v.clone(),
            _ => panic!("no column {name}"),
        };
        let (losses, retx, rtos) = (
            per_flow("losses"),
            per_flow("retransmits"),
            per_flow("timeouts"),
        );
        assert!(
            losses.iter().sum::<i64>() > 1000,
            "{rate}: the overshoot drops"
        );
        for f in 0..4 {
            assert!(
                retx[f] <= losses[f],
                "{rate} flow {f}: {} retransmissions for {} drops",
                retx[f],
                losses[f]
            );
            assert_eq!(rtos[f], 0, "{rate} flow {f}: timeouts");
        }
    }
}
