//! `reproduce`: the seed's measured numbers beside the simulated ones, with their citation.

use super::{fmt_num, render_grid, Cell, RunOutput, MODEL_VERSION};
use serde::Serialize;
use std::fmt::Write as _;

/// Where a measured number comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    pub list: &'static str,
    pub date: &'static str,
    pub author: &'static str,
    pub subject: &'static str,
    /// Message-ID of the post, or a commit id.
    pub message_id: &'static str,
}

impl Citation {
    pub fn one_line(&self) -> String {
        format!("{}, {}, {}: \"{}\" <{}>", self.list, self.date, self.author, self.subject, self.message_id)
    }
}

/// One compared number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReproCell {
    pub metric: &'static str,
    pub measured: f64,
    /// The simulated value (the mean over seeds when `spread` is set).
    pub simulated: f64,
    /// The lowest and highest simulated value over the seeds of a multi-seed reproduction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<[f64; 2]>,
}

impl ReproCell {
    /// Signed relative error of the simulation, in percent of the measured value; `None`
    /// against a measured zero (no percentage of zero exists: 0.01 against 0 is not "100 %
    /// off"), except that zero against zero is no error.
    pub fn error_pct(&self) -> Option<f64> {
        if self.measured == 0.0 {
            (self.simulated == 0.0).then_some(0.0)
        } else {
            Some((self.simulated - self.measured) / self.measured * 100.0)
        }
    }

    /// [`ReproCell::error_pct`] as printed: "+12.3", or "n/a" against a measured zero.
    pub fn error_text(&self) -> String {
        self.error_pct().map_or("n/a".to_string(), |e| format!("{e:+.1}"))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReproRow {
    pub label: String,
    pub cells: Vec<ReproCell>,
}

/// The seed's table beside the simulation's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reproduction {
    pub experiment: &'static str,
    pub citation: Citation,
    pub key_name: &'static str,
    pub rows: Vec<ReproRow>,
    /// Further findings in one line each (crossover point, plateau...).
    pub notes: Vec<String>,
}

impl Reproduction {
    /// The seed's rows beside the simulated rows with the same `key` value, for each of
    /// `metrics` (rows the seed lacks are left out; the simulated value is taken as the table
    /// has it). The generic half of [`crate::Experiment::compare`].
    pub fn keyed(
        experiment: &'static str,
        citation: Citation,
        key: &'static str,
        metrics: &[&'static str],
        seed: &RunOutput,
        sim: &RunOutput,
    ) -> Reproduction {
        let number = |out: &RunOutput, row: &[Cell], name: &str| out.column_index(name).and_then(|i| row[i].as_f64());
        let rows = sim
            .rows
            .iter()
            .filter_map(|row| {
                let k = number(sim, row, key)?;
                let seed_row = seed.rows.iter().find(|r| number(seed, r, key) == Some(k))?;
                let cells = metrics
                    .iter()
                    .filter_map(|&metric| {
                        Some(ReproCell {
                            metric,
                            measured: number(seed, seed_row, metric)?,
                            simulated: number(sim, row, metric)?,
                            spread: None,
                        })
                    })
                    .collect();
                Some(ReproRow { label: fmt_num(k), cells })
            })
            .collect();
        Reproduction { experiment, citation, key_name: key, rows, notes: Vec::new() }
    }

    /// Sets each cell's `spread` to the lowest and highest simulated value of the same cell
    /// (row label, metric) in `per_seed`, one reproduction per seed, and says so in a note.
    pub fn with_spread(mut self, per_seed: &[Reproduction], seeds: &[u64]) -> Reproduction {
        if per_seed.len() < 2 {
            return self;
        }
        for row in &mut self.rows {
            for cell in &mut row.cells {
                let vals = per_seed.iter().filter_map(|r| {
                    let other = r.rows.iter().find(|o| o.label == row.label)?;
                    other.cells.iter().find(|c| c.metric == cell.metric).map(|c| c.simulated)
                });
                let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
                if lo.is_finite() && hi.is_finite() {
                    cell.spread = Some([lo, hi]);
                }
            }
        }
        let list = match seeds {
            [first, .., last] if seeds.windows(2).all(|w| w[1] == w[0].wrapping_add(1)) => format!("{first}..={last}"),
            _ => seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
        };
        self.notes
            .insert(0, format!("sim: mean over seeds {list} ({} runs); [min-max] over the seeds", per_seed.len()));
        self
    }

    /// Mean absolute percentage error of one metric over all rows that have it.
    pub fn mape_pct(&self, metric: &str) -> Option<f64> {
        let errs: Vec<f64> = self
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .filter(|c| c.metric == metric)
            .filter_map(|c| c.error_pct().map(f64::abs))
            .collect();
        (!errs.is_empty()).then(|| errs.iter().sum::<f64>() / errs.len() as f64)
    }

    /// The largest |error| of the cells that have one (cells against a measured zero have none).
    pub fn max_abs_error_pct(&self) -> f64 {
        self.rows.iter().flat_map(|r| &r.cells).filter_map(|c| c.error_pct().map(f64::abs)).fold(0.0, f64::max)
    }

    /// Metrics in first-seen order.
    pub fn metrics(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for c in self.rows.iter().flat_map(|r| &r.cells) {
            if !out.contains(&c.metric) {
                out.push(c.metric);
            }
        }
        out
    }

    pub fn to_table(&self) -> String {
        self.to_table_banded(|_, _| None)
    }

    /// [`Reproduction::to_table`] with a `band` column after each metric's simulated value
    /// where `band(row label, metric)` gives one (`skblab reproduce --bands N`: the [lo-hi] of
    /// the model over samples of its uncertain constants, beside the seeds' [min-max]).
    pub fn to_table_banded(&self, band: impl Fn(&str, &str) -> Option<[f64; 2]>) -> String {
        let metrics = self.metrics();
        let banded = self.rows.iter().any(|r| r.cells.iter().any(|c| band(&r.label, c.metric).is_some()));
        let mut header = vec![self.key_name.to_string()];
        for m in &metrics {
            header.extend([format!("{m} seed"), format!("{m} sim")]);
            if banded {
                header.push("band".to_string());
            }
            header.push("err %".to_string());
        }
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let mut line = vec![r.label.clone()];
                for m in &metrics {
                    let cell = r.cells.iter().find(|c| c.metric == *m);
                    line.push(cell.map_or("-".to_string(), |c| super::fmt_seed(c.measured)));
                    line.push(cell.map_or("-".to_string(), sim_text));
                    if banded {
                        let b = cell.and_then(|c| band(&r.label, c.metric));
                        line.push(b.map_or("-".to_string(), |[lo, hi]| format!("[{}-{}]", fmt_num(lo), fmt_num(hi))));
                    }
                    line.push(cell.map_or("-".to_string(), ReproCell::error_text));
                }
                line
            })
            .collect();
        let mut out = format!("# {} vs {}\n", self.experiment, self.citation.one_line());
        out.push_str(&render_grid(&header, &body));
        for m in &metrics {
            if let Some(mape) = self.mape_pct(m) {
                let _ = writeln!(out, "MAPE {m}: {mape:.2} %");
            }
        }
        let _ = writeln!(out, "max |error|: {:.2} %", self.max_abs_error_pct());
        for n in &self.notes {
            let _ = writeln!(out, "{n}");
        }
        out
    }

