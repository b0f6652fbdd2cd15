//! The numbers behind a drawing as a table: what the "CSV" button of every chart downloads.
//!
//! A chart's data says what it drew ([`crate::components::chart::Drawing::table`]); a custom
//! view with rows of its own hands a [`DataTable`] to [`crate::components::export::CsvExport`].
//! One writer for every CSV the app saves, so quoting and number formats agree.

/// Named columns and rows of cells, already formatted (see [`num`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl DataTable {
    /// A table with these column names and no rows.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> DataTable {
        DataTable { columns: columns.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// Appends a row (cells beyond the columns are kept; a short row is padded when written).
    pub fn push<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// RFC 4180 text: the header, then one line per row; a field with a comma, quote or line
    /// break is quoted (labels such as "kmalloc object (bytes), head" stay one field).
    pub fn to_csv(&self) -> String {
        let mut s = String::new();
        let mut line = |cells: &mut dyn Iterator<Item = &str>| {
            for (i, cell) in cells.enumerate() {
                if i > 0 {
                    s.push(',');
                }
                if cell.contains([',', '"', '\n', '\r']) {
                    s.push('"');
                    s.push_str(&cell.replace('"', "\"\""));
                    s.push('"');
                } else {
                    s.push_str(cell);
                }
            }
            s.push('\n');
        };
        line(&mut self.columns.iter().map(String::as_str));
        for row in &self.rows {
            let pad = self.columns.len().saturating_sub(row.len());
            line(&mut row.iter().map(String::as_str).chain(std::iter::repeat_n("", pad)));
        }
        s
    }
}

/// A number as a CSV cell: the shortest text that reads back to the same `f64` (integers
/// without a fraction), empty for a missing or non-finite value.
pub fn num(x: Option<f64>) -> String {
    x.filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_then_rows_quoted_where_needed_and_padded() {
        let mut t = DataTable::new(["MTU (bytes)", "head, requested", "say \"hi\""]);
        t.push([num(Some(1500.0)), num(Some(2.5)), "a".to_string()]);
        t.push([num(Some(9000.0)), num(None)]);
        assert_eq!(t.to_csv(), "MTU (bytes),\"head, requested\",\"say \"\"hi\"\"\"\n1500,2.5,a\n9000,,\n");
    }

    #[test]
    fn numbers_read_back_bit_for_bit() {
        for x in [0.1 + 0.2, 1e-300, 123456789.0, -0.5] {
            assert_eq!(num(Some(x)).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
        assert_eq!(num(Some(f64::NAN)), "");
    }
}
