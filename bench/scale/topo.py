"""Who talks to whom: the application's halo and the control tree."""


def dims_create(p, nd):
    """Balanced factorisation of p into nd factors, largest first (what
    MPI_Dims_create gives): 1000 -> 10x10x10, 10^5 -> 50x50x40."""
    factors = []
    n, f = p, 2
    while f * f <= n:
        while n % f == 0:
            factors.append(f)
            n //= f
        f += 1
    if n > 1:
        factors.append(n)
    dims = [1] * nd
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims, reverse=True)


def halo(p, nd):
    """Neighbours of each rank in a periodic nd-dimensional grid (2*nd
    each: the 7-point stencil in 3-D, 5-point in 2-D). In a dimension of
    extent 2 both sides are the same rank, of extent 1 the rank itself:
    such duplicates are one neighbour, and no rank is its own."""
    dims = dims_create(p, nd)
    strides = [1] * nd
    for i in range(nd - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    nbrs = []
    for r in range(p):
        coords = [(r // strides[i]) % dims[i] for i in range(nd)]
        s = set()
        for i in range(nd):
            for d in (-1, 1):
                c = (coords[i] + d) % dims[i]
                q = r + (c - coords[i]) * strides[i]
                if q != r:
                    s.add(q)
        nbrs.append(sorted(s))
    return dims, nbrs


def tree(p, k):
    """K-ary tree over world ranks, root 0: parent and children of each."""
    parent = [-1] + [(r - 1) // k for r in range(1, p)]
    kids = [list(range(k * r + 1, min(k * r + k, p - 1) + 1))
            for r in range(p)]
    return parent, kids


def depth(p, k):
    """Levels below the root of the K-ary tree of p ranks."""
    d, last = 0, 0
    while last < p - 1:
        last = k * last + k
        d += 1
    return d
