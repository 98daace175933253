//! Every limit of the client (Claude Code 2.1.332) that ccmem copies, once, named, with the
//! place it was found: the `SPEC-*.md` rule (`tests/oracle/`, from `/work/shared/oracle/`) and
//! the minified name in the client's bundle. Then ccmem's own margins below those limits, which
//! are defaults of `ccmem.toml` and of the hooks.
//!
//! Units are in the names: `_UTF16` is UTF-16 code units (JavaScript `String.length`, what the
//! client counts for every text limit), `_BYTES` is bytes, `_LINES` is lines counted the client's
//! way (`"\n"` count + 1 of the trimmed text, SPEC-automemory 7.2). A limit the client words as
//! "characters" is still counted in UTF-16 units: that is what its `length` returns.
//!
//! A value is added here when a second module would otherwise type it again; the module that
//! copies the client function keeps the logic and documents the quirk.

// ---- The client (see `env` for what it sees at run time) ---------------------------------------

/// The client version ccmem models, as a macro for the places that need a literal
/// (`concat!` in clap's help text); everywhere else, [`CLIENT_VERSION`].
macro_rules! client_version {
    () => {
        "2.1.332"
    };
}
pub(crate) use client_version;

/// The client version this model reproduces.
pub const CLIENT_VERSION: &str = client_version!();

// ---- Names the client reads (SPEC-instructions §2, §7, §8; SPEC-automemory §2) ---------------
//
// Exact case: the client matches these names as written (`claude.md` is ignored,
// SPEC-instructions §2). Each name is written once, in a macro, so that the paths made of two
// of them are constants too.

macro_rules! claude_md {
    () => {
        "CLAUDE.md"
    };
}
macro_rules! claude_dir {
    () => {
        ".claude"
    };
}
macro_rules! rules_dir {
    () => {
        "rules"
    };
}

/// The project instruction file, in each ancestor and in its `.claude/` folder, the user's in
/// the config folder and the managed one (SPEC-instructions §2 items 1–3).
pub const CLAUDE_MD: &str = claude_md!();
/// The private project instruction file beside it, not checked in (SPEC-instructions §2 item 4).
pub const CLAUDE_LOCAL_MD: &str = "CLAUDE.local.md";
/// The instruction file of other agents, read when no CLAUDE.md is beside it
/// (SPEC-instructions §8).
pub const AGENTS_MD: &str = "AGENTS.md";
/// The folder of a project's client files: `.claude/CLAUDE.md`, `rules/`, settings, agents.
pub const CLAUDE_DIR: &str = claude_dir!();
/// The rules folder inside [`CLAUDE_DIR`] and the config folder (SPEC-instructions §7).
pub const RULES_DIR: &str = rules_dir!();
/// [`CLAUDE_MD`] inside [`CLAUDE_DIR`], relative to a project folder.
pub const CLAUDE_DIR_CLAUDE_MD: &str = concat!(claude_dir!(), "/", claude_md!());
/// [`RULES_DIR`] inside [`CLAUDE_DIR`], relative to a project (or the managed) folder.
pub const CLAUDE_DIR_RULES: &str = concat!(claude_dir!(), "/", rules_dir!());
/// The settings file of the user (in the config folder) and of a project (in its
/// [`CLAUDE_DIR`]): `userSettings`, `projectSettings`.
pub const SETTINGS_FILE: &str = "settings.json";
/// A project's private settings file, in its [`CLAUDE_DIR`] (`localSettings`).
pub const LOCAL_SETTINGS_FILE: &str = "settings.local.json";
/// The managed policy file in the managed folder (`policySettings`, `tyt`).
pub const MANAGED_SETTINGS_FILE: &str = "managed-settings.json";
/// The folder of managed policy drop-ins beside it (`tyt`).
pub const MANAGED_SETTINGS_DIR: &str = "managed-settings.d";
/// The folder of per-project state under the config folder: `projects/<slug>/`
/// (SPEC-automemory §2).
pub const PROJECTS_DIR: &str = "projects";

// ---- Auto memory: the index (SPEC-automemory §0, §7, §12) ------------------------------------

