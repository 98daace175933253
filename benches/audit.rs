//! `ccmem audit` on generated libraries of 256, 2,000 and 20,000 files (the S, M and L corpora
//! of `../shared/bench/gen_corpus.py`), generated into `target/bench-corpus/` on first use
//! (never committed). Set `CCMEM_GEN_CORPUS` to the generator's path if it is elsewhere; without
//! python3 or the generator the bench says so and measures nothing.
//!
//! Whole-process comparisons (against `cat` of every file, and the bash audit script) are in
//! `scripts/bench/audit.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

use ccmem::memory::{Library, LoadOptions, similar};
use ccmem::rules::run::audit;
use criterion::{Criterion, criterion_group, criterion_main};

fn generator() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("CCMEM_GEN_CORPUS")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            manifest.join("../shared/bench/gen_corpus.py"),
            manifest.join("../../shared/bench/gen_corpus.py"),
        ])
        .find(|p| p.is_file())
}

/// The library folder of corpus `name`, generating it when missing.
fn corpus(name: &str) -> Option<PathBuf> {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpus");
    let dir = out.join(name).join("memory");
    if dir.join("MEMORY.md").is_file() {
        return Some(dir);
    }
    let Some(script) = generator() else {
        eprintln!("bench: gen_corpus.py not found (set CCMEM_GEN_CORPUS); skipping {name}");
        return None;
    };
    let status = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(&out)
        .args(["--only", name])
        .status()
        .ok()?;
    status.success().then_some(dir)
}

fn bench(c: &mut Criterion) {
    let now = jiff::Timestamp::now();
    let mut group = c.benchmark_group("audit");
    group.sample_size(10);
    for (name, files) in [("S", 256), ("M", 2_000), ("L", 20_000)] {
        let Some(dir) = corpus(name) else { continue };
        group.bench_function(format!("{files}-files"), |b| {
            b.iter(|| {
                let lib = Library::load(&dir, &LoadOptions::default()).expect("library loads");
                audit(lib, now).expect("audit runs")
            })
        });
    }
    group.finish();
}

/// The `near-duplicate` rule's two halves on the 20,000-file library: the signature of every
/// memory (one thread), then the LSH clustering of the signatures (on the thread pool).
fn near_duplicate(c: &mut Criterion) {
    let Some(dir) = corpus("L") else { return };
    let lib = Library::load(&dir, &LoadOptions::default()).expect("library loads");
    let mut group = c.benchmark_group("near-duplicate");
    group.sample_size(10);
    let signatures = || {
        lib.files
            .iter()
            .map(|f| similar::of_memory(f))
            .collect::<Vec<_>>()
    };
    group.bench_function("signatures-20000-files", |b| b.iter(signatures));
    let sigs = signatures();
    let sigs: Vec<Option<&similar::Signature>> = sigs.iter().map(Option::as_ref).collect();
    group.bench_function("clusters-20000-files", |b| {
        b.iter(|| similar::clusters(&sigs, 0.8))
    });
    group.finish();
}

/// Reading the frontmatter of every file of the 20,000-file library (`memory::meta::parse`, what
/// the load does with each text once it is read and checked), one thread.
fn frontmatter(c: &mut Criterion) {
    let Some(dir) = corpus("L") else { return };
    let lib = Library::load(&dir, &LoadOptions::default()).expect("library loads");
    let texts: Vec<&str> = lib.files.iter().filter_map(|f| f.text()).collect();
    let mut group = c.benchmark_group("frontmatter");
    group.sample_size(20);
    group.bench_function("meta-20000-files", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| ccmem::memory::meta::parse(t))
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench, near_duplicate, frontmatter);
criterion_main!(benches);
