//! Terminal-safe text: every string that came from outside (a server, a file name) goes through
//! [`text`] before it reaches a table cell, a progress line or an error line.
//!
//! A control character in a provider's answer could otherwise drive the terminal: `ESC ]0;…BEL`
//! sets the window title, `ESC [2J` clears the screen, a newline in a cluster name forges a
//! table row. Each one is shown escaped instead, the way Rust writes it: `\x1b`, `\n`, `\t`,
//! `\r`, `\x7f`, and `\u{9b}` for the C1 range, the bidirectional controls and the line and
//! paragraph separators. Everything
//! else, non-ASCII letters included, is kept. `--json` output does not use this: serde already
//! escapes control characters in JSON strings, and the values stay exact.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal as is: C0 (U+0000–U+001F, tab and newline included),
/// DEL, C1 (U+0080–U+009F, whose U+009B is a one-character CSI); every Unicode bidirectional
/// control, which reorders what follows it on screen so that a name displays as another
/// (the marks LRM U+200E, RLM U+200F and ALM U+061C, the embeddings and overrides
/// U+202A–U+202E, the isolates U+2066–U+2069); and the line and paragraph separators U+2028
/// and U+2029, which some terminals and viewers break a line at, forging a table row.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `raw` with every unsafe character escaped; borrowed when there is none.
pub fn text(raw: &str) -> Cow<'_, str> {
    if !raw.chars().any(is_unsafe) {
        return Cow::Borrowed(raw);
    }
    let mut safe = String::with_capacity(raw.len() + 8);
    for c in raw.chars() {
        match c {
            '\n' => safe.push_str("\\n"),
            '\r' => safe.push_str("\\r"),
            '\t' => safe.push_str("\\t"),
            c if is_unsafe(c) && (c as u32) < 0x80 => {
                let _ = write!(safe, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(safe, "\\u{{{:x}}}", c as u32);
            }
            c => safe.push(c),
        }
    }
    Cow::Owned(safe)
}

/// `raw` with every unsafe character but the line breaks escaped: multi-line text (a
/// kubeconfig) shown on a terminal as lines.
pub fn text_keeping_lines(raw: &str) -> String {
    raw.split('\n').map(text).collect::<Vec<_>>().join("\n")
}

/// A JSON document made terminal-safe without changing its value: serde_json escapes C0
/// controls but writes DEL, C1 and the bidirectional controls as they are; each becomes a
/// `\uXXXX` escape. Outside strings serde_json writes only ASCII, so every such character is
/// inside a string literal, where the escape means the same character.
pub fn json(document: &str) -> Cow<'_, str> {
    if !document.chars().any(is_unsafe) {
        return Cow::Borrowed(document);
    }
    let mut safe = String::with_capacity(document.len() + 8);
    for c in document.chars() {
        if is_unsafe(c) && c != '\n' {
            let _ = write!(safe, "\\u{:04x}", c as u32);
        } else {
            safe.push(c);
        }
    }
    Cow::Owned(safe)
}

/// [`text`] of anything displayable, as an owned string (a table cell).
pub fn cell(value: impl std::fmt::Display) -> String {
    let shown = value.to_string();
    match text(&shown) {
        Cow::Borrowed(_) => shown,
        Cow::Owned(safe) => safe,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_line_breaks_are_shown_escaped() {
        assert_eq!(
            text("a\x1b]0;pwned\x07b\x1b[2J\nFORGED\r\t\x7f"),
            "a\\x1b]0;pwned\\x07b\\x1b[2J\\nFORGED\\r\\t\\x7f"
        );
        assert_eq!(
            text("\u{9b}31m \u{202e}abc \0"),
            "\\u{9b}31m \\u{202e}abc \\x00"
        );
    }

    #[test]
    fn every_bidi_control_and_the_unicode_line_breaks_are_escaped() {
        let hostile = "a\u{200e}b\u{200f}c\u{61c}d\u{2066}e\u{2067}f\u{2068}g\u{2069}h\u{202a}i\u{202b}j\u{202c}k\u{202d}l\u{202e}m\u{2028}n\u{2029}o";
        assert_eq!(
            text(hostile),
            "a\\u{200e}b\\u{200f}c\\u{61c}d\\u{2066}e\\u{2067}f\\u{2068}g\\u{2069}h\\u{202a}i\\u{202b}j\\u{202c}k\\u{202d}l\\u{202e}m\\u{2028}n\\u{2029}o"
        );
        let safe = json("{\"n\": \"x\u{2028}y\u{200f}\"}");
        assert_eq!(safe, "{\"n\": \"x\\u2028y\\u200f\"}");
        // Letters of right-to-left scripts are text, not controls.
        assert!(matches!(text("שלום مرحبا"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value() {
        let value = serde_json::json!({ "name": "a\u{9b}31m\u{7f}\u{202e}\u{1b}b\n" });
        let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
        let safe = json(&pretty);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe}");
        assert!(
            safe.contains("\\u009b31m\\u007f\\u202e\\u001bb\\n"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, value);
        assert_eq!(json("{\n  \"a\": 1\n}"), "{\n  \"a\": 1\n}");
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for plain in ["train-42", "Grüße, 東京 ✓", "path\\with\\backslashes", ""] {
            assert!(
                matches!(text(plain), Cow::Borrowed(s) if s == plain),
                "{plain}"
            );
        }
        assert_eq!(cell(42), "42");
        assert_eq!(cell("x\ny"), "x\\ny");
    }
}
