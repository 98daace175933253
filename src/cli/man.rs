//! `ccmem man [COMMAND]`: the manual page (roff, from the same clap definitions as `--help`,
//! by clap_mangen), on stdout: `ccmem man | man -l -`, or installed as ccmem.1.

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;

use crate::exit::ExitStatus;

/// Print the manual page of ccmem, or of one of its commands (ccmem-COMMAND(1)).
///
/// Read it with `ccmem man | man -l -`; install it with
/// `ccmem man > ~/.local/share/man/man1/ccmem.1` (and `ccmem man receipt > …/ccmem-receipt.1`).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(super) struct Args {
    /// A command (e.g. `receipt`, `hook install`); default: ccmem itself.
    #[arg(value_name = "COMMAND", num_args = 0..)]
    command: Vec<String>,
}

/// Runs the command.
pub(super) fn run(args: Args) -> anyhow::Result<ExitStatus> {
    anyhow::ensure!(
        !super::output::json(),
        "ccmem man prints a roff manual page: it has no JSON form"
    );
    let mut command = super::Cli::command();
    command.build();
    let mut name = String::from("ccmem");
    for word in &args.command {
        command = command
            .find_subcommand(word)
            .cloned()
            .with_context(|| format!("{name} has no command {word:?} (see `{name} --help`)"))?;
        name = format!("{name}-{word}");
    }
    let command = command.display_name(name.clone());
    let mut page = Vec::new();
    // The source field ("ccmem 0.1.0"): clap_mangen would build it from the subcommand's own
    // name and version, which subcommands do not carry ("tier ").
    clap_mangen::Man::new(command)
        .title(name)
        .source(format!("ccmem {}", env!("CARGO_PKG_VERSION")))
        .render(&mut page)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(ExitStatus::Clean)
}
