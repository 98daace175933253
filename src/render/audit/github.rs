//! GitHub Actions workflow commands: one `::error` / `::warning` line per finding, shown as
//! annotations on the pull request.

use std::io::{self, Write};

use super::{Audited, shown_path};

pub(super) fn render(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    for a in audits {
        for d in &a.audit.diagnostics {
            let mut props = format!(
                "file={},line={}",
                escape_property(&shown_path(a.root, d)),
                d.line
            );
            if let Some(col) = d.column {
                props += &format!(",col={col}");
            }
            props += &format!(",title={}", escape_property(d.rule));
            writeln!(
                out,
                "::{} {props}::{}",
                d.severity.as_str(),
                escape_data(&d.message)
            )?;
        }
    }
    Ok(())
}

/// Escapes a command's message (`%`, CR, LF).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