/// The index file name, exact case (`sy` / `OI`, SPEC-automemory §0).
pub const INDEX_FILE: &str = "MEMORY.md";
/// The memory folder's name under `<config>/projects/<slug>/` (`Bg`, SPEC-automemory §0, §2).
pub const MEMORY_DIR: &str = "memory";
/// Lines of MEMORY.md the client loads; line 201 on is cut (`eV`, SPEC-automemory §0, §7).
pub const INDEX_MAX_LINES: usize = 200;
/// UTF-16 units of MEMORY.md the client loads (`zye`, SPEC-automemory §0, §7).
pub const INDEX_MAX_UTF16: usize = 25_000;
/// Bytes the write-time check of the index reads (`u1s` = 4 · `zye`, SPEC-automemory §12.2).
pub const WRITE_CHECK_READ_BYTES: usize = 100_000;
/// The write-time check warns from this fraction of a limit on (`F8r`, SPEC-automemory §12.3).
pub const WRITE_CHECK_WARN_FRACTION: f64 = 0.8;
/// The fraction of a limit the client tells the model to compact to (`Ume`, SPEC-automemory
/// §12.4: "under 140 lines" / "under 17.1KB").
pub const INDEX_TARGET_FRACTION: f64 = 0.7;
/// Length of the preview of the first cut line in the client's warning (`PW(L, 80)`,
/// SPEC-automemory §0, §8).
pub const CUT_PREVIEW_UTF16: usize = 80;
/// The length the client asks index lines to stay under: "Each entry should be one line, under
/// ~150 characters: `- [Title](file.md) — one-line hook`" (system prompt, `fo` "Step 2",
/// SPEC-automemory §11.2). Guidance to the model, never enforced by the client.
pub const INDEX_LINE_GUIDE_UTF16: usize = 150;
/// The length past which the client calls an index line too long: "Keep index entries to one
/// line under ~200 chars" (the cut warning, `HMo`, SPEC-automemory §8) and "if an index line is
/// over ~200 chars, it's carrying content that belongs in the topic file" (its consolidation
/// prompt).
pub const INDEX_LINE_LONG_UTF16: usize = 200;

// ---- Auto memory: topic files and the backfill (SPEC-automemory §4, §11, §13) ----------------

/// The memory types the client's write spec names, in its order (`GLs`, SPEC-automemory §11.2).
pub const MEMORY_TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];
/// The client's tag its writer puts under `metadata:` (`node_type: memory`, SPEC-automemory §13.1).
pub const NODE_TYPE_MEMORY: &str = "memory";
/// The variable the client sets to its session id in the environment of the commands it runs
/// (`kut`: `CLAUDE_CODE_SESSION_ID: e.sessionId`); its writer stamps the same id as
/// `metadata.originSessionId` (`AEr`, SPEC-automemory §13.1).
pub const SESSION_ID_ENV: &str = "CLAUDE_CODE_SESSION_ID";
/// Top folders the backfill never indexes (`EEr`, SPEC-automemory §4).
pub const BACKFILL_EXCLUDED: [&str; 4] = ["team", "logs", "sessions", "proposals"];
/// Line cap of the generated index (`rQr` = ⌊200 · 0.7⌋, SPEC-automemory §0, §4).
pub const BACKFILL_MAX_LINES: usize = 140;
/// Size cap of the generated index (`sQr` = ⌊25000 · 0.7⌋, SPEC-automemory §0, §4).
pub const BACKFILL_MAX_UTF16: usize = 17_500;
/// Width budget of one generated index line (`oQr`, SPEC-automemory §0, §4).
pub const BACKFILL_LINE_BUDGET_UTF16: usize = 150;
/// Project folder names are cut past this length (`jae`, SPEC-automemory §0, §2).
pub const SLUG_MAX_UTF16: usize = 200;

// ---- Instruction files (SPEC-instructions §4, §5, §13; SPEC-reading §3) -----------------------

/// Largest file the client reads, for instruction files and MEMORY.md alike; a file of exactly
/// this size still loads, a bigger one is skipped whole, never cut (`oln`, SPEC-instructions
/// §4, §13; SPEC-automemory §0, §3).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Imports of depth ≥ this are dropped: four hops load (`lfs`, SPEC-instructions §5, §13).
pub const MAX_IMPORT_DEPTH: usize = 5;
/// The @import hops that load, as messages word the depth limit: one fewer than the depth at
/// which imports are dropped.
pub const MAX_IMPORT_HOPS: usize = MAX_IMPORT_DEPTH - 1;
/// Most patterns one rule `paths:` value may brace-expand to (`ku`, SPEC-instructions §13).
pub const BRACE_BUDGET_RESULTS: i64 = 1_000;
/// Most UTF-16 units one rule `paths:` value may brace-expand to (`Ru`, SPEC-instructions §13).
pub const BRACE_BUDGET_UTF16: i64 = 4_194_304;
/// Per-file size of an instruction file the client warns about, "chars" (`EQr`, for the
/// default 200,000-token context, SPEC-instructions §13).
pub const INSTRUCTION_WARN_UTF16: usize = 40_000;
/// Total size of the instruction files the client warns about (`vQr`, SPEC-instructions §13).
pub const INSTRUCTION_TOTAL_WARN_UTF16: usize = 120_000;
/// The per-file warning is `max(INSTRUCTION_WARN_UTF16, round(context tokens × this × chars
/// per token))` (`Wvt`: `TQr`; chars per token `Hw` is 4 for models up to Claude 4.6, else 3),
/// and the total one `max(INSTRUCTION_TOTAL_WARN_UTF16, per-file)` (`RQr`), SPEC-instructions
/// §13.
pub const INSTRUCTION_WARN_CONTEXT_SHARE: f64 = 0.05;
/// The context window the client assumes when it knows none (`nDt`, SPEC-instructions §13).
pub const DEFAULT_CONTEXT_TOKENS: u64 = 200_000;
/// A lazily attached file longer than this is cut (`Wvt` for the default model of 2.1.332: a
/// 1M-token window × 0.05 × 3 chars per token; SPEC-reading §4, measured).
pub const LAZY_FILE_LIMIT_UTF16: usize = 150_000;

