//! Convergence time (study 002 §7.4, after Ha et al. 2006): "the amount of time it takes
//! a flow's throughput to reach 80 % of a pre-existing flow's throughput", with the
//! throughputs compared "at 1 second intervals".

/// First sample time `t_k` after `start` at which `thr[k] ≥ fraction·reference[k]`
/// (and the flow has sent something), as `t_k − start`. `t[k]` is the end of the
/// k-th sampling interval; `thr` and `reference` are the two flows' throughputs over
/// that interval. A sample whose interval began before `start` still counts: it can
/// only understate the new flow, never converge it early. `None`: never reached.
pub fn convergence_time(
    t: &[f64],
    thr: &[f64],
    reference: &[f64],
    start: f64,
    fraction: f64,
) -> Option<f64> {
    assert!(t.len() == thr.len() && t.len() == reference.len());
    (0..t.len())
        .find(|&k| t[k] > start && reached(thr[k], reference[k], fraction))
        .map(|k| t[k] - start)
}

/// The convergence test on one pair of samples.
#[inline]
pub fn reached(thr: f64, reference: f64, fraction: f64) -> bool {
    thr > 0.0 && thr >= fraction * reference
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new flow at 50 s ramping linearly by 10 Mb/s per second up to the reference's
    /// 100 Mb/s: its 1 s throughput reaches 80 Mb/s in the sample ending at 58 s.
    #[test]
    fn linear_ramp_reaches_80_percent_after_8_s() {
        let t: Vec<f64> = (1..=70).map(|k| k as f64).collect();
        let thr: Vec<f64> = t
            .iter()
            .map(|&s| ((s - 50.0).max(0.0) * 10e6).min(100e6))
            .collect();
        let reference = vec![100e6; t.len()];
        let c = convergence_time(&t, &thr, &reference, 50.0, 0.8).unwrap();
        assert!((c - 8.0).abs() < 1e-12, "{c}");
        // 90 % takes one second more; 101 % never comes.
        assert_eq!(convergence_time(&t, &thr, &reference, 50.0, 0.9), Some(9.0));
        assert_eq!(convergence_time(&t, &thr, &reference, 50.0, 1.01), None);
    }

    /// Samples before the flow's start never count, even where the reference is idle.
    #[test]
    fn samples_before_start_are_ignored() {
        let t = [1.0, 2.0, 3.0];
        let thr = [5.0, 0.0, 4.0];
        let reference = [0.0, 5.0, 5.0];
        assert_eq!(convergence_time(&t, &thr, &reference, 1.5, 0.8), Some(1.5));
        assert!(!reached(0.0, 0.0, 0.8));
    }
}
