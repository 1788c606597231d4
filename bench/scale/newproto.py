"""The new design (notes/design20.md): a K-ary tree over world ranks, root 0.

START goes from an initiator to the root and down the tree; a direct INIT
(a synchronous send) goes only to the ranks this one sent application
messages to in the epoch; DONE (per-communicator cut entries merged over
the subtree) goes up once the rank wrote its image, its INITs were received
and all its children sent DONE; ALL comes down from the root; LOGGED goes
up once the rank's period ended and all its children reported; the root
then writes the commit record. No traffic is added to collectives.
"""

from des import DATA, KIND, SRC, Rank

START, INIT, DONE, ALL, LOGGED = 'START', 'INIT', 'DONE', 'ALL', 'LOGGED'
HDR = 24     # every control message: three 8-byte words
ENTRY = 24   # a cut entry: communicator key, min cut, max cut


class NewRank(Rank):
    __slots__ = ('parent', 'kids', 'nbrs', 'own', 'initiated', 'fwd_start',
                 'ckpt', 'written', 'acks', 'inits', 'done_kids', 'done_sent',
                 'entries', 'all_got', 'ended', 'logged_kids', 'logged_sent',
                 'ckpt_at', 'ended_at')

    def __init__(self, rid, phase, parent, kids, nbrs, comms):
        Rank.__init__(self, rid, phase)
        self.parent, self.kids, self.nbrs = parent, kids, nbrs
        self.own = self.initiated = self.fwd_start = False
        self.ckpt = self.written = self.done_sent = False
        self.all_got = self.ended = self.logged_sent = False
        self.acks = self.inits = self.done_kids = self.logged_kids = 0
        self.entries = comms  # communicators with a member in the subtree
        self.ckpt_at = self.ended_at = None


class NewProtocol:
    def __init__(self, sim, ranks, ncomms):
        self.sim, self.ranks = sim, ranks
        self.ncomms = ncomms  # communicators every rank is a member of
        self.commit_at = None
        sim.proto = self

    def _down(self, r, kind, nbytes, t):
        """Sends kind to each child; returns the time after the sends."""
        s = self.sim
        for k in r.kids:
            t += s.prm.send_cost
            s.send(r, self.ranks[k], kind, None, nbytes, t)
        return t

    def handle(self, r, m, t):
        kind = m[KIND]
        if kind == START:
            r.initiated = r.open = True
            if not r.fwd_start:  # each rank forwards START once
                r.fwd_start = True
                t = self._down(r, START, HDR, t)
        elif kind == INIT:
            r.initiated = r.open = True
            r.inits += 1
            self.sim.ack(t, self.ranks[m[SRC]])  # the Issend completes
        elif kind == DONE:
            r.done_kids += 1
            # Merged entries: the union of the subtrees' communicators.
            # Every rank here is in the same ncomms communicators, so the
            # union has ncomms entries (kept as a count).
            r.entries = max(r.entries, m[DATA])
        elif kind == ALL:
            r.all_got = True
            t = self._down(r, ALL, HDR + ENTRY * self.ncomms, t)
        elif kind == LOGGED:
            r.logged_kids += 1
        return t

    def site(self, r, t):
        s = self.sim
        prm = s.prm
        if r.initiated and not r.ckpt:
            r.ckpt = r.open = True
            r.ckpt_at = t
            if r.own:
                if r.id != 0:
                    t += prm.send_cost
                    s.send(r, self.ranks[0], START, None, HDR, t)
                elif not r.fwd_start:
                    r.fwd_start = True
                    t = self._down(r, START, HDR, t)
            for q in r.nbrs:
                t += prm.send_cost
                s.send(r, self.ranks[q], INIT, None, HDR, t)
                r.acks += 1
            s.start_write(r, t)
            return t
        if (r.written and r.acks == 0 and r.done_kids == len(r.kids)
                and not r.done_sent):
            r.done_sent = True
            if r.id == 0:  # DONE from all: every rank checkpointed
                r.all_got = True
                t = self._down(r, ALL, HDR + ENTRY * self.ncomms, t)
            else:
                t += prm.send_cost
                s.send(r, self.ranks[r.parent], DONE, r.entries,
                       HDR + ENTRY * r.entries, t)
        if r.all_got and not r.ended:
            # Late messages are taken to have arrived and no collective
            # debt to be open: the period ends with the log's write.
            r.ended = True
            t += prm.log_write
            r.ended_at = t
        if r.ended and r.logged_kids == len(r.kids) and not r.logged_sent:
            r.logged_sent = True
            r.open = False
            if r.id == 0:
                t += prm.log_write  # the commit record
                self.commit_at = t
            else:
                t += prm.send_cost
                s.send(r, self.ranks[r.parent], LOGGED, None, HDR, t)
        return t

    def check(self, initiators, pairs):
        """Invariants the run can check about itself: a list of failures."""
        bad = []
        P = len(self.ranks)
        if self.commit_at is None:
            bad.append('no commit record')
        for r in self.ranks:
            if not (r.ckpt and r.written and r.done_sent and r.ended
                    and r.logged_sent):
                bad.append('rank %d did not reach the commit' % r.id)
                break
            if r.inits != len(r.nbrs):  # symmetric halo: one INIT each
                bad.append('rank %d got %d INIT, %d neighbours'
                           % (r.id, r.inits, len(r.nbrs)))
                break
            if self.commit_at is not None and r.ended_at > self.commit_at:
                bad.append('rank %d ended after the commit' % r.id)
                break
        want = 4 * (P - 1) + pairs + sum(1 for i in initiators if i != 0)
        if self.sim.msgs != want:
            bad.append('new design: %d messages, formula 4(P-1)+pairs+'
                       'initiators gives %d' % (self.sim.msgs, want))
        return bad
