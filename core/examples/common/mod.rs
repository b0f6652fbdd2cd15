//! What the `high-order-alloc` examples share: their command line (numbers and `name=value`
//! settings) and the mean over seeds 1-3 of the figures each reads from a world.
use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::{Experiment, Params};

/// The numbers among `args` (`defaults` if there are none) and the `name=value` settings.
pub fn numbers_and_settings<T: std::str::FromStr>(args: &[String], defaults: Vec<T>) -> (Vec<T>, Vec<String>) {
    let numbers: Vec<T> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let settings = args.iter().filter(|a| a.contains('=')).cloned().collect();
    (if numbers.is_empty() { defaults } else { numbers }, settings)
}

/// The experiment's parameters with `settings` applied; a bad setting stops the example.
pub fn params(settings: &[String]) -> Params {
    hoa::HighOrderAlloc.params_from(settings).unwrap_or_else(|e| panic!("{e}"))
}

/// The mean over seeds 1-3 of the figures `figures` reads from the world of `flows` flows at
/// `order` (built fresh for each seed; `figures` runs it).
pub fn mean_over_seeds<const N: usize>(
    params: &Params,
    flows: u32,
    order: hoa::FragOrder,
    figures: impl Fn(&mut hoa::StreamSim) -> [f64; N],
) -> [f64; N] {
    let seeds = 1..=3u64;
    let k = seeds.clone().count() as f64;
    let mut acc = [0.0f64; N];
    for seed in seeds {
        let mut sim = hoa::StreamSim::new(hoa::config(params, flows, order), seed);
        for (a, x) in acc.iter_mut().zip(figures(&mut sim)) {
            *a += x;
        }
    }
    acc.map(|a| a / k)
}
