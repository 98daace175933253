//! Planning and proving a 2,000-entry library against reading it, side by side in one run (the
//! issue's bound: plan+prove at most 1.5× the read).
//!
//! The library is generated here (deterministic) in the shape of the corpus
//! (tests/fixtures/libraries/): 2,000 memories in the client's own format (`metadata.type`,
//! `[[name]]` links, `**Why:**`), every fifth one with a `group:`; a MEMORY.md that lists them
//! all under 25 headings (CJK in every fifth, CJK descriptions in every tenth line), with rule
//! lines, crowns every 50th entry, a broken link every 100th, and a `~/` pointer; far over the
//! client's cap.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

use ccmem::memory::{Library, LoadOptions};
use ccmem::tier::{Options, applied, plan, proof};
use criterion::{Criterion, criterion_group, criterion_main};

const ENTRIES: usize = 2_000;
const GROUPS: usize = 25;

#[allow(clippy::disallowed_methods, reason = "bench fixture")]
fn generate(dir: &Path) {
    let mut index = String::from(
        "# Project memory\n\n- Answer in English; code comments in English.\n- Runbook: [deploy](~/notes/deploy.md)\n",
    );
    for g in 0..GROUPS {
        let heading = if g % 5 == 0 {
            "日本語のメモ"
        } else {
            "area"
        };
        writeln!(index, "\n## Group {g} {heading}").unwrap();
        if g % 7 == 0 {
            writeln!(index, "- Always run the group {g} checks before merging.").unwrap();
        }
        for i in (g..ENTRIES).step_by(GROUPS) {
            let kind = ["feedback", "project", "reference", "user"][i % 4];
            let file = format!("{kind}_topic{i}.md");
            let mark = if i % 50 == 0 { "⭐ " } else { "" };
            let desc = if i % 10 == 0 {
                "データベースの移行は必ずステージングで先に確認する"
            } else {
                "retry the webhook with exponential backoff after a deploy"
            };
            let target = if i % 100 == 7 {
                format!("{kind}_gone{i}.md")
            } else {
                file.clone()
            };
            writeln!(index, "- {mark}[Topic {i}]({target}) — {desc} {i}").unwrap();
            let group = if i % 5 == 0 { "  group: billing\n" } else { "" };
            let body = format!(
                "---\nname: {kind}-topic{i}\ndescription: \"{desc}, case {i}\"\nmetadata:\n  node_type: memory\n  type: {kind}\n{group}  modified: 2026-0{}-1{}T10:00:00.000Z\n---\n\nFact {i}: {desc}.\n\n**Why:** it broke in production.\n**How to apply:** every deploy. See [[{kind}-topic{}]].\n",
                1 + i % 9,
                i % 10,
                (i + 1) % ENTRIES
            );
            std::fs::write(dir.join(file), body).unwrap();
        }
    }
    std::fs::write(dir.join("MEMORY.md"), index).unwrap();
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path());
    let load = LoadOptions {
        home: Some(Path::new("/nonexistent-home")),
        ..LoadOptions::default()
    };
    let lib = Library::load(dir.path(), &load).unwrap();
    let opts = Options::default();
    let p = plan::plan(&lib, &opts).unwrap();
    let ok = proof::prove(&lib, &applied(&lib, &p), &p, p.after);
    assert!(ok.ok(), "{ok:?}");
    assert!(p.files.len() > 2, "the plan moves groups: {:?}", p.steps);
    let mut g = c.benchmark_group("tier-2000");
    g.sample_size(20);
    g.bench_function("read", |b| {
        b.iter(|| black_box(Library::load(dir.path(), &load).unwrap()))
    });
    g.bench_function("plan+prove", |b| {
        b.iter(|| {
            let p = plan::plan(&lib, &opts).unwrap();
            let after = applied(&lib, &p);
            black_box(proof::prove(&lib, &after, &p, p.after))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
