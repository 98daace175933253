//! Criterion benchmark of the simulated client on a realistic project (10 ancestors, rules,
//! 20 imports, a 190-line MEMORY.md): the whole startup load plus rendering the reminder.

use std::collections::BTreeMap;

use ccmem::env::{ClientEnv, ClientFlags};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/project.rs"]
mod project;

fn loader(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let (cwd, home) = project::build(tmp.path());
    let vars: BTreeMap<String, String> = [("HOME".to_owned(), home.to_string_lossy().into_owned())]
        .into_iter()
        .collect();
    let env = ClientEnv::new(cwd, vars, ClientFlags::default());
    c.bench_function(
        "load_session + render (10 ancestors, 20 imports, 190-line MEMORY.md)",
        |b| {
            b.iter(|| {
                let session = ccmem::load::load_session(&env);
                ccmem::load::reminder::startup(&session.entries)
            })
        },
    );
}

criterion_group!(benches, loader);
criterion_main!(benches);
