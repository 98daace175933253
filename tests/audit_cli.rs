//! `ccmem audit` and `ccmem explain` as a user runs them: formats, exit codes, config errors.

mod common;

use common::cli::{Run, Test, snapshot};

const CLEAN: &str = "---\nname: a\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n";
const KEY: &str =
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

/// A sandbox whose `mem/` holds `files`.
fn library(files: &[(&str, &str)]) -> Test {
    files
        .iter()
        .fold(Test::new().dir("mem"), |t, (name, text)| {
            t.file(format!("mem/{name}"), text)
        })
}

/// `ccmem ARGS mem` in the library's sandbox.
fn ccmem(args: &[&str], lib: &Test) -> Run {
    lib.ccmem(args).arg("mem").run()
}

/// `ccmem explain ARGS`.
fn explain(args: &[&str]) -> Run {
    Test::new().arg("explain").args(args).run()
}

#[test]
fn exit_codes() {
    let clean = library(&[("MEMORY.md", "- [a](user_a.md)\n"), ("user_a.md", CLEAN)]);
    ccmem(&["audit"], &clean).code(0);
    let warn = library(&[("MEMORY.md", "# I\n"), ("user_a.md", CLEAN)]);
    ccmem(&["audit"], &warn).code(0);
    ccmem(&["audit", "--strict"], &warn).code(1);
    let hard = library(&[("MEMORY.md", "- [a](user_gone.md)\n")]);
    ccmem(&["audit"], &hard).code(1);
    snapshot!(
        "missing_folder",
        hard.ccmem(["audit", "nope"]).run().code(2)
    );
}

#[test]
fn config_in_folder_and_its_errors() {
    let lib = library(&[
        ("MEMORY.md", "- [a](user_a.md)\n"),
        ("user_a.md", CLEAN),
        ("ccmem.toml", "[audit]\nmax-file-lines = 3\n"),
    ]);
    let doc = ccmem(&["audit", "--json"], &lib).json();
    assert_eq!(doc["diagnostics"][0]["rule"], "oversized-file");
    let lib = lib.file("mem/ccmem.toml", "[audit]\nmax-file-line = 3\n");
    snapshot!("config_unknown_key", ccmem(&["audit"], &lib).code(2));
}

#[test]
fn human_output_groups_by_file_and_hides_secrets() {
    let lib = library(&[
        ("MEMORY.md", "# I\n- [a](user_a.md)\n- [x](user_gone.md)\n"),
        ("user_a.md", &format!("{CLEAN}token {KEY}\n")),
    ]);
    // MEMORY.md's broken link is an error, not a memory file's, and never healthy; each
    // finding's fix is printed beside it.
    let out = ccmem(&["audit"], &lib).code(1);
    snapshot!("groups_by_file", out);
    for format in ["human", "json", "sarif", "github"] {
        let out = ccmem(&["audit", "--format", format], &lib);
        assert!(
            !out.stdout().contains("AbCdEf"),
            "secret printed:\n{}",
            out.stdout()
        );
    }
}

#[test]
fn sarif_and_github_formats() {
    let lib = library(&[("MEMORY.md", "# I\n- [x](user_gone.md)\n")]);
    let doc = ccmem(&["audit", "--format", "sarif"], &lib).json();
    let run = &doc["runs"][0];
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        ccmem::rules::of(ccmem::rules::Command::Audit).count()
    );
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "broken-link");
    assert_eq!(
        rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "broken-link"
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        7
    );
    snapshot!(
        "github",
        ccmem(&["audit", "--format", "github"], &lib).code(1)
    );
}

#[test]
fn explain_prints_the_rule_doc() {
    snapshot!("explain_broken_link", explain(&["broken-link"]).code(0));
    let doc = explain(&["bad-file-name", "--json"]).code(0).json();
    assert_eq!(doc["rules"][0]["spec"], "claude-memory-manager", "{doc}");
    snapshot!("explain_unknown", explain(&["nope"]).code(2));
    let out = explain(&[]).code(0);
    assert_eq!(out.stdout().lines().count(), ccmem::rules::RULES.len());
}

