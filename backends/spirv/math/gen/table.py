import mpmath as mp
mp.mp.prec = 1400
twoopi = 2/mp.pi
lines = open('hard.txt').read().split()
xs = [float.fromhex(l) for l in lines]
def rexp(x):
    v = mp.mpf(x)*twoopi; return float(mp.log(abs(v - mp.nint(v))*mp.pi/2, 2))
scored = sorted((rexp(x), x) for x in xs)
seen = set(); big = []; small = []
for r, x in scored:
    m = x.hex().split('p')[0]
    if x < 2**20:
        if m not in seen and len(small) < 6: small.append((r, x)); seen.add(m)
        continue
    if m in seen or len(big) >= 24: continue
    seen.add(m); big.append((r, x))
mp.mp.prec = 3000
out = []
for r, x in sorted(small + big, key=lambda t: t[1]):
    X = mp.mpf(x)
    out.append('    {%s, %s, %s, %s}, /* r ~ 2^%.1f */' % (x.hex(), float(mp.sin(X)).hex(), float(mp.cos(X)).hex(), float(mp.tan(X)).hex(), r))
print('\n'.join(out))
