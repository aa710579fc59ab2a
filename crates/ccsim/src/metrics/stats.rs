//! Estimates over replications: the mean and its 95 % confidence interval (Student t).
//! The one implementation: sweeps, batches and the Python layer all call it.

/// Mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom).
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub mean: f64,
    pub half_width: f64,
    pub n: usize,
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        // Cornish–Fisher style expansion around the normal quantile; < 0.1 % error.
        _ => {
            let z: f64 = 1.959964;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
        let half_width = if n < 2 {
            f64::NAN
        } else {
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t95(n - 1) * (var / n as f64).sqrt()
        };
        Estimate {
            mean,
            half_width,
            n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Student t quantiles from the table (df 1, 9, 30) and the expansion beyond
    /// (df 60: 2.0003, df 120: 1.9799; Abramowitz & Stegun table 26.10).
    #[test]
    fn t_quantiles() {
        assert_eq!(t95(1), 12.706);
        assert_eq!(t95(9), 2.262);
        assert_eq!(t95(30), 2.042);
        assert!((t95(60) - 2.0003).abs() < 2e-3, "{}", t95(60));
        assert!((t95(120) - 1.9799).abs() < 2e-3, "{}", t95(120));
        assert!(t95(0).is_nan());
    }

    /// Mean 2, sample sd 1 over 4 values: half-width t95(3)·1/√4 = 3.182/2.
    #[test]
    fn half_width_of_four_values() {
        let e = Estimate::of(&[1.0, 2.0, 3.0, 2.0]);
        let sd = (2.0f64 / 3.0).sqrt();
        assert_eq!((e.n, e.mean), (4, 2.0));
        assert!((e.half_width - 3.182 * sd / 2.0).abs() < 1e-12);
        assert!(Estimate::of(&[5.0]).half_width.is_nan());
    }
}
