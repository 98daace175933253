//! `stale-reference` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule, prose};

mod tree;

use tree::Tree;

declare_rule! {
    /// ## What it does
    /// Flags a path of the project that a memory names, in a code span (`` `app/billing/x.py` ``)
    /// or a link, and that does not exist in the project. It runs only when the project is
    /// known: the audit of the auto-memory folder of the directory it runs in (the client's
    /// project root: the git root, else the directory), or `ccmem audit --project DIR`.
    ///
    /// Only what reads as a path of the project is checked: relative, at least two parts, and
    /// a file with an extension or a folder written with its closing `/`. A path not found from
    /// the project root is not missing when it is the end of a path inside the project
    /// (`res/values/strings.xml` for `app/src/main/res/values/strings.xml`: written from a
    /// module) or ignored by the root `.gitignore` (`checkpoints/`, `logs/`: what a run writes,
    /// never in a checkout).
    ///
    /// Not checked, because nothing here can verify them: absolute paths and `~/` (outside the
    /// project), `..` (another repository beside it), URLs, globs and placeholders (`*.kt`,
    /// `<name>`, `{id}`, `...`), Windows paths, links to `.md` files (`broken-link` checks
    /// those), paths behind a link that leaves the project. Nor what records the past or the
    /// future rather than where the code is: lines that say the path was removed or is still
    /// to be written ("removed", "gelöscht", "noch nicht", "已删除", "아직" …), a reason's line
    /// (`**Why:** …`), work-in-progress notes (`session_wip.md`) and memories whose file name
    /// carries a date (a snapshot records what was there then).
    ///
    /// Each distinct path is looked up once, part by part without following a link out of the
    /// project, at most 1,000 per library; the project is listed (at most 50,000 entries, not
    /// entering `.git`, `node_modules` and the like) only when some path is not found from its
    /// root.
    ///
    /// ## Why it matters
    /// The client's own prompt tells the model that a memory naming a file is a claim that it
    /// existed when the memory was written, to be checked before it is recommended. A path that
    /// has gone sends the model to look for it, or to act on code that is no longer there.
    ///
    /// ## Example
    /// `project_paths.md` says "Old charges flow: `app/billing/charges.py`" after the module
    /// was deleted.
    ///
    /// ## Fix
    /// Update the memory to the path the code has now, or remove the line if the code is gone for good.
    pub const RULE = ("stale-reference", Soft, Both, Check::Library(check));
}

/// Parts of a path checked at most.
const MAX_PARTS: usize = 32;
/// Bytes of a path at most.
const MAX_LEN: usize = 512;
/// Words of a line that says its path is gone or not yet there, lower case.
const GONE: &[&str] = &[
    // English
    "removed",
    "deleted",
    "no longer",
    "not yet",
    "to be written",
    "to be created",
    // German, Dutch, French
    "entfernt",
    "gelöscht",
    "nicht mehr",
    "noch nicht",
    "verwijderd",
    "niet meer",
    "nog niet",
    "supprimé",
    "n'existe plus",
    "pas encore",
    // Spanish, Portuguese
    "eliminad",
    "borrad",
    "ya no",
    "todavía no",
    "aún no",
    "removid",
    "apagad",
    "excluíd",
    "não existe mais",
    "ainda não",
    // Russian
    "удал",
    "больше нет",
    "ещё не",
    "еще не",
    "пока нет",
    // Chinese, Japanese, Korean
    "删除",
    "刪除",
    "移除",
    "不再",
    "尚未",
    "还没",
    "還沒",
    "削除",
    "廃止",
    "未作成",
    "まだない",
    "まだ無い",
    "삭제",
    "제거",
    "아직",
    "없어졌",
];

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(project) = ctx.lib.project.as_deref() else {
        return;
    };
    let Ok(root) = std::fs::canonicalize(project) else {
        return;
    };
    let mut tree = Tree::new(root);
    for (i, file) in ctx.lib.files.iter().enumerate() {
        let Some((text, parsed)) = file.parsed() else {
            continue;
        };
        let body = &text[parsed.body_start.min(text.len())..];
        // Most memories name no path: no backtick, no link, nothing to read.
        if memchr::memchr(b'`', body.as_bytes()).is_none() && !body.contains("](") {
            continue;
        }
        if dated(file.name()) || super::labels::wip_note(file) {
            continue;
        }
        let mut reported: Vec<&str> = Vec::new();
        for line in prose::lines(text, parsed.body_start, file.body_line()) {
            let lower = line.text.to_lowercase();
            if GONE.iter().any(|w| lower.contains(w)) || super::labels::is_why_line(line.text) {
                continue;
            }
            for (span, raw) in candidates(line.text) {
                let Some(path) = project_path(raw) else {
                    continue;
                };
                if reported.contains(&path) || !tree.missing(path) {
                    continue;
                }
                reported.push(path);
                let at = line.offset + span.start..line.offset + span.end;
                let msg = format!("`{path}` does not exist in the project");
                out.push(ctx.diag_at(&RULE, i, at, msg));
            }
        }
    }
}

