use super::links::normalize;
use super::*;

fn lib(files: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
    lib_home(files, None)
}

fn lib_home(files: &[(&str, &str)], home: Option<&Path>) -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let opts = LoadOptions { config: None, home };
    let lib = Library::load(dir.path(), &opts).unwrap();
    (dir, lib)
}

fn targets(lib: &Library, rel: &str) -> Vec<Target> {
    lib.links(lib.find(rel).unwrap())
        .iter()
        .map(|l| l.target)
        .collect()
}

#[test]
fn reach_through_hubs_only_one_level() {
    let (_d, lib) = lib(&[
        (
            "MEMORY.md",
            "# Index\n- [a](user_a.md)\n- [hub](reference_g_hub.md)\n",
        ),
        ("user_a.md", "- [b](user_b.md)\n"),
        ("user_b.md", "x\n"),
        (
            "reference_g_hub.md",
            "- [c](user_c.md)\n- [[reference_sub_hub]]\n- [[user-e]]\n",
        ),
        ("user_e.md", "x\n"),
        ("user_c.md", "x\n"),
        ("reference_sub_hub.md", "- [d](user_d.md)\n"),
        ("user_d.md", "x\n"),
    ]);
    let r = lib.reach();
    let of = |n: &str| r[lib.find(n).unwrap()];
    let hub = lib.find("reference_g_hub.md").unwrap();
    assert_eq!(of("MEMORY.md"), Reach::Index);
    assert_eq!(of("user_a.md"), Reach::Direct);
    assert_eq!(of("user_b.md"), Reach::Unreachable);
    assert_eq!(of("user_c.md"), Reach::ViaHub(hub));
    assert_eq!(of("reference_sub_hub.md"), Reach::ViaHub(hub));
    assert_eq!(of("user_d.md"), Reach::Unreachable);
    assert_eq!(
        of("user_e.md"),
        Reach::Unreachable,
        "a fuzzy name match does not reach"
    );
}

#[test]
fn wiki_links_resolve_by_name_then_stem_or_topic() {
    let (_d, lib) = lib(&[
        (
            "MEMORY.md",
            "[[user_a]] [[A-Topic]] [[named-thing]] [[ghost]]\n```\n[x](nope.md)\n```\n",
        ),
        ("user_a.md", "x\n"),
        ("project_a_topic.md", "x\n"),
        ("user_z.md", "---\nname: named-thing\n---\nx\n"),
    ]);
    assert_eq!(
        targets(&lib, "MEMORY.md"),
        [
            Target::File(lib.find("user_a.md").unwrap()),
            Target::Named(lib.find("project_a_topic.md").unwrap()),
            Target::Named(lib.find("user_z.md").unwrap()),
            Target::Missing
        ]
    );
    assert_eq!(lib.named("named-thing"), lib.find("user_z.md"));
}

#[test]
fn files_come_in_path_order_and_a_name_finds_the_first_file_with_it() {
    let (_d, lib) = lib(&[
        ("zeta.md", "---\nname: shared\n---\n"),
        ("b/deep.md", "---\nname: shared\n---\n"),
        ("b.md", "---\nname: '  '\n---\n"),
        (
            "feedback_twenty_four_by.md",
            "---\nname: ' eigene Notiz '\n---\n",
        ),
        ("feedback_twenty_four_bx.md", "no frontmatter\n"),
        ("日本語.md", "---\nname: 共有\n---\n"),
    ]);
    let rels: Vec<&str> = lib.files.iter().map(|f| f.rel.as_str()).collect();
    let mut sorted = rels.clone();
    sorted.sort_unstable();
    assert_eq!(rels, sorted);
    for (i, rel) in rels.iter().enumerate() {
        assert_eq!(lib.find(rel), Some(i));
    }
    assert_eq!(lib.find("zeta"), None);
    assert_eq!(lib.named("shared"), lib.find("b/deep.md"));
    assert_eq!(
        lib.named("eigene Notiz"),
        lib.find("feedback_twenty_four_by.md")
    );
    assert_eq!(lib.named("共有"), lib.find("日本語.md"));
    assert_eq!(lib.named(""), None);
    assert_eq!(lib.named("  "), None);
}

