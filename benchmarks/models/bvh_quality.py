#!/usr/bin/env python3
"""A model of BVH quality on rtiow-final (issue 15, docs/decisions.md "The LBVH's large
primitives go to the top"): the Karras LBVH as it was, binned and sweep SAH trees, the LBVH with
the ground hoisted, with large centroids clamped into the small primitives' box ("small-box",
worse), and with the large-primitive key bit ("large-top", what src/kernels/bvh/lbvh.h builds).
Counts internal-node visits and sphere tests per primary and diffuse bounce ray with a stack-based
closest-hit traversal, and checks that every tree returns the same closest hits. Written for the
measurement, not a test; needs NumPy (Debian's python3-numpy).

Run:  python3 benchmarks/models/bvh_quality.py   (a few seconds)
"""
import sys
import time
import numpy as np

M32 = 0xFFFFFFFF
NPRIM_BITS = 9          # 488 < 512 : index bits appended to Morton key for ties

# ----------------------------------------------------------------------------
# Scene
# ----------------------------------------------------------------------------
def pcg_hash(x):
    s = (x * 747796405 + 2891336453) & M32
    w = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & M32
    return ((w >> 22) ^ w) & M32


class Rng:
    def __init__(self, seed):
        self.state = pcg_hash(seed)

    def next(self):
        self.state = (1664525 * self.state + 1013904223) & M32
        return np.float32(self.state & 0xFFFFFF) / np.float32(16777216.0)


def make_scene():
    rng = Rng(134537)
    C = [(np.float32(0), np.float32(-1000), np.float32(-1))]
    R = [np.float32(1000)]
    for a in range(-11, 11):
        for b in range(-11, 11):
            choice = rng.next()
            offx = rng.next()
            offz = rng.next()
            C.append((np.float32(a) + offx, np.float32(0.2), np.float32(b) + offz))
            R.append(np.float32(0.2))
            if choice < 0.8:
                for _ in range(3):
                    rng.next()
            elif choice < 0.95:
                for _ in range(4):
                    rng.next()
    for c in [(0, 1, 0), (-4, 1, 0), (4, 1, 0)]:
        C.append(tuple(np.float32(v) for v in c))
        R.append(np.float32(1))
    C32 = np.array(C, dtype=np.float32)
    R32 = np.array(R, dtype=np.float32)
    return C32, R32


# ----------------------------------------------------------------------------
# Trees.  Representation: internal nodes 0..n-2 (root = 0), children encoded
# as c >= 0 -> internal node c, c < 0 -> leaf holding primitive ~c.
# ----------------------------------------------------------------------------
def area(bmin, bmax):
    d = np.maximum(bmax - bmin, 0.0)
    return 2.0 * (d[..., 0] * d[..., 1] + d[..., 1] * d[..., 2] + d[..., 2] * d[..., 0])


class Tree:
    def __init__(self, name, children, pmin, pmax):
        self.name = name
        self.child = np.array(children, dtype=np.int64)      # (n-1, 2)
        n_int = len(self.child)
        self.pmin, self.pmax = pmin, pmax
        # bottom-up boxes (post-order via explicit order)
        order = []
        st = [0]
        while st:
            i = st.pop()
            order.append(i)
            for c in self.child[i]:
                if c >= 0:
                    st.append(c)
        self.bmin = np.zeros((n_int, 3))
        self.bmax = np.zeros((n_int, 3))
        self.depth_leaf = {}
        for i in reversed(order):
            lo = np.full(3, np.inf)
            hi = np.full(3, -np.inf)
            for c in self.child[i]:
                if c >= 0:
                    lo = np.minimum(lo, self.bmin[c]); hi = np.maximum(hi, self.bmax[c])
                else:
                    lo = np.minimum(lo, pmin[~c]); hi = np.maximum(hi, pmax[~c])
            self.bmin[i] = lo
            self.bmax[i] = hi
        # child boxes per internal node
        self.cmin = np.zeros((n_int, 2, 3))
        self.cmax = np.zeros((n_int, 2, 3))
        for k in range(2):
            c = self.child[:, k]
            intl = c >= 0
            self.cmin[intl, k] = self.bmin[c[intl]]
            self.cmax[intl, k] = self.bmax[c[intl]]
            self.cmin[~intl, k] = pmin[~c[~intl]]
            self.cmax[~intl, k] = pmax[~c[~intl]]
        # depth statistics
        depth = np.zeros(n_int, dtype=np.int64)
        leafdepth = np.zeros(len(pmin), dtype=np.int64)
        for i in order:                      # pre-order: parents first
            for c in self.child[i]:
                if c >= 0:
                    depth[c] = depth[i] + 1
                else:
                    leafdepth[~c] = depth[i] + 1
        self.leafdepth = leafdepth

    def sah(self):
        ar = area(self.bmin[0], self.bmax[0])
        ci = area(self.bmin, self.bmax).sum() / ar
        cl = area(self.pmin, self.pmax).sum() / ar
        return ci + cl, ci, cl


