//! The columnar tables a run returns (flows, series, events), as named columns that
//! cross into Python without a copy per value.

/// A column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    /// Codes into the table's category list for this column.
    Cat(Vec<u8>, Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Cat(v, _) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A table as named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> Option<&[f64]> {
        match self.get(name)? {
            Column::F64(v) => Some(v),
            _ => None,
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Build a categorical column from strings.
pub fn categorical<S: AsRef<str>>(values: &[S]) -> Column {
    let mut cats: Vec<String> = Vec::new();
    let codes = values
        .iter()
        .map(|v| {
            let v = v.as_ref();
            match cats.iter().position(|c| c == v) {
                Some(i) => i as u8,
                None => {
                    cats.push(v.to_string());
                    (cats.len() - 1) as u8
                }
            }
        })
        .collect();
    Column::Cat(codes, cats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorical_codes() {
        match categorical(&["a", "b", "a"]) {
            Column::Cat(c, cats) => {
                assert_eq!(c, vec![0, 1, 0]);
                assert_eq!(cats, vec!["a", "b"]);
            }
            _ => unreachable!(),
        }
    }
}
