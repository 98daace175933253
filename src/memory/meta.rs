//! A memory file's frontmatter, read exactly as the client reads it: `qd` → `DDr` (YAML, and on
//! failure its lenient `_u` rewrite and YAML again) → `h$` / `Iu` (the memory view), all in
//! [`crate::text::frontmatter`]. Only a block that fails both passes is invalid.
//!
//! The client's memory view decides every field: `name` and `description` count only as
//! non-empty strings, every other top-level key joins `metadata`, and a nested `metadata:` key
//! wins over a top-level one (`type`, `modified`, …). Where `type` is written ([`KindAt`]) is
//! kept besides: it tells which write spec a file follows.
//!
//! The fields come from [`Fields`]: read straight from the text for a block in the YAML fast
//! path's shape (nearly every file: no value tree, nothing copied but the fields kept), else
//! from the full parse; `the_fast_read_gives_what_the_full_parse_gives` holds the two equal.

use crate::text::frontmatter::{self, Field, Fields, Value};

/// What the frontmatter of a file says, as far as ccmem cares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `name`, when a non-empty string.
    pub name: Option<String>,
    /// `description`, when a non-empty string.
    pub description: Option<String>,
    /// `type` (`metadata.type` wins over a top-level `type`, as in the client).
    pub kind: Option<String>,
    /// `node_type` (the client's writer stamps `memory`).
    pub node_type: Option<String>,
    /// `modified`, as written.
    pub modified: Option<String>,
    /// `status`, e.g. `retired`, `superseded`.
    pub status: Option<String>,
    /// `superseded_by` / `superseded-by` / `replaced_by`.
    pub superseded_by: Option<String>,
    /// `retired: true` (or the string `"true"`).
    pub retired: bool,
    /// `group`: the index group `tier` files the entry under.
    pub group: Option<String>,
    /// Where `type` was found.
    pub kind_at: KindAt,
    /// The block parsed only after the client's lenient rewrite (`_u`).
    pub lenient: bool,
}

/// Where a file's `type` is written: the sign of the write spec it follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KindAt {
    /// No `type` at all.
    #[default]
    Nowhere,
    /// Top-level `type:` only (claude-memory-manager's form).
    Flat,
    /// `metadata.type` (the client's form).
    Nested,
}

/// The frontmatter block of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Front {
    /// No block the client would strip.
    Absent,
    /// A block the client cannot use: YAML that fails even after the lenient rewrite, or a
    /// list or a single value instead of a mapping (the client reads both as no frontmatter).
    Invalid {
        /// What is wrong (one line).
        error: String,
        /// The line of the block where the parser stopped (1-based within the YAML text).
        line: Option<usize>,
    },
    /// A parsed block.
    Parsed(Meta),
}

/// A parsed file: the frontmatter and where the body starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The frontmatter.
    pub front: Front,
    /// Byte offset where the YAML text starts (0 without a block).
    pub yaml_start: usize,
    /// The YAML text's length in bytes.
    pub yaml_len: usize,
    /// Byte offset where the body starts.
    pub body_start: usize,
}

/// The keys of the client's `metadata` view that [`Meta`] reads.
const KEYS: [&str; 9] = [
    "type",
    "node_type",
    "modified",
    "status",
    "superseded_by",
    "superseded-by",
    "replaced_by",
    "retired",
    "group",
];

