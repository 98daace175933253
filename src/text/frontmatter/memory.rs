//! What the client makes of a memory file's frontmatter (`h$` → `Iu`, chunk-757mw3zq): the
//! reader behind the memory scan (`A_t`: the index backfill, recall, the memory manifest),
//! the write-time lints and the writer.
//!
//! ```js
//! Ou = ["name", "description", "metadata"], so = e => typeof e == "string" && e.length > 0 ? e : null,
//! Iu = e => { let n = E(e.metadata) ? e.metadata : {},
//!             o = Object.entries(e).reduce((g, [h, y]) => (Ou.includes(h) || y == null ? g : (g[h] = y, g)), {});
//!             return { name: so(e.name), description: so(e.description), metadata: { ...o, ...n } } };
//! Rpt = (e, n) => so(e.metadata[n])            // how the client reads `type`, `modified` …
//! ```
//!
//! Quirks kept:
//! - `name` and `description` count only as non-empty strings: `name: 123`, `name: true`,
//!   `description: ""` and `description: [a]` are no name / no description;
//! - every other top-level key with a non-null value joins `metadata`, and the keys of a
//!   `metadata:` mapping are laid over them: a nested `metadata.type` WINS over a top-level
//!   `type` (flat frontmatter still has its `type`, now under `metadata`);
//! - a `metadata:` that is not a plain object (a list, a string) is ignored, though its
//!   top-level siblings still count; null values inside `metadata:` are kept;
//! - a top-level `__proto__` is dropped (`g[h] = y` sets the prototype of the accumulator
//!   instead of a property), while one inside `metadata:` is kept (the spread defines it);
//! - a frontmatter that fails to parse, or is a list or a scalar, reads as `{}`.

use super::value::{Object, Value};

/// A memory file's frontmatter as the client sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    /// `name`, when it is a non-empty string.
    pub name: Option<String>,
    /// `description`, when it is a non-empty string.
    pub description: Option<String>,
    /// The other top-level keys (non-null values), overlaid with the `metadata:` mapping.
    pub metadata: Object,
}

impl Memory {
    /// `Iu` on the client's frontmatter object.
    pub fn from_frontmatter(front: &Object) -> Self {
        let text = |key: &str| {
            front
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let mut metadata: Object = front
            .iter()
            .filter(|(k, v)| {
                !matches!(*k, "name" | "description" | "metadata" | "__proto__")
                    && **v != Value::Null
            })
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        if let Some(nested) = front.get("metadata").and_then(Value::as_object) {
            for (k, v) in nested.iter() {
                metadata.set(k.to_owned(), v.clone());
            }
        }
        Memory {
            name: text("name"),
            description: text("description"),
            metadata,
        }
    }

    /// `Rpt(fm, key)`: a metadata value the client reads as text (non-empty strings only).
    pub fn text(&self, key: &str) -> Option<&str> {
        self.metadata
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }
}

/// A value of the memory view as far as its readers tell values apart, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Text(&'a str),
    /// A number, a list or an object.
    Other,
}

impl<'a> Field<'a> {
    /// How `value` reads.
    pub fn of(value: &'a Value) -> Self {
        match value {
            Value::Null => Field::Null,
            Value::Bool(b) => Field::Bool(*b),
            Value::String(s) => Field::Text(s),
            Value::Number(_) | Value::Array(_) | Value::Object(_) => Field::Other,
        }
    }

