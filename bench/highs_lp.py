#!/usr/bin/python3
"""highs_lp.py - solve a path-template MCF LP (evaluator/models/mcf_tpl.h)
exported by bench_peers with HiGHS (scipy.optimize.linprog, method
"highs"), the fastest exact LP solver at hand, for the benchmark's peer
column.  Not a product dependency: Debian's python3-scipy carries it.

The file: a header of five little-endian uint32 (nlinks, nflows, ngroups,
nnz, 0), then cap[nlinks], demand[nflows], mult[ngroups] as float64,
flow_off[nflows+1], col_off[ngroups+1], col_link[nnz] as uint32 and
col_cnt[nnz] as float64.  The LP, as GLPK gets it:

    max alpha  s.t.  M x <= C,  sum_{g of f} mult_g x_g - w_f alpha >= 0,
                     x, alpha >= 0

Prints one line: "alpha A seconds S status T" (S: linprog's wall time,
the matrix built beforehand).

usage: highs_lp.py FILE"""
import sys
import time

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csc_matrix, vstack, hstack


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    with open(sys.argv[1], "rb") as f:
        nl, nf, ng, nnz, _ = np.fromfile(f, dtype="<u4", count=5)
        cap = np.fromfile(f, dtype="<f8", count=nl)
        w = np.fromfile(f, dtype="<f8", count=nf)
        mult = np.fromfile(f, dtype="<f8", count=ng)
        foff = np.fromfile(f, dtype="<u4", count=nf + 1).astype(np.int64)
        coff = np.fromfile(f, dtype="<u4", count=ng + 1).astype(np.int64)
        link = np.fromfile(f, dtype="<u4", count=nnz).astype(np.int64)
        cnt = np.fromfile(f, dtype="<f8", count=nnz)
    used = np.unique(link)
    row = np.full(nl, -1, dtype=np.int64)
    row[used] = np.arange(len(used))
    m = csc_matrix((cnt, row[link], coff), shape=(len(used), ng))
    # flow rows as <=: w_f alpha - sum mult_g x_g <= 0
    gflow = np.repeat(np.arange(nf), np.diff(foff))
    fr = csc_matrix((-mult, (gflow, np.arange(ng))), shape=(nf, ng))
    a = vstack([hstack([m, csc_matrix((len(used), 1))]),
                hstack([fr, csc_matrix(w.reshape(-1, 1))])]).tocsc()
    b = np.concatenate([cap[used], np.zeros(nf)])
    c = np.zeros(ng + 1)
    c[-1] = -1
    t0 = time.monotonic()
    res = linprog(c, A_ub=a, b_ub=b, bounds=(0, None), method="highs")
    dt = time.monotonic() - t0
    alpha = -res.fun if res.status == 0 else float("nan")
    print(f"alpha {alpha:.10f} seconds {dt:.3f} status {res.status}")


if __name__ == "__main__":
    main()