def expand_bits21(v):
    v = v.astype(np.uint64)
    out = np.zeros_like(v)
    for i in range(21):
        out |= ((v >> np.uint64(i)) & np.uint64(1)) << np.uint64(3 * i)
    return out


def morton_in_box(c, lo, hi, dtype):
    """63-bit Morton codes of points c quantised in [lo, hi] (clamped), as mortonCode63 does."""
    ext = np.maximum(hi - lo, dtype(1e-30))
    q = np.clip(np.floor((c - lo) / ext * dtype(2 ** 21)).astype(np.int64), 0, 2 ** 21 - 1)
    e = [expand_bits21(q[:, k]) for k in range(3)]
    return (e[0] << np.uint64(2)) | (e[1] << np.uint64(1)) | e[2]


def large_primitives(c, pmin, pmax):
    """lbvh::isLargePrimitive: a box side over a quarter of the centroid box's longest side."""
    return (pmax - pmin).max(1) > 0.25 * (c.max(0) - c.min(0)).max()


def morton_codes(cent, dtype):
    c = cent.astype(dtype)
    return morton_in_box(c, c.min(0), c.max(0), dtype)


def morton_codes_small(cent, pmin, pmax, dtype):
    """Large centroids clamped into the small primitives' centroid box (worse: docs/decisions.md)."""
    c = cent.astype(dtype)
    small = ~large_primitives(c, pmin, pmax)
    return morton_in_box(c, c[small].min(0), c[small].max(0), dtype)


def morton_codes_large_top(cent, pmin, pmax, dtype):
    """What src/kernels/bvh/lbvh.h builds: large primitives get the top key bit."""
    c = cent.astype(dtype)
    large = large_primitives(c, pmin, pmax)
    codes_all = morton_in_box(c, c.min(0), c.max(0), dtype)
    codes_small = morton_in_box(c, c[~large].min(0), c[~large].max(0), dtype)
    return np.where(large, codes_all | np.uint64(1 << 63), codes_small)


def build_lbvh(cent, pmin, pmax, dtype=np.float32, small=False):
    codes = morton_codes_small(cent, pmin, pmax, dtype) if small == 1 else (morton_codes_large_top(cent, pmin, pmax, dtype) if small == 2 else morton_codes(cent, dtype))
    n = len(cent)
    keys = sorted((int(codes[i]) << NPRIM_BITS) | i for i in range(n))
    prim = [k & ((1 << NPRIM_BITS) - 1) for k in keys]
    children = []

    def rec(f, l):
        if f == l:
            return ~prim[f]
        x = keys[f] ^ keys[l]
        bit = x.bit_length() - 1
        # first index in (f, l] whose key has 'bit' set (they all share higher bits)
        s = f + 1
        while not (keys[s] >> bit) & 1:
            s += 1
        me = len(children)
        children.append([0, 0])
        children[me][0] = rec(f, s - 1)
        children[me][1] = rec(s, l)
        return me

    sys.setrecursionlimit(10000)
    rec(0, n - 1)
    return Tree("LBVH (Karras)", children, pmin, pmax), codes


def karras_children(keys):
    """Literal Karras 2012 (Fig. 4) construction over sorted unique keys.
    Returns per internal node i the (first,last) leaf range of each child."""
    n = len(keys)

    def delta(i, j):
        if j < 0 or j >= n:
            return -1
        return 200 - (keys[i] ^ keys[j]).bit_length()      # common prefix length (monotone)

    ranges = []
    for i in range(n - 1):
        d = 1 if delta(i, i + 1) - delta(i, i - 1) > 0 else -1
        dmin = delta(i, i - d)
        lmax = 2
        while delta(i, i + lmax * d) > dmin:
            lmax *= 2
        l = 0
        t = lmax // 2
        while t >= 1:
            if delta(i, i + (l + t) * d) > dmin:
                l += t
            t //= 2
        j = i + l * d
        dnode = delta(i, j)
        s = 0
        k = 2
        while True:
            t = (l + k - 1) // k
            if delta(i, i + (s + t) * d) > dnode:
                s += t
            if t == 1:
                break
            k *= 2
        g = i + s * d + min(d, 0)
        ranges.append(((min(i, j), g), (g + 1, max(i, j))))
    return ranges


