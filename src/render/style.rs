//! The styles of the coloured text views (`anstream` strips them when the output is not a
//! terminal or `NO_COLOR` is set).

use anstyle::{AnsiColor, Style};

pub(crate) const BOLD: Style = Style::new().bold();
pub(crate) const DIM: Style = Style::new().dimmed();
pub(crate) const RED: Style = AnsiColor::Red.on_default().bold();
pub(crate) const YELLOW: Style = AnsiColor::Yellow.on_default();
pub(crate) const GREEN: Style = AnsiColor::Green.on_default();
