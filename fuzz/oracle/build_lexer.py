"""Builds an importable ES module from the client's bundled chunk holding its Markdown lexer.

Usage: build_lexer.py CLIENT_JS_DIR OUT.mjs  (e.g. /work/client/js /tmp/lexer.mjs)
Imports are replaced by a universal stub and `using` declarations by `let`, so node can load
the chunk and the lexer classes (`BPe`, `Pge`) run as they do in the client. The output is the
client's code: generate it locally, never commit it.
"""
import re,sys
src=open(sys.argv[1]+'/chunk-z2hgkt87.js',encoding='utf-8').read()
def repl(m):
    body=m.group(1)
    parts=[]
    for p in body.split(','):
        p=p.strip()
        if not p: continue
        if ' as ' in p:
            a,b=p.split(' as ')
            parts.append(f'{a.strip()}:{b.strip()}')
        else:
            parts.append(p)
    return 'const{'+','.join(parts)+'}=__any;'
out=re.sub(r"\busing (?=[\w$]+=)","let ",src)
out=re.sub(r'import\{([^}]*)\}from"[^"]*";',repl,out)
out=re.sub(r'import\s*\*\s*as\s*([\w$]+)\s*from"[^"]*";',r'const \1=__any;',out)
out=re.sub(r'import\s+([\w$]+)\s*from"[^"]*";',r'const \1=__any;',out)
out=re.sub(r'import"[^"]*";','',out)
pre='''const __h={get(t,k){if(k===Symbol.toPrimitive)return ()=>"";if(k==="prototype")return Object.prototype===undefined?null:__protoObj;if(k===Symbol.iterator)return function*(){};if(k==="then")return undefined;return __any},apply(){return __any},construct(){return __any}};
const __protoObj={};const __any=new Proxy(function(){},__h);
'''
open(sys.argv[2],'w').write(pre+out)
