use super::super::tests::lib;
use super::*;

fn at(lines: usize) -> Options {
    Options {
        target: Target {
            lines,
            utf16: 16_000,
        },
        ..Options::default()
    }
}

/// A section whose status moved is a topic looked up when its work comes: its rules move with
/// it as one piece (or come back whole), never one of them back alone (issue 24, rules 3, 6).
#[test]
fn a_sections_rules_move_with_its_status_not_one_by_one() {
    let mut files = Vec::new();
    for f in ["dutch", "plugins", "theme", "seo", "cache"] {
        files.push((
            format!("feedback_{f}.md"),
            "---\ntype: feedback\n---\n".to_owned(),
        ));
    }
    for f in ["checkout", "shipping", "stock"] {
        files.push((
            format!("project_{f}.md"),
            "---\ntype: project\n---\n".to_owned(),
        ));
    }
    let l = lib(
        "# Memory\n## Rules\n- [Answer in Dutch](feedback_dutch.md) — code and commits in English\n- [Ask before plugins](feedback_plugins.md) — every plugin slows the checkout\n## Webshop\n- [Checkout](project_checkout.md) — Mollie live since March\n- [Shipping](project_shipping.md) — flat rate under 50 euro\n- [Stock sync](project_stock.md) — nightly from the shop floor\n- [Child theme](feedback_theme.md) — never edit the parent theme\n- [SEO plugin](feedback_seo.md) — titles under 60 characters\n- [Cache](feedback_cache.md) — purge after every price change\n",
        &files,
    );
    let plan = plan(&l, &at(8)).unwrap();
    assert_eq!(
        plan.files[0].new,
        "# Memory\n## Rules\n- [Answer in Dutch](feedback_dutch.md) — code and commits in English\n- [Ask before plugins](feedback_plugins.md) — every plugin slows the checkout\n- [Webshop](reference_webshop_hub.md) — Checkout; Shipping; Stock sync; Child theme; SEO plugin; Cache\n"
    );
    // The whole section comes back once the budget holds its rules.
    let plan = plan_with(&l, &at(9), &Reads::default()).unwrap();
    assert_eq!(
        plan.files[0].new,
        "# Memory\n## Rules\n- [Answer in Dutch](feedback_dutch.md) — code and commits in English\n- [Ask before plugins](feedback_plugins.md) — every plugin slows the checkout\n## Webshop\n- [Webshop](reference_webshop_hub.md) — Checkout; Shipping; Stock sync\n- [Child theme](feedback_theme.md) — never edit the parent theme\n- [SEO plugin](feedback_seo.md) — titles under 60 characters\n- [Cache](feedback_cache.md) — purge after every price change\n"
    );
}
