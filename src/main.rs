//! The `ccmem` binary: [`ccmem::cli::main`] and its exit status.
//!
//! std's start-up runs as in any Rust program (SIGPIPE ignored, so a closed pipe is a
//! `BrokenPipe` error, which exits 0; the stack-overflow handler with its message). The hook
//! path once skipped it for a fraction of a millisecond per call; issue 27 measured that beside
//! what it cost (no message on a stack overflow, `unsafe` in the binary) and took it out.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    let status = ccmem::cli::main();
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::process::ExitCode::from(status.code() as u8)
}
