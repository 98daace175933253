const {P3}=require('./ign.js');
// deterministic PRNG
let seed=12345; function rnd(){seed=(seed*1103515245+12345)&0x7fffffff;return seed/0x7fffffff;}
function pick(a){return a[Math.floor(rnd()*a.length)];}
const patAtoms=['a','b','src','lib','x','*','**','?','/','.','[',']','!','^','-','\\','{','}',',','#',' ','md','.md','*.md','**/','/**','[ab]','[!a]','[^a]','[a-c]','[z-a]','[c-a]','[z-!]','.ts','A','(',')','+','$','|','\t'];
const pathAtoms=['a','b','src','lib','x','.','..','md','a.md','b.ts','.env','x.md','A','B.MD','!','^','[',']','-',' ','(',')','+','$','#'];
function genPat(){let n=1+Math.floor(rnd()*5),s='';for(let i=0;i<n;i++)s+=pick(patAtoms);return s;}
function derive(path){let segs=path.split('/');let out=segs.map(sg=>{let r=rnd();if(r<0.2)return '*';if(r<0.3)return '**';if(r<0.4)return sg.replace(/[a-z]/,'?');if(r<0.5)return '['+sg[0]+'x]'+sg.slice(1);if(r<0.55)return '[!'+sg[0]+']'+sg.slice(1);if(r<0.6)return sg.toUpperCase();if(r<0.65)return '*'+sg.slice(1);return sg;});let k=Math.floor(rnd()*out.length);if(rnd()<0.4)out=out.slice(k);else if(rnd()<0.3)out=out.slice(0,k+1);let p=out.join('/');let r=rnd();if(r<0.15)p='/'+p;else if(r<0.25)p='**/'+p;else if(r<0.35)p=p+'/';else if(r<0.4)p=p+'/**';return p;}
function genPath(){let n=1+Math.floor(rnd()*4),parts=[];for(let i=0;i<n;i++){let m=1+Math.floor(rnd()*2),p='';for(let j=0;j<m;j++)p+=pick(pathAtoms);parts.push(p);}return parts.join('/');}
const out=[];
const fixed=[[['*.md'],'README.md'],[['src/**','!src/gen/**'],'src/gen/x.ts'],[['src/[abc'],'src/a']];
for(const [p,q] of fixed) out.push([p,q]);
for(let i=0;i<6000;i++){let k=1+Math.floor(rnd()*2);let pats=[];let path=genPath();for(let j=0;j<k;j++){let q=rnd()<0.6?derive(path):genPat();pats.push(rnd()<0.15?'!'+q:q);}out.push([pats,path]);}
const lines=[];
for(const [pats,path] of out){
  // client: drop patterns whose probe throws (R6t / Jm), then ignores()
  const valid=pats.filter(p=>{try{P3().add([p]).test('probe');return true}catch(e){return false}});
  let res;
  try{ const m=P3().add(valid); const r=m._probe=undefined; res=m.ignores(path)?1:0; }catch(e){res='E';}
  lines.push(JSON.stringify({p:pats,f:path,v:valid.length,r:res}));
}
require('fs').writeFileSync('vectors.jsonl',lines.join('\n')+'\n');
const c={0:0,1:0,E:0};for(const l of lines){c[JSON.parse(l).r]++}console.log(c);