// ---- Session shapes: subagents, compaction, reads through Bash (SPEC-agents, SPEC-compaction) --

/// Longest agent name the client accepts, in UTF-16 units (`bU` in `Bfo`, SPEC-agents 2.1).
pub const AGENT_NAME_MAX_UTF16: usize = 256;
/// The folder of custom agent definitions, under the config dir and each `.claude` folder
/// (`aUn`'s sources, SPEC-agents 2.1).
pub const AGENTS_DIR: &str = "agents";
/// The parent of a subagent's project and user memory folders (`VLs`, SPEC-agents 3.1).
pub const AGENT_MEMORY_DIR: &str = "agent-memory";
/// The parent of a subagent's local memory folders (`VLs`, SPEC-agents 3.1).
pub const AGENT_MEMORY_LOCAL_DIR: &str = "agent-memory-local";
/// The variable that moves the memory folders of a remote session: the main one's `<base>`
/// (SPEC-automemory §2, rule 3) and subagents' user and local folders (`VLs`, SPEC-agents 3.1).
pub const REMOTE_MEMORY_DIR_ENV: &str = "CLAUDE_CODE_REMOTE_MEMORY_DIR";
/// Files a compaction restores at most, newest first (`Jbt`, SPEC-compaction A4.3).
pub const RESTORE_MAX_FILES: usize = 5;
/// Estimated tokens one restored file may hold; a larger one is left out, not cut (`Zbt`,
/// SPEC-compaction A4.4).
pub const RESTORE_FILE_MAX_TOKENS: usize = 5_000;
/// Estimated tokens all restored files may hold together, counted on each attachment's JSON
/// (`Svs`, SPEC-compaction A4.5).
pub const RESTORE_TOTAL_MAX_TOKENS: usize = 50_000;
/// Largest file, in bytes on disk, the Read tool shows without `allow_large`; a bigger one is
/// refused whole (`maxSizeBytes`, `N7t` in `PB`; `tests/fixtures/read-limits/`).
pub const READ_MAX_BYTES: usize = 262_144;
/// Most tokens the Read tool shows without `allow_large`; past it the model gets a first page
/// (`maxTokens`, `esa` in `PB`, unless `CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS` says otherwise;
/// `tests/fixtures/read-limits/`).
pub const READ_MAX_TOKENS: usize = 25_000;
/// Characters per estimated token (`C` in `Wl`: `round(length / 4)`, SPEC-compaction A4.4).
pub const CHARS_PER_TOKEN: usize = 4;
/// Characters per estimated token for `.json`, `.jsonl` and `.jsonc` files (`O` in `lzn`,
/// SPEC-compaction A4.4).
pub const CHARS_PER_TOKEN_JSON: usize = 2;
/// Longest Bash command the client parses for reads, in UTF-16 units; a longer one is never a
/// read (`pP`, SPEC-compaction B2).
pub const BASH_PARSE_MAX_UTF16: usize = 10_000;
/// Lines `head` and `tail` show without `-n` (`C8i`, `A8i`, SPEC-compaction B2).
pub const BASH_DEFAULT_LINES: usize = 10;
/// Largest file a Bash read is recorded for (`qQo`, SPEC-compaction B3).
pub const BASH_READ_MAX_BYTES: u64 = 10_485_760;
/// Longest path operand the client considers, in UTF-16 units (`xk`, SPEC-compaction B3).
pub const PATH_MAX_UTF16: usize = 4_096;

// ---- Settings files (`vx`, `TA`, `xje`; see `crate::settings`) ------------------------------

