import mpmath as mp
mp.mp.dps = 500
def dd(v):
    h = float(v); l = float(v - mp.mpf(h)); return h, l
def hx(v): return float(v).hex()
ln2 = mp.log(2)
print('LN2', [hx(t) for t in dd(ln2)])
print('INV_LN2 dd', [hx(t) for t in dd(1/ln2)])
print('LN10', [hx(t) for t in dd(mp.log(10))])
print('INV_LN10 dd', [hx(t) for t in dd(1/mp.log(10))])
print('2/3', [hx(t) for t in dd(mp.mpf(2)/3)])
print('2/5', [hx(t) for t in dd(mp.mpf(2)/5)])
pio2 = mp.pi/2
print('PIO2 dd', [hx(t) for t in dd(pio2)])
print('2/pi', hx(2/mp.pi))
# Cody-Waite: P1 has 33 significant bits
e = mp.floor(mp.log(pio2, 2))
P1 = mp.floor(pio2 * 2**(32 - e)) / 2**(32 - e)
P2 = mp.mpf(float(pio2 - P1)); P3 = mp.mpf(float(pio2 - P1 - P2))
print('P1', hx(P1), 'P2', hx(P2), 'P3', hx(P3), 'residual 2^%.1f' % float(mp.log(abs(pio2-P1-P2-P3),2)))
assert mp.mpf(float(P1)) == P1
print('SQRT2', hx(mp.sqrt(2)))
N = 19
B = int(mp.floor(2/mp.pi * mp.mpf(2)**(64*N)))
words = [0] + [(B >> (64*(N-j))) & (2**64-1) for j in range(1, N+1)]
for j,w in enumerate(words): print('0x%016x,' % w, end=' ' if j % 3 != 2 else '\n')
print()
