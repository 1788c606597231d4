#!/usr/bin/env python3
"""Simulated control traffic of one ccc checkpoint, old design against new.

    bench/scale/run.py [--quick] [--P 16,64,1000,10000,100000] [options]

For each P it simulates one checkpoint under main's protocol (every rank
tells every rank; reports to rank 0) and under the tree protocol of
notes/design20.md, for each application halo (3-D 7-point: 6 neighbours,
2-D 5-point: 4), and prints per checkpoint the control messages and bytes,
the most any rank receives and sends, and the critical path (initiator's
start to the commit record); then the bytes a rank receives per 8-byte
Allreduce under each design, and least-squares fits of log(value) against
log(P). Exit status 1, after a `ccc: scale: ...` line, if a run breaks an
invariant it checks about itself (every rank reaches the commit; message
counts equal the designs' formulas). Python 3 standard library only.
"""

import argparse
import math
import random
import sys
import time
import types

import coll
import oldagg
from des import Sim
from newproto import NewProtocol, NewRank
from oldproto import OldProtocol, OldRank
from topo import depth, dims_create, halo, tree


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, as ccc's other tools say it
        sys.exit('ccc: scale: %s (see --help)' % message)


def parse():
    ap = Parser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--quick', action='store_true',
                    help='P = 16, 64, 256 (under 20 s; ctest bench.scale.quick)')
    ap.add_argument('--P', help='comma-separated rank counts')
    ap.add_argument('--K', type=int, default=4, help='tree arity (4)')
    ap.add_argument('--alpha', type=float, default=1.5e-6,
                    help='per-message latency, s (1.5e-6)')
    ap.add_argument('--beta', type=float, default=10e9,
                    help='bandwidth, bytes/s (10e9)')
    ap.add_argument('--recv-cost', type=float, default=0.3e-6,
                    help="receiver's time to handle one control message, s")
    ap.add_argument('--send-cost', type=float, default=0.3e-6,
                    help="sender's time to post one control message, s")
    ap.add_argument('--site-mean', type=float, default=1e-3,
                    help="mean interval between a rank's sites/layer calls, s")
    ap.add_argument('--tick', type=float, default=4e-3,
                    help='coarse clock tick gating Run-mode polls, s (0: none)')
    ap.add_argument('--write', type=float, default=50e-3,
                    help='image write time per rank, s (0.05)')
    ap.add_argument('--log-write', type=float, default=0.0,
                    help='message log / commit record write time, s (0)')
    ap.add_argument('--comms', type=int, default=1,
                    help='communicators every rank is in (cut entries, 1)')
    ap.add_argument('--initiators', type=int, default=1,
                    help='ranks starting the checkpoint on their own (1)')
    ap.add_argument('--halos', default='3,2',
                    help='halo dimensions to simulate (3,2)')
    ap.add_argument('--old-full-max', type=int,
                    help='largest P simulated message by message under the '
                    'old design (1000; quick: 256); above, oldagg.py')
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    if a.P:
        try:
            a.Ps = [int(float(x)) for x in a.P.split(',')]
        except ValueError:
            ap.error('--P wants comma-separated integers')
    else:
        a.Ps = [16, 64, 256] if a.quick else [16, 64, 1000, 10000, 100000]
    if a.old_full_max is None:
        a.old_full_max = 256 if a.quick else 1000
    try:
        a.nds = [int(x) for x in a.halos.split(',')]
    except ValueError:
        ap.error('--halos wants comma-separated dimensions, e.g. 3,2')
    for what, ok in (('--P values must be >= 2', min(a.Ps) >= 2),
                     ('--K must be >= 2', a.K >= 2),
                     ('--halos must be 1, 2 or 3', set(a.nds) <= {1, 2, 3}),
                     ('--initiators must be >= 1 and < every P',
                      1 <= a.initiators < min(a.Ps)),
                     ('--comms must be >= 1', a.comms >= 1),
                     ('times and costs must be >= 0, beta and --site-mean > 0',
                      min(a.alpha, a.recv_cost, a.send_cost, a.tick, a.write,
                          a.log_write) >= 0 and a.beta > 0
                      and a.site_mean > 0)):
        if not ok:
            sys.exit('ccc: scale: ' + what)
    return a


