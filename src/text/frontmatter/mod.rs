//! Frontmatter as the client reads it (`qd` in chunk-757mw3zq, 2.1.332): the block is cut out
//! with the client's loose regex ([`split`]), then parsed by `DDr`:
//!
//! ```js
//! function DDr(e) { try { return { ok: true, value: lQ(e) } }            // lQ = Bun.YAML.parse
//!   catch { try { let n = _u(e).replace(/^\t+/gm, o => "  ".repeat(o.length));
//!                 return { ok: true, value: lQ(n) } }
//!           catch (n) { return { ok: false, error: n.message } } } }
//! ```
//!
//! [`parse`] is `DDr` ([`yaml`] is `Bun.YAML.parse`, [`lenient`] is `_u`); [`read`] is all of
//! `qd` on a file, and [`Read::memory`] is `h$`, what the memory reader makes of it. `qd` keeps
//! a parsed value only when it is an object (`Qs`): a list or a scalar reads as `{}` (the client
//! notes "is a list or a single value, not a table"), and a block that fails both passes reads as
//! `{}` too (the client logs the second pass's error and goes on).
//!
//! Every user of frontmatter in the client goes through `qd`: rule `paths:` (`AQr`), the
//! memory scan, skills, agents, output styles. In ccmem every frontmatter read goes through
//! this module too: the loader's rule paths, index backfill and agent definitions, and
//! `memory::meta` (the audit's reader, through [`split`] and [`Fields`]: the memory view's few
//! fields read straight from the text when the block has the common simple shape, else from
//! [`parse`]). The YAML parser has no YAML 1.1 words (`yes` is a string), no timestamps,
//! last-wins duplicate keys, merge keys and multi-documents; see `scalar.rs` and [`yaml`].
//! Pinned by fuzz/vectors/frontmatter.json, made by the client's own code
//! (fuzz/oracle/gen_frontmatter.py).

pub mod lenient;
mod memory;
mod scalar;
mod split;
mod value;
pub mod yaml;

pub use memory::{Field, Fields, Memory};
pub use split::{Split, split};
pub use value::{JS_MAX_STRING_UTF16, KEY_TEXT_MAX_BYTES, Key, KeyMemo, Object, Value, js_number};
pub use yaml::YamlError;

/// A block the client parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// What `Bun.YAML.parse` returned (any value: an object, a list, a scalar, `null`).
    pub value: Value,
    /// Whether the strict parse failed and the `_u` rewrite was needed.
    pub lenient: bool,
}

impl Parsed {
    /// `Qs`: the value when it is an object; `None` for a list, a scalar or `null`.
    pub fn table(&self) -> Option<&Object> {
        self.value.as_object()
    }
}

/// `DDr`: the YAML text parsed strictly, else after the `_u` rewrite. The error is the one of
/// the second pass, as the client's (its line is a line of `yaml`: the rewrite keeps lines).
pub fn parse(yaml: &str) -> Result<Parsed, YamlError> {
    if let Ok(value) = yaml::parse(yaml) {
        return Ok(Parsed {
            value,
            lenient: false,
        });
    }
    yaml::parse(&lenient::rewrite(yaml)).map(|value| Parsed {
        value,
        lenient: true,
    })
}

/// A file's frontmatter as `qd` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Read<'a> {
    /// The file's text.
    pub text: &'a str,
    /// Where the block and the body are.
    pub split: Split<'a>,
    /// The parse of the block; `None` when the file has no block.
    pub parse: Option<Result<Parsed, YamlError>>,
}

/// `qd(text)`: the split and, when there is a block, its parse.
pub fn read(text: &str) -> Read<'_> {
    let split = split(text);
    Read {
        text,
        parse: split.yaml.map(parse),
        split,
    }
}

impl Read<'_> {
    /// `qd`'s `frontmatter`: the parsed object, or empty (no block, a failed parse, a list or
    /// a scalar).
    pub fn frontmatter(&self) -> Object {
        match &self.parse {
            Some(Ok(p)) => p.table().cloned().unwrap_or_default(),
            _ => Object::new(),
        }
    }

    /// `h$`: the frontmatter as the memory reader sees it.
    pub fn memory(&self) -> Memory {
        Memory::from_frontmatter(&self.frontmatter())
    }

    /// The error of a block that does not parse, when there is one.
    pub fn error(&self) -> Option<&YamlError> {
        self.parse.as_ref()?.as_ref().err()
    }

    /// Byte offset in the file where the block's YAML text starts.
    pub fn yaml_start(&self) -> Option<usize> {
        let yaml = self.split.yaml?;
        Some(yaml.as_ptr() as usize - self.text.as_ptr() as usize)
    }

    /// The 1-based line of the file where the block's parse error is.
    pub fn error_line(&self) -> Option<usize> {
        let e = self.error()?;
        Some(crate::text::line_of(self.text, self.yaml_start()?) + e.line - 1)
    }
}

#[cfg(test)]
pub(crate) mod tests;
