//! What serde's `deny_unknown_fields` cannot say: keys spelled in the wrong case or by an old
//! name (with the key meant), and values that parse but cannot be used (a glob that does not
//! compile, a size model out of range), each at its line.

use std::ops::Range;

use globset::Glob;
use toml::de::{DeTable, DeValue};

use super::{CheckConfig, Config, ConfigError};

type At<'a> = dyn Fn(Option<Range<usize>>, String) -> ConfigError + 'a;

/// Old or snake_case spellings, with the key meant.
const RENAMED: [(&str, &str); 2] = [
    ("max-index-line-chars", "max-index-line-utf16"),
    ("max_index_line_chars", "max-index-line-utf16"),
];

/// Tables whose keys are data (globs), not names.
const DATA_TABLES: [&str; 1] = ["check.per-file-ignores"];

/// Fails at the first key spelled in snake_case or by an old name.
pub(super) fn check_names(doc: &DeTable, at: &At) -> Result<(), ConfigError> {
    walk(doc, "", at)
}

fn walk(table: &DeTable, prefix: &str, at: &At) -> Result<(), ConfigError> {
    for (key, value) in table {
        let name = key.get_ref().as_ref();
        let full = format!("{prefix}{name}");
        if let Some((_, meant)) = RENAMED.iter().find(|(old, _)| *old == name) {
            return Err(at(
                Some(key.span()),
                format!("`{full}` is now `{meant}` (UTF-16 units, as the client counts)"),
            ));
        }
        if name.contains('_') {
            return Err(at(
                Some(key.span()),
                format!(
                    "`{full}`: keys are kebab-case; write `{}`",
                    name.replace('_', "-")
                ),
            ));
        }
        if let DeValue::Table(inner) = value.get_ref()
            && !DATA_TABLES.contains(&full.as_str())
        {
            walk(inner, &format!("{full}."), at)?;
        }
    }
    Ok(())
}

/// Checks the values serde accepted and compiles `[check.per-file-ignores]`' globs.
pub(super) fn check_values(config: &mut Config, doc: &DeTable, at: &At) -> Result<(), ConfigError> {
    let check = &mut config.check;
    let span = |path: &[&str]| span_of(doc, path);
    if let Some(c) = check.chars_per_token
        && !CheckConfig::CHARS_PER_TOKEN.contains(&c)
    {
        return Err(at(
            span(&["check", "chars-per-token"]),
            format!("`check.chars-per-token` must be between 1 and 8, not {c}"),
        ));
    }
    if check.context_window == Some(0) {
        return Err(at(
            span(&["check", "context-window"]),
            "`check.context-window` must be positive".to_owned(),
        ));
    }
    for (glob, rules) in &check.per_file_ignores {
        let g = Glob::new(glob).map_err(|e| {
            at(
                span(&["check", "per-file-ignores", glob]),
                format!(
                    "`check.per-file-ignores`: `{glob}` is not a glob: {}",
                    e.kind()
                ),
            )
        })?;
        let names = rules.iter().map(|r| r.name.clone()).collect();
        check.compiled.push((g.compile_matcher(), names));
    }
    Ok(())
}

/// The span of the key at `path` (table names, then the key).
fn span_of(doc: &DeTable, path: &[&str]) -> Option<Range<usize>> {
    let (first, rest) = path.split_first()?;
    let (key, value) = doc.iter().find(|(k, _)| k.get_ref().as_ref() == *first)?;
    match (rest.is_empty(), value.get_ref()) {
        (true, _) => Some(key.span()),
        (false, DeValue::Table(inner)) => span_of(inner, rest),
        (false, _) => None,
    }
}