    pub fn to_csv(&self) -> String {
        let mut s = format!("{},metric,measured,simulated,error_pct,simulated_min,simulated_max\n", self.key_name);
        for r in &self.rows {
            for c in &r.cells {
                let [lo, hi] = c.spread.unwrap_or([c.simulated, c.simulated]);
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{},{}",
                    r.label,
                    c.metric,
                    c.measured,
                    c.simulated,
                    c.error_pct().map_or(String::new(), |e| format!("{e:.3}")),
                    lo,
                    hi
                );
            }
        }
        s
    }

    /// The comparison as JSON, with the `seed` of the (first) simulated run, all `seeds` the
    /// simulated values average over, and the `model_version`.
    pub fn to_json(&self, seeds: &[u64]) -> String {
        let mut v = serde_json::to_value(self).expect("reproduction serializes");
        v["seed"] = seeds.first().copied().unwrap_or(crate::rng::DEFAULT_SEED).into();
        v["seeds"] = seeds.into();
        v["model_version"] = MODEL_VERSION.into();
        let summary: serde_json::Map<String, serde_json::Value> =
            self.metrics().iter().map(|m| (format!("mape_pct_{m}"), self.mape_pct(m).into())).collect();
        v["summary"] = serde_json::Value::Object(summary);
        v["summary"]["max_abs_error_pct"] = self.max_abs_error_pct().into();
        serde_json::to_string_pretty(&v).expect("json serializes")
    }
}

/// A simulated cell as the table prints it: the value, with the seeds' [min-max] if any.
fn sim_text(c: &ReproCell) -> String {
    match c.spread {
        Some([lo, hi]) => format!("{} [{}-{}]", fmt_num(c.simulated), fmt_num(lo), fmt_num(hi)),
        None => fmt_num(c.simulated),
    }
}

#[cfg(test)]
mod tests {
    use super::ReproCell;

    #[test]
    fn no_percentage_against_a_measured_zero() {
        let cell = |measured, simulated| ReproCell { metric: "m", measured, simulated, spread: None };
        assert_eq!(cell(0.0, 0.01).error_pct(), None);
        assert_eq!(cell(0.0, 0.01).error_text(), "n/a");
        assert_eq!(cell(0.0, 0.0).error_pct(), Some(0.0));
        assert_eq!(cell(2.0, 3.0).error_text(), "+50.0");
    }
}
