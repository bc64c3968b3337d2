//! Tables for people: comfy-table without borders, in the style of `kubectl get`, so they
//! read well in a terminal and survive `grep`/`awk`. Cells are the caller's, escaped already.

use comfy_table::{Cell, Table, presets};

/// A borderless table with an upper-case header.
pub fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(header.iter().map(|h| Cell::new(h.to_uppercase())));
    table
}

/// The table as text: two spaces between columns, no trailing blanks.
pub fn render(table: &mut Table) -> String {
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table
        .lines()
        .map(|line| line.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_no_borders_or_trailing_blanks() {
        let mut t = table(&["id", "name"]);
        t.add_row(["1", "a"]);
        t.add_row(["22", "bb"]);
        assert_eq!(render(&mut t), "ID  NAME\n1   a\n22  bb");
    }
}