/// The largest settings file the client loads, in bytes: one more and it loads none of it
/// (`$m`, read by `vx` through `yW`; measured with 2.1.332: 2,097,152 bytes load, 2,097,153 do
/// not; case `mem-off-setting-over-size-limit`).
pub const MAX_SETTINGS_BYTES: u64 = 2 * 1024 * 1024;
/// The nesting depth of the copy of a settings document the client validates: a container
/// inside one this deep (the root is 1) is cut (`xje`'s default depth `ue`).
pub const SETTINGS_COPY_MAX_DEPTH: usize = 64;
/// Containers `xje` copies before it gives up on a document (`mr`, a `RangeError`: the file is
/// not loaded); a file the client reads holds fewer (each takes at least its two brackets), so
/// ccmem never meets the limit.
pub const SETTINGS_COPY_MAX_CONTAINERS: u64 = 2_000_000;

// ---- ccmem's margins below the client's limits (defaults; `ccmem.toml` overrides) ------------

/// Lines past which ccmem warns that MEMORY.md is close to its cut (`index-over-safety-line`,
/// the hooks): ten lines of room below [`INDEX_MAX_LINES`].
pub const SAFETY_LINES: usize = 190;
/// UTF-16 units past which ccmem warns that MEMORY.md is close to its cut: 2,000 units of room
/// below [`INDEX_MAX_UTF16`].
pub const SAFETY_UTF16: usize = 23_000;
/// Lines `tier` slims MEMORY.md to, and past which `index-over-target-line` reports: room for
/// months of new entries below the cut.
pub const TARGET_LINES: usize = 120;
/// UTF-16 units `tier` slims MEMORY.md to (see [`TARGET_LINES`]).
pub const TARGET_UTF16: usize = 16_000;

// ---- Limits in words -------------------------------------------------------------------------
//
// A message that names a limit prints it from its constant through these, so the words cannot
// drift from the value: `{MAX_FILE_SIZE}` is "4 MiB", `{}` of `Count(INDEX_MAX_UTF16)` "25,000".

/// A size in bytes as a message words a limit: a whole number of MiB as `4 MiB`, else
/// `N bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const MIB: u64 = 1024 * 1024;
        match self.0 {
            n if n >= MIB && n.is_multiple_of(MIB) => write!(f, "{} MiB", n / MIB),
            n => write!(f, "{n} bytes"),
        }
    }
}

/// A count with a comma every three digits, as the client's `toLocaleString` writes it:
/// `12345` → `12,345`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count(pub usize);

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.0.to_string();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// `n` things in words, grouped as [`Count`] and in the singular for one: `1 file`,
/// `2 files`, `12,345 lines`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", Count(n), if n == 1 { one } else { many })
}

/// [`MAX_FILE_BYTES`] in words: `4 MiB`.
pub const MAX_FILE_SIZE: Bytes = Bytes(MAX_FILE_BYTES);
/// [`INDEX_MAX_UTF16`] in words: `25,000`.
pub const INDEX_MAX_UTF16_WORDS: Count = Count(INDEX_MAX_UTF16);

// The derived limits follow the client's formulas, and the margins sit below the limits they
// guard: checked by the compiler.
const _: () = {
    assert!(WRITE_CHECK_READ_BYTES == 4 * INDEX_MAX_UTF16);
    assert!(BACKFILL_MAX_LINES == INDEX_MAX_LINES * 7 / 10);
    assert!(BACKFILL_MAX_UTF16 == INDEX_MAX_UTF16 * 7 / 10);
    assert!(BRACE_BUDGET_UTF16 == MAX_FILE_BYTES as i64);
    assert!(TARGET_LINES < SAFETY_LINES && SAFETY_LINES < INDEX_MAX_LINES);
    assert!(TARGET_UTF16 < SAFETY_UTF16 && SAFETY_UTF16 < INDEX_MAX_UTF16);
    assert!(INDEX_LINE_GUIDE_UTF16 < INDEX_LINE_LONG_UTF16);
    assert!(MAX_SETTINGS_BYTES / 2 < SETTINGS_COPY_MAX_CONTAINERS);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_fraction_is_the_one_the_backfill_caps_use() {
        let target = |n: usize| (n as f64 * INDEX_TARGET_FRACTION).floor() as usize;
        assert_eq!(BACKFILL_MAX_LINES, target(INDEX_MAX_LINES));
        assert_eq!(BACKFILL_MAX_UTF16, target(INDEX_MAX_UTF16));
    }

    #[test]
    fn limits_are_worded_from_their_values() {
        assert_eq!(MAX_FILE_SIZE.to_string(), "4 MiB");
        assert_eq!(Bytes(MAX_SETTINGS_BYTES).to_string(), "2 MiB");
        assert_eq!(Bytes(MAX_FILE_BYTES + 1).to_string(), "4194305 bytes");
        assert_eq!(Bytes(512).to_string(), "512 bytes");
        assert_eq!(INDEX_MAX_UTF16_WORDS.to_string(), "25,000");
        for (n, words) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(Count(n).to_string(), words);
        }
    }
}
