/*
 * The non-blocking protocol without a header (issue 43): messages carry
 * nothing, both sides count them per channel (sender, receiver,
 * communicator, tag), checked with spin. docs/mpi-protocol.md, "Counting
 * instead of a header", states the rules; this model is where they were
 * worked out. protocol.pml models the control messages (START, DONE, ALL,
 * LOGGED, two checkpoints in flight, collectives), which counting does not
 * change; here they are abstracted to what the receiver learns: INIT with
 * the sender's counts, and ALL.
 *
 * Ranks 1 and 2 send to rank 0, whose program has what makes a message's
 * place on its channel hard to know: an MPI_ANY_SOURCE receive and a
 * specific one that can take the same channel, the later completing first
 * and the earlier still open across the line; a persistent request open
 * across the line; a cancelled receive; MPI_ANY_TAG; a probe (-DPROG=1);
 * a matched probe (-DPROG=2). Each rank checkpoints at any one of its
 * sites (the last at the latest): every line there is. MPI is modelled by
 * its matching rules only: each channel is FIFO (non-overtaking), a
 * message goes to the earliest posted receive that can take it, a posted
 * receive takes any available message it can (arrival order across
 * channels is free), a cancel succeeds iff the receive is not matched, and
 * the layer sees a completion only when it tests (at any time after the
 * match: a later receive may be seen complete first).
 *
 * After the run, the model restarts from the committed line: the senders
 * re-execute from their images with their counts and suppress the sends
 * the receiver's counts say it has (early); the receiver re-posts the
 * receives open in its image and takes late messages from its log, before
 * any from the network on their channel. Checked (assertions):
 *   - every message is received exactly once over the line and the
 *     restart, nothing is left in a channel or in the log;
 *   - the run across the line is one MPI could give: per channel, the
 *     messages go to the receives in their posting order (so a receive
 *     gets the message an uninterrupted run gives it when its source and
 *     tag are fixed), and a re-executed send carries the message the
 *     original run sent at that place;
 *   - a receive whose outcome was logged (NonDet-Log) or settled late (a
 *     hole, below) gets the same message again;
 *   - no deadlock: the run ends with the version committed, the restart
 *     with every rank at its end (invalid end states).
 *
 * A rule broken on purpose, for the tests that prove the checks can fail
 * (ctest model.counting.finds_*):
 *   BUG_PLACE_AT_COMPLETION  places given in the order completions are
 *                            seen, not in posting order
 *   BUG_COUNT_ONLY           the receiver's line is a count per channel,
 *                            not the set of places (holes ignored)
 *   BUG_NO_HOLE_REPLAY       a receive open at the line that took a place
 *                            below one taken before the line is re-posted
 *                            as it was, not replayed on its channel
 *   BUG_NO_COPY              a message matched after the receiver's
 *                            checkpoint, before the sender's INIT came, is
 *                            not kept (taken as not late)
 *   BUG_NO_SUPPRESS          no counts exchanged at restart: early sends
 *                            are sent again
 *   BUG_NET_BEFORE_LOG       after a restart, a receive takes a message
 *                            from the network while logged messages of its
 *                            channel remain
 *   BUG_CANCEL_ASSUMED       a receive whose cancel was requested is taken
 *                            as cancelled before its completion says so
 *   BUG_PROBE_COUNTS         a probe counts the message it saw, as a
 *                            receive would
 *   BUG_PERSISTENT_INACTIVE  a persistent request active at the line is
 *                            restored inactive
 *   BUG_MPROBE_AT_ONCE       a matched probe's message is given the next
 *                            place at once, before earlier receives that
 *                            could take its channel are seen complete
 */

#ifndef PROG
#define PROG 1
#endif

