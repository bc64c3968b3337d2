//! RFC 6901 JSON pointers: every location the diff reports is one.

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// serde_path_to_error's `a.b[3].c` path as a pointer (`/a/b/3/c`; `/` for the root).
pub fn from_serde_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let tokens: Vec<String> = path
        .iter()
        .map(|s| match s {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } | Segment::Enum { variant: key } => escape(key),
            Segment::Unknown => "?".into(),
        })
        .collect();
    format!("/{}", tokens.join("/"))
}
