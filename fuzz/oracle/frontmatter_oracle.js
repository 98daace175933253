// Differential oracle for memory-file frontmatter, run INSIDE the real client's own runtime
// (Bun 1.4.6 embedded in `claude` 2.1.332), so the YAML parser is the client's own
// `Bun.YAML.parse` (native code: it cannot be copied into a node module).
//
// Usage (gen_frontmatter.py does this):
//   BUN_OPTIONS="--preload $PWD/fuzz/oracle/frontmatter_oracle.js" \
//   FM_IN=inputs.json FM_OUT=outputs.json FM_GEN=/tmp/dir claude --version
// The preload runs before the client's entry point and exits, so the client itself never starts.
//
// It imports the client's chunk holding the memory-file reader (`h$` → `qd` → `DDr` → `lQ` =
// `Bun.YAML.parse`) and calls its exported `qd` and `h$` on each input. `DDr` and `_u` are not
// exported: their source is cut verbatim out of the same chunk into a module written under
// $FM_GEN (generated locally, never committed) and bound to the chunk's own `lQ`. Each output
// is checked against `qd`'s own result, so the extraction cannot drift silently.
//
// inputs.json: JSON array of file texts. outputs.json: one object per input, see `run`.
const CHUNK = process.env.FM_CHUNK ?? "/$bunfs/root/chunk-757mw3zq.js";

// JS values as JSON: numbers as {"$n": String(x)} (keeps NaN, ±Infinity, -0 and the exact
// digits); objects as JSON objects, in the engine's own key order (integer-like keys first).
const enc = (v) => {
  if (typeof v === "number") return { $n: Object.is(v, -0) ? "-0" : String(v) };
  if (v === undefined) return { $undefined: true };
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(enc);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, enc(x)]));
};

function cut(src, from, to) {
  const i = src.indexOf(from);
  const j = src.indexOf(to, i);
  if (i < 0 || j < 0) throw new Error(`oracle: ${from} … ${to} not found in ${CHUNK}`);
  return src.slice(i, j);
}

async function build() {
  const src = await Bun.file(CHUNK).text();
  const parts = [
    cut(src, "var Su=", "function vu("), // `Su` (the syntax-character test) and `_u`
    cut(src, "function DDr(", "function Zs("),
  ];
  const dir = process.env.FM_GEN ?? "/tmp";
  const path = `${dir}/frontmatter-client-${process.pid}.mjs`;
  await Bun.write(
    path,
    "// Generated from the client's bundle by fuzz/oracle/frontmatter_oracle.js. Never commit.\n" +
      "let lQ;export function bind(f){lQ=f}\n" +
      parts.join("\n") +
      "\nexport{_u,DDr};\n",
  );
  const gen = await import(path);
  const chunk = await import(CHUNK);
  gen.bind(chunk.lQ);
  return { ...gen, qd: chunk.qd, h$: chunk.h$, lQ: chunk.lQ, K0: chunk.K0 };
}

const bytes = (s) => Buffer.byteLength(s, "utf8");

function run(c, text) {
  const split = c.qd(text);
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const e = text.slice(bom);
  const m = e.indexOf("---", 3) < 0 ? null : e.match(c.K0);
  const d = m && e.match(new RegExp(c.K0.source, "d")); // the same regex, with group offsets
  const out = {};
  if (m) {
    const y = m[1] || "";
    const start = bom + (d.indices[1]?.[0] ?? 3);
    out.split = [bytes(text.slice(0, start)), bytes(text.slice(0, start + y.length)),
      bytes(text.slice(0, bom + m[0].length))];
    if (text.slice(bom + m[0].length) !== split.content || text.slice(start, start + y.length) !== y)
      throw new Error(`oracle: split disagrees with qd on ${JSON.stringify(text)}`);
    let strict = true;
    try { c.lQ(y); } catch { strict = false; }
    const r = c.DDr(y);
    out.parse = r.ok ? { ok: enc(r.value), lenient: !strict } : { error: r.error };
    if (!strict) {
      // The `_u` rewrite, as the lines it changed: [[index, new line], ...].
      const before = y.split("\n");
      const after = c._u(y).replace(/^\t+/gm, (o) => "  ".repeat(o.length)).split("\n");
      if (after.length !== before.length) throw new Error("oracle: _u changed the line count");
      out.lenient_lines = after.flatMap((l, i) => (l === before[i] ? [] : [[i, l]]));
    }
    // Cross-check against the client's own qd: same error.
    if ((split.parseError ?? null) !== (r.ok ? null : r.error))
      throw new Error(`oracle: DDr disagrees with qd on ${JSON.stringify(text)}`);
  } else {
    out.split = null;
    if (split.content !== text) throw new Error(`oracle: qd stripped ${JSON.stringify(text)}`);
  }
  const mem = c.h$(text).frontmatter;
  out.memory = [mem.name, mem.description, enc(mem.metadata)];
  return out;
}

const c = await build();
const inputs = JSON.parse(await Bun.file(process.env.FM_IN).text());
await Bun.write(process.env.FM_OUT, JSON.stringify(inputs.map((t) => run(c, t))));
process.exit(0);
