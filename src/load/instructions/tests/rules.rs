//! The rules folders: what a walk of `.claude/rules` collects, in which order, through which
//! links.

use std::fs;

use super::Tree;
use crate::env::ClientFlags;
use crate::load::instructions::Kind;
use crate::load::instructions::file::Loader;
use crate::settings::Settings;

fn rules_of(
    t: &Tree,
    cwd: &str,
    dir: &str,
    kind: Kind,
) -> (Vec<String>, Vec<crate::load::Skipped>) {
    let env = t.env(cwd, ClientFlags::default());
    let settings = Settings::load(&env);
    let mut loader = Loader::new(&env, &settings);
    let mut skipped = Vec::new();
    let include = loader.include_external(kind);
    let found = crate::load::instructions::rules::collect(
        &mut loader,
        &t.path(dir),
        kind,
        include,
        false,
        &mut skipped,
    );
    (
        found.iter().map(|e| t.rel(&e.loaded.path)).collect(),
        skipped,
    )
}

#[test]
fn rules_recurse_in_raw_directory_order_and_keep_only_md() {
    let t = Tree::new(&[
        ("p/.claude/rules/a.md", "A"),
        ("p/.claude/rules/sub/deep/b.md", "B"),
        ("p/.claude/rules/.hidden.md", "H"),
        ("p/.claude/rules/c.MD", "no"),
        ("p/.claude/rules/d.txt", "no"),
    ]);
    let (mut got, _) = rules_of(&t, "p", "p/.claude/rules", Kind::Project);
    let raw: Vec<String> = fs::read_dir(t.path("p/.claude/rules"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            match n.as_str() {
                "a.md" | ".hidden.md" => Some(format!("p/.claude/rules/{n}")),
                "sub" => Some("p/.claude/rules/sub/deep/b.md".into()),
                _ => None,
            }
        })
        .collect();
    assert_eq!(got, raw, "raw readdir order, subfolder at its entry");
    got.sort();
    assert_eq!(got.len(), 3);
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn rule_links_show_the_target_and_outside_links_need_approval() {
    let t = Tree::new(&[
        ("p/shared/r.md", "R"),
        ("outside/o.md", "O"),
        ("p/.claude/rules/own.md", "OWN"),
    ]);
    std::os::unix::fs::symlink(t.path("p/shared/r.md"), t.path("p/.claude/rules/link.md")).unwrap();
    std::os::unix::fs::symlink(t.path("p/shared/r.md"), t.path("p/.claude/rules/link2.md"))
        .unwrap();
    std::os::unix::fs::symlink(t.path("outside/o.md"), t.path("p/.claude/rules/out.md")).unwrap();
    std::os::unix::fs::symlink(t.path("p/.claude/rules"), t.path("p/.claude/rules/loop")).unwrap();
    let (mut got, skipped) = rules_of(&t, "p", "p/.claude/rules", Kind::Project);
    got.sort();
    assert_eq!(got, ["p/.claude/rules/own.md", "p/shared/r.md"]);
    assert!(skipped.iter().any(|s| matches!(
        s.why,
        crate::load::instructions::SkipWhy::ExternalNotApproved { .. }
    ) && s.path == t.path("p/.claude/rules/out.md")));
    let (mut got, _) = rules_of(&t, "p", "p/.claude/rules", Kind::User);
    got.sort();
    assert_eq!(
        got,
        ["outside/o.md", "p/.claude/rules/own.md", "p/shared/r.md"]
    );
}
