use std::process::ExitCode;

fn main() -> ExitCode {
    let status = ccmem::cli::main();
    ExitCode::from(status.code() as u8)
}