#[test]
fn relative_home_and_outside_paths() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("notes")).unwrap();
    std::fs::write(home.path().join("notes/plan.md"), "x").unwrap();
    let (_d, lib) = lib_home(
        &[
            (
                "MEMORY.md",
                "[a](./sub/user_a.md) [h](.hidden/user_h.md) [m](sub/../user_m.md)\n[p](~/notes/plan.md) [q](~/notes/gone.md)\n",
            ),
            ("sub/user_a.md", "[up](../MEMORY.md) [[x]]\n"),
            (".hidden/user_h.md", "x\n"),
        ],
        Some(home.path()),
    );
    assert_eq!(
        targets(&lib, "MEMORY.md"),
        [
            Target::File(lib.find("sub/user_a.md").unwrap()),
            Target::Outside,
            Target::Missing,
            Target::Outside,
            Target::Missing,
        ]
    );
    assert_eq!(
        targets(&lib, "sub/user_a.md"),
        [Target::File(lib.index().unwrap()), Target::Missing]
    );
    assert_eq!(normalize("a/../../b"), None);
}

#[test]
fn home_links_into_the_library_are_its_files() {
    let home = tempfile::tempdir().unwrap();
    let mem = home.path().join(".claude/projects/p/memory");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(
        mem.join("MEMORY.md"),
        "- [a](~/.claude/projects/p/memory/user_a.md)\n",
    )
    .unwrap();
    std::fs::write(mem.join("user_a.md"), "x\n").unwrap();
    let lib = Library::load(
        &mem,
        &LoadOptions {
            config: None,
            home: Some(home.path()),
        },
    )
    .unwrap();
    assert_eq!(lib.reach()[lib.find("user_a.md").unwrap()], Reach::Direct);
}

#[test]
fn code_spans_naming_other_files_are_prose_not_broken_links() {
    let (_d, lib) = lib(&[
        (
            "MEMORY.md",
            "- update `CLAUDE.md` and `README.md`, never `.md`\n- see `feedback_gone.md` and `user_a.md`\n",
        ),
        ("user_a.md", "x\n"),
    ]);
    assert_eq!(
        targets(&lib, "MEMORY.md"),
        [
            Target::Missing,
            Target::File(lib.find("user_a.md").unwrap())
        ]
    );
}

#[test]
fn links_past_the_cut_do_not_reach() {
    let mut index = String::new();
    for n in 0..205 {
        index.push_str(&format!("- [e{n}](user_e{n}.md)\n"));
    }
    let mut files: Vec<(String, String)> = vec![("MEMORY.md".into(), index)];
    for n in 0..205 {
        files.push((format!("user_e{n}.md"), "x\n".into()));
    }
    let lib = Library::from_texts(Path::new("/m"), Config::default(), files);
    let of = |n: &str| lib.reach()[lib.find(n).unwrap()];
    assert_eq!(of("user_e199.md"), Reach::Direct);
    assert_eq!(of("user_e200.md"), Reach::PastCut);
    assert!(matches!(lib.index_state, IndexState::Loaded(ref m) if m.cut.is_some()));
}

#[test]
fn with_replaces_creates_and_removes_in_memory() {
    let lib = Library::from_texts(
        Path::new("/m"),
        Config::default(),
        [
            ("MEMORY.md", "- [a](user_a.md)\n".to_owned()),
            ("user_a.md", "x\n".to_owned()),
        ],
    );
    let next = lib.with([
        ("MEMORY.md", Some("- [b](user_b.md)\n")),
        ("user_b.md", Some("---\nname: b\n---\n")),
        ("user_a.md", None),
    ]);
    let rels: Vec<&str> = next.files.iter().map(|f| f.rel.as_str()).collect();
    assert_eq!(rels, ["MEMORY.md", "user_b.md"]);
    assert_eq!(next.reach()[next.find("user_b.md").unwrap()], Reach::Direct);
    assert_eq!(next.named("b"), next.find("user_b.md"));
}

#[test]
fn the_spec_is_detected_from_where_type_is_written() {
    let client = |n: usize| {
        (
            format!("user_c{n}.md"),
            "---\nname: c\ndescription: d\nmetadata:\n  type: user\n---\n".to_owned(),
        )
    };
    let manager = |n: usize| {
        (
            format!("user_m{n}.md"),
            "---\nname: m\ndescription: d\ntype: user\n---\n".to_owned(),
        )
    };
    let lib = Library::from_texts(
        Path::new("/m"),
        Config::default(),
        [client(1), client(2), manager(1)],
    );
    assert_eq!(lib.spec(), Spec::Client);
    let lib = Library::from_texts(
        Path::new("/m"),
        Config::default(),
        [client(1), manager(1), manager(2)],
    );
    assert_eq!(lib.spec(), Spec::Manager);
    let config = Config {
        spec: crate::config::SpecChoice::Client,
        ..Config::default()
    };
    let lib = Library::from_texts(Path::new("/m"), config, [manager(1)]);
    assert_eq!((lib.spec(), lib.spec.configured), (Spec::Client, true));
}

