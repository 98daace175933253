//! The guard against quadratic behaviour (issue 27): `ccmem audit --json` on a 20,000-file
//! library takes at most 2.5× the time of reading every file of it once. Real libraries have
//! 10–300 files (docs/benchmarks.md times those); this size is only here so that an algorithm
//! that compares every file with every other shows.
//!
//! The library is generated here (hubs, crowns, an index past the client's cut, CJK text,
//! near-duplicates, broken links), the same every run. Both sides run on a warm page cache and
//! each keeps its best of several runs, so a busy machine slows both alike.
//!
//! A timing only means something in an optimised build: under `cargo test` (debug) the test is
//! ignored, with that reason; `cargo test --release --test scaling` runs it (.ci/run does), and
//! `scripts/bench/table.sh` (its third group) holds the same bound on the L corpus against
//! `readall`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Files in the library.
const FILES: usize = 20_000;
/// The bound: audit over reading every file once (the target). A shared, noisy machine
/// (CI) may set `CCMEM_SCALING_BOUND` higher: quadratic behaviour on 20,000 files is a hundred
/// times, not a few, so a looser bound still catches it.
const BOUND: f64 = 2.5;

fn bound() -> f64 {
    std::env::var("CCMEM_SCALING_BOUND")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BOUND)
}

/// A deterministic stream of numbers (a linear congruential generator: no dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next() as usize % from.len()]
    }
}

const WORDS: &[&str] = &[
    "deploy", "cache", "retry", "schema", "token", "review", "branch", "release", "index",
    "client", "server", "queue", "timeout", "build", "test", "lint", "format", "migrate",
    "rollback", "config", "secret", "metric", "alert", "trace", "worker", "batch", "stream",
];
const CJK: &[&str] = &[
    "部署",
    "缓存",
    "重试",
    "数据库",
    "发布",
    "回滚",
    "配置",
    "监控",
];
const TYPES: &[&str] = &["feedback", "reference", "project", "user"];

fn sentence(rng: &mut Rng, cjk: bool) -> String {
    let n = 6 + rng.next() as usize % 10;
    let words: Vec<&str> = (0..n)
        .map(|_| if cjk { rng.pick(CJK) } else { rng.pick(WORDS) })
        .collect();
    words.join(if cjk { "" } else { " " }) + if cjk { "。" } else { "." }
}

/// Writes the library into `dir`: `FILES` topic files in groups of 16, each group behind a hub
/// file, and a MEMORY.md of crowns plus one pointer line per group (past the 200-line cut).
fn generate(dir: &Path) {
    let mut rng = Rng(27);
    let mut index = String::from("# Memory\n\n## Crowns\n");
    let groups = FILES / 16;
    let mut written = 0;
    for g in 0..groups {
        let group = format!("{}{g}", rng.pick(WORDS));
        let mut hub = format!(
            "---\nname: {group} hub\ndescription: the {group} entries\ntype: reference\n---\n\n"
        );
        for k in 0..15 {
            let kind = TYPES[(g + k) % TYPES.len()];
            let name = format!("{kind}_{group}_{k}.md");
            let cjk = rng.next() % 10 < 4;
            let mut body = format!(
                "---\nname: {group} {k}\ndescription: {}\ntype: {kind}\nmodified: 2026-0{}-1{}\n---\n\n",
                sentence(&mut rng, false),
                1 + g % 9,
                k % 10
            );
            let paragraphs = 2 + rng.next() as usize % 4;
            for _ in 0..paragraphs {
                body.push_str(&sentence(&mut rng, cjk));
                body.push_str("\n\n");
            }
            if kind == "feedback" && !rng.next().is_multiple_of(8) {
                body.push_str("## Why\n\n");
                body.push_str(&sentence(&mut rng, cjk));
                body.push('\n');
            }
            if rng.next().is_multiple_of(200) {
                body.push_str("See [gone](reference_gone.md).\n");
            }
            std::fs::write(dir.join(&name), &body).unwrap();
            // One in 50 has a copy with one word added: a near-duplicate.
            if rng.next().is_multiple_of(50) {
                let copy = body.replacen(' ', " very ", 1);
                std::fs::write(dir.join(format!("{kind}_{group}_{k}_copy.md")), copy).unwrap();
                written += 1;
            }
            hub.push_str(&format!(
                "- [{group} {k}]({name}) — {}\n",
                sentence(&mut rng, false)
            ));
            written += 1;
        }
        let hub_name = format!("reference_{group}_hub.md");
        std::fs::write(dir.join(&hub_name), hub).unwrap();
        written += 1;
        if g < 12 {
            index.push_str(&format!(
                "- [{group}]({hub_name}) — crown: {}\n",
                sentence(&mut rng, false)
            ));
        } else {
            index.push_str(&format!("- [{group}]({hub_name}) — 15 entries\n"));
        }
    }
    while written < FILES {
        let name = format!("project_extra_{written}.md");
        let body = format!(
            "---\nname: extra {written}\ndescription: d\ntype: project\n---\n\n{}\n",
            sentence(&mut rng, false)
        );
        std::fs::write(dir.join(name), body).unwrap();
        written += 1;
    }
    std::fs::write(dir.join("MEMORY.md"), index).unwrap();
}

/// The files of `dir`, each read once, whole: what any tool must at least do.
fn read_all(dir: &Path) -> usize {
    let mut bytes = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        bytes += std::fs::read(e.unwrap().path()).unwrap().len();
    }
    bytes
}

fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a timing: only meaningful optimised, run `cargo test --release --test scaling`"
)]
fn audit_of_20000_files_is_within_2_5x_of_reading_them_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir: PathBuf = tmp.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    generate(&dir);
    let bin = env!("CARGO_BIN_EXE_ccmem");
    let audit = || {
        let status = Command::new(bin)
            .args(["audit", dir.to_str().unwrap(), "--json"])
            .env("CCMEM_NOW", "2026-12-01T00:00:00Z")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        // 1: findings (the library has planted ones); anything else is a failure.
        assert_eq!(status.code(), Some(1), "ccmem audit failed");
    };
    assert!(read_all(&dir) > 0);
    audit();
    let read = best(5, || {
        read_all(&dir);
    });
    let took = best(5, audit);
    let ratio = took.as_secs_f64() / read.as_secs_f64();
    let bound = bound();
    eprintln!(
        "audit {took:?} vs reading every file once {read:?}: {ratio:.2}× (target {BOUND}×, \
         bound here {bound}×)"
    );
    assert!(
        ratio <= bound,
        "audit of {FILES} files took {ratio:.2}× reading them once (bound {bound}×)"
    );
}
