//! A memory file's frontmatter, read as the client reads it (`qd` → `DDr`, SPEC-automemory §5):
//! the client's split (`crate::text::frontmatter::split`), then YAML; when that fails, the
//! client's lenient line rewrite (`_u`: a value holding YAML syntax is quoted, leading tabs
//! become spaces) and YAML once more. Only a block that fails both is invalid. Both the flat
//! form (`type: feedback`) and the client's nested form (`metadata: {type, node_type,
//! modified}`, written since 2.1.214) are read; flat wins.

use serde_json::Value;

use crate::text::frontmatter;

/// What the frontmatter of a file says, as far as the audit cares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `name`, when present (scalars are turned into text; empty strings stay empty).
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `type`, or `metadata.type` when there is no flat one.
    pub kind: Option<String>,
    /// `metadata.node_type` (the client's own tag, e.g. `memory`).
    pub node_type: Option<String>,
    /// `modified`, or `metadata.modified`, as written.
    pub modified: Option<String>,
    /// `status` (or `metadata.status`), e.g. `retired`, `superseded`.
    pub status: Option<String>,
    /// `superseded_by` / `superseded-by` / `replaced_by` (or under `metadata`).
    pub superseded_by: Option<String>,
    /// `retired: true` (or under `metadata`).
    pub retired: bool,
    /// `group` (or `metadata.group`): the index group `tier` files the entry under.
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
    /// Top-level `type:` (claude-memory-manager's form).
    Flat,
    /// Only `metadata.type` (the client's form).
    Nested,
}

/// The frontmatter block of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Front {
    /// No block the client would strip.
    Absent,
    /// A block whose YAML does not parse into a mapping.
    Invalid {
        /// The parser's message (one line).
        error: String,
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

/// Splits and parses `text`.
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
    let yaml_start = yaml.as_ptr() as usize - text.as_ptr() as usize;
    Parsed {
        front: parse_yaml(yaml),
        yaml_start,
        yaml_len: yaml.len(),
        body_start: split.body_start,
    }
}

/// Parses a YAML block into [`Meta`]. An empty block is an empty mapping. The common simple
/// shape takes a fast path ([`super::meta_fast`]) with the same result.
pub fn parse_yaml(yaml: &str) -> Front {
    if yaml.trim().is_empty() {
        return Front::Parsed(Meta::default());
    }
    if let Some((top, nested)) = super::meta_fast::parse(yaml) {
        let get = |keys: &[&str]| -> Option<String> {
            let pick = |m: &std::collections::BTreeMap<&str, &str>| {
                keys.iter()
                    .find_map(|k| m.get(k).filter(|v| !v.is_empty()).map(|v| (*v).to_owned()))
            };
            pick(&top).or_else(|| pick(&nested))
        };
        let kind_at = kind_at(
            top.get("type").is_some_and(|v| !v.is_empty()),
            nested.get("type").is_some_and(|v| !v.is_empty()),
        );
        return Front::Parsed(Meta {
            name: get(&["name"]),
            description: get(&["description"]),
            kind: get(&["type"]),
            node_type: get(&["node_type"]),
            modified: get(&["modified"]),
            status: get(&["status"]),
            superseded_by: get(&["superseded_by", "superseded-by", "replaced_by"]),
            retired: get(&["retired"]).is_some_and(|v| v.eq_ignore_ascii_case("true")),
            group: get(&["group"]),
            kind_at,
            lenient: false,
        });
    }
    match parse_yaml_full(yaml) {
        Front::Invalid { error } => {
            // `DDr`: the client retries once with its lenient rewrite.
            let fixed = crate::load::rule_paths::lenient(yaml);
            match parse_yaml_full(&fixed) {
                Front::Parsed(m) => Front::Parsed(Meta { lenient: true, ..m }),
                _ => Front::Invalid { error },
            }
        }
        parsed => parsed,
    }
}

fn kind_at(flat: bool, nested: bool) -> KindAt {
    match (flat, nested) {
        (true, _) => KindAt::Flat,
        (false, true) => KindAt::Nested,
        (false, false) => KindAt::Nowhere,
    }
}

