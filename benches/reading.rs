//! Criterion benchmarks of lazy loading: compiling and matching `paths:` pattern lists the
//! client's way, and whole reads against a project with 100 conditional rules.

use std::collections::BTreeMap;
use std::path::Path;

use ccmem::env::{ClientEnv, ClientFlags};
use ccmem::load::rule_paths::{Matcher, is_conditional};
use criterion::{Criterion, criterion_group, criterion_main};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn matching(c: &mut Criterion) {
    let globs: Vec<String> = [
        "src/**/*.{ts,tsx}",
        "lib/[ab]*.py",
        "*.md",
        "!gen/**",
        "/docs/",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    c.bench_function("rule_paths: compile 5 patterns", |b| {
        b.iter(|| Matcher::new(&globs))
    });
    let m = Matcher::new(&globs);
    c.bench_function("rule_paths: match one path (5 patterns)", |b| {
        b.iter(|| m.matched("src/a/b/c/component.tsx"))
    });
    let yaml = "paths:\n  - \"src/**/*.{ts,tsx}\"\n  - lib/{a,b,c}/*.py\n";
    c.bench_function("rule_paths: is_conditional (YAML list, braces)", |b| {
        b.iter(|| is_conditional(Some(yaml)))
    });
}

fn reads(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let cwd = root.join("proj");
    for i in 0..100 {
        let rule =
            format!("---\npaths:\n  - \"src/m{i}/**/*.ts\"\n  - \"*.c{i}\"\n---\nrule {i}\n");
        write(&cwd.join(format!(".claude/rules/r{i}.md")), &rule);
    }
    for i in 0..10 {
        write(&cwd.join(format!("src/m{i}/CLAUDE.md")), "nested\n");
        write(&cwd.join(format!("src/m{i}/deep/f.ts")), "x\n");
    }
    let vars: BTreeMap<String, String> = [("HOME".into(), root.join("home").display().to_string())]
        .into_iter()
        .collect();
    let env = ClientEnv::new(cwd, vars, ClientFlags::default());
    let session = ccmem::load::load_session(&env);
    let files: Vec<String> = (0..10).map(|i| format!("src/m{i}/deep/f.ts")).collect();
    c.bench_function(
        "reading: 10 reads, 100 conditional rules, 10 nested CLAUDE.md",
        |b| b.iter(|| ccmem::load::reading::load(&env, &session, &files)),
    );
}

criterion_group!(benches, matching, reads);
criterion_main!(benches);