/// Whether a memory's file name carries a date (`sandbox-snapshot-2026-04-14.md`).
fn dated(name: &str) -> bool {
    let b = name.as_bytes();
    b.windows(10).any(|w| {
        let d = |r: std::ops::Range<usize>| w[r].iter().all(u8::is_ascii_digit);
        d(0..4) && w[4] == b'-' && d(5..7) && w[7] == b'-' && d(8..10)
    })
}

/// What a line names: the text of each code span and each link target outside them, with its
/// byte range in the line.
fn candidates(line: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let spans = prose::code_spans(line);
    let mut out: Vec<(std::ops::Range<usize>, &str)> = spans
        .iter()
        .map(|s| {
            let ticks = line[s.clone()].bytes().take_while(|&b| b == b'`').count();
            let inner = s.start + ticks..s.end - ticks;
            (inner.clone(), &line[inner])
        })
        .collect();
    let mut from = 0;
    while let Some(k) = line[from..].find("](") {
        let start = from + k + 2;
        from = start;
        if spans.iter().any(|s| s.contains(&start)) {
            continue;
        }
        let Some(len) = line[start..].find(')') else {
            break;
        };
        let target = line[start..start + len].trim();
        let target = target.split('#').next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.to_ascii_lowercase().ends_with(".md") {
            out.push((start..start + len, target));
        }
    }
    out
}

