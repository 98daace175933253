//! The client's own size warnings, as `ccmem receipt` words them, against what the client's
//! `/status` showed for the same files (`tests/oracle/size-warnings/`, captured from 2.1.332 by
//! `capture.py` there): which files count, which sum is compared, which figures are printed,
//! how paths and numbers are shown. A case's `receipt_args` give the model the client used
//! (`--context-window`, `--chars-per-token`; none: the default, claude-sonnet-4-5's).

mod common;

use common::{Case, cases, check_all, materialize};
use serde_json::Value;

fn compare(case: &Case) -> Option<String> {
    let m = materialize(case);
    let mut args: Vec<String> = vec!["receipt".into(), "--json".into()];
    if let Some(extra) = case.spec.get("receipt_args").and_then(Value::as_array) {
        args.extend(extra.iter().filter_map(|v| v.as_str().map(str::to_owned)));
    }
    let (out, stderr, _) = m.ccmem(&args);
    let Ok(receipt) = serde_json::from_str::<Value>(&out) else {
        return Some(format!("{}: no JSON receipt\n{out}\n{stderr}", case.name));
    };
    if case.spec["loads_memory"] == Value::Bool(true)
        && !receipt["loaded"]
            .as_array()
            .is_some_and(|l| l.iter().any(|e| e["kind"] == "auto-mem"))
    {
        return Some(format!("{}: the case needs MEMORY.md to load", case.name));
    }
    let got: String = receipt["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|w| format!("{w}\n"))
        .collect();
    (got != case.expected).then(|| {
        format!(
            "{}\n--- client\n{}--- ccmem\n{got}",
            case.name, case.expected
        )
    })
}

#[test]
fn size_warnings_match_the_clients_status() {
    check_all(&cases(&["size-warnings"]), compare);
}