def params(a):
    return types.SimpleNamespace(
        alpha=a.alpha, beta=a.beta, recv_cost=a.recv_cost,
        send_cost=a.send_cost, site_mean=a.site_mean,
        site_rate=1.0 / a.site_mean, tick=a.tick, write=a.write,
        log_write=a.log_write)


def initiators(P, n, rng, site_mean):
    """n distinct ranks other than 0 (the harder case: START goes to the
    root first); the first starts at 0, the others within a site interval."""
    ids = rng.sample(range(1, P), n)
    return [(r, 0.0 if k == 0 else rng.uniform(0, site_mean))
            for k, r in enumerate(ids)]


def phase(rng, prm):
    return rng.uniform(0, prm.tick) if prm.tick > 0 else 0.0


def per_rank(ranks):
    return (max(r.in_msgs for r in ranks), max(r.in_bytes for r in ranks),
            max(r.out_msgs for r in ranks), max(r.out_bytes for r in ranks))


def run_new(a, prm, P, nd, seed):
    rng = random.Random(seed)
    _, nbrs = halo(P, nd)
    parent, kids = tree(P, a.K)
    sim = Sim(prm, rng)
    ranks = [NewRank(q, phase(rng, prm), parent[q], kids[q], nbrs[q],
                     a.comms) for q in range(P)]
    proto = NewProtocol(sim, ranks, a.comms)
    inits = initiators(P, a.initiators, rng, prm.site_mean)
    for i, ti in inits:
        r = ranks[i]
        r.own = r.initiated = r.open = True
        sim.poll_now(r, ti)
    sim.run()
    pairs = sum(len(n) for n in nbrs)
    res = {'msgs': sim.msgs, 'bytes': sim.bytes, 'max': per_rank(ranks),
           'commit': proto.commit_at,
           'last_write': max(r.write_end or 0 for r in ranks),
           'kinds': dict(sim.by_kind), 'pairs': pairs,
           'bad': proto.check([i for i, _ in inits], pairs),
           'events': sim.events, 'how': 'messages'}
    return res


def run_old_full(a, prm, P, seed):
    rng = random.Random(seed)
    sim = Sim(prm, rng)
    ranks = [OldRank(q, phase(rng, prm)) for q in range(P)]
    proto = OldProtocol(sim, ranks)
    for i, ti in initiators(P, a.initiators, rng, prm.site_mean):
        r = ranks[i]
        r.own = r.initiated = r.open = True
        sim.poll_now(r, ti)
    sim.run()
    return {'msgs': sim.msgs, 'bytes': sim.bytes, 'max': per_rank(ranks),
            'commit': proto.commit_at,
            'last_write': max(r.write_end or 0 for r in ranks),
            'bad': proto.check(), 'events': sim.events, 'how': 'messages'}


def run_old_agg(a, prm, P, seed):
    rng = random.Random(seed)
    inits = initiators(P, a.initiators, rng, prm.site_mean)
    res = oldagg.run(prm, P, inits, rng)
    msgs = P * (P - 1) + P - 1  # the formula: not counted
    # Rank 0 receives P-1 INITs and P-1 reports; any other rank sends P-1
    # INITs and its report.
    res.update({'msgs': msgs, 'bytes': 24 * msgs,
                'max': (2 * (P - 1), 48 * (P - 1), P, 24 * P),
                'how': 'aggregate'})
    return res


