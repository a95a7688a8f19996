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

#[cfg(test)]
mod tests {
    #[test]
    fn agrees_with_the_usual_values() {
        assert!((super::ln(std::f64::consts::E) - 1.0).abs() < 1e-15);
        assert_eq!(super::powf(2.0, 10.0), 1024.0);
        assert_eq!(super::cbrt(27.0), 3.0);
        assert!((super::exp(1.0) - std::f64::consts::E).abs() < 1e-15);
    }
}
