"""Writes Bash read-tracking vectors: commands and the reads the client's `ELi` finds in them.

Usage: gen_bash_vectors.py ORACLE_DIR OUT.json [--count N --seed S]
ORACLE_DIR is the output of build_bash.py. The commands are a hand-written list (quoting,
pipes, lists, subshells, groups, loops, heredocs, comments, expansions, look-alikes) plus N
random ones built from the same fragments.
"""
import json, os, random, subprocess, sys, tempfile

HAND = r'''cat a/f.txt
cat -n f
cat --number f
cat -A f
cat f g
cat -
cat
nl f
nl -ba f
bat f
bat -p f
bat --plain -n f
batcat f
head f
head -n 3 f
head -n3 f
head -3 f
head --lines 4 f
head --lines=4 f
head -n 0 f
head -n +3 f
head -c 10 f
head -n 3 f g
tail f
tail -n 2 f
tail -2 f
tail -f f
sed -n 2,3p f
sed -n '2,3p' f
sed -n 5p f
sed -n "1,9p" f
sed 1p f
sed -n -e 1p f
sed -ni 1p f
sed --quiet 2p f
sed --silent 1,2p f
sed -n 1d f
sed -n '1,$p' f
sed -n 1p f g
grep x f
grep -n x f
grep -in x f
grep -r x d
grep -v x f
grep -A 2 x f
grep -A2 x f
grep --after-context=2 x f
grep --color=never x f
grep -E 'a|b' f
grep x 'f*'
grep x *.txt
egrep x f
fgrep x f
rg x f
rg -S x f
rg --context 2 x f
rg -g '*.md' x f
rg x
grep x
cat a && echo done
echo start; cat f
echo start && cat f && true
cat f; ls
ls; cat f
cat f; :
cat f; : x
cat f; :x
cat f && printf ok
cat f && echoes
cat f && echo-x
true && cat f
cat f || true
cat f &
cat f & cat g
cat f
cat g
cat f # note
# only a comment
cd a && cat f
cd a; cat f
(cat f)
( cat f )
(cd a && cat f)
{ cat f; }
{ cat f; ls; }
if cat f; then ls; fi
if true; then cat f; fi
while cat f; do break; done
for x in a b; do cat f; done
for x in 1; do cat "$x"; done
case x in x) cat f;; esac
f() { cat g; }
function f { cat g; }
! cat f
FOO=1 cat f
FOO=1
FOO=1 BAR=2 cat f
export X=1 && cat f
cat "a b"
cat 'a b'
cat a\ b
cat "a\"b"
cat 'a\b'
cat a"b"c
cat "a"'b'
cat $F
cat "$F"
cat ${F}
cat $F/x
cat $HOME/f
cat ~/f
cat ~
cat $(echo f)
cat `echo f`
cat "$(echo f)"
cat f$(echo g)
cat <(echo f)
cat $'f'
cat $"f"
cat f | head -1
cat f > g
cat f 2>/dev/null
cat < f
cat f <<EOF
sort f
awk '{print}' f
less f
more f
wc -l f
"cat" f
'cat' f
c\at f
\cat f
cat\ x f
cat -- f
cat ./f
cat ../f
cat /abs/f
head -n 2 "my file.txt"
sed -n '1,2p' "a b.txt"
cat 'unterminated
cat "unterminated
cat (f
cat f)
cat f;;
;cat f
cat f &&
&& cat f
cat f ||
echo "a;b" ; cat f
echo 'a && b' && cat f
echo x\; cat f
cat f\;
cat 'f;g'
echo $((1+2)) && cat f
echo ${X:-y} && cat f
cat f
	cat f
cat f 
  cat   f  
cat f\
g
echo a \
  && cat f
cat {a,b}
cat f[1]
cat f?'''.split('\n')

FRAG_CMD = ['cat', 'cat -n', 'nl', 'bat -p', 'head', 'head -n 2', 'head -5', 'tail', 'tail -n 3',
            'sed -n 2p', "sed -n '1,3p'", 'sed 2p', 'grep x', 'rg -i y', 'echo hi', 'printf x',
            'true', ':', 'ls', 'cd d', 'wc -l', 'awk 1']
FRAG_ARG = ['f', 'a/f.txt', '"a b"', "'c d'", 'x\\ y', '$V', '"$V"', '~/h', '-', '--', 'f g',
            'a"b"c', '$(pwd)/f', '${D}/f', '#c', '*.md', 'q{1}']
JOIN = [' && ', '; ', ' || ', ' & ', '\n', ' | ', ' > o ', ' && (', ') && ', ' ; { ', ' ; } ']


def rand_cmd(r):
    parts = []
    for k in range(r.randint(1, 3)):
        if k:
            parts.append(r.choice(JOIN))
        parts.append(r.choice(FRAG_CMD))
        for _ in range(r.randint(0, 2)):
            parts.append(' ' + r.choice(FRAG_ARG))
    return ''.join(parts)


def main():
    oracle, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[sys.argv.index('--count') + 1]) if '--count' in sys.argv else 1500
    seed = int(sys.argv[sys.argv.index('--seed') + 1]) if '--seed' in sys.argv else 7
    r = random.Random(seed)
    cmds = list(dict.fromkeys(HAND + [rand_cmd(r) for _ in range(count)]))
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump(cmds, f)
    subprocess.run(['node', os.path.join(oracle, 'run.mjs'), f.name, out], check=True)
    os.unlink(f.name)


if __name__ == '__main__':
    main()