#define NR 3
#define NCH 4      /* channels into rank 0: (source 1 or 2) x (tag 0 or 1) */
#define NPL 4      /* places per channel: 1 .. NPL-1 */
#define NP 7       /* postings of rank 0 (receives started), at most */
#define NSL 4      /* request slots of rank 0 */
#define NPC 20     /* program length per rank */
#define NM (NR*NPC)
#define UNSET 255
#define ANYS 3     /* MPI_ANY_SOURCE */
#define ANYT 2     /* MPI_ANY_TAG */
#define CANC 9     /* a logged outcome: the receive was cancelled */

/* operations */
#define SITE 1     /* ccc_checkpoint() */
#define SEND 2     /* MPI_Send to 0, tag a1 */
#define IRECV 3    /* MPI_Irecv into slot a1 from a2 (or ANYS), tag a3 (or ANYT) */
#define WAIT 4     /* MPI_Wait on slot a1 (returns at once if inactive) */
#define PSTART 5   /* MPI_Start on persistent slot a1 (a2, a3 its source, tag) */
#define CANCEL 6   /* MPI_Cancel on slot a1 */
#define REPOST 7   /* if slot a1's last receive was cancelled: MPI_Start again */
#define PROBE 8    /* MPI_Probe(a2, a3) */
#define IRECVP 9   /* MPI_Irecv into slot a1 from the probed source and tag */
#define MPROBE 10  /* MPI_Mprobe(a2, a3), message in slot a1 (MPI_Mrecv = WAIT) */
#define END 11     /* MPI_Finalize */

/* state of a posting (one receive started: MPI_Irecv, MPI_Start, Mprobe) */
#define POSTED 1   /* at MPI, not matched */
#define MATCHED 2  /* MPI matched a message to it; the layer has not seen it */
#define CANCD 3    /* MPI cancelled it; the layer has not seen it */
#define SEEN 4     /* the layer saw it complete with a message */
#define SEENC 5    /* the layer saw it complete as cancelled */

/* -DREACH=n makes event n an assertion violation, to show that the search
   reaches it: 1 late message logged, 2 early send suppressed, 3 a place
   settled after the line below one taken before it (a hole), 4 a hole
   replayed on restart, 5 a message kept until INIT classified it late,
   6 a cancel succeeded, 7 a persistent request re-posted at restart,
   8 a logged wildcard outcome replayed, 9 a late message replayed into a
   receive open at the line, 10 a receive posted after the line fixed by
   a later one whose outcome was logged */
#ifdef REACH
#define REACHED(n) assert(REACH != n)
#else
#define REACHED(n) skip
#endif

#define CHOF(s,t) (((s)-1)*2+(t))
#define CSRC(c) ((c)/2+1)
#define CTAG(c) ((c)%2)
#define PL(c,p) ((c)*NPL+(p))

chan net[NCH] = [2] of { byte, byte };   /* place (checks only), identity */

byte op[NM];
byte a1[NM];
byte a2[NM];
byte a3[NM];

bit phase;          /* 0: the run, 1: the restart from the line */
byte pc[NR];
bit fin[NR];
bit ck[NR];         /* checkpoint taken */
byte ipc[NR];       /* image: where execution resumes */

/* senders: sends per channel so far, and at the checkpoint (S) */
byte sent[NCH];
byte S[NCH];
bit initSent[NR];
bit initGot[NR];
bit allGot;
bit committed;

/* rank 0: postings in posting order */
byte npost;
byte kSrc[NP];
byte kTag[NP];
byte kSt[NP];
byte kCh[NP];       /* what MPI gave it: channel, place (checks), identity */
byte kPl[NP];
byte kId[NP];
bit kCanReq[NP];    /* MPI_Cancel was called on it */
byte lPl[NP];       /* the layer's place for it, once known */
bit kSeenBefore[NP];  /* seen complete before rank 0's checkpoint */
bit pend[NP];       /* matched after the checkpoint, kept until INIT/ALL */
byte slotP[NSL];    /* a slot's current (or last) posting */
bit slotAct[NSL];
byte probedCh;
byte npr;           /* probes done */
byte lc[NCH];       /* the layer's places given per channel */
bit Sk[NCH];        /* the sender's count at its checkpoint is known */
byte Sv[NCH];       /* ... and is */

