//! Links between memory files, in every syntax indexes use: Markdown links
//! (`[Title](feedback_x-2.md)`, `(./dir/x.md#sec)`, `<x.md>` targets), wiki links
//! (`[[feedback_x]]`, `[[x.md|label]]`) and code-spanned file names (`` `project_y.md` ``).
//! URLs (anything with a scheme) and anchors-only links are not file links.

/// A reference from one line to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The target as written, fragment and `./` removed (`dir/x.md`, or `x` for `[[x]]`).
    pub target: String,
    /// Which syntax.
    pub syntax: Syntax,
    /// Byte offset of the link in the line.
    pub offset: usize,
}

/// The syntax a link was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `[text](target)`.
    Markdown,
    /// `[[target]]`: a file name with or without `.md`, or a frontmatter `name`.
    Wiki,
    /// `` `target.md` ``.
    CodeSpan,
}

/// Every file link in `line`, in order.
pub fn links(line: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' if bytes.get(i + 1) == Some(&b'[') => {
                if let Some(end) = line[i + 2..].find("]]") {
                    let inner = &line[i + 2..i + 2 + end];
                    let target = inner.split('|').next().unwrap_or("").trim();
                    push(&mut out, target, Syntax::Wiki, i);
                    i += end + 4;
                    continue;
                }
            }
            b']' if bytes.get(i + 1) == Some(&b'(') => {
                if let Some(end) = line[i + 2..].find(')') {
                    let raw = line[i + 2..i + 2 + end].trim();
                    let raw = match raw.strip_prefix('<') {
                        Some(rest) => rest.split('>').next().unwrap_or(""),
                        None => raw.split_whitespace().next().unwrap_or(""),
                    };
                    let start = line[..i].rfind('[').unwrap_or(i);
                    push(&mut out, raw, Syntax::Markdown, start);
                    i += end + 3;
                    continue;
                }
            }
            b'`' => {
                if let Some(end) = line[i + 1..].find('`') {
                    let inner = line[i + 1..i + 1 + end].trim();
                    if inner.ends_with(".md") && !inner.contains(is_placeholder_char) {
                        push(&mut out, inner, Syntax::CodeSpan, i);
                    }
                    i += end + 2;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Characters that make a code span a pattern or placeholder (`<type>_<topic>.md`, `*.md`)
/// rather than a file name.
fn is_placeholder_char(c: char) -> bool {
    c.is_whitespace() || matches!(c, '<' | '>' | '*' | '?' | '{' | '}' | '|' | '[' | ']')
}

fn push(out: &mut Vec<Link>, raw: &str, syntax: Syntax, offset: usize) {
    if raw.contains("://") || raw.starts_with("mailto:") || raw.starts_with('#') {
        return;
    }
    let target = raw.split('#').next().unwrap_or("");
    let target = target.strip_prefix("./").unwrap_or(target);
    if target.is_empty() {
        return;
    }
    if syntax == Syntax::Markdown && !target.to_ascii_lowercase().ends_with(".md") {
        return;
    }
    out.push(Link {
        target: target.to_owned(),
        syntax,
        offset,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(line: &str) -> Vec<String> {
        links(line).into_iter().map(|l| l.target).collect()
    }

    #[test]
    fn finds_every_syntax_with_hyphens_and_digits() {
        assert_eq!(
            targets(
                "- ⭐ [Wild](feedback_wild-card2.md) — see [[project_x]] and `reference_a_hub.md`"
            ),
            ["feedback_wild-card2.md", "project_x", "reference_a_hub.md"]
        );
        assert_eq!(
            targets("[a](./sub/x.md#top) [b](<y z.md>)"),
            ["sub/x.md", "y z.md"]
        );
    }

    #[test]
    fn skips_urls_anchors_and_non_markdown() {
        assert!(targets("[u](https://x.md) [a](#sec) [img](pic.png) `not md`").is_empty());
        assert!(targets("name: `<type>_<topic>.md`, `*.md`, `{a,b}.md`").is_empty());
    }
}
