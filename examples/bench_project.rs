//! Writes the loader benchmark's project into DIR and prints `CWD\tHOME`, for the
//! whole-process comparison in `scripts/bench/loader.sh`.

#[path = "../benches/support/project.rs"]
mod project;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: bench_project DIR");
    let (cwd, home) = project::build(std::path::Path::new(&dir));
    println!("{}\t{}", cwd.display(), home.display());
}
