//! Fits or checks the constants of one page-frag-free machine (the router is also
//! `skblab calibrate page-frag-free`): `calibrate_pff <router|x86-bench|cortex-a53> [rounds]
//! [seeds] [--sensitivity]`; rounds 0 prints the committed values' score. Prints the values to
//! commit into `core/src/experiments/page_frag_free/machines.rs`.

use skblab_core::calibrate::{self, Calibration};
use skblab_core::experiments::page_frag_free::calibrate as pff;
use skblab_core::experiments::page_frag_free::machines::MachineKind;
use skblab_core::params::Choice;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = args.first().and_then(|a| MachineKind::from_name(a)).unwrap_or(MachineKind::Router);
    let rounds: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let n_seeds: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(calibrate::DEFAULT_SEEDS);
    let seeds = calibrate::seeds(1, n_seeds);
    let cal = pff::of(kind);
    if args.iter().any(|a| a == "--sensitivity") {
        print!("{}", calibrate::sensitivity(cal, &seeds).to_text());
    } else if rounds == 0 {
        println!("{:?}", cal.score(&cal.committed(), &seeds));
    } else {
        print!("{}", calibrate::calibrate(cal, rounds, &seeds).to_text());
    }
}
