//! `ccmem completions SHELL`: the shell completion script for every command and flag
//! (clap_complete), on stdout.

use std::io::Write;

use clap::CommandFactory;

use crate::exit::ExitStatus;

/// Print a completion script for SHELL.
///
/// Install it where the shell looks:
///   bash: ccmem completions bash > ~/.local/share/bash-completion/completions/ccmem
///   zsh:  ccmem completions zsh > ~/.zfunc/_ccmem   (with `fpath+=~/.zfunc` before compinit)
///   fish: ccmem completions fish > ~/.config/fish/completions/ccmem.fish
///   PowerShell: ccmem completions powershell >> $PROFILE
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(super) struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Runs the command.
pub(super) fn run(args: Args) -> anyhow::Result<ExitStatus> {
    anyhow::ensure!(
        !super::output::json(),
        "ccmem completions prints a shell script: it has no JSON form"
    );
    let mut command = super::Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, "ccmem", &mut out);
    out.flush()?;
    Ok(ExitStatus::Clean)
}
