//! "Copy as CLI": the command line the page shows under a run replays it. For every
//! experiment, over random valid settings, the line's settings parse and resolve to the run's
//! values and none of them can be dropped (a run is a function of its resolved values and seed).

use skblab_core::replay;
use skblab_core::rng::Rng;
use skblab_core::{experiments, ParamKind, Params, Value};

fn random_params(e: &dyn skblab_core::Experiment, rng: &mut Rng) -> Option<Params> {
    for _ in 0..16 {
        let mut p = e.defaults();
        for spec in e.specs() {
            if rng.below(2) == 0 {
                continue; // left unset: the default or a preset's value
            }
            let v = match &spec.kind {
                ParamKind::Int { min, max, step } => {
                    let n = ((max - min) / step.max(&1)) as u64;
                    Value::Int(min + rng.range_u64(0, n) as i64 * step.max(&1))
                }
                ParamKind::Pow2 { min, max } => {
                    let exps: Vec<u32> = (0..63).filter(|s| (*min..=*max).contains(&(1i64 << s))).collect();
                    Value::Int(1i64 << exps[rng.below(exps.len() as u32) as usize])
                }
                ParamKind::Bool => Value::Bool(rng.below(2) == 1),
                ParamKind::Choice { options } => {
                    Value::Choice(options[rng.below(options.len() as u32) as usize].to_string())
                }
            };
            p.set(spec.name, v).expect("a value within the spec");
        }
        if e.validate(&p).is_ok() {
            return Some(p);
        }
    }
    None
}

#[test]
fn the_cli_line_resolves_to_the_run_with_no_setting_to_spare() {
    let mut rng = Rng::new(0x636c69, 0);
    for e in experiments() {
        let mut checked = 0;
        for _ in 0..40 {
            let Some(p) = random_params(*e, &mut rng) else { continue };
            let target = e.resolve(&p);
            let s = replay::settings(*e, &p);
            assert!(replay::resolves_to(*e, &s, &target), "{}: {s:?} does not give {p:?}", e.id());
            for i in 0..s.len() {
                let mut fewer = s.clone();
                fewer.remove(i);
                assert!(!replay::resolves_to(*e, &fewer, &target), "{}: {} is not needed in {s:?}", e.id(), s[i]);
            }
            checked += 1;
        }
        assert!(checked >= 10, "{}: only {checked} valid random settings", e.id());
    }
}

#[test]
fn defaults_are_the_bare_command_and_the_seed_is_kept() {
    for e in experiments() {
        assert_eq!(replay::command(*e, &e.defaults(), 7), format!("skblab run {} --seed 7", e.id()));
    }
}
