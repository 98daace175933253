const {vAi}=require('./expand.js');
let seed=777; function rnd(){seed=(seed*1103515245+12345)&0x7fffffff;return seed/0x7fffffff;}
function pick(a){return a[Math.floor(rnd()*a.length)];}
const atoms=['a','b','src','*','**','/','/**','{','}',',',' ','{a,b}','{x,{y,z}}','{}','{,}','{ a , b }','.md','\t','é','😀','{**,**}','**/**'];
function str(){let n=Math.floor(rnd()*7),s='';for(let i=0;i<n;i++)s+=pick(atoms);return s;}
function val(d){let r=rnd();if(d<2&&r<0.25){let n=Math.floor(rnd()*4),a=[];for(let i=0;i<n;i++)a.push(val(d+1));return a;}if(r<0.3)return 0;if(r<0.35)return true;if(r<0.4)return null;return str();}
const lines=[];
for(let i=0;i<3000;i++){const v=val(0);lines.push(JSON.stringify({v,r:vAi(v)??null}));}
// budget boundaries
for(const n of [999,1000,1001]){const v='{'+Array(n).fill('**').join(',')+'}';lines.push(JSON.stringify({v,r:vAi(v)??null}));}
const big='{'+Array(600).fill('x').join(',')+'}';lines.push(JSON.stringify({v:[big,big],r:vAi([big,big])??null}));
const long='{'+Array(20).fill('y'.repeat(300)).join(',')+'}/{'+Array(40).fill('z').join(',')+'}';lines.push(JSON.stringify({v:long,r:vAi(long)??null}));
require('fs').writeFileSync('expand-vectors.jsonl',lines.join('\n')+'\n');