/// Every derived part of a library that [`Library::with`] may reuse, in comparable form.
fn derived(lib: &Library) -> Vec<String> {
    (lib.files.iter().enumerate())
        .map(|(i, f)| {
            format!(
                "{} {:?} {:?} dropped={}",
                f.rel,
                lib.links(i),
                lib.reach()[i],
                lib.spans_dropped[i]
            )
        })
        .collect()
}

proptest::proptest! {
    /// A library built with some files replaced, created or removed is the library built from
    /// the resulting texts: links kept from the prior library lead where a fresh scan leads.
    #[test]
    fn with_equals_a_library_built_afresh(
        base in proptest::collection::btree_map(0..8usize, proptest::collection::vec(0..12usize, 0..4), 1..8),
        changes in proptest::collection::vec((0..8usize, proptest::option::of(proptest::collection::vec(0..12usize, 0..4))), 0..5),
        index in proptest::collection::vec(0..12usize, 0..6),
    ) {
        // File k is `notes{k}.md` (a name of no role) for odd k, else `user_f{k}.md`; a text
        // links the files its numbers name, in every syntax.
        let name = |k: usize| if k % 2 == 1 { format!("notes{k}.md") } else { format!("user_f{k}.md") };
        let text = |links: &[usize]| -> String {
            let mut t = String::from("---\nname: n\n---\n");
            for (j, &k) in links.iter().enumerate() {
                let n = name(k % 8);
                let stem = n.trim_end_matches(".md").to_owned();
                t.push_str(&match (j + k) % 4 {
                    0 => format!("- [x]({n})\n"),
                    1 => format!("see `{n}` here\n"),
                    2 => format!("- [[{stem}]]\n"),
                    _ => format!("- [x](sub/../{n})\n"),
                });
            }
            t
        };
        let root = Path::new("/nonexistent-ccmem-lib");
        let mut texts: std::collections::BTreeMap<String, String> =
            base.iter().map(|(k, l)| (name(*k), text(l))).collect();
        texts.insert("MEMORY.md".into(), text(&index));
        let before = Library::from_texts(root, Config::default(), texts.clone());
        let mut edits: Vec<(String, Option<String>)> = Vec::new();
        for (k, new) in &changes {
            let new = new.as_deref().map(text);
            match &new {
                Some(t) => texts.insert(name(*k), t.clone()),
                None => texts.remove(&name(*k)),
            };
            edits.retain(|(n, _)| *n != name(*k));
            edits.push((name(*k), new));
        }
        let after = before.with(edits.iter().map(|(n, t)| (n.as_str(), t.as_deref())));
        let fresh = Library::from_texts(root, Config::default(), texts);
        proptest::prop_assert_eq!(derived(&after), derived(&fresh));
    }
}

#[test]
fn every_file_read_has_its_time() {
    let files = [
        (
            "user_dated.md",
            "---\nname: a\nmodified: 2026-01-02\n---\nx\n",
        ),
        ("user_none.md", "---\nname: c\n---\nx\n"),
        ("MEMORY.md", "- [a](user_dated.md)\n"),
    ];
    let (_dir, lib) = lib(&files);
    for f in &lib.files {
        assert!(f.mtime.is_some(), "{}", f.rel);
    }
}

// Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
#[cfg(unix)]
#[test]
fn the_load_refuses_a_fifo_whose_writer_has_written() {
    use std::io::Write as _;
    let (dir, _) = lib(&[("MEMORY.md", "- [a](user_a.md)\n")]);
    let fifo = dir.path().join("user_a.md");
    crate::sys::mkfifo(&fifo, 0o644).unwrap();
    let mut writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    writer
        .write_all(b"---\nname: a\n---\nnot a memory\n")
        .unwrap();
    let config = Config::find(dir.path(), None).unwrap();
    let lib = Library::load_configured(dir.path(), config, None).unwrap();
    let f = lib.file("user_a.md").unwrap();
    assert!(
        matches!(&f.content, super::super::file::Content::Unread(super::super::file::Unreadable::Io(e)) if e.contains("FIFO")),
        "{:?}",
        f.content
    );
}
