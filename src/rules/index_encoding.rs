//! `index-encoding` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::{Content, Unreadable};

declare_rule! {
    /// ## What it does
    /// Flags a `MEMORY.md` that is not UTF-8 text: it holds NUL bytes (an editor re-saved it
    /// as UTF-16) or bytes that are not valid UTF-8 (a legacy code page).
    ///
    /// ## Why it matters
    /// The client still loads it: it decodes the bytes as UTF-8 without looking for a
    /// byte-order mark, replacing what is not UTF-8, and drops the NUL bytes when it sanitizes
    /// the index (`c()`, SPEC-automemory 9.1; captured cases `mem-utf16le-bom` and
    /// `mem-utf16be-bom`). So the index is not lost and its ASCII links still lead where they
    /// say (ccmem reads them as the model gets them, and `unreachable-file` counts what they
    /// reach), but every non-ASCII character comes out mangled and a UTF-16 file counts its NUL
    /// bytes against the 25,000-unit cap. A warning, since the model still gets the ASCII of it.
    ///
    /// ## Example
    /// `MEMORY.md` saved by Visual Studio as "Unicode (UTF-16 LE) with signature".
    ///
    /// ## Fix
    /// Re-save it as UTF-8: `iconv -f UTF-16 -t UTF-8 MEMORY.md > MEMORY.md.new && mv
    /// MEMORY.md.new MEMORY.md`.
    pub const RULE = ("index-encoding", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(i) = ctx.lib.index() else {
        return;
    };
    let Content::Decoded { why, .. } = &ctx.lib.files[i].content else {
        return;
    };
    let message = match why {
        Unreadable::Binary => {
            "MEMORY.md holds NUL bytes (saved as UTF-16?): the client drops them and reads the \
             rest, with non-ASCII text mangled; re-save it as UTF-8"
        }
        Unreadable::InvalidUtf8(_) => {
            "MEMORY.md is not valid UTF-8: the client reads it with the bad bytes replaced, \
             mangling that text; re-save it as UTF-8"
        }
        Unreadable::Io(_) => return,
    };
    out.push(ctx.diag(&RULE, i, 1, message.to_owned()));
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn a_utf16_index_is_a_warning_not_an_unreadable_file() {
        let f = Fixture::new(&[("user_a.md", &(fm("user", "") + "x\n"))]);
        std::fs::write(
            f.dir.path().join("MEMORY.md"),
            b"\xff\xfe-\0 \0[\0a\0]\0(\0u\0s\0e\0r\0_\0a\0.\0m\0d\0)\0",
        )
        .unwrap();
        assert_eq!(f.paths("index-encoding"), ["MEMORY.md"]);
        assert!(f.paths("unreadable-file").is_empty());
        assert!(f.paths("unreachable-file").is_empty());
    }

    #[test]
    fn near_miss_a_utf8_index_and_a_binary_topic_file() {
        let f = Fixture::new(&[("MEMORY.md", "- [a](user_a.md)\n")]);
        std::fs::write(f.dir.path().join("user_a.md"), b"---\0\x01").unwrap();
        assert!(f.paths("index-encoding").is_empty());
        assert_eq!(f.paths("unreadable-file"), ["user_a.md"]);
    }
}
