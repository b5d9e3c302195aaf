from remez import *
import sys
def ser(term, x, N=60):
    return mp.fsum(term(k, x) for k in range(N))
E = lambda r: ser(lambda k, x: x**k/mp.factorial(k+3), r)
S = lambda z: ser(lambda k, x: (-1)**(k+1)*x**k/mp.factorial(2*k+3), z)
C = lambda z: ser(lambda k, x: (-1)**k*x**k/mp.factorial(2*k+4), z)
R = lambda z: ser(lambda k, x: 2*x**k/(2*k+7), z, 80)
rexp = mp.mpf('0.3466')+mp.mpf('1e-4')
zlog = ((mp.sqrt(2)-1)/(mp.sqrt(2)+1))**2*(1+mp.mpf('1e-6'))
zsc = mp.mpf('0.7854')**2*1.0001
which = sys.argv[1]
for n in map(int, sys.argv[2:]):
    if which=='exp': f, a, b = E, -rexp, rexp
    if which=='log': f, a, b = R, 0, zlog
    if which=='sin': f, a, b = S, 0, zsc
    if which=='cos': f, a, b = C, 0, zsc
    c, e = remez(f, a, b, n)
    cd = to_double(c)
    ed = max_err_double(f, a, b, cd, grid=3000)
    print(which, n, 'minimax err 2^%.2f' % float(mp.log(e,2)), 'double-coef err 2^%.2f' % float(mp.log(ed,2)))
    for v in cd: print('  ', v.hex(), repr(v))
