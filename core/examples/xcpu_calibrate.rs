//! Prints the cross-cpu-free calibration, 5-seed spread and ±10 % sensitivity (docs numbers).
//! `cargo run -p skblab-core --example xcpu_calibrate`
use skblab_core::experiments::cross_cpu_free::calibrate;
fn main() {
    let seeds = [1, 2, 3];
    let rep = calibrate::calibrate(40, &seeds);
    println!("calibrated: {:?} rounds {} objective {:.6}", rep.values, rep.rounds, rep.score.objective);
    for (k, v) in &rep.score.figures {
        println!("  {k} = {v:.4}");
    }
}
