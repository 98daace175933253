//! Where Bun's YAML scanner refuses or reads a text otherwise than granit-parser, as
//! measured on the client's runtime (fuzz/oracle/frontmatter_oracle.js): tabs, indentation
//! of flow content and scalar continuation lines, and CR in quoted scalars.

use granit_parser::{Event, Parser, Span, StructureStyle};

use super::YamlError;
use super::build::Builder;

impl Builder<'_> {
    /// Bun refuses a tab anywhere before a block mapping key or the start of a block
    /// collection on its line (`\tkey: v`, `- \tkey: v`, `- \t- a`: "Tab characters cannot
    /// be used as indentation"), where the YAML specification and granit-parser accept some
    /// as separation. Tabs before a scalar entry (`- \ta`) or inside flow collections are fine.
    pub(super) fn refuse_tab_indent(&self, span: Span) -> Result<(), YamlError> {
        let Some(at) = span.start.byte_offset() else {
            return Ok(());
        };
        let line_start = self.line_start(at);
        if self.text[line_start..at].contains('\t') {
            return Err(self.error(span, "tab characters cannot be used as indentation"));
        }
        Ok(())
    }

    /// Bun wants every line of flow content, and every continuation line of a multi-line
    /// scalar, indented past the enclosing block collection (`k: [a,\nb]`, `a: "x\ny"` and
    /// `a:\n  b: "x\n  y"` are errors), counting spaces only (a tab after them is fine).
    /// Unlike granit-parser's strict mode, lines that start with an indicator (`]`, `}`, `,`,
    /// `:`) or a comment, and blank lines, are exempt: `k: [a\n]` reads.
    pub(super) fn refuse_unindented(&self, at: Option<usize>, span: Span) -> Result<(), YamlError> {
        let Some(at) = at else {
            return Ok(());
        };
        let line_start = self.line_start(at);
        let prefix = &self.text[line_start..at];
        if !prefix.bytes().all(|b| b == b' ' || b == b'\t') {
            return Ok(());
        }
        let spaces = prefix.len() - prefix.trim_start_matches(' ').len();
        match self.indents.last() {
            Some(&indent) if spaces <= indent => {
                Err(self.error(span, "content not indented past its parent"))
            }
            _ => Ok(()),
        }
    }

    /// [`Self::refuse_unindented`] on each non-blank line after the first of a scalar.
    pub(super) fn refuse_unindented_lines(&self, span: Span) -> Result<(), YamlError> {
        let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset()) else {
            return Ok(());
        };
        let mut at = start;
        while let Some(nl) = self.text[at..end].find('\n') {
            let line = at + nl + 1;
            let line_end = self.text[line..end].find('\n').map_or(end, |i| line + i);
            let content = self.text[line..line_end].trim_start_matches(' ');
            if !content.trim_matches([' ', '\t', '\r']).is_empty() {
                self.refuse_unindented(Some(line_end - content.len()), span)?;
            }
            at = line;
        }
        Ok(())
    }

    /// After a value that stops where its last character is (a quoted scalar, a flow
    /// collection, an alias, an empty value) in a block mapping entry other than the first,
    /// Bun refuses a following blank or comment line that starts with a tab, up to the next
    /// content (`n: x\nd: 'C'\n\t# note` is an error; `d: 'C'\n\t# note` alone and
    /// `n: x\nd: C\n\t# note` read: a plain scalar reads on into those lines itself).
    pub(super) fn refuse_tab_after(&self, from: usize) -> Result<(), YamlError> {
        let from = from.min(self.text.len());
        let mut offset = from;
        for (i, line) in self.text[from..].split('\n').enumerate() {
            if i > 0 && line.starts_with('\t') {
                return Err(YamlError {
                    line: self.text[..offset].matches('\n').count() + 1,
                    message: "tab characters cannot be used as indentation".to_owned(),
                    at: offset,
                });
            }
            let content = line.trim_matches([' ', '\t', '\r']);
            if i > 0 && !content.is_empty() && !content.starts_with('#') {
                break;
            }
            offset += line.len() + 1;
        }
        Ok(())
    }

    /// Bun refuses an implicit empty key whose value is a block mapping on the same line
    /// (`: b: c`, `- : b: c`), where granit-parser reads `{null: {b: c}}`; `: x` and
    /// `:\n  b: c` read.
    pub(super) fn refuse_compact_after_empty_key(
        &self,
        key: Span,
        value: &Event<'_>,
        value_span: Span,
    ) -> Result<(), YamlError> {
        let implicit = key
            .start
            .byte_offset()
            .is_some_and(|at| self.text[at..].starts_with(':'));
        let compact = matches!(value, Event::MappingStart(StructureStyle::Block, ..))
            && value_span.start.line() == key.start.line();
        if implicit && compact {
            return Err(self.error(
                value_span,
                "unexpected token (a mapping after an empty key)",
            ));
        }
        Ok(())
    }

    /// A quoted scalar holding a CR, read as Bun reads it: a lone CR is an error; a CRLF line
    /// break is NOT folded but kept as one `\n` (the whitespace around it trimmed; in double
    /// quotes an escaping `\` before it is dropped and the whitespace before that kept), so
    /// `"x\r\n  y"` is `"x\ny"` where an LF file reads `"x y"`. LF breaks in the same scalar
    /// still fold. `None` when the scalar has no CR.
    pub(super) fn crlf_quoted(&self, span: Span) -> Result<Option<String>, YamlError> {
        let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset()) else {
            return Ok(None);
        };
        let src = &self.text[start..end];
        if !src.contains('\r') {
            return Ok(None);
        }
        if src
            .match_indices('\r')
            .any(|(i, _)| !src[i..].starts_with("\r\n"))
        {
            return Err(self.error(span, "unexpected character (a CR that is not a line break)"));
        }
        let double = src.starts_with('"');
        // Each CRLF becomes an escaped `\n` in double quotes and an empty line (which folds
        // to one `\n`) in single quotes; the rewritten scalar is read by granit-parser alone.
        let mut out = String::with_capacity(src.len());
        let mut rest = src;
        while let Some(i) = rest.find("\r\n") {
            let head = &rest[..i];
            let backslashes = head.len() - head.trim_end_matches('\\').len();
            if double && backslashes % 2 == 1 {
                out.push_str(&head[..head.len() - 1]);
            } else {
                out.push_str(head.trim_end_matches([' ', '\t']));
            }
            out.push_str(match (double, head.is_empty() && out.ends_with('\n')) {
                (true, _) => "\\n",
                // In single quotes n line breaks fold to n − 1 newlines: a run of CRLFs takes
                // one more break than it has.
                (false, true) => "\n",
                (false, false) => "\n\n",
            });
            rest = rest[i + 2..].trim_start_matches([' ', '\t']);
        }
        out.push_str(rest);
        Ok(Parser::new_from_str(&out).find_map(|e| match e {
            Ok((Event::Scalar(text, ..), _)) => Some(text.into_owned()),
            _ => None,
        }))
    }
}
