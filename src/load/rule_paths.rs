//! A rule's `paths:` frontmatter: its pattern list (`vAi`), whether the rule is conditional
//! (SPEC-instructions §7.3–7.4), and matching a read file against it (SPEC-reading §5).
//!
//! The frontmatter is read by `qd` as every client frontmatter is ([`frontmatter::parse`]):
//! YAML, and when that fails a lenient line rewrite (`_u`: a `key: value` whose value holds
//! YAML syntax characters is quoted, leading tabs become two spaces each), so
//! `paths: [unclosed` is the string `"[unclosed"`.

mod expand;
pub mod gitignore;
mod linear;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::platform::Platform;
use crate::text::{frontmatter, path};

pub use expand::{Budget, MAX_LISTED, Value, expand, split_commas};
pub use gitignore::Matcher;

/// The `paths` value's pattern list, or `None` when the frontmatter has no truthy `paths`
/// (missing, `null`, `false`, `0`, `""`, or YAML that does not parse even leniently).
/// Trailing `/**` is removed from each pattern and empty patterns are dropped.
pub fn patterns(yaml: &str) -> Option<Vec<String>> {
    let value = paths_value(yaml)?;
    if !value.is_truthy() {
        return None;
    }
    Some(list(&value))
}

/// `vAi` before its all-`**` test: the pattern list with `/**` suffixes removed and empty
/// patterns dropped.
pub fn list(value: &Value) -> Vec<String> {
    expand::pattern_list(value)
        .into_iter()
        .map(|p| match p.strip_suffix("/**") {
            Some(s) => s.to_owned(),
            None => p,
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// `Some(globs)` when a rule with this frontmatter is conditional (at least one pattern other
/// than `**`); `None` when it loads unconditionally.
pub fn is_conditional(yaml: Option<&str>) -> Option<Vec<String>> {
    patterns(yaml?).filter(|globs| globs.iter().any(|g| g != "**"))
}

/// The pattern of `globs` that makes the client attach a conditional rule when `file` is
/// read (`UHe`), or `None`. `base` is the folder holding `.claude` for project rules and the
/// original working directory for user and managed rules; a `file` outside `base` never
/// matches. Both paths must be absolute and normalized.
pub fn matching_pattern(globs: &[String], base: &Path, file: &Path) -> Option<String> {
    Matcher::new(globs)
        .matched(relative(base, file)?)
        .map(str::to_owned)
}

/// `path.relative(base, file)` when `file` lies below `base` and the result does not start
/// with `..` (the client's test, so `..foo/x` is excluded too); `None` never matches.
pub fn relative<'f>(base: &Path, file: &'f Path) -> Option<&'f str> {
    let rel = file.strip_prefix(base).ok()?.to_str()?;
    (!rel.is_empty() && !rel.starts_with("..")).then_some(rel)
}

/// `UHe`'s path for a read `file` (absolute, or used as written when it is not) from the
/// rules' `base`, on `platform`, in the form node-ignore matches: `path.relative(base, file)`
/// when that neither climbs (`..`) nor is absolute. On Windows `path.win32.relative` compares
/// without case (`c:\R\P\src\a.ts` is `src\a.ts` below `C:\r\p`), a file on another drive
/// is absolute and never matches, and node-ignore reads `\` as `/` (`ji`). The patterns
/// themselves match without case on every platform (node-ignore's `ignorecase`).
pub fn relative_on(platform: Platform, base: &str, file: &str) -> Option<String> {
    let rel = if !path::is_absolute(platform, file) {
        file.to_owned()
    } else if platform.is_windows() {
        win32_relative(base, file)?
    } else {
        relative(Path::new(base), Path::new(file))?.to_owned()
    };
    if rel.is_empty() || rel.starts_with("..") || path::is_absolute(platform, &rel) {
        return None;
    }
    Some(if platform.is_windows() && !rel.starts_with("\\\\?\\") {
        rel.replace('\\', "/")
    } else {
        rel
    })
}

/// `path.win32.relative(from, to)` for an absolute `to` below `from` (compared without case):
/// the rest of `to`; `None` otherwise (the client's result would climb or be absolute).
fn win32_relative(from: &str, to: &str) -> Option<String> {
    let (from, to) = (path::win32::normalize(from), path::win32::normalize(to));
    let from = from.trim_end_matches('\\');
    let to_trim = to.trim_end_matches('\\');
    if to_trim.len() <= from.len() || !to_trim.is_char_boundary(from.len()) {
        return None;
    }
    let (head, rest) = to_trim.split_at(from.len());
    (head.to_lowercase() == from.to_lowercase() && rest.starts_with('\\'))
        .then(|| rest[1..].to_owned())
}

/// The value under `paths` of the frontmatter object, as `qd` reads it (strict YAML, else the
/// `_u` rewrite; a list, a scalar or a block that fails both has no `paths`).
fn paths_value(yaml: &str) -> Option<Value> {
    let parsed = frontmatter::parse(yaml).ok()?;
    let paths = parsed.table()?.get("paths")?;
    Some(reduce(paths, &mut HashMap::new()))
}

/// A YAML value reduced to what `ra` looks at: strings, lists, and truthiness. A list the YAML
/// value shares (an alias) is reduced once and stays shared (`done`, by address).
fn reduce(value: &frontmatter::Value, done: &mut HashMap<usize, Arc<Vec<Value>>>) -> Value {
    match value {
        frontmatter::Value::String(s) => Value::Str(s.clone()),
        frontmatter::Value::Array(items) => {
            let at = Arc::as_ptr(items) as usize;
            if let Some(list) = done.get(&at) {
                return Value::List(Arc::clone(list));
            }
            let list = Arc::new(items.iter().map(|v| reduce(v, done)).collect());
            done.insert(at, Arc::clone(&list));
            Value::List(list)
        }
        other if other.is_truthy() => Value::Truthy,
        _ => Value::Falsy,
    }
}

#[cfg(test)]
mod tests;
