//! Progress bars for long sweeps: on stderr, and only when stderr is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A counter of steps whose number is not known ahead, hidden like [`bar`].
pub fn spinner(what: &str) -> ProgressBar {
    if super::output::quiet() || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {pos}") {
        bar.set_style(style);
    }
    bar.set_message(what.to_owned());
    bar
}

/// A bar of `len` steps, hidden unless stderr is a terminal, there is more than one step and
/// `-q` was not given.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    if len < 2 || super::output::quiet() || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{msg} {wide_bar} {pos}/{len}") {
        bar.set_style(style);
    }
    bar.set_message(what.to_owned());
    bar
}
