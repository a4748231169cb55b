#!/usr/bin/env python3
"""ktree_graph.py K N NODES - a topo.conf (Topology=graph) of a k-ary
n-tree populated with NODES nodes, as a machine smaller than k^n is
built: the first ceil(NODES / K) leaves hold K nodes each (the last one
the rest), and a switch of levels 1..n-2 is kept only when its unit
(paper 001's numbering, topo/topo_fattree.c) holds a populated leaf;
the top level is kept whole.  stopo recognises it as a fat-tree
(topo_recog_fattree.c), so fattree-pods applies under ecmp.

IBM's SP2 High-Performance Switch is built so: 8-port switch chips
(4 ports down, 4 up) in two stages of four per 16-node switch board,
boards joined by more stages (Stunkel et al., IBM Systems Journal
34(2), 1995).  make bench models KTH-SP2 (100 nodes) and SDSC-SP2
(128) as ktree_graph.py 4 4 100 and ktree_graph.py 4 4 128."""
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: ktree_graph.py K N NODES")
    k, n, nodes = (int(a) for a in sys.argv[1:])
    per = k ** (n - 1)
    if k < 2 or n < 2 or not 1 <= nodes <= k * per:
        sys.exit("ktree_graph.py: want K >= 2, N >= 2, 1 <= NODES <= K^N")
    leaves = -(-nodes // k)
    print("# %d-ary %d-tree with %d of its %d nodes (bench/ktree_graph.py)"
          % (k, n, nodes, k * per))
    print("Topology=graph")
    left = nodes
    for lvl in range(n):
        for w in range(per):
            unit = w // k ** lvl
            if lvl < n - 1 and unit * k ** lvl >= leaves:
                continue
            line = "SwitchName=s%d_%d" % (lvl, w)
            if lvl == 0:
                c = min(k, left)
                left -= c
                line += " Nodes=%d" % c
            if lvl + 1 < n:
                pw = k ** lvl
                base = w - (w // pw) % k * pw
                line += " Links=" + ",".join(
                    "s%d_%d" % (lvl + 1, base + d * pw) for d in range(k))
            print(line)


main()
