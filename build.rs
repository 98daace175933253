//! Links the `ccmem` binary as a position-dependent executable on Linux.
//!
//! ccmem runs once per hook and per `context` call, so process start-up is part of every answer.
//! As a PIE, the dynamic loader applies thousands of relative relocations (vtables and panic
//! locations of every dependency) and dirties pages before `main`; linked with `-no-pie` the
//! linker resolves them once (measured: docs/benchmarks.md).
//!
//! The trade-off: the binary's own code loses address randomization (the stack, heap and
//! shared libraries keep theirs). ccmem never runs with privileges. Build with `CCMEM_PIE=1`
//! to keep a PIE.
//!
//! It also sets `cfg(ccmem_repository)` where the repository's corpora are present (the published
//! crate does not carry them): the unit tests that read them are ignored, visibly, without it.
//! And `cfg(ccmem_has_strace)` where `strace` is on `PATH`: `tests/read_once.rs` counts the
//! files each command opens with it, and is ignored, with that reason, without it.
//!
//! A static build (`scripts/build-static.sh`: `crt-static` and the static relocation model)
//! decides its own linking: `-no-pie` is not added to it (with `crt-static` alone rustc makes a
//! static PIE, which `-no-pie` would break).

fn main() {
    println!("cargo:rustc-check-cfg=cfg(ccmem_repository)");
    if std::path::Path::new("fuzz/vectors/frontmatter.json").exists() {
        println!("cargo:rustc-cfg=ccmem_repository");
    }
    println!("cargo:rustc-check-cfg=cfg(ccmem_has_strace)");
    println!("cargo:rerun-if-env-changed=PATH");
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| dir.join("strace").is_file()) {
        println!("cargo:rustc-cfg=ccmem_has_strace");
    }
    println!("cargo:rerun-if-env-changed=CCMEM_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let pie = std::env::var_os("CCMEM_PIE").is_some_and(|v| v != "0");
    let static_crt = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|x| x == "crt-static"));
    if linux && !pie && !static_crt {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
