# Regenerates Tests/data/search-eval.tsv from tools/search-eval/labels.txt (query | description regexes),
# run from the repository root: python3 tools/search-eval/emit.py
import re
rows=[l.rstrip('\n').split('\t') for l in open('./Sources/ReferenceFoods/Resources/foods.tsv')][1:]
lines=["# Search evaluation set: everyday queries typed the way people type them, each with the SR28",
"# foods a reasonable person typing it means (looked up by hand in foods.tsv; labelled before the",
"# ranker was tuned). Format: query <TAB> acceptable NDB numbers (space separated). Lines starting",
"# with '#' are comments; the '#   ' lines under a query list the acceptable foods for review.",
"# Conventions: meats/fish accept raw or cooked; legumes mean cooked or canned (not dry seeds);",
"# bare grain names (rice, pasta) accept dry or cooked, \"cooked\" in the query means cooked only;",
"# brand-free staples; fast-food and restaurant dishes only where the query names such a dish."]
n=0
for line in open('tools/search-eval/labels.txt'):
    line=line.strip()
    if not line or line.startswith('#'): continue
    q,pats=line.split(' | ',1)
    ids=[]
    for p in pats.split(' ;; '):
        r=re.compile(p.strip(),re.I)
        ids+=[x for x in rows if r.search(x[3]) and x not in ids]
    assert ids, q
    n+=1
    lines.append(q+'\t'+' '.join(x[0] for x in ids))
    for x in ids[:12]: lines.append('#   '+x[0]+' '+x[3])
    if len(ids)>12: lines.append(f'#   … and {len(ids)-12} more of the same kind')
open('./Tests/data/search-eval.tsv','w').write('\n'.join(lines)+'\n')
print(n)