def lbvh_ranges(keys):
    """leaf ranges of the children of every internal node of the recursive-split build"""
    out = set()

    def rec(f, l):
        if f == l:
            return
        bit = (keys[f] ^ keys[l]).bit_length() - 1
        s = f + 1
        while not (keys[s] >> bit) & 1:
            s += 1
        out.add(((f, s - 1), (s, l)))
        rec(f, s - 1); rec(s, l)
    rec(0, len(keys) - 1)
    return out


def build_lbvh_hoisted(cent, pmin, pmax, ground=0, dtype=np.float32):
    """root = (ground leaf, Karras LBVH over all other spheres, Morton box without ground)"""
    rest = np.array([i for i in range(len(cent)) if i != ground])
    sub, _ = build_lbvh(cent[rest], pmin[rest], pmax[rest], dtype)
    ch = sub.child.copy()
    leaf = ch < 0
    ch[~leaf] += 1
    ch[leaf] = ~rest[~ch[leaf]]
    children = [[~ground, 1]] + ch.tolist()
    return Tree("LBVH+ground@root", children, pmin, pmax)


def remove_leaf(tree, prim=0):
    """children list of the tree with leaf 'prim' deleted (its parent replaced by the sibling)"""
    ch = tree.child.tolist()
    par = {}
    for i, (a, b) in enumerate(ch):
        par[a] = (i, 0); par[b] = (i, 1)
    p, side = par[~prim]
    sib = ch[p][1 - side]
    if p == 0:
        root = sib
    else:
        gp, gs = par[p]
        ch[gp][gs] = sib
        root = 0
    # renumber reachable internal nodes from new root
    new = {}
    order = [root]
    k = 0
    while k < len(order):
        i = order[k]; k += 1
        new[i] = len(new)
        for c in ch[i]:
            if c >= 0:
                order.append(c)
    out = [[(new[c] if c >= 0 else c) for c in ch[i]] for i in order]
    return out


def sah_without(tree, prim=0):
    """SAH of the tree after deleting the ground leaf (sibling takes parent's place);
    areas relative to the box of the remaining 487 spheres"""
    t = Tree("tmp", remove_leaf(tree, prim), tree.pmin, tree.pmax)
    others = np.arange(len(tree.pmin)) != prim
    a0 = area(tree.pmin[others].min(0), tree.pmax[others].max(0))
    return (area(t.bmin, t.bmax).sum() + area(tree.pmin[others], tree.pmax[others]).sum()) / a0


def ground_to_root(tree, prim=0, name="LBVH ground->root"):
    """same topology, but the ground leaf moved to be a child of a new root"""
    ch = remove_leaf(tree, prim)
    ch = [[c + 1 if c >= 0 else c for c in row] for row in ch]
    return Tree(name, [[~prim, 1]] + ch, tree.pmin, tree.pmax)


