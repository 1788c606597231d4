/*
 * The header-free protocol (issue 43) without the header's "still logging"
 * bit, checked with spin. counting.pml models how both sides count a
 * message's place on its channel; this model takes places as known (every
 * receive is blocking, so receives complete in posting order) and checks
 * what replaces the bit (docs/mpi-protocol.md, "What counts cannot
 * decide: the logging bit"):
 *
 *   - every rank logs in NonDet-Log from its checkpoint until ALL reaches
 *     it (it cannot stop earlier on a message from a rank that stopped:
 *     nothing says so); a record is a receive (its channel, place and, for
 *     the checks, value) or another nondeterministic event (its outcome),
 *     with the number of sends the rank made since its checkpoint; a test
 *     that saw a send complete is a record of its channel and place;
 *   - at a restart, before any replay, the ranks compute the largest
 *     consistent cut of their logs: a rank's cut ends before its first
 *     record of a message whose place is beyond its sender's count at the
 *     sender's cut (the sender's count at its checkpoint plus its sends
 *     before the record where its cut ends, or before its ALL), or of a
 *     completed send whose place is beyond its receiver's count at the
 *     receiver's cut; repeated until no cut moves. Each rank replays its
 *     records up to its cut and runs free after it;
 *   - a receive served from the log takes, among the late messages of one
 *     sender it can take, the one the receiver took first in the run
 *     (BUG_LOG_ANY_ORDER: any of them), or with PAIR_ORDER the one the
 *     sender sent first.
 *
 * Three ranks send to each other across the line both ways (late and
 * early messages); each checkpoints at any one of its sites (the last at
 * the latest), ALL reaches each rank at any time after the last
 * checkpoint, and a rank's nondeterministic events (ND: a test's outcome,
 * a wildcard choice, the clock) take either outcome unless replayed. MPI
 * is its matching rules: per pair of ranks FIFO, a receive with a tag
 * takes the first message of that tag, MPI_ANY_TAG the first of the pair,
 * MPI_ANY_SOURCE any source. A failure at any point restarts from the
 * last committed version: before the commit that is the program's start
 * (nothing to check), after it the images and logs. The run commits when
 * every rank has checkpointed, ALL has reached it and every late message
 * has arrived, possibly long before the ranks finish; nothing written
 * after that may change an image or a log (frozen), so a failure at any
 * point after the commit restarts the same, and the model restarts once
 * every rank has finished.
 *
 * Checked (assertions; a deadlock is one too, noDeadlock, through a
 * process that runs only when nothing else can):
 *   - the version commits: ALL reached every rank, every late message
 *     arrived and is in the log, nothing else is (lateLogged); no record
 *     or late message is added to a log after the commit (frozen);
 *   - a replayed record gets the same outcome (sameOutcome), its kind is
 *     the one the program reaches (replayOk);
 *   - a re-executed send at a place the receiver had before its line
 *     (early, suppressed) carries the value the receiver got (earlySame);
 *   - per channel, every place is received once, in order, over the line
 *     and the restart (inOrder, receivedOnce), nothing left in the network
 *     or the log (nothingLeft);
 *   - a receive served from the log after the restart takes, among the
 *     messages of one sender it can take, the one sent first (pairOrder),
 *     as MPI's non-overtaking rule says for MPI_ANY_TAG;
 *   - no deadlock, in the run or the restart.
 *
 * -DPROG=1: a chain 2 -> 1 -> 0 whose values depend on rank 2's ND, so a
 * record may depend on a send made after its sender's ALL, directly (rank
 * 1) or through another rank (rank 0). -DPROG=2: rank 0 receives two late
 * messages of rank 1 on two tags, by tag or by MPI_ANY_TAG depending on a
 * value from rank 2 (the case counts cannot decide, below). -DPROG=3: rank
 * 1 tests a synchronous send to rank 2 and then sends it another message;
 * rank 2 takes the two in an order its ND decides, so a test that saw the
 * send complete depends on a receive the receiver may not make again:
 * records of send completions enter the cut through the receivers' counts
 * at their cuts.
 *
 * Rules broken on purpose (ctest model.counting_cut.finds_*):
 *   BUG_NO_CUT         every record up to ALL is replayed
 *   BUG_ONE_ROUND      each cut is computed once, from the others' ALL
 *                      points, not until no cut moves
 *   BUG_WILDCARD_ONLY  only wildcard receives (and other ND events) are
 *                      recorded, as NonDet-Log does today
 *   BUG_NO_LOG         nothing is logged after the checkpoint
 *   BUG_SEND_DONE_UNCUT  a test that saw a send complete does not enter
 *                      the cut (PROG=3)
 *   BUG_COMMIT_EARLY   the version commits once the late messages have
 *                      arrived, before ALL has reached every rank (while
 *                      logs still grow)
 *   BUG_LOG_ANY_ORDER  a receive served from the log takes any of the late
 *                      messages of one sender it can take
 * -DPAIR_ORDER: at a restart each sender tells its receivers the order in
 * which it sent their late messages across tags (the case counts cannot
 * decide: without it, PROG=2 breaks pairOrder).
 */

