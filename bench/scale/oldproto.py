"""The old design (main's mpi-layer/protocol/Protocol.cpp), message by message.

At its checkpoint a rank sends Checkpoint-Initiated (24 bytes) to every
other rank, in rank order, before writing its image (startCheckpoint). A
rank that handles one of the next epoch takes its checkpoint at that site.
Its period ends once it has handled the INIT of every other rank (late
messages taken to have arrived); it then sends its "logged" report to rank
0, which handles the reports serially and writes the commit record when all
P (its own included) are in. Tractable up to a few thousand ranks (P(P-1)
messages); oldagg.py models larger jobs.
"""

from des import KIND, Rank

INIT, LOGGED = 'INIT', 'LOGGED'
HDR = 24


class OldRank(Rank):
    __slots__ = ('own', 'initiated', 'ckpt', 'written', 'inits', 'ended',
                 'logged', 'ckpt_at', 'ended_at')

    def __init__(self, rid, phase):
        Rank.__init__(self, rid, phase)
        self.own = self.initiated = self.ckpt = self.written = False
        self.ended = False
        self.inits = self.logged = 0
        self.ckpt_at = self.ended_at = None


class OldProtocol:
    def __init__(self, sim, ranks):
        self.sim, self.ranks = sim, ranks
        self.commit_at = None
        sim.proto = self

    def handle(self, r, m, t):
        if m[KIND] == INIT:
            r.inits += 1  # this epoch's, or the next one's (FutureWant)
            r.initiated = r.open = True
        else:
            r.logged += 1  # rank 0 only
        return t

    def site(self, r, t):
        s = self.sim
        prm = s.prm
        P = len(self.ranks)
        if r.initiated and not r.ckpt:
            r.ckpt = r.open = True
            r.ckpt_at = t
            for q in range(P):
                if q != r.id:
                    t += prm.send_cost
                    s.send(r, self.ranks[q], INIT, None, HDR, t)
            s.start_write(r, t)
            return t
        if r.written and r.inits == P - 1 and not r.ended:
            r.ended = True
            t += prm.log_write
            r.ended_at = t
            if r.id == 0:
                r.logged += 1  # onLogged(0, ...) directly
            else:
                r.open = False
                t += prm.send_cost
                s.send(r, self.ranks[0], LOGGED, None, HDR, t)
        if r.id == 0 and r.logged == P and self.commit_at is None:
            t += prm.log_write  # the commit record
            self.commit_at = t
            r.open = False
        return t

    def check(self):
        bad = []
        P = len(self.ranks)
        if self.commit_at is None:
            bad.append('old design: no commit record')
        for r in self.ranks:
            if not (r.ckpt and r.written and r.ended and r.inits == P - 1):
                bad.append('old design: rank %d did not reach the commit'
                           % r.id)
                break
        want = P * (P - 1) + P - 1
        if self.sim.msgs != want:
            bad.append('old design: %d messages, formula P(P-1)+P-1 gives %d'
                       % (self.sim.msgs, want))
        return bad
