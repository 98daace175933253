// Differential oracle for frontmatter that names far more nodes than it holds (YAML alias
// bombs, merge-key amplification, aliases as keys), run INSIDE the real client's runtime as
// frontmatter_oracle.js is (same preload mechanism; see there). The values are far too large to
// write out (a 400-byte block names 5 million strings), so each is summarised.
//
// Usage (gen_bombs.py does this):
//   BUN_OPTIONS="--preload $PWD/fuzz/oracle/bomb_oracle.js" \
//   FM_IN=inputs.json FM_OUT=outputs.json FM_GEN=/tmp/dir claude --version
//
// Per input (a whole file): `strict`: what `Bun.YAML.parse` (`lQ`) says of the block (null, or
// its error message); `error`: `qd`'s parseError (the lenient second pass's, when both fail);
// `keys`: the frontmatter object's keys in order (a key longer than 200 UTF-16 units as its
// length); `json_length`: `JSON.stringify(frontmatter).length`; `memory`: `h$`'s name and
// description; `paths`: what the rule reader `vAi` (cut verbatim from chunk-bqhgd24a) makes of
// `paths` (null: unconditional), as `count` (patterns listed), `listed` (the list itself, when
// at most 10,000) and `last` (each pattern once, at its last place: what ccmem lists past that).
const CHUNK = process.env.FM_CHUNK ?? "/$bunfs/root/chunk-757mw3zq.js";
const RULES = process.env.FM_RULES_CHUNK ?? "/$bunfs/root/chunk-bqhgd24a.js";

function cut(src, from, to, where) {
  const i = src.indexOf(from);
  const j = src.indexOf(to, i);
  if (i < 0 || j < 0) throw new Error(`oracle: ${from} … ${to} not found in ${where}`);
  return src.slice(i, j);
}

async function build() {
  const rules = await Bun.file(RULES).text();
  const dir = process.env.FM_GEN ?? "/tmp";
  const path = `${dir}/bomb-client-${process.pid}.mjs`;
  await Bun.write(
    path,
    "// Generated from the client's bundle by fuzz/oracle/bomb_oracle.js. Never commit.\n" +
      "let p6n;export function bind(f){p6n=f}\n" +
      cut(rules, "function vAi(", "function U_t(", RULES) +
      "\nexport{vAi};\n",
  );
  const gen = await import(path);
  const chunk = await import(CHUNK);
  gen.bind(chunk.p6n);
  return { vAi: gen.vAi, qd: chunk.qd, h$: chunk.h$, lQ: chunk.lQ, K0: chunk.K0 };
}

function run(c, text) {
  const out = {};
  const e = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const m = e.indexOf("---", 3) < 0 ? null : e.match(c.K0);
  out.strict = null;
  try { c.lQ(m ? m[1] || "" : ""); } catch (err) { out.strict = String(err.message ?? err); }
  const r = c.qd(text);
  out.error = r.parseError ?? null;
  const fm = r.frontmatter;
  out.keys = Object.keys(fm).map((k) => (k.length > 200 ? { length: k.length } : k));
  try { out.json_length = JSON.stringify(fm).length; } catch { out.json_length = null; }
  const mem = c.h$(text).frontmatter;
  out.memory = [mem.name, mem.description];
  const globs = fm.paths ? c.vAi(fm.paths) : undefined;
  if (globs === undefined) {
    out.paths = null;
  } else {
    const last = [];
    const seen = new Set();
    for (let i = globs.length - 1; i >= 0; i--) {
      if (!seen.has(globs[i])) { seen.add(globs[i]); last.push(globs[i]); }
    }
    out.paths = { count: globs.length, last: last.reverse() };
    if (globs.length <= 10000) out.paths.listed = globs;
  }
  return out;
}

const c = await build();
const inputs = JSON.parse(await Bun.file(process.env.FM_IN).text());
const outputs = inputs.map((t) => run(c, t));
await Bun.write(process.env.FM_OUT, JSON.stringify(outputs));
process.exit(0);
