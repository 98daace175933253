// Differential oracle: runs the client's own Markdown lexer (built by build_lexer.py) with
// verbatim copies of the client's `tLn`/`jvt`/`OHe` (comment stripping) and the candidate part
// of `IQr` (import scan, before the path policy check `RG` and resolution `Pt`).
// Usage: node oracle.mjs LEXER.mjs < inputs.json > outputs.json
//   inputs.json: JSON array of strings; outputs: [{content, stripped, imports: [string]}].
import { readFileSync } from "fs";
const { BPe, Pge } = await import(process.argv[2]);

class tLn extends Pge {
  length; htmlSpans;
  constructor(e, n) { super(); this.length = e; this.htmlSpans = n; }
  html(e) {
    let n = super.html(e);
    if (n) { let o = this.length - e.length; this.htmlSpans.set(n, { start: o, end: o + n.raw.length }); }
    return n;
  }
}
function jvt(e, n) {
  let o = n && new tLn(e.replaceAll(`\r\n`, `\n`).length, n);
  return new BPe({ gfm: !1, tokenizer: o }).lex(e);
}
function OHe(e) {
  if (!e.includes("<!--")) return { content: e, stripped: !1 };
  let n = new Map, o = jvt(e, n), g = e.replace(/\r\n?/g, `\n`), h = "", y = 0, k = /<!--[\s\S]*?-->/g;
  for (let C of o) {
    let H = n.get(C), z = C.raw.trimStart();
    if (H && z.startsWith("<!--") && z.includes("-->")) {
      let Y = g.slice(H.start, H.end).replace(k, "");
      h += g.slice(y, H.start) + (Y.trim() ? Y : ""), y = H.end;
    }
  }
  return y === 0 ? { content: e, stripped: !1, tokens: o } : { content: h + g.slice(y), stripped: !0, tokens: o };
}
function IQr(e) {
  let o = [];
  function g(y) {
    let k = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g, C;
    while ((C = k.exec(y)) !== null) {
      let H = C[1]; if (!H) continue;
      let z = H.indexOf("#"); if (z !== -1) H = H.substring(0, z);
      if (!H) continue;
      if (H = H.replaceAll("\\ ", " "), H) {
        if (H.startsWith("./") || H.startsWith("~/") || H.startsWith("/") && H !== "/" ||
            !H.startsWith("@") && !H.match(/^[#%^&*()]+/) && H.match(/^[a-zA-Z0-9._-]/)) o.push(H);
      }
    }
  }
  function h(y) {
    for (let k of y) {
      if (k.type === "code" || k.type === "codespan") continue;
      if (k.type === "html") {
        let C = k.raw || "", H = C.trimStart();
        if (H.startsWith("<!--") && H.includes("-->")) {
          let z = /<!--[\s\S]*?-->/g, Y = C.replace(z, "");
          if (Y.trim().length > 0) g(Y);
        }
        continue;
      }
      if (k.type === "text") g(k.text || "");
      if (k.tokens) h(k.tokens);
      if (k.items) h(k.items);
    }
  }
  h(e);
  return o;
}
const inputs = JSON.parse(readFileSync(0, "utf8"));
const out = inputs.map((text) => {
  let r = OHe(text);
  let imports = text.includes("@") ? IQr(r.tokens ?? jvt(text)) : [];
  return { content: r.content, stripped: r.stripped, imports };
});
process.stdout.write(JSON.stringify(out));