/* rank 0's image (taken at its checkpoint) */
byte linePost;
byte islotP[NSL];
bit islotAct[NSL];
byte inpr;
/* rank 0's log (written at the end of its period): late messages by
   place, the places matched before the line (with holes settled late),
   the receives open at the line to replay on their channel, the outcomes
   of wildcard receives, cancels and probes in NonDet-Log */
byte late[NCH*NPL];      /* identity + 1, 0: none */
bit bef[NCH*NPL];
bit hole[NP];
byte ndCh[NP];
byte ndPl[NP];
byte prCh[4];

/* for the checks only */
byte origId[NCH*NPL];    /* identity sent at each place in the run */
byte got[NM];            /* receptions counted over the line and restart */
bit sup[NCH*NPL];        /* sends to suppress at restart */
byte nextLate[NCH];
bit rdone[NR];

bit waitSee;
hidden byte fx[NP];
/* the checks' outcomes, named for the tests that look for them */
hidden byte lateLogged, earlySuppressed, notLateNotEarly, receivedOnce,
            nothingLeft, inPostingOrder, sameOutcome;
hidden byte t_k, t_c, t_j, t_p, t_ok, t_id, t_n, t_m;

/* posting k can take a message of channel c (by its source and tag) */
#define CANM(k,c) ((kSrc[k] == ANYS || kSrc[k] == CSRC(c)) && \
                   (kTag[k] == ANYT || kTag[k] == CTAG(c)))
#define PEND(k,c) ((k) < npost && kSt[k] == POSTED && CANM(k,c))
#define ANYPEND(c) (PEND(0,c) || PEND(1,c) || PEND(2,c) || PEND(3,c) || \
                    PEND(4,c) || PEND(5,c) || PEND(6,c))
/* channel c has a message to hand out: in the restart, logged late ones
   first (the layer serves them), then the network */
#define LOGHEAD(c) (phase && nextLate[c] < NPL && late[PL(c,nextLate[c])] != 0)
#ifdef BUG_NET_BEFORE_LOG
#define NETOK(c) nempty(net[c])
#else
#define NETOK(c) (nempty(net[c]) && !LOGHEAD(c))
#endif
#define AVAIL(c) (LOGHEAD(c) || NETOK(c))

#ifdef BUG_CANCEL_ASSUMED
#define CANCELASSUMED(k) kCanReq[k]
#else
#define CANCELASSUMED(k) 0
#endif

/* skip places with nothing logged (they came from the network) */
inline advanceLate(c) {
  do
  :: nextLate[c] < NPL && late[PL(c,nextLate[c])] == 0 -> nextLate[c]++
  :: else -> break
  od
}

inline logLate(k) {
  assert(late[PL(kCh[k],lPl[k])] == 0);
  late[PL(kCh[k],lPl[k])] = kId[k] + 1;
  REACHED(1)
}

/* The layer settles places: a receive seen complete with channel c gets
   the next place of c once every receive posted before it that could take
   c is seen complete (MPI matches a channel's messages in its receives'
   posting order; a cancelled one took none). After rank 0's checkpoint a
   message with place <= the sender's count is late; until the count
   comes (INIT, or ALL: no INIT, nothing late) the message is kept. */