def build_sah(cent, pmin, pmax, nbins=None):
    """nbins=None -> full sweep SAH, else binned SAH on centroid bounds."""
    children = []
    stats = {"fallback": 0}

    def split_binned(idx, pa):
        best = (np.inf, None)
        c = cent[idx]
        clo, chi = c.min(0), c.max(0)
        for ax in range(3):
            ext = chi[ax] - clo[ax]
            if ext <= 0:
                continue
            b = np.minimum((nbins * (c[:, ax] - clo[ax]) / ext).astype(np.int64), nbins - 1)
            cnt = np.bincount(b, minlength=nbins)
            bl = np.full((nbins, 3), np.inf); bh = np.full((nbins, 3), -np.inf)
            np.minimum.at(bl, b, pmin[idx]); np.maximum.at(bh, b, pmax[idx])
            # prefix / suffix
            lmin = np.minimum.accumulate(bl, 0); lmax = np.maximum.accumulate(bh, 0)
            rmin = np.minimum.accumulate(bl[::-1], 0)[::-1]; rmax = np.maximum.accumulate(bh[::-1], 0)[::-1]
            nl = np.cumsum(cnt)
            nr = len(idx) - nl
            # split after bin k (k = 0..nbins-2)
            al = area(lmin[:-1], lmax[:-1]); ar = area(rmin[1:], rmax[1:])
            NL = nl[:-1]; NR = nr[:-1]
            ok = (NL > 0) & (NR > 0)
            if not ok.any():
                continue
            cost = np.where(ok, 1.0 + (np.where(NL > 0, al, 0) * NL + np.where(NR > 0, ar, 0) * NR) / pa, np.inf)
            k = int(np.argmin(cost))
            if cost[k] < best[0]:
                best = (cost[k], (b <= k))
        if best[1] is None:
            return None
        return idx[best[1]], idx[~best[1]]

    def split_sweep(idx, pa):
        best = (np.inf, None)
        for ax in range(3):
            o = np.lexsort((idx, cent[idx, ax]))
            s = idx[o]
            lmin = np.minimum.accumulate(pmin[s], 0); lmax = np.maximum.accumulate(pmax[s], 0)
            rmin = np.minimum.accumulate(pmin[s][::-1], 0)[::-1]; rmax = np.maximum.accumulate(pmax[s][::-1], 0)[::-1]
            n = len(s)
            NL = np.arange(1, n); NR = n - NL
            cost = 1.0 + (area(lmin[:-1], lmax[:-1]) * NL + area(rmin[1:], rmax[1:]) * NR) / pa
            k = int(np.argmin(cost))
            if cost[k] < best[0]:
                best = (cost[k], (s[:k + 1], s[k + 1:]))
        return best[1]

    def rec(idx):
        if len(idx) == 1:
            return ~int(idx[0])
        pa = area(pmin[idx].min(0), pmax[idx].max(0))
        sp = split_sweep(idx, pa) if nbins is None else split_binned(idx, pa)
        if sp is None:      # median split on largest centroid extent
            stats["fallback"] += 1
            c = cent[idx]
            ax = int(np.argmax(c.max(0) - c.min(0)))
            o = np.lexsort((idx, c[:, ax]))
            h = len(idx) // 2
            sp = (idx[o[:h]], idx[o[h:]])
        me = len(children)
        children.append([0, 0])
        l = rec(sp[0])
        r = rec(sp[1])
        children[me] = [l, r]
        return me

    rec(np.arange(len(cent)))
    name = "SAH sweep" if nbins is None else "SAH binned%d" % nbins
    t = Tree(name, children, pmin, pmax)
    t.fallbacks = stats["fallback"]
    return t


# ----------------------------------------------------------------------------
# Rays
# ----------------------------------------------------------------------------
W, H = 320, 180


def camera_rays():
    lookfrom = np.array([13.0, 2.0, 3.0]); lookat = np.zeros(3); vup = np.array([0.0, 1.0, 0.0])
    aspect = 1280.0 / 720.0
    h = np.tan(np.radians(20.0) / 2)
    vh = 2 * h; vw = aspect * vh
    w = lookfrom - lookat; w /= np.linalg.norm(w)
    u = np.cross(vup, w); u /= np.linalg.norm(u)
    v = np.cross(w, u)
    j, i = np.mgrid[0:H, 0:W]           # row-major, row 0 = top of image
    s = (i + 0.5) / W
    t = 1.0 - (j + 0.5) / H
    d = (-w)[None, None] + ((s - 0.5) * vw)[..., None] * u + ((t - 0.5) * vh)[..., None] * v
    d = d.reshape(-1, 3)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    o = np.broadcast_to(lookfrom, d.shape).copy()
    return o, d


def cosine_dirs(n, rng):
    m = len(n)
    u1 = rng.random(m); u2 = rng.random(m)
    r = np.sqrt(u1); phi = 2 * np.pi * u2
    lx, ly, lz = r * np.cos(phi), r * np.sin(phi), np.sqrt(np.maximum(0.0, 1 - u1))
    # orthonormal basis (Duff et al. 2017)
    sign = np.where(n[:, 2] >= 0, 1.0, -1.0)
    a = -1.0 / (sign + n[:, 2])
    b = n[:, 0] * n[:, 1] * a
    t1 = np.stack([1 + sign * n[:, 0] ** 2 * a, sign * b, -sign * n[:, 0]], 1)
    t2 = np.stack([b, sign + n[:, 1] ** 2 * a, -n[:, 1]], 1)
    d = lx[:, None] * t1 + ly[:, None] * t2 + lz[:, None] * n
    return d / np.linalg.norm(d, axis=1, keepdims=True)


