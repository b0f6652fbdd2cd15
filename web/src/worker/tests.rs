//! The worker's tasks computed natively: each reply is core's, bit for bit, and crosses the
//! JSON boundary unchanged.

use super::*;
use skblab_core::experiments::high_order_alloc as hoa;

fn spec(settings: &[&str]) -> RunSpec {
    let e = skblab_core::find(hoa::ID).unwrap();
    let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    RunSpec::new(e, &e.params_from(&settings).unwrap(), 1)
}

fn round_trip(reply: &Reply) -> Reply {
    serde_json::from_str::<Reply>(&serde_json::to_string(reply).unwrap()).unwrap()
}

#[test]
fn requests_round_trip_as_json() {
    let r = Request::Point { task: 7, run: spec(&["max_threads=3"]), position: 2 };
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), r);
    assert_eq!(r.task(), 7);
}

/// Points computed in any order by separate tasks, then finished: core's `run`, bit for
/// bit, after every row and the output crossed the boundary as JSON.
#[test]
fn points_in_any_order_then_finish_give_core_run() {
    let run = spec(&["max_threads=3", "measure_us=200", "warmup_us=100", "profile_threads=2"]);
    let e = skblab_core::find(hoa::ID).unwrap();
    let params = e.params_from_wire(&run.params).unwrap();
    let mut rows: Vec<Option<Row>> = vec![None; 3];
    for position in [2u32, 0, 1] {
        let reply = round_trip(&Request::Point { task: 1, run: run.clone(), position }.compute());
        let Reply::Row { row, .. } = reply else { panic!("not a row: {reply:?}") };
        rows[position as usize] = Some(row);
    }
    let rows: Vec<Row> = rows.into_iter().map(Option::unwrap).collect();
    let done = round_trip(&Request::Finish { task: 2, run: run.clone(), rows }.compute());
    let Reply::Done { output, .. } = done else { panic!("not done: {done:?}") };
    assert_eq!(output, e.run(&params, 1));
    let bad = Request::Point { task: 3, run, position: 3 }.compute();
    assert!(matches!(bad, Reply::Failed { task: 3, message } if message.contains("no point 3")));
}

#[test]
fn a_whole_run_is_core_run() {
    let e = skblab_core::find("page-frag-free").unwrap();
    let mut p = e.defaults();
    p.set("machine", skblab_core::Value::Choice("cortex-a53".into())).unwrap();
    let reply = Request::Whole { task: 1, run: RunSpec::new(e, &p, 3) }.compute();
    assert_eq!(reply, Reply::Done { task: 1, output: e.run(&p, 3), compute_ms: 0.0 });
}

#[test]
fn a_view_request_gives_core_view_data_as_json() {
    let e = skblab_core::find(hoa::ID).unwrap();
    let p = e.defaults();
    let query = ViewQuery::new("trace").with("flows", 1).with("order", 0);
    let v = Request::View { task: 3, run: RunSpec::new(e, &p, 1), query: query.clone() };
    let Reply::View { data, .. } = round_trip(&v.compute()) else { panic!("no view") };
    assert_eq!(data.get(), e.view_data(&p, 1, &query).unwrap().to_json());
    let bad = Request::View { task: 3, run: RunSpec::new(e, &p, 1), query: ViewQuery::new("trace") };
    assert!(matches!(bad.compute(), Reply::Failed { message, .. } if message.contains("no view data")));
}

/// Band samples computed apart and folded in order (or out of order): core's band.
#[test]
fn band_samples_fold_to_core_bands() {
    let e = skblab_core::find("cross-cpu-free").unwrap();
    let n = 4;
    let expected = skblab_core::validate::bands_with(e, &e.reproduce_params(), 1, n, &mut |_| {}).unwrap();
    let samples: Vec<Option<Bands>> = (0..n).map(|i| band_sample(e.id(), 1, n, i).unwrap()).collect();
    let empty = empty_bands(e, 1, n);
    assert_eq!(fold_bands(&empty, samples.iter().map(Option::as_ref)), expected);
    // The page folds by sample index, whatever the order replies arrive in.
    let reply = Reply::Band { task: 9, bands: samples[2].clone(), compute_ms: 1.0 };
    assert_eq!(round_trip(&reply), reply);
    assert!(band_sample("skb-layout", 1, 3, 0).unwrap_err().contains("no uncertain"));
    assert!(band_sample(e.id(), 1, 3, 3).unwrap_err().contains("no sample 3"));
}

#[test]
fn bad_requests_are_errors_with_a_reason() {
    let mut run = spec(&[]);
    run.experiment = "nope".into();
    assert!(
        matches!(Request::Whole { task: 1, run }.compute(), Reply::Failed { message, .. } if message.contains("nope"))
    );
    let mut run = spec(&[]);
    run.params.values.insert("max_threads".into(), skblab_core::Value::Int(999));
    let r = Request::Point { task: 1, run, position: 0 }.compute();
    assert!(matches!(r, Reply::Failed { message, .. } if message.contains("max_threads")));
    let r = Request::Finish { task: 1, run: spec(&["max_threads=2"]), rows: vec![] }.compute();
    assert!(matches!(r, Reply::Failed { message, .. } if message.contains("do not fit")));
}
