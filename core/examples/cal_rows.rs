//! The 5-seed mean sweep of `high-order-alloc` per flow, with the eight fitted constants given
//! on the command line in `FITTED` order (e.g. a `calibrate` result before committing it), next
//! to the seed: `cargo run --release -p skblab-core --example cal_rows -- 2642 93 8000 ...`.
use skblab_core::experiments::high_order_alloc as hoa;

fn main() {
    let v: Vec<f64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    assert_eq!(v.len(), hoa::FITTED.len(), "give {} values", hoa::FITTED.len());
    let m = hoa::profile_with(&v);
    let runs: Vec<_> = (1..=5).map(|s| hoa::sweep_on(&m, s)).collect();
    let seed = hoa::SEED_000_ROWS;
    println!("flows  o3/flow  seed   err%   o0/flow  seed   err%   ratio sim/seed");
    for i in 0..30 {
        let o3 = runs.iter().map(|r| r[i].1).sum::<f64>() / 5.0;
        let o0 = runs.iter().map(|r| r[i].2).sum::<f64>() / 5.0;
        let (n, s3, s0) = seed[i];
        let n = n as f64;
        println!(
            "{:>5}  {:>7.1}  {:>5.1}  {:>+5.1}   {:>7.1}  {:>5.1}  {:>+5.1}   {:.2} / {:.2}",
            n,
            o3 / n / 1000.0,
            s3 as f64 / n / 1000.0,
            (o3 / s3 as f64 - 1.0) * 100.0,
            o0 / n / 1000.0,
            s0 as f64 / n / 1000.0,
            (o0 / s0 as f64 - 1.0) * 100.0,
            o3 / o0,
            s3 as f64 / s0 as f64
        );
    }
    let rows: Vec<(u32, f64, f64)> = (0..30)
        .map(|i| {
            (
                runs[0][i].0,
                runs.iter().map(|r| r[i].1).sum::<f64>() / 5.0,
                runs.iter().map(|r| r[i].2).sum::<f64>() / 5.0,
            )
        })
        .collect();
    for (k, v) in hoa::score_rows(&rows).figures {
        println!("{k}: {v:.2}");
    }
}