# ----------------------------------------------------------------------------
# Traversal (vectorised lock-step over rays, per-ray stacks)
# ----------------------------------------------------------------------------
def slab(o, inv, bmin, bmax, tmax):
    t1 = (bmin - o) * inv
    t2 = (bmax - o) * inv
    tn = np.maximum(np.minimum(t1, t2).max(1), 0.0)
    tf = np.minimum(np.maximum(t1, t2).min(1), tmax)
    return tn <= tf, tn


def sphere_t(o, d, c, r, tmax):
    oc = o - c
    b = (oc * d).sum(1)
    cc = (oc * oc).sum(1) - r * r
    disc = b * b - cc
    ok = disc >= 0
    sq = np.sqrt(np.where(ok, disc, 0.0))
    t = -b - sq
    t = np.where(t > 0.0, t, -b + sq)
    ok &= (t > 0.0) & (t < tmax)
    return np.where(ok, t, np.inf)


def traverse(tree, C, Rad, O, D, stack_depth=64):
    N = len(O)
    invD = 1.0 / np.where(D == 0, 1e-300, D)
    tmax = np.full(N, np.inf)
    hit = np.full(N, -1, dtype=np.int64)
    visits = np.zeros(N, dtype=np.int64)
    leaves = np.zeros(N, dtype=np.int64)
    culled = np.zeros(N, dtype=np.int64)
    stack = np.zeros((N, stack_depth), dtype=np.int64)
    stackt = np.zeros((N, stack_depth))
    sp = np.zeros(N, dtype=np.int64)
    hr, _ = slab(O, invD, tree.bmin[0][None], tree.bmax[0][None], tmax)
    cur = np.where(hr, 0, -1)
    maxsp = 0
    while True:
        act = np.nonzero(cur >= 0)[0]
        if len(act) == 0:
            break
        nd = cur[act]
        visits[act] += 1
        o = O[act]; inv = invD[act]; tm = tmax[act]
        c0 = tree.child[nd, 0]; c1 = tree.child[nd, 1]
        h0, t0 = slab(o, inv, tree.cmin[nd, 0], tree.cmax[nd, 0], tm)
        h1, t1 = slab(o, inv, tree.cmin[nd, 1], tree.cmax[nd, 1], tm)
        # leaves are intersected immediately
        for h, c in ((h0, c0), (h1, c1)):
            m = h & (c < 0)
            if not m.any():
                continue
            ids = act[m]; pr = ~c[m]
            leaves[ids] += 1
            t = sphere_t(O[ids], D[ids], C[pr], Rad[pr], tmax[ids])
            better = t < tmax[ids]
            tmax[ids[better]] = t[better]
            hit[ids[better]] = pr[better]
        i0 = h0 & (c0 >= 0); i1 = h1 & (c1 >= 0)
        both = i0 & i1
        newcur = np.full(len(act), -1, dtype=np.int64)
        m = i0 & ~i1; newcur[m] = c0[m]
        m = i1 & ~i0; newcur[m] = c1[m]
        first0 = t0 <= t1
        near = np.where(first0, c0, c1); far = np.where(first0, c1, c0); tfe = np.where(first0, t1, t0)
        newcur[both] = near[both]
        b = act[both]
        stack[b, sp[b]] = far[both]; stackt[b, sp[b]] = tfe[both]; sp[b] += 1
        if len(b):
            maxsp = max(maxsp, int(sp[b].max()))
        cur[act] = newcur
        need = act[newcur < 0]
        while len(need):                 # pop, culling entries behind closest hit
            need = need[sp[need] > 0]
            if len(need) == 0:
                break
            sp[need] -= 1
            node = stack[need, sp[need]]; te = stackt[need, sp[need]]
            ok = te <= tmax[need]
            cur[need[ok]] = node[ok]
            culled[need[~ok]] += 1
            need = need[~ok]
    assert maxsp < stack_depth
    return dict(t=tmax, hit=hit, visits=visits, leaves=leaves, culled=culled, maxsp=maxsp)