inline settle() {
  for (t_k : 0 .. NP-1) {
    if
    :: t_k < npost && kSt[t_k] == SEEN && lPl[t_k] == UNSET ->
       t_c = kCh[t_k];
       t_ok = 1;
#ifndef BUG_PLACE_AT_COMPLETION
       for (t_j : 0 .. NP-1) {
         if
         :: t_j < t_k && CANM(t_j,t_c) &&
            (kSt[t_j] == POSTED || ((kSt[t_j] == MATCHED || kSt[t_j] == CANCD) && !CANCELASSUMED(t_j)) ||
             (kSt[t_j] == SEEN && kCh[t_j] == t_c && lPl[t_j] == UNSET)) -> t_ok = 0
         :: else -> skip
         fi
       }
#endif
       if
       :: t_ok ->
          lc[t_c]++;
          lPl[t_k] = lc[t_c];
          assert(lPl[t_k] < NPL);
          if
          :: kSeenBefore[t_k] -> bef[PL(t_c,lPl[t_k])] = 1
          :: !kSeenBefore[t_k] && Sk[t_c] ->
             if
             :: lPl[t_k] <= Sv[t_c] -> logLate(t_k)
             :: else -> skip
             fi
          :: else ->
#ifndef BUG_NO_COPY
             pend[t_k] = 1
#else
             skip
#endif
          fi
       :: else -> skip
       fi
    :: else -> skip
    fi
  }
}

/* INIT from sender s (or ALL for the senders that sent none): the counts
   classify the messages kept */
inline classifyKept() {
  for (t_k : 0 .. NP-1) {
    if
    :: pend[t_k] && Sk[kCh[t_k]] ->
       pend[t_k] = 0;
       if
       :: lPl[t_k] <= Sv[kCh[t_k]] -> logLate(t_k); REACHED(5)
       :: else -> skip
       fi
    :: else -> skip
    fi
  }
}

/* Which receives must be replayed with the outcome they had: one seen
   before the line, one whose outcome NonDet-Log logged, and, from the
   latest down, one posted before a replayed receive that took a message
   it could have taken (MPI had matched it already, to something else or
   to an earlier message of that channel: if it took another message
   after the restart, MPI's order would be broken). Those are settled
   when the layer sees them; waitSee: one has not been seen yet (MPI
   matched it, so the layer's test will see it). */
inline computeFix() {
  waitSee = 0;
  t_k = NP;
  do
  :: t_k == 0 -> break
  :: else ->
     t_k--;
     fx[t_k] = 0;
     if
     :: t_k < npost ->
        t_ok = 0;
        for (t_j : 0 .. NP-1) {
          if
          :: t_j > t_k && t_j < npost && fx[t_j] && kSt[t_j] == SEEN && CANM(t_k,kCh[t_j]) ->
             t_ok = 1
          :: else -> skip
          fi
        };
        fx[t_k] = kSeenBefore[t_k] || ndCh[t_k] != UNSET || t_ok;
        if
        :: t_ok && kSt[t_k] != SEEN && kSt[t_k] != SEENC -> waitSee = 1
        :: else -> skip
        fi
     :: else -> skip
     fi
  od
}

/* The layer sees posting k complete (MPI_Test/Wait inside any MPI call). */
inline see(k) {
  if
  :: kSt[k] == MATCHED -> kSt[k] = SEEN
  :: else -> assert(kSt[k] == CANCD); kSt[k] = SEENC; REACHED(6)
  fi;
  if
  :: !phase ->
     kSeenBefore[k] = !ck[0];
     /* NonDet-Log: a wildcard receive's or a cancel's outcome */
     if
     :: ck[0] && !allGot && (kSrc[k] == ANYS || kTag[k] == ANYT || kCanReq[k]) ->
        if
        :: kSt[k] == SEEN -> ndCh[k] = kCh[k]; ndPl[k] = kPl[k]
        :: else -> ndCh[k] = CANC
        fi
     :: else -> skip
     fi;
     settle();
     computeFix()
  :: else ->
     /* restart: a logged or settled outcome is replayed */
     if
     :: ndCh[k] == CANC -> sameOutcome = (kSt[k] == SEENC); assert(sameOutcome)
     :: ndCh[k] != UNSET && ndCh[k] != CANC ->
        sameOutcome = (kSt[k] == SEEN && kCh[k] == ndCh[k] && kPl[k] == ndPl[k]);
        assert(sameOutcome); REACHED(8)
     :: else -> skip
     fi;
     if
     :: hole[k] -> REACHED(4)   /* checked above: ndCh, ndPl hold it */
     :: else -> skip
     fi
  fi
}