def agree(full, agg):
    """Where both old-design models ran: the aggregate's formulas must give
    the counts the message-level run counted, and its critical path must be
    within 10 % of the message-level one (different random draws: at 256
    ranks seeds 1-8 differ by at most 5 %, at 512 by 2 %)."""
    bad = []
    if (full['msgs'], full['bytes'], full['max']) != \
            (agg['msgs'], agg['bytes'], agg['max']):
        bad.append('old design: the aggregate model\'s counts %s differ from '
                   'the message-level run\'s %s'
                   % ((agg['msgs'], agg['bytes'], agg['max']),
                      (full['msgs'], full['bytes'], full['max'])))
    if full['commit'] and agg['commit'] and \
            abs(agg['commit'] / full['commit'] - 1) > 0.10:
        bad.append('old design: critical path %.2f ms (aggregate) against '
                   '%.2f ms (message-level)'
                   % (agg['commit'] * 1e3, full['commit'] * 1e3))
    return bad


def ms(x):
    return '%.2f' % (x * 1e3) if x is not None else '-'


def row(P, design, r, wall):
    mi, mib, mo, mob = r['max']
    tail = (r['commit'] - r['last_write']) if r['commit'] is not None else None
    print('%7d %-8s %14d %15d %8d %10d %8d %10d %9s %9s %8s  %-9s %6.1f'
          % (P, design, r['msgs'], r['bytes'], mi, mib, mo, mob,
             ms(r['commit']), ms(r['last_write']), ms(tail), r['how'], wall))


