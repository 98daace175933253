//! `unreadable-file` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Content;

declare_rule! {
    /// ## What it does
    /// Flags a `.md` path in the library that cannot be read as text: not a regular file (a
    /// FIFO, a socket, a dangling link, a symlink loop), unreadable (permissions, I/O
    /// error), larger than `max-file-bytes` (4 MiB by default, the client's own cap), binary
    /// (contains NUL bytes) or not valid UTF-8. Also a subfolder that cannot be listed. The
    /// audit reports it and goes on with the other files.
    ///
    /// ## Why it matters
    /// The client skips such a file, or feeds the model mojibake: whatever it was meant to
    /// remember is lost without a trace.
    ///
    /// ## Example
    /// `feedback_x.md` saved as UTF-16 by an editor; `reference_y.md` a symlink to itself.
    ///
    /// ## Fix
    /// Re-save the file as UTF-8 text, replace the link with the file, or remove it.
    pub const RULE = ("unreadable-file", Hard, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (i, file) in ctx.lib.files.iter().enumerate() {
        // A MEMORY.md the client reads anyway (`Content::Decoded`) is index-encoding's.
        if let Content::Unread(why) = &file.content {
            out.push(ctx.diag(&RULE, i, 1, format!("cannot read as text: {why}")));
        }
    }
    for e in &ctx.lib.walk_errors {
        let message = format!("cannot list folder: {}", e.error);
        out.push(ctx.diag_on(&RULE, e.rel.clone(), message));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    // Unix only: FIFOs, symbolic links (none of them on Windows as
    // wine 8 runs its tests here: see crate::sys).
    #[cfg(unix)]
    #[test]
    fn vectors() {
        let f = Fixture::new(&[("user_ok.md", &(fm("user", "") + "x\n"))]);
        let root = f.dir.path();
        std::fs::write(root.join("user_bin.md"), b"---\0\x01").unwrap();
        std::fs::write(root.join("user_latin1.md"), b"caf\xe9\n").unwrap();
        std::os::unix::fs::symlink("user_loop.md", root.join("user_loop.md")).unwrap();
        crate::sys::mkfifo(&root.join("user_fifo.md"), 0o644).unwrap();
        assert_eq!(
            f.paths("unreadable-file"),
            [
                "user_bin.md",
                "user_fifo.md",
                "user_latin1.md",
                "user_loop.md"
            ]
        );
        let msgs = f.messages("unreadable-file").join("\n");
        assert!(
            msgs.contains("FIFO") && msgs.contains("UTF-8") && msgs.contains("NUL"),
            "{msgs}"
        );
    }

    #[test]
    fn over_the_cap_is_reported_not_read() {
        let mut f = Fixture::new(&[("user_big.md", &(fm("user", "") + &"x".repeat(2000)))]);
        f.config().audit.max_file_bytes = 1000;
        assert_eq!(f.messages("unreadable-file").len(), 1);
        assert!(f.messages("unreadable-file")[0].contains("too large"));
    }
}
