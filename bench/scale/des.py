"""Discrete-event core shared by both protocol designs.

A rank runs its program and reaches sites (layer calls and checkpoint sites)
at random times: the gaps are exponential with mean `site_mean`. It looks for
control messages only at a site (ccc's layer polls its control communicator
there), and, while it is in Run mode (no checkpoint open for it), only at the
first site after each tick of the coarse clock (`tick`, 4 ms with HZ=250; a
phase of its own per rank, as each node's clock has its own), exactly as
`controlProbeDue()` in mpi-layer/protocol/Protocol.cpp. While a checkpoint is open
for it every site polls.

At a poll the rank handles the messages waiting for it one at a time, FIFO,
each costing `recv_cost` of its time; messages arriving meanwhile are
handled in the same poll (the layer's Iprobe loop). Each message it sends
costs it `send_cost` and arrives `alpha + bytes / beta` after leaving. Then
the protocol's site actions run (take the checkpoint, send DONE, ...).
Writing the image takes `write` seconds during which the rank neither runs
its program nor handles control messages; the layer polls once as soon as
the write returns.

Sites are drawn lazily: the process is Poisson, so the next site after any
time t is t + Exp(site_mean) whatever happened before, and polls are only
scheduled when a rank has something to look at (an arrival, an
acknowledgment, the end of its write). Sites at which nothing would happen
are never simulated; that is what makes 10^5 ranks tractable in Python.
"""

import collections
import heapq
import math

# Message tuple fields: (destination Rank, kind, source rank id, data, bytes)
DST, KIND, SRC, DATA, NBYTES = range(5)


class Rank:
    """What the core needs of a rank; protocols add their own fields."""

    __slots__ = ('id', 'queue', 'poll_pending', 'in_poll', 'writing',
                 'busy_until', 'cursor', 'phase', 'probed_tick', 'open',
                 'in_msgs', 'in_bytes', 'out_msgs', 'out_bytes', 'write_end')

    def __init__(self, rid, phase):
        self.id = rid
        self.queue = collections.deque()
        self.poll_pending = False  # a poll event is in the heap
        self.in_poll = False       # handling messages right now
        self.writing = False       # writing its image
        self.busy_until = 0.0      # end of its last poll's work
        self.cursor = 0.0          # sites realised up to this time
        self.phase = phase         # offset of its coarse clock's ticks
        self.probed_tick = -1      # tick index of its last Run-mode probe
        self.open = False          # a checkpoint is open for it: poll always
        self.in_msgs = self.in_bytes = self.out_msgs = self.out_bytes = 0
        self.write_end = None


class Sim:
    """Event heap, message transport, polls and image writes."""

    def __init__(self, prm, rng):
        self.prm = prm
        self.rng = rng
        self.heap = []
        self.seq = 0
        self.msgs = 0
        self.bytes = 0
        self.by_kind = collections.Counter()
        self.proto = None  # set by the protocol: handle(r, m, t), site(r, t)
        self.events = 0

    def at(self, t, fn, arg):
        heapq.heappush(self.heap, (t, self.seq, fn, arg))
        self.seq += 1

    def run(self):
        h = self.heap
        pop = heapq.heappop
        n = 0
        while h:
            t, _, fn, arg = pop(h)
            fn(t, arg)
            n += 1
        self.events += n

    # -- transport ----------------------------------------------------------

    def send(self, src, dst, kind, data, nbytes, t):
        """src sends at departure time t (its send cost already counted)."""
        src.out_msgs += 1
        src.out_bytes += nbytes
        self.msgs += 1
        self.bytes += nbytes
        self.by_kind[kind] += 1
        p = self.prm
        self.at(t + p.alpha + nbytes / p.beta, self._arrive,
                (dst, kind, src.id, data, nbytes))

    def _arrive(self, t, m):
        dst = m[DST]
        dst.in_msgs += 1
        dst.in_bytes += m[NBYTES]
        dst.queue.append(m)
        self.wake(dst, t)

    def ack(self, t, sender):
        """A synchronous send's completion reaches its sender (MPI's own
        acknowledgment: not a control message of the layer, not counted)."""
        self.at(t + self.prm.alpha, self._ack, sender)

    def _ack(self, t, r):
        r.acks -= 1
        self.wake(r, t)

    # -- sites and polls ----------------------------------------------------

    def expo(self):
        return self.rng.expovariate(self.prm.site_rate)

    def next_site(self, r, t):
        """Time of the first site at or after t at which r polls."""
        p = self.prm
        if r.open or p.tick <= 0:
            r.cursor = t
            return t + self.expo()
        k = math.floor((t - r.phase) / p.tick)
        if r.probed_tick != k:
            # Did an unrealised site in [start of tick k, t) probe already?
            lo = max(r.cursor, r.phase + k * p.tick)
            if t > lo and self.rng.random() < -math.expm1(
                    -(t - lo) * p.site_rate):
                r.probed_tick = k
        r.cursor = t
        if r.probed_tick == k:
            return r.phase + (k + 1) * p.tick + self.expo()
        return t + self.expo()

    def wake(self, r, t):
        """r has something to look at from time t on: make sure it polls."""
        if r.poll_pending or r.in_poll or r.writing:
            return
        r.poll_pending = True
        self.at(self.next_site(r, max(t, r.busy_until)), self._poll, r)

    def poll_now(self, r, t):
        """A poll at t itself (the layer polls as the write returns, or the
        initiator's own site)."""
        r.poll_pending = True
        self.at(t, self._poll, r)

    def _poll(self, t, r):
        r.poll_pending = False
        r.in_poll = True
        r.cursor = t
        if self.prm.tick > 0 and not r.open:
            r.probed_tick = math.floor((t - r.phase) / self.prm.tick)
        self._step(t, r)

    def _step(self, t, r):
        # One message per event, so that arrivals during its handling are
        # ordered correctly against it.
        if r.queue:
            m = r.queue.popleft()
            self.at(self.proto.handle(r, m, t + self.prm.recv_cost),
                    self._step, r)
            return
        t2 = self.proto.site(r, t)
        r.in_poll = False
        r.busy_until = t2
        r.cursor = t2
        if not r.writing and r.queue:
            self.wake(r, t2)

    def start_write(self, r, t):
        r.writing = True
        r.write_end = t + self.prm.write
        self.at(r.write_end, self._write_done, r)

    def _write_done(self, t, r):
        r.writing = False
        r.written = True
        r.busy_until = t
        self.poll_now(r, t)
