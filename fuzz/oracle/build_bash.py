"""Builds importable ES modules from the client's Bash read tracking: its shell parser
(chunk-t0f9hc33), the node-walking helpers (chunk-wa0pxe2x: `Dqe`, `W6t`), the splitter
(`nb`, `mP`) and `ELi` with its read forms (chunk-bqhgd24a), all located by content in the
client binary.

Usage: build_bash.py CLIENT_BIN OUT_DIR  (e.g. .../2.1.332/package/claude /tmp/bash-oracle)
Imports of other chunks are replaced by a stub (feature gates answer their default, as they do
offline). The output is the client's code: generate it locally, never commit it.
"""
import os, re, sys

data = open(sys.argv[1], 'rb').read()
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
mods = []
for m in re.finditer(rb'// @bun', data):
    e = data.find(b'\x00', m.start())
    mods.append(data[m.start():e].decode('utf-8', 'replace'))


def module_with(marker):
    return next(s for s in mods if marker in s)


def stubify(src, keep):
    def repl(m):
        names, path = m.group(1), m.group(2)
        for k, v in keep.items():
            if k in path:
                return 'import{' + names + '}from"./' + v + '"'
        parts = []
        for p in names.split(','):
            p = p.strip()
            if not p:
                continue
            if ' as ' in p:
                a, b = p.split(' as ')
                parts.append(f'{a.strip()}:{b.strip()}')
            else:
                parts.append(p)
        return 'const{' + ','.join(parts) + '}=__stub("' + path + '");'
    s = re.sub(r"\busing (?=[\w$]+=)", "let ", src)
    s = re.sub(r'import\{([^}]*)\}from"(/\$bunfs[^"]*)"', repl, s)
    return 'import{__stub}from"./stub.mjs";\n' + s


keep = {'chunk-t0f9hc33': 'parser.mjs', 'chunk-wa0pxe2x': 'nodes.mjs'}
parser = module_with('function Qy(){return Dr}')
nodes = module_with('function W6t(e){')
split = module_with('function nb(e){if(!e)return[];')
for src, name in [(parser, 'parser.mjs'), (nodes, 'nodes.mjs'), (split, 'split.mjs')]:
    open(os.path.join(out, name), 'w').write(stubify(src, keep))
tracking = module_with('function ELi(e){')
start = tracking.rfind('var ', 0, tracking.find('C8i=10,'))
end = tracking.find('async function qQo(')
open(os.path.join(out, 'eli.mjs'), 'w').write(
    'import{nb,mP}from"./split.mjs";\n' + tracking[start:end] + '\nexport{ELi,G8i,z8i};\n')
open(os.path.join(out, 'stub.mjs'), 'w').write('''const h={get(t,k){if(k===Symbol.toPrimitive)return ()=>"";if(k==="then")return undefined;if(k===Symbol.iterator)return function*(){};return any},apply(){return any},construct(){return any}};
const any=new Proxy(function(){},h);
const named={Fc:(name,def)=>def,F:()=>"linux",A:()=>"linux",le:(m)=>m,a:()=>{}};
export function __stub(){return new Proxy({},{get(t,k){return k in named?named[k]:any}})}
''')
open(os.path.join(out, 'run.mjs'), 'w').write('''import {ELi} from "./eli.mjs";
import fs from "fs";
const cmds = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const norm = (r) => ({file: r.filePath, start: r.startLine ?? null, end: r.endLine ?? null,
  tail: r.tailLines ?? null, numbered: !!r.numbered, grep: !!r.requiresExitZero});
fs.writeFileSync(process.argv[3], JSON.stringify(cmds.map((c) => ({command: c, reads: ELi(c).map(norm)})), null, 1) + "\\n");
''')