#ifndef PROG
#define PROG 1
#endif

#define NR 3
#define NT 2
#define NCH 18     /* channels (source, destination, tag) */
#define NPL 3      /* places 1 .. NPL-1 per channel */
#define NREC 4     /* NonDet-Log records per rank */
#define NSH 3      /* sends per rank while it logs */
#define NPC 9      /* program length per rank */
#define NM (NR * NPC)
#define ANYS 3     /* MPI_ANY_SOURCE */
#define ANYT 2     /* MPI_ANY_TAG */
#define TX 3       /* SEND's tag: the rank's value x */
#define TXA 4      /* RECV's tag: 1 if x, else MPI_ANY_TAG */
#define TXB 5      /* RECV's tag: 0 if x, else MPI_ANY_TAG */
#define TXC 6      /* RECV's tag: 0 if y, else 1 */
#define TXD 7      /* RECV's tag: 1 if y, else 0 */

/* operations */
#define SITE 1     /* ccc_checkpoint() */
#define SEND 2     /* to a1, tag a2 (or TX), carrying the rank's value x */
#define RECV 3     /* from a1 (or ANYS), tag a2 (or ANYT, TXA, TXB): x = its value */
#define ND 4       /* a nondeterministic event: x = 0 or 1 */
#define END 5      /* MPI_Finalize (waits for ALL) */
#define ISSEND 6   /* MPI_Issend to a1, tag a2, carrying x (one open at a time) */
#define TESTS 7    /* MPI_Test of it: x = 1 (only once the receiver matched it) or 0 */
#define WAITS 8    /* MPI_Wait for it */

/* record kinds */
#define RREC 1
#define RND 2
#define RSC 3      /* a send's completion seen by a test (channel, place) */

/* -DREACH=n makes event n an assertion violation, to show that the search
   reaches it: 1 a late message served from the log, 2 an early send
   suppressed, 3 a rank's cut before its ALL point, 4 a cut moved by
   another rank's cut (second round), 5 a receive replayed, 6 an ND event
   replayed, 7 a receive from the log chosen by the senders' order, 8 a
   send's completion replayed, 9 a cut before a send's completion */
#ifdef REACH
#define REACHED(n) assert(REACH != n)
#else
#define REACHED(n) skip
#endif

#define CH(s, d, t) (((s) * NR + (d)) * NT + (t))
#define CSRC(c) ((c) / (NR * NT))
#define CDST(c) (((c) / NT) % NR)
#define CTAG(c) ((c) % NT)
#define PR(s, d) ((s) * NR + (d))
#define PL(c, p) ((c) * NPL + (p))

/* per pair of ranks: tag, place (checks), value, pair sequence (checks) */
chan net[NR * NR] = [2] of { byte, byte, byte, byte };

byte op[NM];
byte a1[NM];
byte a2[NM];

bit phase;         /* 0: the run, 1: the restart */
byte pc[NR];
bit fin[NR];
bit rdone[NR];
bit ck[NR];
bit gotAll[NR];
byte x[NR];        /* the rank's value: its last ND outcome or message */
byte y[NR];        /* its last ND outcome */
byte ssCh[NR];     /* the open synchronous send: channel, place */
byte ssPl[NR];
bit ssSup[NR];     /* ... suppressed at the restart: the receiver has it */

