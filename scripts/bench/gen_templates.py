"""A template-like memory library: FILES memory files written from a few templates (the same
sections and sentences, a name, a number and a word or two changed), as tools and teams that
generate memories make them, plus an index. Near-duplicates by the hundred: the shape that made
the audit list tens of thousands of pairs (issue 23).

Usage: gen_templates.py OUT_DIR [--files N] [--templates K] [--seed S]
"""
import argparse, os, random

SENTENCES = [
    "Run the database migrations before restarting the workers, never after.",
    "The staging environment mirrors production except for the payment provider keys.",
    "Use pnpm, not npm, in every package of this repository; the lockfile is pnpm's.",
    "Integration tests hit a real database; mocks hid a broken migration last quarter.",
    "Feature flags are read once at start-up; a change needs a restart of the service.",
    "Deploys go out on Tuesdays and Thursdays after the release train is green.",
    "Logs must never contain customer email addresses or tokens; redact before logging.",
    "The API gateway retries idempotent requests three times with exponential backoff.",
    "マイグレーションはデプロイの前に必ず実行すること。",
    "배포 전에 항상 마이그레이션을 먼저 실행할 것.",
]
WORDS = ["billing", "search", "auth", "reports", "mobile", "exports", "webhooks", "queue"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--templates", type=int, default=12)
    ap.add_argument("--seed", type=int, default=23)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    templates = []
    for t in range(a.templates):
        body = rng.sample(SENTENCES, 6)
        templates.append(" ".join(body) + "\n\n**Why:** " + rng.choice(SENTENCES)
                         + "\n**How to apply:** " + rng.choice(SENTENCES))
    index = []
    for k in range(a.files):
        t = k % a.templates
        word = rng.choice(WORDS)
        name = f"project_{word}_{k}"
        text = templates[t].replace("workers", f"{word} workers", 1) + f"\n\nTicket {k}.\n"
        with open(os.path.join(a.out, name + ".md"), "w") as f:
            f.write(f"---\nname: {name}\ndescription: {word} rule {t}\ntype: project\n---\n{text}")
        if k < 150:
            index.append(f"- [{name}]({name}.md) — {word} rule {t}")
    with open(os.path.join(a.out, "MEMORY.md"), "w") as f:
        f.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
