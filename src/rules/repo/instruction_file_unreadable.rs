//! `instruction-file-unreadable` (hard).

use super::ByPlace;
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an instruction file of the repository (a `CLAUDE.md`, `CLAUDE.local.md`,
    /// `AGENTS.md`, a rule, an import target) that the client finds but cannot load: not a
    /// regular file (a FIFO, a socket, a directory named like one), unreadable (permissions, a
    /// symlink loop), or over the client's 4 MiB read limit.
    ///
    /// ## Why it matters
    /// The client skips such a file without a word to the operator; everything it says is
    /// missing from every session that would load it. `ccmem receipt` lists it under Skipped
    /// for one directory; this rule finds it for the whole repository.
    ///
    /// ## Example
    /// `CLAUDE.md` checked in as a symlink to `../docs/CLAUDE.md`, which the checkout lacks.
    ///
    /// ## Fix
    /// Make it a readable regular file under 4 MiB (or remove it).
    pub const RULE = ("instruction-file-unreadable", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        for k in &s.session.skipped {
            let cause = match &k.why {
                SkipWhy::NotRegular { what } => format!("it is not a regular file ({what})"),
                SkipWhy::Unreadable { error } => format!("it cannot be read ({error})"),
                SkipWhy::TooLarge { bytes } => format!(
                    "it is {} bytes, over the {} the client reads",
                    crate::constants::Count(*bytes as usize),
                    crate::constants::MAX_FILE_SIZE
                ),
                _ => continue,
            };
            let Some(rel) = ctx.repo.rel(&k.path) else {
                continue;
            };
            by.add((rel.to_string(), 1, cause.clone()), &s.start.dir, || {
                ctx.finding(
                    &RULE,
                    &rel,
                    1,
                    format!("{rel} never loads: {cause}"),
                    format!(
                        "make it a readable regular file under {}, or remove it",
                        crate::constants::MAX_FILE_SIZE
                    ),
                )
            });
        }
    }
    by.finish_plain(out);
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    // Unix only: FIFOs, symbolic links (none of them on Windows as
    // wine 8 runs its tests here: see crate::sys).
    #[cfg(unix)]
    #[test]
    fn fifos_and_dangling_links_that_look_like_instructions() {
        let f = Fixture::new(&[(".claude/rules/ok.md", "x\n"), ("pkg/package.json", "{}")]);
        let fifo = f.root.join("CLAUDE.md");
        crate::sys::mkfifo(&fifo, 0o644).unwrap();
        f.link("loop.md", "pkg/CLAUDE.md");
        f.link("CLAUDE.md", "pkg/loop.md");
        let got = f.found("instruction-file-unreadable");
        assert!(got.contains(&("CLAUDE.md".to_owned(), 1)), "{got:?}");
        assert!(got.contains(&("pkg/CLAUDE.md".to_owned(), 1)), "{got:?}");
        assert!(
            f.messages("instruction-file-unreadable")
                .iter()
                .any(|m| m.starts_with("CLAUDE.md never loads: it is not a regular file")),
            "{:?}",
            f.messages("instruction-file-unreadable")
        );
    }

    #[test]
    fn readable_files_are_not_reported() {
        let f = Fixture::new(&[("CLAUDE.md", "x\n"), (".claude/rules/ok.md", "y\n")]);
        assert!(f.found("instruction-file-unreadable").is_empty());
    }
}
