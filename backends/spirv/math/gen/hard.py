import mpmath as mp
mp.mp.prec = 1400
twoopi = 2/mp.pi
res = []
for e in range(-1, 1024):
    alpha = mp.mpf(2)**(e-52) * twoopi
    a = alpha - mp.floor(alpha)
    # continued fraction convergents
    p0, q0, p1, q1 = 1, 0, 0, 1
    t = a
    best = None
    for _ in range(200):
        if t == 0: break
        ai = int(mp.floor(1/t)) if _ > 0 or True else 0
        t = 1/t - ai
        p0, q0, p1, q1 = p1, q1, ai*p1 + p0, ai*q1 + q0
        q = q1
        if q >= 2**53: break
        m = -(-2**52 // q)
        for mm in (m, m+1):
            M = mm*q
            if M < 2**53:
                v = M*alpha
                d = abs(v - mp.nint(v))
                if best is None or d < best[0]: best = (d, M)
    if best:
        d, M = best
        x = float(mp.mpf(M)*mp.mpf(2)**(e-52))
        res.append((float(mp.log(d*mp.pi/2, 2)), x))
res.sort()
for r, x in res[:30]: print('%.2f' % r, x.hex())
open('hard.txt','w').write('\n'.join(x.hex() for r, x in res))
print(len(res))