byte sent[NCH];    /* sends per channel, cumulative */
byte rcvd[NCH];    /* receives per channel, cumulative */
byte S[NCH];       /* sent[] at the sender's checkpoint (INIT) */
byte R0[NCH];      /* rcvd[] at the receiver's checkpoint (its line) */
byte pseq[NR * NR];  /* checks only: sends per pair, any tag */

/* image */
byte ipc[NR];
byte ix[NR];
byte iy[NR];

/* NonDet-Log: records from the checkpoint to ALL */
byte nrec[NR];
byte rk[NR * NREC];
byte rch[NR * NREC];
byte rpl[NR * NREC];
byte rval[NR * NREC];
byte rsn[NR * NREC];  /* sends since the checkpoint before the record */
byte ns[NR];          /* sends since the checkpoint while logging */
byte sh[NR * NSH];    /* ... their channels */
/* the log's late messages: value + 1, and the pair sequence (the
   senders' order, known to the receiver only with PAIR_ORDER) */
byte lateV[NCH * NPL];
byte lateQ[NCH * NPL];
byte lateO[NCH * NPL];  /* the order the receiver took them in */
byte nlo[NR];

/* restart */
byte cutN[NR];     /* records replayed */
byte ev[NR];       /* recordable events re-executed */

/* checks only */
byte origV[NCH * NPL];
bit over;
bit commitRun;     /* the version is committed (LOGGED reached rank 0) */
hidden byte nc[NR];
hidden byte t_c, t_d, t_t, t_i, t_j, t_n, t_r, t_s, t_p, t_cnt, t_chg;
hidden byte m_pl, m_v, m_q;
hidden byte frozen, lateLogged, sameOutcome, replayOk, earlySame, inOrder,
            receivedOnce, nothingLeft, pairOrder, noDeadlock, committed;

#define OPR op[r * NPC + pc[r]]
#define A1R a1[r * NPC + pc[r]]
#define A2R a2[r * NPC + pc[r]]
/* the receive's tag as the program gives it */
#define PTAG (A2R == TXA -> (x[r] -> 1 : ANYT) : (A2R == TXB -> (x[r] -> 0 : ANYT) : \
              (A2R == TXC -> (y[r] -> 0 : 1) : (A2R == TXD -> (y[r] -> 1 : 0) : A2R))))
#ifdef BUG_WILDCARD_ONLY
#define RECORDABLE (OPR == ND || OPR == TESTS || (OPR == RECV && (A1R == ANYS || PTAG == ANYT)))
#else
#define RECORDABLE (OPR == ND || OPR == TESTS || OPR == RECV)
#endif
#define RI (r * NREC + ev[r])
/* the current event is replayed from the log */
#define REPL (phase && RECORDABLE && ev[r] < cutN[r])
#define REPOK (!REPL || (OPR == RECV && rk[RI] == RREC) || (OPR == ND && rk[RI] == RND) || \
               (OPR == TESTS && rk[RI] == RSC))
/* the receive's source and tag: narrowed to the record's when replayed */
#define SSPEC (REPL -> CSRC(rch[RI]) : A1R)
#define TSPEC (REPL -> CTAG(rch[RI]) : PTAG)
#define TAKES(s, t) ((SSPEC == s || SSPEC == ANYS) && (TSPEC == t || TSPEC == ANYT))
/* the next place of channel (s, r, t) is a late message in the log */
#define LOGHAS(s, t) (phase && rcvd[CH(s, r, t)] < S[CH(s, r, t)])
#define LOGQ(s, t) lateQ[PL(CH(s, r, t), rcvd[CH(s, r, t)] + 1)]
/* a late message of the pair this receive can take: sent before anything
   on the network from that sender, so it goes first */
#define LOGPAIR(s) ((TAKES(s, 0) && LOGHAS(s, 0)) || (TAKES(s, 1) && LOGHAS(s, 1)))
#define LOGO(s, t) lateO[PL(CH(s, r, t), rcvd[CH(s, r, t)] + 1)]
#define OTHERLOG(s, t) (TAKES(s, 1 - t) && LOGHAS(s, 1 - t))
#if defined(PAIR_ORDER)
/* among the pair's logged messages it can take, the one sent first (the
   sender says) */