/// `raw` as a path relative to the project root, when it reads as one that can be checked
/// (see the rule's documentation); a trailing `:LINE` or `:LINE:COL` is dropped.
fn project_path(raw: &str) -> Option<&str> {
    let mut p = raw.trim();
    p = p.strip_prefix("./").unwrap_or(p);
    while let Some((head, tail)) = p.rsplit_once(':') {
        if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        p = head;
    }
    let unusable = |c: char| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '\\' | '*'
                    | '?'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | '|'
                    | '"'
                    | '\''
                    | '$'
                    | '%'
                    | '@'
                    | '='
                    | ','
                    | ';'
                    | '('
                    | ')'
                    | ':'
                    | '…'
                    | '!'
                    | '&'
                    | '^'
                    | '`'
            )
    };
    if p.is_empty() || p.len() > MAX_LEN || p.contains("...") || p.chars().any(unusable) {
        return None;
    }
    if p.starts_with(['/', '~', '-', '#', '+']) {
        return None;
    }
    let folder = p.ends_with('/');
    let parts: Vec<&str> = p.trim_end_matches('/').split('/').collect();
    if parts.len() < 2 || parts.len() > MAX_PARTS {
        return None;
    }
    if parts
        .iter()
        .any(|s| s.is_empty() || *s == "." || *s == "..")
    {
        return None;
    }
    // `github.com/org/repo`, `ghcr.io/org/image`: a host, not a folder.
    let first = parts[0];
    if !first.starts_with('.') && first.contains('.') {
        return None;
    }
    let last = parts[parts.len() - 1];
    let extension = last
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .is_some_and(|(_, ext)| {
            (1..=10).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && ext.bytes().any(|b| b.is_ascii_alphabetic())
        });
    (folder || extension).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::project_path;
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn what_reads_as_a_project_path() {
        for ok in [
            "app/billing/charges.py",
            "./lib/data/api_client_legacy.dart",
            "eval/heldout/",
            "Assets/_Project/Scripts/Legacy/PhotonBridge.cs",
            ".github/workflows/ci.yml",
            "src/trainer/loop.py:42",
            "文档/设计/架构.md",
        ] {
            assert!(project_path(ok).is_some(), "{ok}");
        }
        for no in [
            "/etc/ledger/config.yaml",
            "~/.gradle/gradle.properties",
            "../ledger-infra/runbooks/deploy.md",
            r"C:\Users\haruto\Builds\Starfall\",
            "C:/Users/haruto/Builds",
            "https://example.com/a/b.py",
            "github.com/org/repo",
            "src/**/*.ts",
            "src/<module>/index.ts",
            "api/{id}/route.ts",
            "src/.../x.py",
            "origin/main",
            "text/html",
            "@acme/ui",
            "mypy app/billing",
            "R.string.…",
            "meta-llama/Llama-3.1-8B",
            "pyproject.toml",
            "$HOME/bin/x.sh",
            "a/../b.py",
        ] {
            assert_eq!(project_path(no), None, "{no}");
        }
    }

    #[test]
    fn vectors() {
        let mut f = Fixture::new(&[
            ("MEMORY.md", "- [a](reference_code_map.md)\n"),
            (
                "reference_code_map.md",
                &(fm("reference", "")
                    + "- Room DB: `app/src/main/java/kr/moa/data/db/LedgerDatabase.kt`\n\
                       - 설정 저장: `app/src/main/java/kr/moa/data/LegacyPrefs.kt` (DataStore 로 옮기는 중)\n\
                       - 공용 버튼: `core/designsystem/MoaButton.kt`\n\
                       - 로컬 Gradle 설정: `~/.gradle/gradle.properties`\n\
                       - 예전 브리지: `app/bridge/Old.kt` 는 삭제됨\n\
                       - again: `core/designsystem/MoaButton.kt`\n\
                       - 문자열: `res/values/strings.xml` (모듈 기준)\n\
                       - **Why:** `app/old/Prefs.kt` 에서 옮겼다\n\
                       - [Schema](app/schema.sql) and [gone](app/gone.sql) and [memo](app/notes.md)\n\
                       ```\nls `app/none/x.kt`\n```\n"),
            ),
            (
                "project_paths.md",
                &(fm("project", "")
                    + "Конфиг: `configs/run17.yaml`, цикл: `src/trainer/loop.py:12`\n\
                       Чекпойнты в `checkpoints/keep/`, лог в `logs/run17/train.log`\n\
                       `terraform/envs/staging/karpenter.tf` noch nicht geplant\n\
                       `link/secret.txt` goes through a link out of the project\n"),
            ),
            (
                "session_wip.md",
                &(fm("project", "") + "## Offen\n- `terraform/envs/staging/karpenter.tf`\n"),
            ),
            (
                "project_snapshot-2026-04-14.md",
                &(fm("project", "") + "- Argo CD aus `k8s/apps/sandbox/`\n"),
            ),
        ]);
        let project = tempfile::tempdir().unwrap();
        // A link out of the project (Unix: symbolic links need no privilege there).
        #[cfg(unix)]
        let outside = tempfile::tempdir().unwrap();
        for p in [
            "app/src/main/java/kr/moa/data/db/LedgerDatabase.kt",
            "app/src/main/res/values/strings.xml",
            "app/schema.sql",
            "configs/run17.yaml",
            ".gitignore",
        ] {
            let p = project.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        std::fs::write(project.path().join(".gitignore"), "checkpoints/\n/logs\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), project.path().join("link")).unwrap();
        assert!(
            f.found("stale-reference").is_empty(),
            "no project: no check"
        );
        f.project = Some(project.path().to_path_buf());
        let found = f.found("stale-reference");
        let msgs = f.messages("stale-reference");
        let mut want = vec![
            "`src/trainer/loop.py` does not exist in the project",
            "`app/src/main/java/kr/moa/data/LegacyPrefs.kt` does not exist in the project",
            "`core/designsystem/MoaButton.kt` does not exist in the project",
            "`app/gone.sql` does not exist in the project",
        ];
        // Without the link (Windows), `link/` is a folder that does not exist, so it is named.
        if cfg!(not(unix)) {
            want.insert(1, "`link/secret.txt` does not exist in the project");
        }
        assert_eq!(msgs, want);
        let prefs = msgs.iter().position(|m| m.contains("LegacyPrefs")).unwrap();
        assert_eq!(found[prefs].1, 8, "{found:?}");
    }
}
