//! The client's second chance for frontmatter that is not YAML (`DDr`'s catch branch, chunk
//! 757mw3zq): `_u(e).replace(/^\t+/gm, t => "  ".repeat(t.length))`.
//!
//! ```js
//! var Su = /[{}[\]*&#!|>%@`]|: /;
//! function _u(e) { … for (let g of e.split("\n")) {
//!   let h = g.match(/^([a-zA-Z_-]+):\s+(\S.*)$/);
//!   if (h) { let [, y, k] = h;
//!     if (k.startsWith('"') && k.endsWith('"') || k.startsWith("'") && k.endsWith("'")) → keep
//!     if (k.startsWith("[") && k.endsWith("]")) try { if (Array.isArray(lQ(k))) → keep } catch {}
//!     if (Su.test(k)) → `${y}: "${k with \ and " escaped}"` } … keep } … join("\n") }
//! ```
//!
//! Quirks kept:
//! - `\s+` is JavaScript whitespace (NBSP, U+3000, U+FEFF …) and takes the whole run, so the
//!   value starts at the first non-space; `.*$` refuses a value holding `\r`, U+2028 or
//!   U+2029 (a CRLF line is never quoted);
//! - a value that is a lone `"` or `'` counts as quoted (it starts and ends with the quote);
//! - a `[…]` value is kept only when the client's YAML reads it as an array;
//! - the rewrite writes exactly one space after the colon;
//! - the tab pass is multi-line `^`: tabs at the start of the text or after `\n`, `\r`,
//!   U+2028 or U+2029 become two spaces each, on every line, quoted or not.

use super::value::Value;
use super::yaml;
use crate::text::js::is_js_space;

/// The text the client parses on its second try.
pub fn rewrite(yaml: &str) -> String {
    let quoted: Vec<String> = yaml
        .split('\n')
        .map(|line| quote_line(line).unwrap_or_else(|| line.to_owned()))
        .collect();
    untab(&quoted.join("\n"))
}

/// `_u` on one line: `Some(rewritten)` when the line is quoted.
pub fn quote_line(line: &str) -> Option<String> {
    let (key, rest) = line.split_once(':')?;
    if key.is_empty()
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'-')
    {
        return None;
    }
    let value = rest.trim_start_matches(is_js_space);
    if value.len() == rest.len()
        || value.is_empty()
        || value.contains(['\r', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    let quoted = |q: char| value.starts_with(q) && value.ends_with(q);
    if quoted('"') || quoted('\'') {
        return None;
    }
    if value.starts_with('[')
        && value.ends_with(']')
        && matches!(yaml::parse(value), Ok(Value::Array(_)))
    {
        return None;
    }
    let special = value.contains([
        '{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`',
    ]) || value.contains(": ");
    special.then(|| {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        format!("{key}: \"{escaped}\"")
    })
}

/// `.replace(/^\t+/gm, …)`: each tab of a run at a line start becomes two spaces.
fn untab(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at_line_start = true;
    for c in text.chars() {
        if c == '\t' && at_line_start {
            out.push_str("  ");
            continue;
        }
        at_line_start = matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_values_with_yaml_syntax() {
        assert_eq!(
            rewrite("description: Wanneer X documenteren: schrijf \"spatie na de :\""),
            "description: \"Wanneer X documenteren: schrijf \\\"spatie na de :\\\"\""
        );
        assert_eq!(
            quote_line("name:\u{3000}a # b"),
            Some("name: \"a # b\"".into())
        );
        assert_eq!(quote_line("k: C:\\x @y"), Some("k: \"C:\\\\x @y\"".into()));
    }

    #[test]
    fn keeps_what_needs_no_quotes() {
        for line in [
            "name: plain words",
            "key:value # tight",
            "my key: a # b",
            "k1: a # b",
            "tags: [a, b]",
            "q: \"a # b\"",
            "q: '",
            "crlf: a # b\r",
            "  indented: a # b",
            "empty:",
            "k: ",
        ] {
            assert_eq!(quote_line(line), None, "{line:?}");
        }
        assert_eq!(quote_line("tags: [a, b"), Some("tags: \"[a, b\"".into()));
        assert_eq!(
            quote_line("tags: [a, {b]"),
            Some("tags: \"[a, {b]\"".into())
        );
    }

    #[test]
    fn tabs_at_every_line_start() {
        assert_eq!(
            rewrite("\ta: 1\n\t\tb: 2\nc:\t3"),
            "  a: 1\n    b: 2\nc:\t3"
        );
        assert_eq!(rewrite("a: 1\u{2028}\tb"), "a: 1\u{2028}  b");
        assert_eq!(rewrite("a: 1\r\tb"), "a: 1\r  b");
    }
}