#define FIRSTLOG(s, t) (!OTHERLOG(s, t) || LOGQ(s, t) < LOGQ(s, 1 - t))
#elif defined(BUG_LOG_ANY_ORDER)
#define FIRSTLOG(s, t) 1
#else
/* the one received first in the run */
#define FIRSTLOG(s, t) (!OTHERLOG(s, t) || LOGO(s, t) < LOGO(s, 1 - t))
#endif
/* the receiver matched the open synchronous send */
#define SSDONE (ssSup[r] || rcvd[ssCh[r]] >= ssPl[r])
#define NETHAS(s, t) ((TSPEC == ANYT && net[PR(s, r)]?[t, _, _, _]) || \
                      (TSPEC != ANYT && net[PR(s, r)]??[t, _, _, _]))

/* every late message arrived (receives per channel up to the senders'
   counts at their checkpoints) */
#define LIN(c) (rcvd[c] >= S[c])
#define LATEIN (LIN(0) && LIN(1) && LIN(2) && LIN(3) && LIN(4) && LIN(5) && \
                LIN(6) && LIN(7) && LIN(8) && LIN(9) && LIN(10) && LIN(11) && \
                LIN(12) && LIN(13) && LIN(14) && LIN(15) && LIN(16) && LIN(17))

inline record(kind, c, p, v) {
  frozen = !commitRun;
  assert(frozen);
  assert(nrec[r] < NREC);
  t_i = r * NREC + nrec[r];
  rk[t_i] = kind;
  rch[t_i] = c;
  rpl[t_i] = p;
  rval[t_i] = v;
  rsn[t_i] = ns[r];
  nrec[r]++
}

/* a message of channel c (m_pl, m_v, m_q) taken by the current receive */
inline gotMsg(c) {
  inOrder = (m_pl == rcvd[c] + 1);
  assert(inOrder);
  rcvd[c] = m_pl;
  if
  :: !phase ->
     /* late: received after the checkpoint, sent before the sender's
        (its count at its checkpoint, or not yet taken) */
     if
     :: ck[r] && (!ck[CSRC(c)] || m_pl <= S[c]) ->
        frozen = !commitRun;
        assert(frozen);
        lateV[PL(c, m_pl)] = m_v + 1;
        lateQ[PL(c, m_pl)] = m_q;
        nlo[r]++;
        lateO[PL(c, m_pl)] = nlo[r]
     :: else -> skip
     fi;
#ifndef BUG_NO_LOG
     if
     :: ck[r] && !gotAll[r] && RECORDABLE -> record(RREC, c, m_pl, m_v)
     :: else -> skip
     fi
#endif
  :: else ->
     if
     :: REPL ->
        sameOutcome = (rch[RI] == c && rpl[RI] == m_pl && rval[RI] == m_v);
        assert(sameOutcome);
        REACHED(5)
     :: else -> skip
     fi;
     if
     :: RECORDABLE -> ev[r]++
     :: else -> skip
     fi
  fi;
  x[r] = m_v;
  pc[r]++
}

/* after the restart: the late message at channel (s, r, t)'s next place */
inline takeLog(s, t) {
  t_c = CH(s, r, t);
  m_pl = rcvd[t_c] + 1;
  m_v = lateV[PL(t_c, m_pl)] - 1;
  m_q = lateQ[PL(t_c, m_pl)];
  lateV[PL(t_c, m_pl)] = 0;
  if
  :: TAKES(s, 1 - t) && LOGHAS(s, 1 - t) ->
     pairOrder = (m_q < LOGQ(s, 1 - t));
     assert(pairOrder);
     REACHED(7)
  :: else -> skip
  fi;
  REACHED(1);
  gotMsg(t_c)
}

#define RCV(s, t) \
  :: d_step { !fin[r] && OPR == RECV && s != r && REPOK && TAKES(s, t) && \
              LOGHAS(s, t) && FIRSTLOG(s, t) -> takeLog(s, t) } \
  :: d_step { !fin[r] && OPR == RECV && s != r && REPOK && TAKES(s, t) && \
              !LOGPAIR(s) && NETHAS(s, t) -> \
       net[PR(s, r)]??t, m_pl, m_v, m_q; gotMsg(CH(s, r, t)) }