/* MPI hands the head of channel c to the earliest posted receive that can
   take it */
inline deliver(c, fromLog) {
  t_k = UNSET;
  for (t_j : 0 .. NP-1) {
    if
    :: t_k == UNSET && PEND(t_j,c) -> t_k = t_j
    :: else -> skip
    fi
  }
  assert(t_k != UNSET);
  if
  :: fromLog ->
     t_p = nextLate[c];
     t_id = late[PL(c,t_p)] - 1;
     late[PL(c,t_p)] = 0;
     nextLate[c]++;
     advanceLate(c);
     if
     :: t_k < linePost -> REACHED(9)
     :: else -> skip
     fi
  :: else -> net[c]?t_p,t_id
  fi;
  kSt[t_k] = MATCHED;
  kCh[t_k] = c;
  kPl[t_k] = t_p;
  kId[t_k] = t_id;
  got[t_id]++
}

inline post(slot, s, t) {
  assert(npost < NP);
  t_k = npost;
  npost++;
  kSrc[t_k] = s;
  kTag[t_k] = t;
  kSt[t_k] = POSTED;
  kCanReq[t_k] = 0;
  lPl[t_k] = UNSET;
  slotP[slot] = t_k;
  slotAct[slot] = 1;
  if
  :: phase && ndCh[t_k] == CANC ->
     /* replay: it was cancelled; the layer does not post it */
     kSt[t_k] = CANCD
  :: phase && ndCh[t_k] != UNSET && ndCh[t_k] != CANC ->
     kSrc[t_k] = CSRC(ndCh[t_k]);
     kTag[t_k] = CTAG(ndCh[t_k])
  :: else -> skip
  fi
}

/* the receiver's period may end: places settled up to the senders'
   counts, and those of every receive seen before the line */
#define UNSETTLED(k) ((k) < npost && kSeenBefore[k] && kSt[k] == SEEN && lPl[k] == UNSET)
#define SETTLED (lc[0] >= Sv[0] && lc[1] >= Sv[1] && lc[2] >= Sv[2] && lc[3] >= Sv[3] && \
                 !UNSETTLED(0) && !UNSETTLED(1) && !UNSETTLED(2) && !UNSETTLED(3) && \
                 !UNSETTLED(4) && !UNSETTLED(5) && !UNSETTLED(6))

#define OP0 op[pc[0]]
#define A1 a1[pc[0]]
#define A2 a2[pc[0]]
#define A3 a3[pc[0]]

#define DELIVER(c) \
  :: d_step { LOGHEAD(c) && ANYPEND(c) -> deliver(c, 1); skip } \
  :: d_step { NETOK(c) && ANYPEND(c) -> deliver(c, 0); skip }
#define SEE(k) \
  :: d_step { k < npost && (kSt[k] == MATCHED || kSt[k] == CANCD) -> see(k); skip }
/* MPI_Probe sees the head of c if no posted receive will take it */
#define PROBECH(c) \
  :: d_step { !fin[0] && OP0 == PROBE && AVAIL(c) && !ANYPEND(c) && \
              (A2 == ANYS || A2 == CSRC(c)) && (A3 == ANYT || A3 == CTAG(c)) && \
              (!phase || prCh[npr] == UNSET || prCh[npr] == c) -> \
       probedCh = c; \
       if \
       :: !phase && ck[0] && !allGot -> prCh[npr] = c \
       :: else -> skip \
       fi; \
       PROBECOUNT(c); \
       npr++; pc[0]++; skip }
