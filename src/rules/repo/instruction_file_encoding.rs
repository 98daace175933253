//! `instruction-file-encoding` (hard).

use super::ByPlace;
use crate::load::Kind;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an instruction file of the repository that a session loads while it is not UTF-8
    /// text: it holds NUL bytes, as a file an editor saved as UTF-16 does ("Unicode" in Visual
    /// Studio and Notepad, PowerShell 5's `>`).
    ///
    /// ## Why it matters
    /// The client reads instruction files as UTF-8 and keeps what it reads, NUL bytes included
    /// (it strips only HTML comments and frontmatter: SPEC-instructions 10.3). The model gets
    /// the byte-order mark as two replacement characters and every character of the file with
    /// a NUL beside it, at twice the size: the instructions are in the context, as noise.
    /// `ccmem receipt` shows the file as loaded; only its bytes tell.
    ///
    /// ## Example
    /// `CLAUDE.md` saved by Visual Studio as "Unicode (UTF-16 LE) with signature": `FF FE 23 00
    /// 20 00 45 00 …` (`# E…`).
    ///
    /// ## Fix
    /// Re-save it as UTF-8: `iconv -f UTF-16 -t UTF-8 CLAUDE.md > CLAUDE.md.new && mv
    /// CLAUDE.md.new CLAUDE.md`.
    pub const RULE = ("instruction-file-encoding", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        for e in &s.session.entries {
            if e.kind == Kind::AutoMem || !e.content.contains('\0') {
                continue;
            }
            let Some(rel) = ctx.repo.rel(&e.path) else {
                continue;
            };
            let rel: &str = &rel;
            by.add((rel.to_owned(), 1, String::new()), &s.start.dir, || {
                let nuls = e.content.bytes().filter(|&b| b == 0).count();
                let word = |w: &str| shell_words::quote(w).into_owned();
                ctx.finding(
                    &RULE,
                    rel,
                    1,
                    format!(
                        "{rel} is not UTF-8 text: it holds {} (saved as UTF-16?), which the client \
                         keeps, so the model gets every character of it with a NUL beside it",
                        crate::constants::counted(nuls, "NUL byte", "NUL bytes")
                    ),
                    format!(
                        "re-save it as UTF-8: `iconv -f UTF-16 -t UTF-8 {} > {} && mv {} {}`",
                        word(rel),
                        word(&format!("{rel}.new")),
                        word(&format!("{rel}.new")),
                        word(rel)
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

    fn utf16le(text: &str) -> Vec<u8> {
        let mut out = vec![0xFF, 0xFE];
        out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    /// A C++ engine's CLAUDE.md saved by Visual Studio as UTF-16 LE, beside a UTF-8 rule in
    /// Japanese and a UTF-8 package CLAUDE.md in German: only the UTF-16 file is reported.
    #[test]
    fn a_utf16_claude_md_is_reported_utf8_files_in_any_script_are_not() {
        let f = Fixture::new(&[
            (
                ".claude/rules/naming.md",
                "# 命名規則\n- クラス名は PascalCase。\n",
            ),
            ("engine/CMakeLists.txt", "project(engine)\n"),
            (
                "engine/CLAUDE.md",
                "# Engine\n- Keine Ausnahmen im Render-Thread.\n",
            ),
        ]);
        std::fs::write(
            f.root.join("CLAUDE.md"),
            utf16le("# Emberforge engine (C++20, Windows)\r\n- Build with the VS 2022 preset.\r\n"),
        )
        .unwrap();
        assert_eq!(
            f.found("instruction-file-encoding"),
            [("CLAUDE.md".to_owned(), 1)]
        );
        let m = &f.messages("instruction-file-encoding")[0];
        let text = "# Emberforge engine (C++20, Windows)\r\n- Build with the VS 2022 preset.\r\n";
        let want = format!(
            "CLAUDE.md is not UTF-8 text: it holds {} NUL bytes",
            text.len()
        );
        assert!(m.starts_with(&want), "{m}");
    }
}
