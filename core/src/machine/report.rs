//! How a [`MachineReport`] reads: the validate-style table of every point (measured range,
//! the catalogue's and the fitted prediction with their errors), the one-line summary and the
//! JSON form. Every text that came from the measurement file is escaped and bounded.

use super::compare::{MachinePoint, MachineReport};
use crate::output::count;

impl MachineReport {
    /// The validate-style table: per point measured [min–max], catalogue prediction and
    /// error, fitted prediction and error, whether the fit saw it. Every text from the file
    /// (machine, kernel, cell ids, units, notes quoting it) is escaped and bounded
    /// ([`crate::params::echo_within`]): the file cannot write to the terminal.
    pub fn to_table(&self) -> String {
        let text = |s: &str, max: usize| crate::params::echo_within(s, max);
        let mut s = format!(
            "# {} — kernel {}\n# profile: {}\n",
            text(&self.machine, 120),
            text(&self.kernel, 80),
            self.profile
        );
        for f in &self.fitted {
            s += &format!(
                "fitted {} = {} {} (catalogue {}, range {}..={})\n",
                f.name, f.value, f.unit, f.catalogue, f.range[0], f.range[1]
            );
        }
        s += &format!(
            "{:<8} {:<24} {:>12} {:>23} {:>12} {:>8} {:>12} {:>8}  {}\n",
            "suite", "cell", "measured", "[min-max]", "catalogue", "err %", "fitted", "err %", "verdict"
        );
        for p in &self.points {
            let tag = if p.used_for_fit { " (fit)" } else { "" };
            let dirty = if p.contaminated { " contaminated" } else { "" };
            s += &format!(
                "{:<8} {:<24} {:>12} {:>23} {:>12} {:>8} {:>12} {:>8}  {}{tag}{dirty}\n",
                text(&p.suite, 8),
                text(&p.cell, 40),
                number(p.measured),
                format!("[{}-{}]", number(p.measured_min), number(p.measured_max)),
                number(p.predicted_catalogue),
                percent(p.error_catalogue_pct),
                number(p.predicted),
                percent(p.error_pct),
                p.verdict
            );
        }
        s += &self.summary_line();
        s.extend(self.not_predicted.iter().map(|l| format!("not predicted: {}\n", text(l, 400))));
        s.extend(self.notes.iter().map(|l| format!("note: {}\n", text(l, 400))));
        s
    }
    /// Mean |error| of the stream cells: from the catalogue alone, and after the fit on the
    /// cells it did not see (out of sample) and on those it did (in sample); of the rr cells
    /// from the catalogue alone; the idle share at one flow, measured and from the catalogue. A cell measured zero has no percentage error and is counted
    /// apart.
    pub fn summary_line(&self) -> String {
        let stream: Vec<&MachinePoint> = self.points.iter().filter(|p| p.suite == "stream").collect();
        let mape = |v: &[f64]| {
            let v: Vec<f64> = v.iter().copied().filter(|e| e.is_finite()).collect();
            if v.is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.1} %", v.iter().map(|e| e.abs()).sum::<f64>() / v.len() as f64)
            }
        };
        let cat: Vec<f64> = stream.iter().map(|p| p.error_catalogue_pct).collect();
        let out: Vec<f64> = stream.iter().filter(|p| !p.used_for_fit).map(|p| p.error_pct).collect();
        let inn: Vec<f64> = stream.iter().filter(|p| p.used_for_fit).map(|p| p.error_pct).collect();
        let zero = cat.iter().filter(|e| e.is_nan()).count();
        let zero = if zero > 0 { format!("; {zero} measured zero, no percentage error") } else { String::new() };
        let catalogue =
            format!("summary: stream MAPE from the catalogue alone {} ({}{zero})", mape(&cat), cells(cat.len()));
        let rr: Vec<f64> = self.points.iter().filter(|p| p.suite == "rr").map(|p| p.error_catalogue_pct).collect();
        let rr = if rr.is_empty() { String::new() } else { format!("; rr {} ({})", mape(&rr), cells(rr.len())) };
        let rr = match self.points.iter().find(|p| p.suite == "idle") {
            Some(p) => format!(
                "{rr}; idle at 1 flow {:.1} % measured, {:.1} % from the catalogue",
                p.measured, p.predicted_catalogue
            ),
            None => rr,
        };
        if self.fitted.is_empty() {
            return format!("{catalogue}{rr}; nothing fitted\n");
        }
        format!(
            "{catalogue}{rr}; after fitting {} on {}: out of sample {} ({}), in sample {}\n",
            self.fitted.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "),
            inn.len(),
            mape(&out),
            cells(out.len()),
            mape(&inn)
        )
    }
    /// The report as JSON, every invisible character of the file's texts written as a `\u`
    /// escape (serde_json escapes only C0 controls): the same data, nothing the terminal acts on.
    pub fn to_json(&self) -> String {
        let json = serde_json::to_string_pretty(self).expect("a report serializes") + "\n";
        let mut out = String::with_capacity(json.len());
        for c in json.chars() {
            if crate::params::is_invisible(c) && !matches!(c, '\n' | ' ') {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units).iter().for_each(|u| out.push_str(&format!("\\u{u:04x}")));
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// A count of cells as the summary says it: `1 cell`, `12 cells`.
fn cells(n: usize) -> String {
    count(n as u64, "cell")
}

/// A number of the table: one decimal, or three significant digits and an exponent when one
/// decimal would show nothing (below 0.05) or too much (from 10^12 on).
fn number(v: f64) -> String {
    match v.abs() {
        a if !a.is_finite() => "n/a".to_string(),
        a if a == 0.0 || (0.05..1e12).contains(&a) => format!("{v:.1}"),
        _ => format!("{v:.2e}"),
    }
}

/// An error of the table: signed percent, or `n/a` against a zero measurement.
fn percent(e: f64) -> String {
    if e.is_finite() {
        format!("{e:+.1}")
    } else {
        "n/a".to_string()
    }
}