/// A field's value with the white space around it trimmed; `None` when absent or blank.
pub fn filled(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Reads `text`'s frontmatter the client's way (`qd`). A block in the common simple shape is
/// read straight from the text ([`Fields::read`]); any other goes through the full parse.
pub fn parse(text: &str) -> Parsed {
    let split = frontmatter::split(text);
    let Some(yaml) = split.yaml else {
        return Parsed {
            front: Front::Absent,
            yaml_start: 0,
            yaml_len: 0,
            body_start: split.body_start,
        };
    };
    let front = match Fields::read(yaml, &KEYS) {
        Some(fields) => Front::Parsed(Meta::of(&fields, false)),
        None => parse_block(yaml),
    };
    Parsed {
        front,
        yaml_start: yaml.as_ptr() as usize - text.as_ptr() as usize,
        yaml_len: yaml.len(),
        body_start: split.body_start,
    }
}

/// `DDr` → `h$` on a block, with the full parse.
fn parse_block(yaml: &str) -> Front {
    match frontmatter::parse(yaml) {
        Err(e) => Front::Invalid {
            error: first_line(&e.message),
            line: Some(e.line),
        },
        Ok(p) => match p.table() {
            Some(table) => Front::Parsed(Meta::of(&Fields::of(table, &KEYS), p.lenient)),
            // An empty block is an empty mapping to the client.
            None if p.value == Value::Null => Front::Parsed(Meta::default()),
            None => Front::Invalid {
                error: "frontmatter is a list or a single value, not a mapping of keys to values"
                    .to_owned(),
                line: None,
            },
        },
    }
}

impl Meta {
    /// The fields of the client's memory view.
    fn of(fields: &Fields<'_, 9>, lenient: bool) -> Meta {
        let [
            kind,
            node_type,
            modified,
            status,
            superseded_by,
            superseded_dash_by,
            replaced_by,
            retired,
            group,
        ] = fields.metadata;
        let owned = |f| text(f).map(str::to_owned);
        // `metadata.type` (the client's form) wins over a top-level `type`.
        let kind_at = match kind {
            Some((v, true)) if v.text().is_some() => KindAt::Nested,
            Some((v, false)) if v.text().is_some() => KindAt::Flat,
            _ => KindAt::Nowhere,
        };
        Meta {
            name: fields.name.map(str::to_owned),
            description: fields.description.map(str::to_owned),
            kind: owned(kind),
            node_type: owned(node_type),
            modified: owned(modified),
            status: owned(status),
            superseded_by: text(superseded_by)
                .or(text(superseded_dash_by))
                .or(text(replaced_by))
                .map(str::to_owned),
            retired: match retired {
                Some((Field::Bool(b), _)) => b,
                Some((Field::Text(s), _)) => s.eq_ignore_ascii_case("true"),
                _ => false,
            },
            group: owned(group),
            kind_at,
            lenient,
        }
    }
}

/// The text of a field of the memory view, when it is a non-empty string (`Rpt`).
fn text(field: Option<(Field<'_>, bool)>) -> Option<&str> {
    field.and_then(|(v, _)| v.text())
}

fn first_line(message: &str) -> String {
    let first = message.lines().next().unwrap_or("invalid YAML");
    first.strip_prefix("error: ").unwrap_or(first).to_owned()
}

/// Parses a `modified` value: RFC 3339, or a civil date-time / date taken as UTC.
pub fn parse_modified(value: &str) -> Option<jiff::Timestamp> {
    let v = value.trim();
    if let Ok(t) = v.parse::<jiff::Timestamp>() {
        return Some(t);
    }
    let dt = match v.parse::<jiff::civil::DateTime>() {
        Ok(dt) => dt,
        Err(_) => v
            .parse::<jiff::civil::Date>()
            .ok()?
            .to_datetime(jiff::civil::Time::midnight()),
    };
    jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(text: &str) -> Meta {
        match parse(text).front {
            Front::Parsed(m) => m,
            other => panic!("expected parsed, got {other:?}"),
        }
    }

    #[test]
    fn yaml_one_one_words_stay_text() {
        for word in ["n", "yes", "on", "off"] {
            let m = meta(&format!("---\nname: {word}\ntags: [a, b]\n---\n"));
            assert_eq!(m.name.as_deref(), Some(word));
        }
    }

    #[test]
    fn flat_and_nested_forms_and_nested_wins_as_in_the_client() {
        let m =
            meta("---\nname: a\ndescription: d\ntype: feedback\nmodified: 2026-01-02\n---\n# T\n");
        assert_eq!(m.kind.as_deref(), Some("feedback"));
        assert_eq!(m.kind_at, KindAt::Flat);
        assert_eq!(m.modified.as_deref(), Some("2026-01-02"));
        let m = meta(
            "---\nname: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: project\n  modified: 2026-01-02T00:00:00Z\n---\nbody\n",
        );
        assert_eq!(m.kind.as_deref(), Some("project"));
        assert_eq!(m.kind_at, KindAt::Nested);
        assert_eq!(m.node_type.as_deref(), Some("memory"));
        assert_eq!(m.modified.as_deref(), Some("2026-01-02T00:00:00Z"));
        let m = meta("---\ntype: user\nmetadata:\n  type: feedback\n---\n");
        assert_eq!(m.kind.as_deref(), Some("feedback"));
        assert_eq!(m.kind_at, KindAt::Nested);
    }

    #[test]
    fn only_non_empty_strings_count() {
        let m = meta("---\nname: 123\ndescription: ''\ntype: [a]\nretired: true\n---\n");
        assert_eq!((m.name, m.description, m.kind), (None, None, None));
        assert!(m.retired);
    }

    #[test]
    fn what_the_client_reads_after_its_lenient_rewrite_is_valid() {
        let m = meta(
            "---\nname: x\ndescription: Wanneer X documenteren: schrijf \"spatie na de :\" altijd\ntype: feedback\n---\nbody\n",
        );
        assert!(m.lenient);
        assert_eq!(
            m.description.as_deref(),
            Some("Wanneer X documenteren: schrijf \"spatie na de :\" altijd")
        );
        assert_eq!(m.kind.as_deref(), Some("feedback"));
        let m = meta("---\nname: [unclosed\n---\nbody\n");
        assert_eq!(m.name.as_deref(), Some("[unclosed"));
    }

    #[test]
    fn absent_and_malformed() {
        assert_eq!(parse("# no frontmatter\n").front, Front::Absent);
        assert!(matches!(
            parse("---\nname: x\n  - nested: [\n---\nbody\n").front,
            Front::Invalid { .. }
        ));
        assert!(matches!(
            parse("---\n- a\n- b\n---\nbody\n").front,
            Front::Invalid { line: None, .. }
        ));
        assert_eq!(
            parse("---\n\n---\nbody\n").front,
            Front::Parsed(Meta::default())
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// What [`parse`] reads straight from the text is what the full parse gives.
        #[test]
        fn the_fast_read_gives_what_the_full_parse_gives(
            yaml in crate::text::frontmatter::tests::simple_blocks(),
        ) {
            if let Some(fields) = Fields::read(&yaml, &KEYS) {
                proptest::prop_assert_eq!(Front::Parsed(Meta::of(&fields, false)), parse_block(&yaml));
            }
            let text = format!("---\n{yaml}---\nbody\n");
            proptest::prop_assert_eq!(parse(&text).front, from_memory_view(&text));
        }
    }

    /// [`Meta`] from the client's whole memory view (`h$`, which the vectors pin), field by field.
    fn from_memory_view(text: &str) -> Front {
        let read = frontmatter::read(text);
        let Some(Ok(parsed)) = &read.parse else {
            return parse(text).front;
        };
        let Some(top) = parsed.table() else {
            return parse(text).front;
        };
        let m = read.memory();
        let text = |k: &str| m.text(k).map(str::to_owned);
        let kind = text("type");
        let nested = top.get("metadata").and_then(Value::as_object);
        Front::Parsed(Meta {
            name: m.name.clone(),
            description: m.description.clone(),
            kind_at: match (&kind, nested.is_some_and(|n| n.contains("type"))) {
                (None, _) => KindAt::Nowhere,
                (Some(_), true) => KindAt::Nested,
                (Some(_), false) => KindAt::Flat,
            },
            kind,
            node_type: text("node_type"),
            modified: text("modified"),
            status: text("status"),
            superseded_by: text("superseded_by")
                .or_else(|| text("superseded-by"))
                .or_else(|| text("replaced_by")),
            retired: match m.metadata.get("retired") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
                _ => false,
            },
            group: text("group"),
            lenient: parsed.lenient,
        })
    }

    #[test]
    fn body_starts_after_block() {
        let text = "---\nname: a\n---\n# Title\n";
        let p = parse(text);
        assert_eq!(&text[p.body_start..], "# Title\n");
        assert_eq!(&text[p.yaml_start..p.yaml_start + p.yaml_len], "name: a\n");
    }

    #[test]
    fn modified_dates() {
        let t = |s: &str| parse_modified(s).map(|t| t.to_string());
        assert_eq!(
            t("2026-10-05T09:00:00Z").as_deref(),
            Some("2026-10-05T09:00:00Z")
        );
        assert_eq!(t("2026-10-05").as_deref(), Some("2026-10-05T00:00:00Z"));
        assert_eq!(
            t("2026-10-05T09:00:00").as_deref(),
            Some("2026-10-05T09:00:00Z")
        );
        assert_eq!(
            t("2026-10-05T09:00:00+02:00").as_deref(),
            Some("2026-10-05T07:00:00Z")
        );
        assert_eq!(t("last week"), None);
    }
}