#ifdef BUG_PROBE_COUNTS
#define PROBECOUNT(c) if :: !phase -> lc[c]++ :: else -> skip fi
#else
#define PROBECOUNT(c) skip
#endif
/* MPI_Mprobe: a receive posted and matched at once */
#define MPROBECH(c) \
  :: d_step { !fin[0] && OP0 == MPROBE && AVAIL(c) && !ANYPEND(c) && \
              (A2 == ANYS || A2 == CSRC(c)) && (A3 == ANYT || A3 == CTAG(c)) && \
              (!phase || ndCh[npost] == UNSET || ndCh[npost] == c) -> \
       post(A1, A2, A3); \
       deliver(c, LOGHEAD(c)); \
       t_m = t_k; \
       MPROBESEE(t_m); \
       pc[0]++; skip }
#ifdef BUG_MPROBE_AT_ONCE
#define MPROBESEE(k) \
  if \
  :: !phase -> kSt[k] = SEEN; kSeenBefore[k] = !ck[0]; lc[kCh[k]]++; lPl[k] = lc[kCh[k]]; \
     if :: !ck[0] -> bef[PL(kCh[k],lPl[k])] = 1 \
        :: else -> if :: Sk[kCh[k]] && lPl[k] <= Sv[kCh[k]] -> logLate(k) :: else -> skip fi \
     fi \
  :: else -> see(k) \
  fi
#else
#define MPROBESEE(k) see(k)
#endif

/* rank 0 takes its checkpoint: the image */
inline ckpt0() {
  ck[0] = 1;
  ipc[0] = pc[0] + 1;
  linePost = npost;
  inpr = npr;
  for (t_j : 0 .. NSL-1) {
    islotP[t_j] = slotP[t_j];
    islotAct[t_j] = slotAct[t_j]
  }
}

/* a sender takes its checkpoint: INIT carries its counts (if it sent any) */
inline ckptS(r) {
  ck[r] = 1;
  ipc[r] = pc[r] + 1;
  S[CHOF(r,0)] = sent[CHOF(r,0)];
  S[CHOF(r,1)] = sent[CHOF(r,1)];
  initSent[r] = (S[CHOF(r,0)] + S[CHOF(r,1)] > 0)
}

