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
    /// The same with room for more than 256 categories (a flows table with 300 groups).
    Cat32(Vec<u32>, Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Cat(v, _) => v.len(),
            Column::Cat32(v, _) => v.len(),
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

/// Build a categorical column from strings: one-byte codes up to 256 categories, four
/// bytes beyond (a u8 code would wrap and name the wrong category).
pub fn categorical<S: AsRef<str>>(values: &[S]) -> Column {
    let mut cats: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let codes: Vec<u32> = values
        .iter()
        .map(|v| {
            let v = v.as_ref();
            *index.entry(v).or_insert_with(|| {
                cats.push(v.to_string());
                (cats.len() - 1) as u32
            })
        })
        .collect();
    if cats.len() <= 256 {
        Column::Cat(codes.iter().map(|&c| c as u8).collect(), cats)
    } else {
        Column::Cat32(codes, cats)
    }
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

    #[test]
    fn categorical_beyond_256_categories_keeps_every_name() {
        let names: Vec<String> = (0..300).map(|i| format!("g{i}")).collect();
        match categorical(&names) {
            Column::Cat32(c, cats) => {
                assert_eq!(c[299], 299);
                assert_eq!(cats[c[256] as usize], "g256");
            }
            _ => panic!("300 categories need wide codes"),
        }
    }
}