inline nd(v) {
  x[r] = v;
  y[r] = v;
  if
  :: !phase ->
#ifndef BUG_NO_LOG
     if
     :: ck[r] && !gotAll[r] -> record(RND, 0, 0, v)
     :: else -> skip
     fi
#else
     skip
#endif
  :: else ->
     if
     :: REPL -> REACHED(6)
     :: else -> skip
     fi;
     ev[r]++
  fi;
  pc[r]++
}

#define NDV(v) \
  :: d_step { !fin[r] && OPR == ND && REPOK && (!REPL || rval[RI] == v) -> nd(v) }

/* MPI_Issend: a send like SEND's, which completes when its receiver
   matches it (a suppressed one at once) */
inline issend() {
  t_d = A1R;
  t_t = A2R;
  t_c = CH(r, t_d, t_t);
  sent[t_c]++;
  assert(sent[t_c] < NPL);
  pseq[PR(r, t_d)]++;
  ssCh[r] = t_c;
  ssPl[r] = sent[t_c];
  ssSup[r] = 0;
  if
  :: !phase ->
     origV[PL(t_c, sent[t_c])] = x[r];
     net[PR(r, t_d)]!t_t, sent[t_c], x[r], pseq[PR(r, t_d)];
     if
     :: ck[r] && !gotAll[r] ->
        assert(ns[r] < NSH);
        sh[r * NSH + ns[r]] = t_c;
        ns[r]++
     :: else -> skip
     fi
  :: phase && sent[t_c] <= R0[t_c] ->
     earlySame = (origV[PL(t_c, sent[t_c])] == x[r]);
     assert(earlySame);
     ssSup[r] = 1
  :: else -> net[PR(r, t_d)]!t_t, sent[t_c], x[r], pseq[PR(r, t_d)]
  fi;
  pc[r]++
}

/* MPI_Test of the open synchronous send: true only once it is matched,
   false any time (MPI may not have progressed); a replayed true waits for
   the match */
inline tests(v) {
  x[r] = v;
  if
  :: !phase ->
#ifndef BUG_NO_LOG
     if
     :: ck[r] && !gotAll[r] -> record(RSC, ssCh[r], ssPl[r], v)
     :: else -> skip
     fi
#else
     skip
#endif
  :: else ->
     if
     :: REPL -> REACHED(8)
     :: else -> skip
     fi;
     ev[r]++
  fi;
  pc[r]++
}

#define TST(v) \
  :: d_step { !fin[r] && OPR == TESTS && REPOK && (!REPL || rval[RI] == v) && \
              (v == 0 || SSDONE) -> tests(v) }

inline ckpt() {
  ck[r] = 1;
  ipc[r] = pc[r] + 1;
  ix[r] = x[r];
  iy[r] = y[r];
  for (t_c : 0 .. NCH - 1) {
    if
    :: CSRC(t_c) == r -> S[t_c] = sent[t_c]
    :: CDST(t_c) == r -> R0[t_c] = rcvd[t_c]
    :: else -> skip
    fi
  }
}

proctype rank(byte r) {
  do
  :: d_step { !fin[r] && OPR == SITE ->
       if
       :: !phase && !ck[r] && op[r * NPC + pc[r] + 1] == END -> ckpt()
       :: else -> skip
       fi;
       pc[r]++ }
  :: d_step { !fin[r] && OPR == SITE && !phase && !ck[r] &&
              op[r * NPC + pc[r] + 1] != END -> ckpt(); pc[r]++ }
  :: d_step { !fin[r] && OPR == SEND ->
       t_d = A1R;
       t_t = (A2R == TX -> x[r] : A2R);
       t_c = CH(r, t_d, t_t);
       sent[t_c]++;
       assert(sent[t_c] < NPL);
       pseq[PR(r, t_d)]++;
       if
       :: !phase ->
          origV[PL(t_c, sent[t_c])] = x[r];
          net[PR(r, t_d)]!t_t, sent[t_c], x[r], pseq[PR(r, t_d)];
          if
          :: ck[r] && !gotAll[r] ->
             assert(ns[r] < NSH);
             sh[r * NSH + ns[r]] = t_c;
             ns[r]++
          :: else -> skip
          fi
       :: phase && sent[t_c] <= R0[t_c] ->
          /* early: the receiver has it; suppressed */
          earlySame = (origV[PL(t_c, sent[t_c])] == x[r]);
          assert(earlySame);
          REACHED(2)
       :: else -> net[PR(r, t_d)]!t_t, sent[t_c], x[r], pseq[PR(r, t_d)]
       fi;
       pc[r]++ }
  RCV(0, 0)
  RCV(0, 1)
  RCV(1, 0)
  RCV(1, 1)
  RCV(2, 0)
  RCV(2, 1)
  NDV(0)
  NDV(1)
  :: d_step { !fin[r] && OPR == ISSEND -> issend() }
  TST(0)
  TST(1)
  :: d_step { !fin[r] && OPR == WAITS && SSDONE -> pc[r]++ }
  :: d_step { !fin[r] && (OPR == RECV || OPR == ND || OPR == TESTS) && !REPOK ->
       replayOk = 0; assert(replayOk) }
  :: d_step { !phase && !gotAll[r] && ck[0] && ck[1] && ck[2] -> gotAll[r] = 1 }
  :: d_step { !fin[r] && OPR == END -> fin[r] = 1 }
  :: fin[r] && (phase || gotAll[r]) -> break
  od;
  rdone[r] = 1
}