#[test]
fn all_sweeps_every_project() {
    let mut t = Test::new();
    for (slug, index) in [
        ("-a", "- [a](user_a.md)\n"),
        ("-b", "- [x](user_gone.md)\n"),
    ] {
        let mem = format!("home/.claude/projects/{slug}/memory");
        t = t
            .file(format!("{mem}/MEMORY.md"), index)
            .file(format!("{mem}/user_a.md"), CLEAN);
    }
    let doc = t.ccmem(["audit", "--all", "--json"]).run().code(1).json();
    assert_eq!(doc["schema"], "ccmem.audit/1");
    assert_eq!(doc["libraries"].as_array().unwrap().len(), 2);
    assert_eq!(doc["libraries"][0]["spec"], "claude-memory-manager");
    assert_eq!(doc["summary"]["files"], 2, "memory files, not MEMORY.md");
    assert_eq!(doc["summary"]["errors"], 1);
    snapshot!("all", t.ccmem(["audit", "--all"]).run().code(1));
}

/// A MEMORY.md of `lines` entries, all pointing at `user_a.md`.
fn over_cap_index(lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("- [a {i}](user_a.md) — fact {i}\n"))
        .collect()
}

/// Entries going dark is an error wherever it is reported (exit 1, `error` in every format,
/// never "healthy"), with `ccmem tier` as the fix printed beside it.
#[test]
fn an_index_over_the_cap_is_an_error_with_ccmem_tier_beside_it() {
    let index = over_cap_index(205);
    let lib = library(&[("MEMORY.md", &index), ("user_a.md", CLEAN)]);
    snapshot!("index_over_cap", ccmem(&["audit"], &lib).code(1));

    let tier = format!("`ccmem tier {}`", "mem");
    let doc = ccmem(&["audit", "--json"], &lib).code(1).json();
    let d = (doc["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["rule"] == "index-over-cap")
        .unwrap();
    assert_eq!(d["severity"], "error", "{d}");
    assert!(d["fix"].as_str().unwrap().contains(&tier), "{d}");
    assert_eq!(doc["summary"]["band"], "marginal", "{doc}");

    let doc = ccmem(&["audit", "--format", "sarif"], &lib).json();
    let run = &doc["runs"][0];
    let r = (run["results"].as_array().unwrap().iter())
        .find(|r| r["ruleId"] == "index-over-cap")
        .unwrap();
    assert_eq!(r["level"], "error", "{r}");
    assert!(
        r["properties"]["fix"].as_str().unwrap().contains(&tier),
        "{r}"
    );
    let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["defaultConfiguration"]["level"], "error", "{rule}");
}

/// An index the client cannot read at all (a FIFO; over 4 MiB) leaves the memory files'
/// score at 100 %, but the library is not healthy.
#[test]
fn an_index_that_does_not_load_is_never_healthy() {
    let fifo = library(&[("user_a.md", CLEAN)]).fifo("mem/MEMORY.md");
    let mut index = over_cap_index(1);
    index.push_str(&"x".repeat(4 << 20));
    let huge = library(&[("user_a.md", CLEAN), ("MEMORY.md", &index)]);
    snapshot!("index_fifo", ccmem(&["audit"], &fifo).code(1));
    snapshot!("index_over_4_mib", ccmem(&["audit"], &huge).code(1));
}

#[test]
fn explain_index_over_cap_says_hard_and_opens_its_fix_with_ccmem_tier() {
    snapshot!(
        "explain_index_over_cap",
        explain(&["index-over-cap"]).code(0)
    );
}

/// Memories as the client writes them (frontmatter with `metadata`), one per language.
fn memory(kind: &str, body: &str) -> String {
    format!(
        "---\nname: {kind}-note\ndescription: d\nmetadata:\n  type: {kind}\n  modified: 2026-11-20T09:00:00.000Z\n---\n\n{body}"
    )
}

/// A project beside its memory: `proj/` holds the code some memories name, `mem/` the memories,
/// with tool-call markup left by writes in four languages and the look-alikes that are not.
fn project_and_memory() -> Test {
    let index = "- [Gradle 캐시](feedback_gradle_cache.md) — 빌드 에러 먼저 캐시 확인\n\
                 - [PR 前チェック](feedback_precommit.md) — EditMode テスト\n\
                 - [Typing](feedback_typing.md) — app/billing is mypy --strict\n\
                 - [Strings](feedback_strings.md) — 문자열은 strings.xml 에만\n\
                 - [Paths](project_paths.md) — where billing code lives\n\
                 - [Карта](reference_karta.md) — где что лежит\n\
                 - [代码地图](reference_code_map.md) — 目录说明\n";
    library(&[
        ("MEMORY.md", index),
        (
            "feedback_gradle_cache.md",
            &memory(
                "feedback",
                "Gradle 캐시가 깨지면 `./gradlew --stop` 후 `~/.gradle/caches` 를 지운다.\n\n\
                 **Why:** 1.4.0 빌드 때 반나절을 코드만 의심하며 보냈다.\n\
                 **How to apply:** 빌드 에러가 코드 변경과 무관해 보이면 먼저 확인한다.\n\
                 </content>\n</invoke>\n",
            ),
        ),
        (
            "feedback_precommit.md",
            &memory(
                "feedback",
                "<parameter name=\"content\">PR を出す前に `Unity -batchmode -runTests` を通す。\n\n\
                 **Why:** Missing 参照のまま main に入り、夜間ビルドが 3 日連続で落ちた。\n\
                 **How to apply:** スクリプトを消したときは特に。\n</parameter>\n",
            ),
        ),
        (
            "feedback_typing.md",
            &memory(
                "feedback",
                "`app/billing/` runs under `mypy --strict` in CI.\n<function_calls>\n\
                 <invoke name=\"Edit\">\n\
                 <parameter name=\"file_path\">/home/mk/.claude/projects/-home-mk-src-ledger-api/memory/feedback_typing.md</parameter>\n\
                 No `Any`, no `# type: ignore` without an error code.\n\n\
                 **Why:** a `Decimal | None` rounded an invoice total to zero.\n\
                 **How to apply:** run `mypy app/billing` before proposing a change there.\n",
            ),
        ),
        (
            "feedback_strings.md",
            &memory(
                "feedback",
                "화면 문자열은 `stringResource(R.string.…)` 로, `<string name=\"…\">` 는 `res/values/strings.xml` 에.\n\n\
                 ```xml\n<string name=\"stats_empty_month\">이번 달은 지출이 없어요</string>\n</content>\n```\n\n\
                 **Why:** 1.3.0 때 영어 번역 누락이 지적됨.\n\
                 **How to apply:** 새 화면 PR 마다 `Text(\"` 를 grep.\n",
            ),
        ),
        (
            "project_paths.md",
            &memory(
                "project",
                "After the October reorganisation:\n\n\
                 - Stripe client wrapper: `app/billing/stripe_client.py`\n\
                 - Old charges flow: `app/billing/charges.py` (read-only until the cutover)\n\
                 - Migrations: `alembic/versions/`\n\
                 - Production config is mounted at `/etc/ledger/config.yaml` on the hosts.\n\
                 - Runbooks: [deploy](../ledger-infra/runbooks/deploy.md), branch `origin/main`\n\n\
                 **Why:** billing was split out of `app/payments/` to own its own migrations.\n",
            ),
        ),
        (
            "reference_karta.md",
            &memory(
                "reference",
                "- Цикл обучения: `src/trainer/loop.py`, загрузка данных: `src/data/shards.py`\n\
                 - Конфиг: `configs/run17.yaml` (наследует `configs/base.yaml`)\n\
                 - Данные на кластере: `/mnt/datasets/ru-web-2026/`, кэш в `~/.cache/huggingface/`\n\
                 - Старый `src/legacy/dataloader.py` удалён в сентябре.\n",
            ),
        ),
        (
            "reference_code_map.md",
            &memory(
                "reference",
                "- 活动页在 `src/packages/activity/double12/`\n\
                 - 旧的支付桥 `src/pay/bridge.ts` 已删除\n\
                 - 模型: `Qwen/Qwen2.5-7B`, 配置 `src/**/*.config.ts`, 每个页面 `src/pages/<name>/index.tsx`\n\
                 - 设计说明: [架构](src/docs/架构.pdf)\n",
            ),
        ),
    ])
    .tree(&[
        ("proj/app/billing/stripe_client.py", "class StripeClient: ...\n"),
        ("proj/alembic/versions/0007_payment_intents.py", "revision = '0007'\n"),
        ("proj/src/data/shards.py", "def shards(): ...\n"),
        ("proj/configs/run17.yaml", "base: base.yaml\n"),
        ("proj/configs/base.yaml", "lr: 3e-4\n"),
        ("proj/app/src/main/res/values/strings.xml", "<resources/>\n"),
        ("proj/src/packages/activity/double12/index.tsx", "export {}\n"),
    ])
}

#[test]
fn stray_tool_tags_and_paths_gone_from_the_project() {
    let t = project_and_memory();
    snapshot!(
        "stray_tool_tag_and_stale_reference",
        t.ccmem(["audit", "--project", "proj", "mem"]).run().code(0)
    );
    // Without a project, paths cannot be verified: none reported.
    let doc = ccmem(&["audit", "--json"], &t).code(0).json();
    let rules: Vec<&str> = (doc["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"stray-tool-tag"), "{rules:?}");
    assert!(!rules.contains(&"stale-reference"), "{rules:?}");
    snapshot!(
        "project_not_a_folder",
        t.ccmem(["audit", "--project", "nope", "mem"]).run().code(2)
    );
}

/// In a project, `ccmem audit` audits the auto-memory folder the client maps it to, and checks
/// the paths its memories name against that project's root.
#[test]
fn the_project_is_the_clients_own_for_its_auto_memory_folder() {
    let t = Test::new();
    let repo = t.path("repo");
    let mem = format!(
        "home/.claude/projects/{}/memory",
        common::slug(&repo.to_string_lossy())
    );
    let t = t
        .file(
            format!("{mem}/MEMORY.md"),
            "- [Карта](reference_karta.md) — где что лежит\n",
        )
        .file(
            format!("{mem}/reference_karta.md"),
            memory(
                "reference",
                "- Цикл обучения: `src/trainer/loop.py`\n- Данные: `src/data/shards.py`\n",
            ),
        )
        .file("repo/src/data/shards.py", "def shards(): ...\n");
    let run = t
        .ccmem(["audit", "--json"])
        .current_dir(&repo)
        .run()
        .code(0);
    let doc = run.json();
    let found: Vec<(&str, &str)> = (doc["diagnostics"].as_array().unwrap().iter())
        .map(|d| (d["rule"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [(
            "stale-reference",
            "`src/trainer/loop.py` does not exist in the project"
        )]
    );
    // The same folder named on the command line is the same project's.
    let dir = t.path(&mem);
    let doc = t
        .ccmem(["audit", "--json"])
        .arg(&dir)
        .current_dir(&repo)
        .run()
        .json();
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 1, "{doc}");
    // Elsewhere it is not: nothing to check the paths against.
    let doc = t.ccmem(["audit", "--json"]).arg(&dir).run().json();
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 0, "{doc}");
}

#[test]
fn explain_the_new_rules() {
    snapshot!(
        "explain_stray_tool_tag",
        explain(&["stray-tool-tag"]).code(0)
    );
    snapshot!(
        "explain_stale_reference",
        explain(&["stale-reference"]).code(0)
    );
}

/// Logs kept as memories, as sessions append them: an English deploy log past the Read tool's
/// token cap (a first page only), a Chinese build log past its byte limit (refused), and a long
/// German runbook that is read whole (only oversized). The oversized-file warning is not repeated
/// for a file too large to read.
#[test]
fn memories_too_large_to_read_whole() {
    let deploy: String = (0..2_026)
        .map(|i| {
            format!(
                "- 2026-{:02}-{:02} 14:{:02} deploy api@{} to prod: ok, p95 {}ms, 0 rollbacks\n",
                1 + i % 12,
                1 + i % 28,
                i % 60,
                1_000 + i,
                180 + i % 90
            )
        })
        .collect();
    let build: String = (0..3_600)
        .map(|i| {
            format!(
                "- 第{i}次构建：依赖缓存命中，单元测试全部通过，耗时{}秒。\n",
                40 + i % 50
            )
        })
        .collect();
    let runbook: String = (0..180)
        .map(|i| format!("{i}. Vor dem Release die Migrationen auf Staging prüfen.\n"))
        .collect();
    let index = "- [Deploy log](project_deploy_log.md) — every prod deploy\n\
                 - [构建记录](project_build_log.md) — CI 构建历史\n\
                 - [Runbook](reference_runbook.md) — Release-Schritte\n";
    let t = library(&[
        ("MEMORY.md", index),
        ("project_deploy_log.md", &memory("project", &deploy)),
        ("project_build_log.md", &memory("project", &build)),
        ("reference_runbook.md", &memory("reference", &runbook)),
    ]);
    snapshot!(
        "too_large_to_read",
        t.ccmem(["audit", "--select", "too-large-to-read,oversized-file"])
            .arg("mem")
            .run()
            .code(1)
    );
}
