//! `missing-how-to-apply` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule, labels};

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` memory without a How to apply part, which the client's template asks
    /// for after the **Why:** line: "for feedback/project types, structure as: rule/fact, then
    /// **Why:** and **How to apply:** lines". It counts in any form and language: a heading, a
    /// bold or plain label, a list item (`- **How to apply**: …`), `**Cómo aplicarlo:**`,
    /// `**Wie anwenden:**`, `**적용:**` …. A `project` memory records a fact or a decision whose
    /// scope is the project: it is not asked for one. Nor is a rule that already says when or
    /// where it applies, as a careful curator reads it: a clause that opens with a condition or
    /// a moment ("After `makemigrations`, …", "Se o build quebrar, …", "빌드할 때 …") or a path
    /// in a code span ("values go in `k8s/charts/<chart>/values-<env>.yaml`").
    ///
    /// ## Why it matters
    /// The rule says what; How to apply says when and where it kicks in. Without it the model
    /// has to guess the scope of a lesson, and applies it too widely or not at all.
    ///
    /// ## Example
    /// ```markdown
    /// Integration tests hit a real database.
    ///
    /// **Why:** mocked tests passed while the prod migration failed.
    /// ```
    ///
    /// ## Fix
    /// Add `**How to apply:** any test under tests/integration/; unit tests may mock.`
    pub const RULE = ("missing-how-to-apply", Soft, Client, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let Some((text, parsed)) = ctx.memory_text(i) else {
        return;
    };
    if file.kind() != Some("feedback") {
        return;
    }
    let body = &text[parsed.body_start..];
    if !labels::has_how_to_apply(body) && !labels::names_its_scope(body) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            "feedback memory does not say when it applies: add a **How to apply:** line".to_owned(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    #[test]
    fn vectors() {
        let client = |kind: &str, body: &str| {
            format!("---\nname: x\ndescription: d\nmetadata:\n  type: {kind}\n---\n{body}\n")
        };
        let f = Fixture::new(&[
            (
                "feedback_ok.md",
                &client("feedback", "R.\n**Why:** w\n**How to apply:** h"),
            ),
            ("feedback_no.md", &client("feedback", "R.\n**Why:** w")),
            ("user_x.md", &client("user", "no structure needed")),
        ]);
        assert_eq!(f.paths("missing-how-to-apply"), ["feedback_no.md"]);
    }

    /// A rule that says when or where it applies needs no How to apply line; one that says
    /// only what does (in any language), and a condition that sits in its Why, do not count.
    #[test]
    fn a_rule_that_names_its_scope_needs_no_how_to_apply() {
        let feedback = |body: &str| {
            format!("---\nname: x\ndescription: d\nmetadata:\n  type: feedback\n---\n{body}\n")
        };
        let scoped = [
            "Après `python manage.py makemigrations`, ouvrir la migration et la relire.",
            "Werte gehören in `k8s/charts/<chart>/values-<env>.yaml`. Kein `helm upgrade --set`.",
            "`cd ios && pod install`. Se o build quebrar sem mudança de código, `flutter clean`.",
            "When a test touches the database, use the real Postgres container.",
            "- Before every release, bump the version in one commit.",
            "Cuando cambie el esquema, regenerar los tipos con `pnpm gen`.",
            "マイグレーションを追加する場合は、必ずロールバックも書く。",
            "新增接口之前先写契约测试。",
            "빌드할 때 `--offline` 을 쓰지 않는다.",
            "Als de webhook faalt, niet handmatig de order op betaald zetten.",
            "Когда меняешь схему, обнови миграции.",
        ];
        let unscoped = [
            "`FindObjectOfType` / `FindObjectsByType` は使わない。参照は `[SerializeField]` で渡す。\n\n**Why:** 毎フレーム呼んでいて、8ms 食っていた。",
            "Integration tests hit a real database.\n\n**Why:** if mocks pass, prod can still fail.",
            "Keine `any`-Typen verwenden.",
            "Gebruik altijd de Mollie-webhook als bron van waarheid.",
            "Ne jamais committer à la place de l'utilisateur.",
        ];
        let mut files: Vec<(String, String)> = Vec::new();
        for (k, body) in scoped.iter().enumerate() {
            files.push((format!("feedback_scoped_{k:02}.md"), feedback(body)));
        }
        for (k, body) in unscoped.iter().enumerate() {
            files.push((format!("feedback_unscoped_{k:02}.md"), feedback(body)));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let f = Fixture::new(&refs);
        let want: Vec<String> = (0..unscoped.len())
            .map(|k| format!("feedback_unscoped_{k:02}.md"))
            .collect();
        assert_eq!(f.paths("missing-how-to-apply"), want);
    }
}
