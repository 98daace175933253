//! HTML block starts and ends of the client's lexer (CommonMark kinds 1-7 with the fork's
//! mid-line ends for kinds 3-5) and the paragraph-interrupting subset (`_w`).

use super::{Line, is_blank};

/// The paragraph-interrupting HTML starts (`_w`), at column 0 only.
pub(super) fn html_interrupts(line: &str) -> bool {
    let Some(r) = line.strip_prefix('<') else {
        return false;
    };
    if r.starts_with("!--")
        || ["script", "pre", "style", "textarea"]
            .iter()
            .any(|t| r.starts_with(t))
    {
        return true;
    }
    opens_block_tag(r)
}

/// Whether the text after `<` names a block-level tag (`div`, `/table`, `p>` …) followed by
/// the end of the line, a space, `>` or `/>` (the fork's kind-6 start).
pub(super) fn opens_block_tag(r: &str) -> bool {
    let r = r.strip_prefix('/').unwrap_or(r);
    let name: String = r
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric())
        .map(char::from)
        .collect();
    let after = &r[name.len()..];
    BLOCK_TAGS.contains(&name.as_str())
        && (after.is_empty() || after.starts_with([' ', '>']) || after.starts_with("/>"))
}

pub(super) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "meta",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// The CommonMark HTML block kind (1-7) a line body starts, if any.
pub(crate) fn html_start(body: &str, in_paragraph: bool) -> Option<u8> {
    if !body.starts_with('<') {
        return None;
    }
    let b = body.as_bytes();
    let name_at = |i: usize| -> String {
        b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase() as char)
            .collect()
    };
    let raw_names = ["script", "pre", "style", "textarea"];
    let open_name = name_at(1);
    if raw_names.contains(&open_name.as_str())
        && body[1 + open_name.len()..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t' || c == '>')
    {
        return Some(1);
    }
    if body.starts_with("<!--") {
        return Some(2);
    }
    if body.starts_with("<?") {
        return Some(3);
    }
    if body.starts_with("<![CDATA[") {
        return Some(5);
    }
    if body.len() > 2 && body.starts_with("<!") && body.as_bytes()[2].is_ascii_alphabetic() {
        return Some(4);
    }
    let name_start = if body.starts_with("</") { 2 } else { 1 };
    let name = name_at(name_start);
    let after = &body[name_start + name.len()..];
    if BLOCK_TAGS.contains(&name.as_str())
        && (after.is_empty() || after.starts_with([' ', '\t', '>']) || after.starts_with("/>"))
    {
        return Some(6);
    }
    if !in_paragraph
        && !raw_names.iter().any(|t| name.starts_with(t))
        && crate::text::inline::html_tag_len(body).is_some_and(|n| is_blank(&body[n..]))
    {
        return Some(7);
    }
    None
}

/// Where an HTML block of `kind` ends if it ends on `line` (`open` = the opener's offset on
/// its first line): kinds 1, 2 at the end of the line, 3-5 right after their terminator
/// (the client's `marked` heritage), 6-7 before a blank line.
pub(super) fn html_end(kind: u8, s: &str, line: Line, open: Option<usize>) -> Option<usize> {
    let from = open.unwrap_or(line.start);
    let l = &s[from..line.end];
    let eol = Some(line.end);
    match kind {
        1 => {
            let lower = l.to_ascii_lowercase();
            let found = ["</script>", "</pre>", "</style>", "</textarea>"]
                .iter()
                .any(|t| lower.contains(t));
            if found { eol } else { None }
        }
        2 => {
            let skip = if open.is_some() { 2 } else { 0 };
            if l[skip..].contains("-->") { eol } else { None }
        }
        3 => l[if open.is_some() { 2 } else { 0 }..]
            .find("?>")
            .map(|i| from + i + 2 + if open.is_some() { 2 } else { 0 }),
        4 => l.find('>').map(|i| from + i + 1),
        5 => l[if open.is_some() { 9 } else { 0 }..]
            .find("]]>")
            .map(|i| from + i + 3 + if open.is_some() { 9 } else { 0 }),
        _ => {
            let next_blank = s[line.next..]
                .split('\n')
                .next()
                .is_none_or(|n| line.next >= s.len() || is_blank(n));
            if next_blank { eol } else { None }
        }
    }
}
