//! Planning and proving a 2,000-entry library against reading it (the bound: ≤ 3×).
//!
//! The library is generated here (deterministic): 2,000 topic files with frontmatter in 25
//! groups, a MEMORY.md that lists them all under group headings (CJK in every tenth line,
//! crowns every 50th), far over the client's cap.

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
    let mut index = String::from("# Project memory\n\n");
    for g in 0..GROUPS {
        writeln!(
            index,
            "\n## Group {g} {}",
            if g % 5 == 0 { "日本語" } else { "area" }
        )
        .unwrap();
        for i in (g..ENTRIES).step_by(GROUPS) {
            let kind = ["feedback", "project", "reference", "user"][i % 4];
            let file = format!("{kind}_topic{i}.md");
            let mark = if i % 50 == 0 { "⭐ " } else { "" };
            let desc = if i % 10 == 0 {
                "データベースの移行は必ずステージングで先に確認する"
            } else {
                "retry the webhook with exponential backoff after a deploy"
            };
            writeln!(index, "- {mark}[topic {i}]({file}) — {desc} {i}").unwrap();
            let body = format!(
                "---\nname: topic{i}\ndescription: {desc}\ntype: {kind}\n---\n\nFact {i}: {desc}.\n\n**Why:** it broke in production.\nSee [[topic{}]].\n",
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
    let lib = Library::load(dir.path(), &LoadOptions::default()).unwrap();
    let opts = Options::default();
    let p = plan::plan(&lib, &opts).unwrap();
    assert!(proof::prove(&lib, &applied(&lib, &p), &p, p.after).ok());
    let mut g = c.benchmark_group("tier-2000");
    g.sample_size(20);
    g.bench_function("read", |b| {
        b.iter(|| black_box(Library::load(dir.path(), &LoadOptions::default()).unwrap()))
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