def fit(xs, ys):
    """Least squares of ln y on ln x: y ~ a x^b; returns a, b, R^2."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    n = len(lx)
    mx, my = sum(lx) / n, sum(ly) / n
    sxx = sum((x - mx) ** 2 for x in lx)
    sxy = sum((x - mx) * (y - my) for x, y in zip(lx, ly))
    syy = sum((y - my) ** 2 for y in ly)
    b = sxy / sxx
    r2 = 1.0 if syy == 0 else sxy * sxy / (sxx * syy)
    return math.exp(my - b * mx), b, r2


def fit_log(xs, ys, k):
    """Least squares of y on log_k x: y ~ c0 + c1 log_k x (a tree's
    levels); returns c0, c1, R^2."""
    lx = [math.log(x, k) for x in xs]
    n = len(lx)
    mx, my = sum(lx) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in lx)
    sxy = sum((x - mx) * (y - my) for x, y in zip(lx, ys))
    syy = sum((y - my) ** 2 for y in ys)
    c1 = sxy / sxx
    r2 = 1.0 if syy == 0 else sxy * sxy / (sxx * syy)
    return my - c1 * mx, c1, r2


def main():
    a = parse()
    prm = params(a)
    t0 = time.time()
    print('# ccc checkpoint control traffic, simulated (bench/scale/run.py%s)'
          % (' --quick' if a.quick else ''))
    print('# alpha %.3g s, beta %.3g B/s, recv %.3g s, send %.3g s, site mean '
          '%.3g s, tick %.3g s, write %.3g s, log %.3g s, K %d, comms %d, '
          'initiators %d, seed %d'
          % (prm.alpha, prm.beta, prm.recv_cost, prm.send_cost,
             prm.site_mean, prm.tick, prm.write, prm.log_write, a.K, a.comms,
             a.initiators, a.seed))
    print('# per checkpoint; max in/out: the most any one rank receives/sends;'
          ' critical: initiator start -> commit record; last image: the last'
          ' rank\'s image written; tail: commit - last image; ms')
    print('%7s %-8s %14s %15s %8s %10s %8s %10s %9s %9s %8s  %-9s %6s'
          % ('P', 'design', 'messages', 'bytes', 'in msgs', 'in B',
             'out msgs', 'out B', 'critical', 'last img', 'tail', 'how',
             'wall s'))
    bad = []
    series = {}  # name -> [(P, value)]

    def keep(name, P, v):
        series.setdefault(name, []).append((P, v))

    for P in a.Ps:
        seed = a.seed * 1000003 + P
        runs = []
        if P <= a.old_full_max:
            runs.append(('old', run_old_full))
        if P >= a.old_full_max:  # at old_full_max both: the aggregate's check
            runs.append(('old', run_old_agg))
        olds = []
        for design, fn in runs:
            w = time.time()
            r = fn(a, prm, P, seed)
            row(P, design, r, time.time() - w)
            bad += ['P=%d: %s' % (P, b) for b in r['bad']]
            olds.append(r)
            # The fits take the message-level run where there is one.
            if r['how'] == 'messages' or P > a.old_full_max:
                keep('old msgs', P, r['msgs'])
                keep('old max in msgs', P, r['max'][0])
                if r['commit'] is not None:
                    keep('old critical-write s', P, r['commit'] - prm.write)
        if len(olds) == 2:
            bad += ['P=%d: %s' % (P, b) for b in agree(*olds)]
        for nd in a.nds:
            w = time.time()
            r = run_new(a, prm, P, nd, seed + 7 * nd)
            row(P, 'new-%dd' % nd, r, time.time() - w)
            dims = 'x'.join(str(d) for d in dims_create(P, nd))
            k = r['kinds']
            print('%7s %-8s %s halo %s, %d INIT pairs, tree depth %d: START '
                  '%d INIT %d DONE %d ALL %d LOGGED %d; %d events'
                  % ('', '', '', dims, r['pairs'], depth(P, a.K),
                     k.get('START', 0), k.get('INIT', 0), k.get('DONE', 0),
                     k.get('ALL', 0), k.get('LOGGED', 0), r['events']))
            bad += ['P=%d new-%dd: %s' % (P, nd, b) for b in r['bad']]
            keep('new-%dd msgs' % nd, P, r['msgs'])
            keep('new-%dd max in msgs' % nd, P, r['max'][0])
            if r['commit'] is not None:
                keep('new-%dd critical-write s' % nd, P,
                     r['commit'] - prm.write)

    print()
    print('# one MPI_Allreduce of 8 bytes: bytes received per rank per call '
          '(bench/scale/coll.py); other collectives under the old design: '
          'header words added')
    print('%7s %10s %12s %10s %16s' % ('P', 'new B', 'old B', 'old/new',
                                       'old header B'))
    for P in a.Ps:
        n, o = coll.allreduce8_new(P), coll.allreduce8_old(P)
        print('%7d %10d %12d %10.1f %16d' % (P, n, o, o / n,
                                             coll.header_words_old(P)))
        keep('old allreduce8 B', P, o)
        keep('new allreduce8 B', P, n)

    if len(a.Ps) >= 2:
        print()
        print('# least squares of ln(value) on ln(P) over P = %s: value ~ a P^b'
              % ','.join(str(P) for P in a.Ps))
        print('# (critical-write: the critical path less one image write, '
              'what the protocol adds; also fitted as c0 + c1 log_K(P))')
        for name, pts in series.items():
            if len(pts) < 2 or min(v for _, v in pts) <= 0:
                continue
            xs, ys = [p for p, _ in pts], [v for _, v in pts]
            ca, cb, r2 = fit(xs, ys)
            line = '%-26s a = %-10.4g b = %6.3f  R^2 = %.3f' % (name, ca, cb,
                                                                r2)
            if name.endswith(' s'):
                c0, c1, q2 = fit_log(xs, ys, a.K)
                line += ('   | c0 = %.2f ms, c1 = %.2f ms per level, R^2 = '
                         '%.3f' % (c0 * 1e3, c1 * 1e3, q2))
            print(line)
    print()
    print('# wall time %.1f s' % (time.time() - t0))
    if bad:
        for b in bad:
            print('ccc: scale: invariant broken: ' + b, file=sys.stderr)
        return 1
    print('# invariants held: every rank reached the commit in every run; '
          'message counts equal 4(P-1)+pairs+initiators (new) and '
          'P(P-1)+P-1 (old, message-level runs)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
