//! Estimates over replications: the mean and its 95 % confidence interval (Student t).
//! The one implementation: sweeps, batches and the Python layer all call it.

/// Mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom).
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub mean: f64,
    pub half_width: f64,
    pub n: usize,
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: relative error below 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction
/// (Lentz's method; Numerical Recipes §6.4), using the symmetry I_x(a, b) =
/// 1 − I_{1−x}(b, a) where the fraction converges slowly.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut f = d;
    for m in 1..1000 {
        let m = m as f64;
        // Even step d_{2m}, then odd step d_{2m+1} of the continued fraction.
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + num / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            f *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-16 {
            break;
        }
    }
    front * f / a
}

/// The quantile t_{p, df} of Student's t distribution for p in (0.5, 1): the root of
/// P(T > t) = 1 − p, where P(T > t) = I_{df/(df + t²)}(df/2, 1/2) / 2, found by
/// bisection on x = df/(df + t²) (I is increasing in x). Exact to about 1e-12.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.5 && p < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    let target = 2.0 * (1.0 - p);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if incomplete_beta(mid, df / 2.0, 0.5) < target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-17 * hi.max(1e-300) {
            break;
        }
    }
    let x = 0.5 * (lo + hi);
    (df * (1.0 - x) / x).sqrt()
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom (NaN for 0).
pub fn t95(df: usize) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    t_quantile(0.975, df as f64)
}

impl Estimate {
    /// The mean of `xs` and the half-width t95(n − 1)·s/√n of its 95 % confidence
    /// interval (s the sample standard deviation); NaN with fewer than two values.
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

    /// Student t 0.975 quantiles against published values to 9 digits (e.g. NIST
    /// handbook 1.3.6.7.2; scipy.stats.t.ppf): df 1 = 12.7062047362, 2 = 4.30265272975,
    /// 4 = 2.7764451052, 9 = 2.26215716280, 30 = 2.04227245630, 120 = 1.97993040508;
    /// and the normal 1.95996398454 in the limit.
    #[test]
    fn t_quantiles_match_the_tables() {
        for (df, want) in [
            (1, 12.706_204_736_2),
            (2, 4.302_652_729_75),
            (4, 2.776_445_105_2),
            (9, 2.262_157_162_80),
            (30, 2.042_272_456_30),
            (120, 1.979_930_405_08),
        ] {
            let got = t95(df);
            assert!((got - want).abs() < 1e-9 * want, "df {df}: {got} vs {want}");
        }
        assert!((t95(1_000_000) - 1.959_963_984_54).abs() < 1e-5);
        assert!(t95(0).is_nan());
        // Other levels: t_{0.95, 10} = 1.81246112281, t_{0.995, 5} = 4.03214298356.
        assert!((t_quantile(0.95, 10.0) - 1.812_461_122_81).abs() < 1e-9);
        assert!((t_quantile(0.995, 5.0) - 4.032_142_983_56).abs() < 1e-9);
    }

    /// ln Γ at known points: Γ(1/2) = √π, Γ(5) = 24, Γ(10.5).
    #[test]
    fn ln_gamma_known_values() {
        let sqrt_pi = std::f64::consts::PI.sqrt();
        assert!((ln_gamma(0.5) - sqrt_pi.ln()).abs() < 1e-13);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((ln_gamma(10.5) - 1_133_278.388_948_785_4f64.ln()).abs() < 1e-12);
    }

    /// Mean 2, sample sd √(2/3) over 4 values: half-width t95(3)·sd/√4.
    #[test]
    fn half_width_of_four_values() {
        let e = Estimate::of(&[1.0, 2.0, 3.0, 2.0]);
        let sd = (2.0f64 / 3.0).sqrt();
        assert_eq!((e.n, e.mean), (4, 2.0));
        assert!((e.half_width - 3.182_446_305_28 * sd / 2.0).abs() < 1e-9);
        assert!(Estimate::of(&[5.0]).half_width.is_nan());
    }
}