/// Parses a YAML block with serde-saphyr.
pub(super) fn parse_yaml_full(yaml: &str) -> Front {
    if yaml.trim().is_empty() {
        return Front::Parsed(Meta::default());
    }
    // YAML 1.2 booleans only: `name: n` or `status: off` are words in a memory file, not
    // `false` (serde-saphyr reads YAML 1.1 spellings as booleans by default).
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let value: Value = match serde_saphyr::from_str_with_options(yaml, options) {
        Ok(v) => v,
        Err(e) => {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("invalid YAML");
            let first = first.strip_prefix("error: ").unwrap_or(first).to_owned();
            return Front::Invalid { error: first };
        }
    };
    let Value::Object(map) = value else {
        return Front::Invalid {
            error: "frontmatter is not a mapping of keys to values".to_owned(),
        };
    };
    let nested = map.get("metadata").and_then(Value::as_object);
    let get = |keys: &[&str]| -> Option<String> {
        keys.iter()
            .find_map(|k| map.get(*k).and_then(scalar))
            .or_else(|| nested.and_then(|m| keys.iter().find_map(|k| m.get(*k).and_then(scalar))))
    };
    let retired = get(&["retired"]).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let kind_at = kind_at(
        map.get("type").and_then(scalar).is_some(),
        nested
            .and_then(|m| m.get("type"))
            .and_then(scalar)
            .is_some(),
    );
    Front::Parsed(Meta {
        name: get(&["name"]),
        description: get(&["description"]),
        kind: get(&["type"]),
        node_type: get(&["node_type"]),
        modified: get(&["modified"]),
        status: get(&["status"]),
        superseded_by: get(&["superseded_by", "superseded-by", "replaced_by"]),
        retired,
        group: get(&["group"]),
        kind_at,
        lenient: false,
    })
}

/// A scalar as text; `null`, sequences and mappings are no value.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
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
    fn yaml_one_one_words_stay_text_on_the_full_path() {
        for word in ["n", "yes", "on", "off"] {
            let Front::Parsed(m) = parse_yaml_full(&format!("name: {word}\ntags: [a, b]\n")) else {
                panic!("{word}: not parsed");
            };
            assert_eq!(m.name.as_deref(), Some(word));
        }
    }

    #[test]
    fn flat_and_nested_forms() {
        let m =
            meta("---\nname: a\ndescription: d\ntype: feedback\nmodified: 2026-01-02\n---\n# T\n");
        assert_eq!(m.kind.as_deref(), Some("feedback"));
        assert_eq!(m.modified.as_deref(), Some("2026-01-02"));
        let m = meta(
            "---\nname: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: project\n  modified: 2026-01-02T00:00:00Z\n---\nbody\n",
        );
        assert_eq!(m.kind.as_deref(), Some("project"));
        assert_eq!(m.kind_at, KindAt::Nested);
        assert_eq!(m.node_type.as_deref(), Some("memory"));
        assert_eq!(m.modified.as_deref(), Some("2026-01-02T00:00:00Z"));
    }

    #[test]
    fn flat_type_wins_over_nested() {
        let m = meta("---\ntype: user\nmetadata:\n  type: feedback\n---\n");
        assert_eq!(m.kind.as_deref(), Some("user"));
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
        assert_eq!(m.kind_at, KindAt::Flat);
    }

    #[test]
    fn absent_and_malformed() {
        assert_eq!(parse("# no frontmatter\n").front, Front::Absent);
        assert!(matches!(
            parse("---\nname: x\n  - nested: [\n---\nbody\n").front,
            Front::Invalid { .. }
        ));
        let Front::Parsed(m) = parse("---\nname: [unclosed\n---\nbody\n").front else {
            panic!("the client reads `[unclosed` as text after its lenient rewrite");
        };
        assert_eq!(m.name.as_deref(), Some("[unclosed"));
        assert!(matches!(
            parse("---\n- a\n- b\n---\nbody\n").front,
            Front::Invalid { .. }
        ));
    }

    #[test]
    fn body_starts_after_block() {
        let text = "---\nname: a\n---\n# Title\n";
        let p = parse(text);
        assert_eq!(&text[p.body_start..], "# Title\n");
        assert_eq!(&text[p.yaml_start..p.yaml_start + p.yaml_len], "name: a\n");
    }
}
