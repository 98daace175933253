//! GitHub Actions workflow commands: one `::error` / `::warning` line per finding, shown as
//! annotations on the pull request. Paths are the folder as the user named it joined with the
//! file (GitHub resolves them against the workspace); the fix follows the message.

use std::io::{self, Write};

use super::{Base, Finding};

/// Writes one command per finding.
pub fn render(out: &mut dyn Write, bases: &[Base], findings: &[Finding]) -> io::Result<()> {
    for f in findings {
        let path = match f.base.and_then(|b| bases.get(b)) {
            Some(base) => base.show(f.path),
            None => f.path.to_owned(),
        };
        let mut props = format!("file={},line={}", escape_property(&path), f.line);
        if let Some(col) = f.column {
            props += &format!(",col={col}");
        }
        props += &format!(",title={}", escape_property(f.rule));
        let mut message = f.message.to_owned();
        if let Some(fix) = f.fix {
            message += &format!("\nFix: {fix}");
        }
        writeln!(
            out,
            "::{} {props}::{}",
            f.severity.as_str(),
            escape_data(&message)
        )?;
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