proctype receiver() {
  do
  DELIVER(0)
  DELIVER(1)
  DELIVER(2)
  DELIVER(3)
  SEE(0)
  SEE(1)
  SEE(2)
  SEE(3)
  SEE(4)
  SEE(5)
  SEE(6)
  :: d_step { !phase && initSent[1] && !initGot[1] ->
       initGot[1] = 1;
       Sk[CHOF(1,0)] = 1; Sv[CHOF(1,0)] = S[CHOF(1,0)];
       Sk[CHOF(1,1)] = 1; Sv[CHOF(1,1)] = S[CHOF(1,1)];
       classifyKept(); skip }
  :: d_step { !phase && initSent[2] && !initGot[2] ->
       initGot[2] = 1;
       Sk[CHOF(2,0)] = 1; Sv[CHOF(2,0)] = S[CHOF(2,0)];
       Sk[CHOF(2,1)] = 1; Sv[CHOF(2,1)] = S[CHOF(2,1)];
       classifyKept(); skip }
  :: d_step { !phase && !allGot && ck[0] && ck[1] && ck[2] &&
              initGot[1] == initSent[1] && initGot[2] == initSent[2] ->
       /* ALL: a sender that sent no INIT sent nothing late */
       allGot = 1;
       for (t_c : 0 .. NCH-1) {
         if
         :: !Sk[t_c] -> Sk[t_c] = 1; Sv[t_c] = 0
         :: else -> skip
         fi
       }
       classifyKept(); skip }
  :: d_step { !phase && allGot && !committed && SETTLED && !waitSee ->
       /* the period ends when every place up to the senders' counts and
          every place matched before the line is settled; the log then
          names the receives open at the line that MPI had matched before
          it: a receive posted later, seen before the line, took a message
          the open one could take. They are replayed on their channel
          (one that took a place below a place taken before the line is a
          hole in that channel's count). */
       computeFix();
       for (t_k : 0 .. NP-1) {
         assert(!pend[t_k]);
         if
         :: fx[t_k] && !kSeenBefore[t_k] && ndCh[t_k] == UNSET ->
#ifndef BUG_NO_HOLE_REPLAY
            hole[t_k] = 1;
            if
            :: kSt[t_k] == SEEN -> ndCh[t_k] = kCh[t_k]; ndPl[t_k] = kPl[t_k]
            :: else -> ndCh[t_k] = CANC
            fi;
#endif
            if
            :: t_k < linePost -> REACHED(3)
            :: else -> REACHED(10)
            fi
         :: else -> skip
         fi
       }
       committed = 1; skip }
  :: d_step { !fin[0] && OP0 == SITE ->
       if
       :: !phase && !ck[0] && op[pc[0]+1] == END -> ckpt0()
       :: else -> skip
       fi;
       pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == SITE && !phase && !ck[0] && op[pc[0]+1] != END ->
       ckpt0(); pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == IRECV -> post(A1, A2, A3); pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == PSTART -> post(A1, A2, A3); pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == REPOST ->
       if
       :: kSt[slotP[A1]] == SEENC -> post(A1, A2, A3)
       :: else -> skip
       fi;
       pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == IRECVP ->
       post(A1, CSRC(probedCh), CTAG(probedCh)); pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == CANCEL ->
       t_k = slotP[A1];
       kCanReq[t_k] = 1;
       if
       :: kSt[t_k] == POSTED && !(phase && ndCh[t_k] != UNSET) -> kSt[t_k] = CANCD
       :: else -> skip   /* matched: the cancel fails */
       fi;
       pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == WAIT &&
              (!slotAct[A1] || kSt[slotP[A1]] == SEEN || kSt[slotP[A1]] == SEENC) ->
       slotAct[A1] = 0; pc[0]++; skip }
  :: d_step { !fin[0] && OP0 == WAIT && slotAct[A1] &&
              (kSt[slotP[A1]] == MATCHED || kSt[slotP[A1]] == CANCD) ->
       see(slotP[A1]); slotAct[A1] = 0; pc[0]++; skip }
  PROBECH(0)
  PROBECH(1)
  PROBECH(2)
  PROBECH(3)
  MPROBECH(0)
  MPROBECH(1)
  MPROBECH(2)
  MPROBECH(3)
  :: d_step { !fin[0] && OP0 == END -> fin[0] = 1; skip }
  :: fin[0] && (phase || committed) -> break
  od;
  rdone[0] = 1
}

proctype sender(byte r) {
  do
  :: d_step { !fin[r] && op[r*NPC+pc[r]] == SITE ->
       if
       :: !phase && !ck[r] && op[r*NPC+pc[r]+1] == END -> ckptS(r)
       :: else -> skip
       fi;
       pc[r]++; skip }
  :: d_step { !fin[r] && op[r*NPC+pc[r]] == SITE && !phase && !ck[r] &&
              op[r*NPC+pc[r]+1] != END ->
       ckptS(r); pc[r]++; skip }
  :: d_step { !fin[r] && op[r*NPC+pc[r]] == SEND ->
       t_c = CHOF(r, a1[r*NPC+pc[r]]);
       t_id = r*NPC + pc[r];
       sent[t_c]++;
       assert(sent[t_c] < NPL);
       if
       :: !phase -> origId[PL(t_c,sent[t_c])] = t_id; net[t_c]!sent[t_c],t_id
       :: else ->
          /* the same message at the same place as in the run */
          assert(origId[PL(t_c,sent[t_c])] == t_id);
          if
          :: sup[PL(t_c,sent[t_c])] -> sup[PL(t_c,sent[t_c])] = 0; REACHED(2)
          :: else -> net[t_c]!sent[t_c],t_id
          fi
       fi;
       pc[r]++; skip }
  :: d_step { !fin[r] && op[r*NPC+pc[r]] == END -> fin[r] = 1; skip }
  :: fin[r] -> break
  od;
  rdone[r] = 1
}

/* The program, the restart from the line and the checks
   (counting_restart.pml). */
#include "counting_restart.pml"
