//! Seed 000's measured table, as data: super_netperf TCP_STREAM over loopback, 15 s per run,
//! 1..30 flows, Mbit/s with `net.core.high_order_alloc_disable=0` (order-3 frags) and `=1`
//! (order-0), "56 x86 cores server" (Eric Dumazet, netdev, 2019-06-14, Message-ID
//! 20190614232221.248392-5-edumazet@google.com).
//!
//! Used only to compare (reproduce, calibration, tests, chart overlays). The model never reads it.

/// `thr: T0: T1` as printed in the post: flows, order-3 Mbit/s, order-0 Mbit/s.
pub const SEED_000_ROWS: [(u32, u32, u32); 30] = [
    (1, 49979, 37267),
    (2, 98745, 76286),
    (3, 141088, 110051),
    (4, 177414, 144772),
    (5, 197587, 173563),
    (6, 215377, 208448),
    (7, 241061, 234087),
    (8, 267155, 263373),
    (9, 295069, 297402),
    (10, 312393, 335213),
    (11, 340462, 368778),
    (12, 371366, 403954),
    (13, 412344, 443713),
    (14, 426617, 473580),
    (15, 474418, 507861),
    (16, 503261, 538539),
    (17, 522331, 563096),
    (18, 532409, 567084),
    (19, 550824, 605240),
    (20, 525493, 641988),
    (21, 564574, 665843),
    (22, 567349, 690868),
    (23, 583846, 710917),
    (24, 588715, 736306),
    (25, 603212, 763494),
    (26, 604083, 792654),
    (27, 602241, 796450),
    (28, 604291, 797993),
    (29, 611610, 833249),
    (30, 577356, 841062),
];

/// First thread count from which `b` stays strictly ahead of `a` to the end of the table.
pub fn crossover(rows: &[(u32, f64, f64)]) -> Option<u32> {
    let mut first = None;
    for &(n, a, b) in rows {
        if b > a {
            first.get_or_insert(n);
        } else {
            first = None;
        }
    }
    first
}

/// Highest order-3 value over 20..=30 flows and where it is.
pub fn plateau(rows: &[(u32, f64, f64)]) -> Option<(u32, f64)> {
    rows.iter().filter(|r| (20..=30).contains(&r.0)).map(|r| (r.0, r.1)).max_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_crossover_and_plateau() {
        let rows: Vec<(u32, f64, f64)> = SEED_000_ROWS.iter().map(|&(n, a, b)| (n, a as f64, b as f64)).collect();
        assert_eq!(crossover(&rows), Some(9));
        assert_eq!(plateau(&rows), Some((29, 611610.0)));
    }
}
