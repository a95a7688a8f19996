//! Transcendental functions for the engine, from the pure-Rust `libm` port rather than the
//! platform's C library: glibc, musl and macOS round `ln`, `exp`, `pow` and `cbrt` differently in
//! the last bit, and one bit is enough to change a window, then a send time, then the whole run.
//! Square roots and arithmetic are exact IEEE operations and need no wrapper.

#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

/// `n < y.floor()`, the window test asked before every segment sent ("is there room for one
/// more?"), without computing the floor: for an integer n, n < floor(y) exactly when n + 1 <= y
/// (and both are false for NaN). x86-64's baseline has no rounding instruction, so `f64::floor`
/// would be a library call. Exact for n < 2^53.
#[inline(always)]
pub fn below_floor(n: u64, y: f64) -> bool {
    (n + 1) as f64 <= y
}

#[cfg(test)]
mod tests {
    #[test]
    fn agrees_with_the_usual_values() {
        assert!((super::ln(std::f64::consts::E) - 1.0).abs() < 1e-15);
        assert_eq!(super::powf(2.0, 10.0), 1024.0);
        assert_eq!(super::cbrt(27.0), 3.0);
        assert!((super::exp(1.0) - std::f64::consts::E).abs() < 1e-15);
    }

    #[test]
    fn below_floor_is_n_below_the_floor() {
        let ys = [0.0, 1e-9, 0.5, 1.0, 1.0 - 1e-16, 2.0, 2.999_999_999, 3.0 + 1e-9, 10.0, 1e15 + 0.5, -0.5, -3.0];
        for n in [0u64, 1, 2, 3, 9, 10, 11, 999_999_999_999_999] {
            for y in ys.into_iter().chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]) {
                assert_eq!(super::below_floor(n, y), (n as f64) < y.floor(), "{n} < floor({y})");
            }
        }
    }
}
