import mpmath as mp
mp.mp.dps = 80

def remez(f, a, b, n, w=lambda t: 1, iters=30, grid=4000):
    """Minimax polynomial of degree n for f on [a,b] with weight w (abs error * w)."""
    a = mp.mpf(a); b = mp.mpf(b)
    # initial reference: Chebyshev extrema
    ref = [ (a+b)/2 - (b-a)/2*mp.cos(mp.pi*i/(n+1)) for i in range(n+2)]
    for it in range(iters):
        # solve sum c_j x^j + (-1)^i E / w(x) = f(x)
        A = mp.matrix(n+2, n+2); rhs = mp.matrix(n+2, 1)
        for i, x in enumerate(ref):
            for j in range(n+1):
                A[i, j] = x**j
            A[i, n+1] = (-1)**i / w(x)
            rhs[i] = f(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n+1)]; E = sol[n+1]
        err = lambda x: (f(x) - mp.polyval(c[::-1], x)) * w(x)
        # find extrema on grid
        xs = [a + (b-a)*i/grid for i in range(grid+1)]
        es = [err(x) for x in xs]
        # locate local extrema of alternating sign segments
        newref = []
        i = 0
        segs = []
        cur = [0]
        for k in range(1, len(xs)):
            if mp.sign(es[k]) == mp.sign(es[cur[0]]) or es[k] == 0:
                cur.append(k)
            else:
                segs.append(cur); cur = [k]
        segs.append(cur)
        ext = [max(s, key=lambda k: abs(es[k])) for s in segs]
        # refine each with golden section on neighbors
        refined = []
        for k in ext:
            lo = xs[max(k-1, 0)]; hi = xs[min(k+1, grid)]
            sgn = mp.sign(es[k])
            g = lambda x: -sgn*err(x)
            x = mp.findroot(lambda x: mp.diff(err, x), xs[k]) if 0 < k < grid else xs[k]
            if not (lo <= x <= hi): x = xs[k]
            refined.append(x)
        if len(refined) > n+2:
            # keep n+2 consecutive with the largest minimum |err|
            best = None
            for s in range(len(refined)-(n+2)+1):
                m = min(abs(err(x)) for x in refined[s:s+n+2])
                if best is None or m > best[0]: best = (m, s)
            refined = refined[best[1]:best[1]+n+2]
        if len(refined) < n+2:
            print("warning: only", len(refined), "extrema"); break
        ref = refined
        maxerr = max(abs(err(x)) for x in ref)
        if abs(maxerr - abs(E)) < abs(E)*mp.mpf('1e-6'):
            break
    return c, abs(E)

def to_double(c):
    return [float(x) for x in c]

def max_err_double(f, a, b, cd, w=lambda t: 1, grid=20000):
    a = mp.mpf(a); b = mp.mpf(b)
    m = 0
    for i in range(grid+1):
        x = a + (b-a)*i/grid
        e = abs((f(x) - mp.polyval([mp.mpf(v) for v in cd[::-1]], x))*w(x))
        if e > m: m = e
    return m
