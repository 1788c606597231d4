"""The old design at large P, without simulating its P(P-1) messages.

At 10^5 ranks the old design sends 10^10 Checkpoint-Initiated messages per
checkpoint; no message-by-message simulation is tractable. Their times are
regular, though: rank p sends its INITs in rank order, one per send_cost,
from its checkpoint time s_p, so its INIT to q arrives at
    s_p + (idx_p(q) + 1) * send_cost + L,  idx_p(q) = q - [p < q],
with L = alpha + 24/beta. Every receiver q therefore sees the same sorted
sequence of checkpoint times, shifted by q * send_cost + L. Keeping that
sequence sorted, the number of INITs that reached q by time t is one binary
search, and each rank's polls are simulated as in des.py (same poll rules,
same costs) with counts instead of messages:

  1. checkpoint times, in the order of the ranks' first polls: q polls at
     its first (tick-gated) site after the first INIT reaches it (an
     initiator's: every other sender checkpointed later), handles what has
     arrived by then and what arrives while it handles (a busy period of
     recv_cost each), and checkpoints: s_q;
  2. after its P-1 sends and its write, q polls at once and then at its
     next site after each new arrival, handling what arrived, until it has
     handled all P-1 INITs: its period ends and its report leaves for rank 0;
  3. rank 0 handles its INITs and the P-1 reports as one FIFO stream of
     arrival times, message by message, and commits once it has them all.

Approximations, against oldproto.py: the arrival shift uses idx = q for
every sender (one send_cost, 0.3 us, late for senders below q); in step 1
an INIT from a rank whose own first poll comes after q's is not counted in
q's first busy period (it is handled after q's checkpoint instead). Message
counts and bytes are the formulas, not counted.
"""

import bisect

from des import Rank, Sim


def run(prm, P, initiators, rng):
    """initiators: list of (rank, start time). Returns a result dict."""
    sim = Sim(prm, rng)  # for its site process only
    os_, c = prm.send_cost, prm.recv_cost
    L = prm.alpha + 24 / prm.beta
    W = prm.write
    ranks = [Rank(q, rng.uniform(0, prm.tick) if prm.tick > 0 else 0)
             for q in range(P)]
    start = [None] * P
    pre = [0] * P  # INITs handled before its own checkpoint
    init_ids = {i for i, _ in initiators}
    for i, ti in initiators:
        start[i] = ti

    # 1. Checkpoint times.
    first = []
    for q in range(P):
        if q in init_ids:
            continue
        a = min(ti + (q - (i < q) + 1) * os_ + L for i, ti in initiators)
        first.append((sim.next_site(ranks[q], a), q))
    first.sort()
    S = sorted(start[i] for i in init_ids)
    for tq, q in first:
        shift = q * os_ + L + os_
        n = max(1, bisect.bisect_right(S, tq - shift))
        while True:  # the busy period: arrivals while handling are handled
            end = tq + n * c
            n2 = bisect.bisect_right(S, end - shift)
            if n2 <= n:
                break
            n = n2
        start[q] = end
        pre[q] = n
        bisect.insort(S, end)

    # 2. Each rank's period.
    write_end = [start[q] + (P - 1) * os_ + W for q in range(P)]
    ended = [None] * P
    for q in range(P):
        shift = q * os_ + L + os_
        own = start[q]
        n, t = pre[q], write_end[q]
        while True:
            j = bisect.bisect_right(S, t - shift)
            a = j - (own <= t - shift)
            if a > n:
                t += (a - n) * c
                n = a
                continue
            if n >= P - 1:
                break
            if S[j] == own:
                j += 1
            t = max(t, S[j] + shift) + sim.expo()  # first site after it
        ended[q] = t + prm.log_write

    # 3. Rank 0: its INITs and the reports, one FIFO stream.
    items = sorted([(start[p] + os_ + L, 0) for p in range(1, P)]
                   + [(ended[q] + os_ + L, 1) for q in range(1, P)])
    t = write_end[0]
    inits, logged, done0 = pre[0], 0, False
    skip = pre[0]  # the earliest INITs, handled before its checkpoint
    i = 0
    while i < len(items) and skip and items[i][1] == 0:
        i += 1
        skip -= 1
    commit = None
    while True:
        if i < len(items) and items[i][0] <= t:
            t += c
            if items[i][1] == 0:
                inits += 1
            else:
                logged += 1
            i += 1
            continue
        if not done0 and inits == P - 1:
            done0 = True
            t += prm.log_write
            ended[0] = t
        if done0 and logged == P - 1:
            commit = t + prm.log_write
            break
        if i >= len(items):
            break
        t = items[i][0] + sim.expo()

    bad = []
    if commit is None:
        bad.append('old design (aggregate): no commit record')
    elif any(e is None or e > commit for e in ended):
        bad.append('old design (aggregate): a rank did not reach the commit')
    return {
        'commit': commit,
        'last_write': max(write_end),
        'last_start': max(start),
        'bad': bad,
        'events': None,
    }
