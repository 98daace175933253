//! GitHub Actions workflow commands: one `::error` / `::warning` line per finding, shown as
//! annotations on the pull request. Paths are the folder as the user named it joined with the
//! file (GitHub resolves them against the workspace); the fix follows the message.

use std::io::{self, Write};

use super::Batch;
use crate::text::escape::escape;

/// Writes one command per finding.
pub fn render(out: &mut dyn Write, batches: &[Batch]) -> io::Result<()> {
    for b in batches {
        for d in b.diagnostics {
            let path = b.base.show(d);
            let mut props = format!("file={},line={}", escape_property(&escape(&path)), d.line);
            if let Some(col) = d.column {
                props += &format!(",col={col}");
            }
            props += &format!(",title={}", escape_property(d.rule));
            // The texts from files escaped as every view escapes them (a log viewer acts on
            // escape sequences too); then the command's own escapes.
            let mut message = escape(&d.message).into_owned();
            // The start directories a check finding holds in, as the human view lists them.
            if d.start_dirs.len() > 1 {
                message += &format!(
                    " [{}]",
                    escape(&crate::rules::repo::list_dirs(&d.start_dirs))
                );
            }
            let fix = d.fix();
            if !fix.is_empty() {
                message += &format!("\nFix: {}", escape(fix));
            }
            writeln!(
                out,
                "::{} {props}::{}",
                d.severity.as_str(),
                escape_data(&message)
            )?;
        }
    }
    Ok(())
}

/// Escapes a command's message (`%`, CR, LF).
fn escape_data(s: &str) -> String {
    super::percent_encode(s, |b| b"%\r\n".contains(&b))
}

/// Escapes a command property (also `:` and `,`).
fn escape_property(s: &str) -> String {
    super::percent_encode(s, |b| b"%\r\n:,".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50%\r\nnext é"), "50%25%0D%0Anext é");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