    /// The text, when the value is a non-empty string (how the client reads `so(…)`).
    pub fn text(self) -> Option<&'a str> {
        match self {
            Field::Text(s) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
}

/// What `Iu` gives for `name`, `description` and `N` keys of `metadata`: [`Memory`] for a
/// few keys, borrowed, with where each value was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields<'a, const N: usize> {
    /// `name`, when it is a non-empty string.
    pub name: Option<&'a str>,
    /// `description`, when it is a non-empty string.
    pub description: Option<&'a str>,
    /// Each key's value in `metadata`, and whether it comes from the `metadata:` mapping
    /// (`true`) or from a top-level key (`false`); `None` when `metadata` has no such key.
    pub metadata: [Option<(Field<'a>, bool)>; N],
}

/// Top-level keys that never join `metadata` (see the module docs).
fn kept_apart(key: &str) -> bool {
    matches!(key, "name" | "description" | "metadata" | "__proto__")
}

impl<'a, const N: usize> Fields<'a, N> {
    /// `Iu` on the client's frontmatter object, for `keys`.
    pub fn of(front: &'a Object, keys: &[&str; N]) -> Self {
        let text = |key: &str| front.get(key).map(Field::of).and_then(Field::text);
        let nested = front.get("metadata").and_then(Value::as_object);
        Fields {
            name: text("name"),
            description: text("description"),
            metadata: keys.map(|k| match nested.and_then(|m| m.get(k)) {
                Some(v) => Some((Field::of(v), true)),
                None => front
                    .get(k)
                    .filter(|v| !kept_apart(k) && **v != Value::Null)
                    .map(|v| (Field::of(v), false)),
            }),
        }
    }

    /// `h$` for `keys` read straight from a block's YAML text, when the text has the shape of
    /// the YAML fast path (nearly every memory file): no value is built and nothing is copied.
    /// `None` for any other text, which [`super::parse`] and [`Fields::of`] then read; the two
    /// agree (`fields_read_from_the_text_agree_with_the_parse`). A text in the shape always
    /// parses strictly, as an object.
    pub fn read(yaml: &'a str, keys: &[&str; N]) -> Option<Self> {
        use super::yaml::fast::{self, Line, Scalar};
        /// Where a top-level key goes.
        #[derive(Clone, Copy)]
        enum Slot {
            Name,
            Description,
            Metadata,
            Key(usize),
            None,
        }
        let field = |v: Scalar<'a>| match v.classify() {
            (super::scalar::Plain::Null, _) => Field::Null,
            (super::scalar::Plain::Bool(b), _) => Field::Bool(b),
            (super::scalar::Plain::Number(_), _) => Field::Other,
            (super::scalar::Plain::Text, s) => Field::Text(s),
        };
        let slot = |k: &str| match k {
            "name" => Slot::Name,
            "description" => Slot::Description,
            "metadata" => Slot::Metadata,
            k => keys
                .iter()
                .position(|w| *w == k && !kept_apart(k))
                .map_or(Slot::None, Slot::Key),
        };
        // Each top-level key's last value (`obj[key] = value`: last wins), and the last
        // `metadata:` mapping's entries (`None` while `metadata` is not a mapping).
        let (mut name, mut description) = (Field::Null, Field::Null);
        let mut top: [Option<Field<'a>>; N] = [None; N];
        let mut nested: Option<[Option<Field<'a>>; N]> = None;
        // The open `key:` line, which is `null` until an entry under it makes it a mapping.
        let mut open = Slot::None;
        let mut set = |slot: Slot, v: Field<'a>, nested: &mut Option<_>| match slot {
            Slot::Name => name = v,
            Slot::Description => description = v,
            Slot::Metadata => *nested = None,
            Slot::Key(i) => top[i] = Some(v),
            Slot::None => {}
        };
        fast::scan(yaml, |line| match line {
            Line::Top(k, v) => {
                open = Slot::None;
                set(slot(&fast::key(k)), field(v), &mut nested);
            }
            Line::Open(k) => {
                open = slot(&fast::key(k));
                set(open, Field::Null, &mut nested);
            }
            Line::Nested(k, v) => {
                if let Slot::Metadata = open {
                    let entries = nested.get_or_insert([None; N]);
                    let k = fast::key(k);
                    if let Some(i) = keys.iter().position(|w| *w == k) {
                        entries[i] = Some(field(v));
                    }
                } else {
                    set(open, Field::Other, &mut nested);
                }
            }
        })?;
        let mut metadata = [None; N];
        for (i, out) in metadata.iter_mut().enumerate() {
            *out = match nested.as_ref().and_then(|m| m[i]) {
                Some(v) => Some((v, true)),
                None => top[i].filter(|v| *v != Field::Null).map(|v| (v, false)),
            };
        }
        Some(Fields {
            name: name.text(),
            description: description.text(),
            metadata,
        })
    }

    /// The value of `key` (one of the keys asked for) in `metadata`, and whether it comes
    /// from the `metadata:` mapping.
    pub fn get(&self, keys: &[&str; N], key: &str) -> Option<(Field<'a>, bool)> {
        self.metadata[keys.iter().position(|k| *k == key)?]
    }
}