/* runs only when nothing else can: the end, or a deadlock */
proctype watch() {
  timeout -> noDeadlock = over; assert(noDeadlock)
}

/* sender s's count on channel c at its cut n (records replayed) */
inline cutCount(s, c, n) {
  t_n = (n < nrec[s] -> rsn[s * NREC + n] : ns[s]);
  t_cnt = S[c];
  for (t_j : 0 .. NSH - 1) {
    if
    :: t_j < t_n && sh[s * NSH + t_j] == c -> t_cnt++
    :: else -> skip
    fi
  }
}

/* receiver d's count on channel c at its cut n: every receive between its
   checkpoint and its ALL is a record */
inline rcvCount(d, c, n) {
  t_cnt = R0[c];
  for (t_j : 0 .. NREC - 1) {
    if
    :: t_j < n && rk[d * NREC + t_j] == RREC && rch[d * NREC + t_j] == c -> t_cnt++
    :: else -> skip
    fi
  }
}

/* the largest consistent cut below every rank's ALL point */
inline computeCut() {
  for (t_r : 0 .. NR - 1) {
    cutN[t_r] = nrec[t_r]
  }
  t_p = 0;
  do
  :: t_chg = 0;
     for (t_r : 0 .. NR - 1) {
       nc[t_r] = cutN[t_r];
       for (t_i : 0 .. NREC - 1) {
         if
         :: t_i < nc[t_r] && rk[t_r * NREC + t_i] == RREC ->
            t_c = rch[t_r * NREC + t_i];
            t_s = CSRC(t_c);
            cutCount(t_s, t_c, cutN[t_s]);
            if
            :: rpl[t_r * NREC + t_i] > t_cnt -> nc[t_r] = t_i
            :: else -> skip
            fi
#ifndef BUG_SEND_DONE_UNCUT
         :: t_i < nc[t_r] && rk[t_r * NREC + t_i] == RSC && rval[t_r * NREC + t_i] ->
            /* a completed send: its receiver matched it before its cut */
            t_c = rch[t_r * NREC + t_i];
            t_s = CDST(t_c);
            rcvCount(t_s, t_c, cutN[t_s]);
            if
            :: rpl[t_r * NREC + t_i] > t_cnt -> nc[t_r] = t_i; REACHED(9)
            :: else -> skip
            fi
#endif
         :: else -> skip
         fi
       }
     }
     for (t_r : 0 .. NR - 1) {
       if
       :: nc[t_r] != cutN[t_r] ->
          REACHED(3);
          if
          :: t_p > 0 -> REACHED(4)
          :: else -> skip
          fi;
#ifndef BUG_NO_CUT
          cutN[t_r] = nc[t_r];
          t_chg = 1
#else
          skip
#endif
       :: else -> skip
       fi
     }
#ifdef BUG_ONE_ROUND
     break
#else
     if
     :: !t_chg -> break
     :: else -> t_p++
     fi
#endif
  od
}

/* The program, the restart from the line and the checks
   (counting_cut_restart.pml). */
#include "counting_cut_restart.pml"