# ----------------------------------------------------------------------------
def warp_max(x, order, group=32):
    xs = x[order]
    ng = (len(xs) + group - 1) // group
    pad = np.zeros(ng * group, dtype=xs.dtype)
    pad[:len(xs)] = xs
    return pad.reshape(ng, group).max(1).mean()


def main():
    t_start = time.time()
    C32, R32 = make_scene()
    C = C32.astype(np.float64); Rad = R32.astype(np.float64)
    n = len(C)
    pmin = C - Rad[:, None]; pmax = C + Rad[:, None]
    print("spheres:", n)

    lbvh, codes32 = build_lbvh(C32, pmin, pmax, np.float32)
    codes64 = morton_codes(C, np.float64)
    print("Morton codes float32 vs float64 quantisation: %d of %d differ" % ((codes32 != codes64).sum(), n))
    keys = sorted((int(codes32[i]) << NPRIM_BITS) | i for i in range(n))
    kr = set(karras_children(keys))
    print("literal Karras-2012 construction == recursive split topology:", kr == lbvh_ranges(keys))
    lb64, _ = build_lbvh(C, pmin, pmax, np.float64)
    lb64.name = "LBVH fp64-quant"
    same_topo = lbvh_ranges(keys) == lbvh_ranges(sorted((int(codes64[i]) << NPRIM_BITS) | i for i in range(n)))
    print("LBVH topology identical with float64 quantisation:", same_topo)
    trees = [lbvh, build_sah(C, pmin, pmax, 32), build_sah(C, pmin, pmax, None), build_lbvh_hoisted(C32, pmin, pmax), ground_to_root(lbvh)]
    sm, _ = build_lbvh(C32, pmin, pmax, np.float32, small=True); sm.name = "LBVH small-box"; trees.append(sm)
    lt, _ = build_lbvh(C32, pmin, pmax, np.float32, small=2); lt.name = "LBVH large-top"; trees.append(lt)
    if not same_topo:
        trees.append(lb64)
    print("binned SAH median fallbacks: %d" % trees[1].fallbacks)
    print("\nSAH cost (Ct=1, Ci=1, areas rel. to root):")
    for tr in trees:
        tot, ci, cl = tr.sah()
        print("  %-17s total %8.4f  (internal %8.4f, leaves %6.4f) | w/o ground %6.3f | max leaf depth %2d, mean %.2f, ground leaf depth %d"
              % (tr.name, tot, ci, cl, sah_without(tr), tr.leafdepth.max(), tr.leafdepth.mean(), tr.leafdepth[0]))
    print("  ('w/o ground' = SAH of the same tree with the ground leaf deleted (sibling replaces its parent),")
    print("   areas relative to the box of the 487 non-ground spheres; the full SAH is dominated by the ground's")
    print("   2000^3 box: every node containing it has area ~ root, everything else is ~1e-4 of root)")

    # primary rays
    O, D = camera_rays()
    NP = len(O)
    prim = [traverse(tr, C, Rad, O, D) for tr in trees]
    # bounce rays from LBVH primary hits (identical for all trees, checked below)
    ref = prim[0]
    hm = ref["hit"] >= 0
    pix = np.nonzero(hm)[0]
    hid = ref["hit"][hm]
    P = O[hm] + ref["t"][hm, None] * D[hm]
    Nrm = (P - C[hid]) / Rad[hid, None]
    Nrm /= np.linalg.norm(Nrm, axis=1, keepdims=True)
    rng = np.random.default_rng(20240501)
    BD = cosine_dirs(Nrm, rng)
    BO = P + 1e-4 * Rad[hid, None] * Nrm
    bnc = [traverse(tr, C, Rad, BO, BD) for tr in trees]

    # sanity: identical closest hits
    ok_all = True
    for name, res in (("primary", prim), ("bounce", bnc)):
        for k in range(1, len(trees)):
            a, b = res[0], res[k]
            same_id = np.array_equal(a["hit"], b["hit"])
            fin = np.isfinite(a["t"])
            same_t = np.array_equal(fin, np.isfinite(b["t"])) and (np.abs(a["t"][fin] - b["t"][fin]).max(initial=0) <= 1e-5)
            ok_all &= same_id and same_t
            print("check %-7s %s vs %s: ids identical=%s, t within 1e-5=%s" % (name, trees[0].name, trees[k].name, same_id, same_t))
    print("ALL CLOSEST HITS IDENTICAL:", ok_all)
    # brute force check on LBVH hits
    def brute(O_, D_):
        bt = np.full(len(O_), np.inf); bi = np.full(len(O_), -1)
        for s in range(n):
            t = sphere_t(O_, D_, C[s], Rad[s], bt)
            m = t < bt; bt[m] = t[m]; bi[m] = s
        return bt, bi
    bt, bi = brute(O, D)
    print("brute-force primary matches LBVH:", np.array_equal(bi, prim[0]["hit"]))
    bt, bi = brute(BO, BD)
    print("brute-force bounce  matches LBVH:", np.array_equal(bi, bnc[0]["hit"]))

    print("\nprimary rays: %d (hit %d = %.1f%%), bounce rays: %d (hit %d = %.1f%%)"
          % (NP, hm.sum(), 100 * hm.mean(), len(BO), (bnc[0]["hit"] >= 0).sum(), 100 * (bnc[0]["hit"] >= 0).mean()))

    # warp orders
    j, i = np.divmod(np.arange(NP), W)
    tile_order = np.lexsort((i % 8, j % 4, i // 8, j // 4))     # 8x4 tiles, tiles row-major
    rank = np.empty(NP, dtype=np.int64); rank[tile_order] = np.arange(NP)
    bounce_order = np.argsort(rank[pix], kind="stable")          # compacted, in tile order

    def row(name, r, order, tile_uncompacted=None):
        v, l, c = r["visits"], r["leaves"], r["culled"]
        d = dict(vm=v.mean(), v95=np.percentile(v, 95), lm=l.mean(), l95=np.percentile(l, 95),
                 wv=warp_max(v, order), wl=warp_max(l, order), nc=(v + c).mean())
        if tile_uncompacted is not None:
            d["wvu"] = tile_uncompacted(v)
        return d

    def bounce_uncompacted(v):
        full = np.zeros(NP, dtype=v.dtype); full[pix] = v
        return warp_max(full, tile_order)

    res = {}
    for k, tr in enumerate(trees):
        res[(tr.name, "primary")] = row(tr.name, prim[k], tile_order)
        res[(tr.name, "bounce")] = row(tr.name, bnc[k], bounce_order, bounce_uncompacted)

    print("\nPer-ray statistics (node = internal node visit, leaf = sphere test)")
    print("%-17s %-8s %9s %7s %9s %7s %11s %11s %11s" % ("tree", "rays", "node mean", "node95", "leaf mean", "leaf95",
                                                       "warp nodes", "warp leaves", "nocull mean"))
    for kind in ("primary", "bounce"):
        for tr in trees:
            d = res[(tr.name, kind)]
            print("%-17s %-8s %9.2f %7.1f %9.2f %7.1f %11.2f %11.2f %11.2f" % (tr.name, kind, d["vm"], d["v95"], d["lm"], d["l95"],
                                                                     d["wv"], d["wl"], d["nc"]))
    print("(warp = mean over 32-ray groups of the group max; primary groups = 8x4 pixel tiles; bounce groups =")
    print(" hit rays compacted in tile order, consecutive 32. 'nocull mean' = node visits if popped nodes are")
    print(" not culled against closest t.)")
    for kind in ("bounce",):
        print("bounce warp nodes, uncompacted (warp = primary 8x4 tile, missed lanes idle): " +
              ", ".join("%s %.2f" % (tr.name, res[(tr.name, kind)]["wvu"]) for tr in trees))

    print("\nRatios LBVH / SAH:")
    for tr in trees[1:]:
        for kind in ("primary", "bounce"):
            a = res[(trees[0].name, kind)]; b = res[(tr.name, kind)]
            print("  vs %-17s %-8s node mean %.3f  leaf mean %.3f  warp nodes %.3f  warp leaves %.3f  (nodes+leaves %.3f)"
                  % (tr.name, kind, a["vm"] / b["vm"], a["lm"] / b["lm"], a["wv"] / b["wv"], a["wl"] / b["wl"],
                     (a["vm"] + a["lm"]) / (b["vm"] + b["lm"])))
    print("max stack depth:", {tr.name: (prim[k]["maxsp"], bnc[k]["maxsp"]) for k, tr in enumerate(trees)})
    print("elapsed %.1fs" % (time.time() - t_start))


if __name__ == "__main__":
    main()
