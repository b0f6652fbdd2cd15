//! Fits the constants of one page-frag-free machine (see
//! `skblab_core::experiments::page_frag_free::calibrate`): `calibrate_pff <machine> [rounds]
//! [seeds] [--sensitivity]`. Prints the values to commit into `machines.rs`.

use skblab_core::experiments::page_frag_free::calibrate::{calibrate, committed, constants, score, sensitivity};
use skblab_core::experiments::page_frag_free::machines::MachineKind;
use skblab_core::params::Choice;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = args.first().and_then(|a| MachineKind::from_name(a)).unwrap_or(MachineKind::Router);
    let rounds: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let n_seeds: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let seeds: Vec<u64> = (1..=n_seeds).collect();
    if args.iter().any(|a| a == "--sensitivity") {
        let base = score(kind, &committed(kind), &seeds);
        println!("committed: {:?}", base);
        for (name, lo, hi) in sensitivity(kind, &seeds) {
            println!("{name}: -10% {:?}\n    +10% {:?}", lo.figures, hi.figures);
        }
        return;
    }
    if rounds == 0 {
        let mut values = committed(kind);
        if let Ok(v) = std::env::var("PFF_VALUES") {
            values = v.split(',').map(|x| x.parse().expect("a number")).collect();
        }
        println!("{:?}", score(kind, &values, &seeds));
        return;
    }
    let f = calibrate(kind, rounds, &seeds);
    for (c, v) in constants(kind).iter().zip(&f.values) {
        println!("{:<24} {:>8} {:<7} range {}..={}", c.name, v, c.unit, c.min, c.max);
    }
    println!("objective {:.3} after {} evaluations; figures {:?}", f.score.objective, f.evaluations, f.score.figures);
}
