//! Text views of two runs side by side ("compare two runs"): a /proc file, a perf
//! report or lock_stat of the pinned run A beside the same view of run B, line against line,
//! the lines that differ marked (`<mark>`, a bar and a tint; stacked on a narrow screen).
//! Lines are aligned by their longest common subsequence, so a line that only one run has
//! does not shift every line after it; the unmatched lines between two matches are paired in
//! order (a changed counter is one row, A's line beside B's).

use yew::prelude::*;

/// Above this many line pairs (lines of A × lines of B) the alignment is by position only.
const MAX_PAIRS: usize = 400_000;

/// One row of the side-by-side view: A's line and B's (`None`: that run has no line here).
#[derive(Debug, Clone, PartialEq)]
pub struct Row<'a> {
    pub a: Option<&'a str>,
    pub b: Option<&'a str>,
}

impl Row<'_> {
    pub fn differs(&self) -> bool {
        self.a != self.b
    }
}

/// A's and B's lines aligned (see the module doc).
pub fn side_by_side<'a>(a: &'a str, b: &'a str) -> Vec<Row<'a>> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let (n, m) = (la.len(), lb.len());
    if n.saturating_mul(m) > MAX_PAIRS {
        return (0..n.max(m)).map(|i| Row { a: la.get(i).copied(), b: lb.get(i).copied() }).collect();
    }
    // lcs[i][j]: the longest common subsequence of la[i..] and lb[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if la[i] == lb[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut rows, mut only_a, mut only_b) = (Vec::new(), Vec::new(), Vec::new());
    let flush = |rows: &mut Vec<Row<'a>>, only_a: &mut Vec<&'a str>, only_b: &mut Vec<&'a str>| {
        for k in 0..only_a.len().max(only_b.len()) {
            rows.push(Row { a: only_a.get(k).copied(), b: only_b.get(k).copied() });
        }
        only_a.clear();
        only_b.clear();
    };
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && la[i] == lb[j] {
            flush(&mut rows, &mut only_a, &mut only_b);
            rows.push(Row { a: Some(la[i]), b: Some(lb[j]) });
            (i, j) = (i + 1, j + 1);
        } else if j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            only_a.push(la[i]);
            i += 1;
        } else {
            only_b.push(lb[j]);
            j += 1;
        }
    }
    flush(&mut rows, &mut only_a, &mut only_b);
    rows
}

/// One side's lines: each a block, a changed one a `<mark>`, a missing one an empty row.
fn column(rows: &[Row<'_>], side: fn(&Row<'_>) -> Option<String>, label: String) -> Html {
    html! {
        <pre class="text-pre text-diff-pre" tabindex="0" aria-label={label}>
            { for rows.iter().map(|r| match side(r) {
                Some(line) if r.differs() => html! { <mark class="dl">{ line }</mark> },
                Some(line) => html! { <span class="dl">{ line }</span> },
                None => html! { <span class="dl dl-none">{" "}</span> },
            }) }
        </pre>
    }
}

/// The text view `id` (`title`) of A and of B side by side, with how many lines differ.
pub fn side_by_side_html(id: &str, title: &str, a: &str, b: &str) -> Html {
    let rows = side_by_side(a, b);
    let changed = rows.iter().filter(|r| r.differs()).count();
    let summary = match changed {
        0 => "A and B are the same.".to_string(),
        1 => format!("1 of {} lines differs (marked).", rows.len()),
        k => format!("{k} of {} lines differ (marked).", rows.len()),
    };
    html! {
        <div class="text-diff" data-testid={format!("text-diff-{id}")}>
            <p class="text-diff-summary" data-testid="text-diff-summary">{ summary }</p>
            <div class="text-diff-cols">
                <div class="text-diff-col">
                    <p class="text-diff-head">{"A (pinned)"}</p>
                    { column(&rows, |r| r.a.map(str::to_string), format!("{title}, run A")) }
                </div>
                <div class="text-diff-col">
                    <p class="text-diff-head">{"B (this run)"}</p>
                    { column(&rows, |r| r.b.map(str::to_string), format!("{title}, run B")) }
                </div>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_lines_align_and_changed_ones_pair_up() {
        let a = "Node 0, zone Normal\nnr_free 10\nhigh 5\nbatch 63";
        let b = "Node 0, zone Normal\nnr_free 12\nbatch 63\nextra 1";
        let rows = side_by_side(a, b);
        let pairs: Vec<(Option<&str>, Option<&str>)> = rows.iter().map(|r| (r.a, r.b)).collect();
        assert_eq!(
            pairs,
            [
                (Some("Node 0, zone Normal"), Some("Node 0, zone Normal")),
                (Some("nr_free 10"), Some("nr_free 12")),
                (Some("high 5"), None),
                (Some("batch 63"), Some("batch 63")),
                (None, Some("extra 1")),
            ]
        );
        assert_eq!(rows.iter().filter(|r| r.differs()).count(), 3);
        assert!(side_by_side(a, a).iter().all(|r| !r.differs()));
        assert!(side_by_side("", "").is_empty());
    }

    #[test]
    fn huge_texts_pair_by_position() {
        let a: String = (0..700).map(|i| format!("{i}\n")).collect();
        let b: String = (1..701).map(|i| format!("{i}\n")).collect();
        let rows = side_by_side(&a, &b);
        assert_eq!(rows.len(), 700);
        assert_eq!((rows[0].a, rows[0].b), (Some("0"), Some("1")));
    }
}
