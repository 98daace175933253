//! A rule's `paths:` frontmatter: its pattern list (`vAi`), whether the rule is conditional
//! (SPEC-instructions §7.3–7.4), and matching a read file against it (SPEC-reading §5).
//!
//! The frontmatter is parsed as YAML; when that fails the client re-reads it once with a
//! lenient line rewrite (`_u`: a `key: value` whose value holds YAML syntax characters is
//! quoted, leading tabs become two spaces each), so `paths: [unclosed` is the string
//! `"[unclosed"`.

mod expand;
pub mod gitignore;

use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

pub use expand::{Budget, Value, expand, split_commas};
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

/// The YAML value under `paths`, parsing strictly first and leniently on error.
fn paths_value(yaml: &str) -> Option<Value> {
    match parse(yaml) {
        Ok(front) => front.0,
        Err(_) => parse(&lenient(yaml)).ok()?.0,
    }
}

fn parse(yaml: &str) -> Result<Front, serde_saphyr::Error> {
    if yaml.trim().is_empty() {
        return Ok(Front(None));
    }
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::LastWins,
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options(yaml, options)
}

/// `_u`: quote values holding YAML syntax, then turn leading tabs into two spaces each.
pub(crate) fn lenient(yaml: &str) -> String {
    let lines: Vec<String> = yaml
        .split('\n')
        .map(|line| {
            let fixed = quote_line(line).unwrap_or_else(|| line.to_owned());
            let tabs = fixed.len() - fixed.trim_start_matches('\t').len();
            format!("{}{}", "  ".repeat(tabs), &fixed[tabs..])
        })
        .collect();
    lines.join("\n")
}

/// The rewritten line when `^([a-zA-Z_-]+):\s+(\S.*)$` matches and the value needs quoting.
fn quote_line(line: &str) -> Option<String> {
    let (key, rest) = line.split_once(':')?;
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-')
    {
        return None;
    }
    let value = rest.trim_start_matches(crate::text::js::is_js_space);
    if value.len() == rest.len()
        || value.is_empty()
        || value.contains(['\n', '\r', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    let quoted = |q: char| value.len() >= 2 && value.starts_with(q) && value.ends_with(q);
    let single = value.len() == 1 && (value == "\"" || value == "'");
    if quoted('"') || quoted('\'') || single {
        return None;
    }
    if value.starts_with('[') && value.ends_with(']') && is_list(value) {
        return None;
    }
    let needs = value.contains([
        '{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`',
    ]) || value.contains(": ");
    needs.then(|| {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        format!("{key}: \"{escaped}\"")
    })
}

fn is_list(value: &str) -> bool {
    serde_saphyr::from_str::<Vec<IgnoredAny>>(value).is_ok()
}

/// The top-level document, reduced to its `paths` value (a non-mapping document has none).
struct Front(Option<Value>);

impl<'de> de::Deserialize<'de> for Front {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Front;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a YAML document")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Front, A::Error> {
                let mut paths = None;
                while let Some(key) = map.next_key::<Key>()? {
                    if key.0.as_deref() == Some("paths") {
                        paths = Some(map.next_value::<Value>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Front(paths))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Front, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Front(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_unit<E>(self) -> Result<Front, E> {
                Ok(Front(None))
            }
            fn visit_none<E>(self) -> Result<Front, E> {
                Ok(Front(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping key: its text when it is a string.
struct Key(Option<String>);

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Key(match Value::deserialize(d)? {
            Value::Str(s) => Some(s),
            _ => None,
        }))
    }
}

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
                Ok(if b { Value::Truthy } else { Value::Falsy })
            }
            fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
                Ok(if n == 0 { Value::Falsy } else { Value::Truthy })
            }
            fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
                Ok(if n == 0 { Value::Falsy } else { Value::Truthy })
            }
            fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
                Ok(if n == 0.0 || n.is_nan() {
                    Value::Falsy
                } else {
                    Value::Truthy
                })
            }
            fn visit_str<E>(self, s: &str) -> Result<Value, E> {
                Ok(Value::Str(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Value, E> {
                Ok(Value::Str(s))
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Falsy)
            }
            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Falsy)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
                Value::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = seq.next_element::<Value>()? {
                    items.push(v);
                }
                Ok(Value::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Value::Truthy)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests;
