//! Where `ccmem tier`'s dry run spends its time, phase by phase, on a library folder:
//! reading it, planning, applying the plan in memory, the audit and the invariants.
//!
//!     cargo run --release --example tier_phases -- DIR [RUNS]
#![allow(clippy::disallowed_methods, reason = "a measuring tool")]

use std::path::Path;
use std::time::{Duration, Instant};

use ccmem::memory::Library;
use ccmem::tier::proof::Baseline;
use ccmem::tier::{Options, applied, plan};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(&args[1]);
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(10);
    let mut t: [Vec<Duration>; 5] = Default::default();
    for _ in 0..runs {
        let s = Instant::now();
        let lib = Library::load_configured(dir, ccmem::config::Config::default(), None).unwrap();
        t[0].push(s.elapsed());
        let s = Instant::now();
        let p = plan::plan(&lib, &Options::default()).unwrap();
        t[1].push(s.elapsed());
        let s = Instant::now();
        let after = applied(&lib, &p);
        t[2].push(s.elapsed());
        let s = Instant::now();
        let (baseline, audited) = Baseline::with_audit(&lib, &after);
        t[3].push(s.elapsed());
        let s = Instant::now();
        let proof = baseline.prove(&after, &audited, &p, p.after);
        t[4].push(s.elapsed());
        assert!(proof.checks.len() == 5);
    }
    let names = ["load", "plan", "apply", "audit", "invariants"];
    let med = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    let m: Vec<f64> = t.iter_mut().map(med).collect();
    for (n, x) in names.iter().zip(&m) {
        print!("{n} {x:.1} ms  ");
    }
    println!(
        "| plan+prove {:.1} ms = {:.2}x load",
        m[1] + m[2] + m[3] + m[4],
        (m[1] + m[2] + m[3] + m[4]) / m[0]
    );
}
