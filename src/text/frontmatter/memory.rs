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
