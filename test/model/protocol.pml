/*
 * A model of ccc's non-blocking (C3) checkpoint protocol, checked with spin.
 *
 * What it stands for (docs/mpi-protocol.md, "The protocol's model"; design of issue
 * 20): three MPI ranks run a small fixed program of sites, sends, receives
 * (some with MPI_ANY_SOURCE) and collectives. Any rank may begin a checkpoint
 * at a site (timer, signal, forced site); at most MAXE checkpoints are
 * taken. MAXE=2 (default): a short program on world, one rank begins each
 * checkpoint, and a rank begins checkpoint 2 as soon as its own period 1
 * ended, while others may still be in theirs. -DMAXE=1: a longer program
 * with a second communicator {1,2} and a non-blocking collective open
 * across a site, and several ranks may begin the checkpoint at once. The layer's state
 * per rank (mpi-layer/protocol/Protocol.cpp, ProtocolMessages.cpp, the collectives
 * part of the new design) is in global arrays indexed by rank, so that the
 * checks can read every rank's state.
 *
 * Control messages (START, INIT, DONE, ALL, LOGGED) travel on one FIFO
 * channel per ordered pair of ranks (MPI keeps order per pair only) over a
 * tree with parent[] (K=4 for 3 ranks: 0 is every rank's parent; -DCHAIN
 * makes the chain 0-1-2 so a rank also forwards). Application messages
 * travel on one FIFO channel per ordered pair and carry the header the
 * layer adds: the sender's epoch, its logging bit and its sequence number
 * towards that receiver, and (for the checks only, never read by the
 * protocol) the message's identity: the sender's program counter at the
 * send.
 *
 * After the run, the model restarts from a committed recovery line: each
 * rank re-executes from the program counter saved in its image, in Restore
 * mode, with the message log and the early registries of that line, and
 * the checks below say that the re-execution is consistent.
 *
 * Known protocol bugs, injected with -D for the test that proves the
 * checks can fail:
 *   BUG_LEAVE_LOG_EARLY  a rank ends its period (leaves RecvOnly-Log,
 *                        writes its log) before its late messages arrived
 *   BUG_COLL_NOT_LOGGED  no provisional logging of collectives before ALL
 *   BUG_NO_PRUNE         provisional collective records with s >= max cut
 *                        are kept in the log after ALL
 */

#define NR 3       /* ranks */
#define NC 2       /* communicators: 0 = world, 1 = {1,2} */
#define NS 2       /* collectives per communicator in the program, at most */
#ifndef MAXE
#define MAXE 2     /* checkpoints (epochs) taken, at most */
#endif
#if MAXE > 1
#define ONE_INITIATOR  /* one rank begins each checkpoint (state space) */
#endif
#ifdef ONE_INITIATOR
#define MAYBEGIN(r) (!begun[ep[r]+1])
#else
#define MAYBEGIN(r) (1)
#endif
#define NPC 13     /* program length per rank */
#define NM (NR*NPC)
#define NLOG 6     /* records in one rank's log of one epoch, at most */
#define NREG 4     /* entries in one rank's early registry, at most */
#define UNSET 255
#define ANY 3      /* MPI_ANY_SOURCE */

/* program operations */
#define SITE 1     /* ccc_checkpoint() */
#define SEND 2     /* MPI_Send to arg */
#define RECV 3     /* MPI_Recv from arg (or ANY) */
#define CST 4      /* start a collective on communicator arg (MPI_I...) */
#define CWT 5      /* complete it (MPI_Wait); CST+CWT is a blocking one */
#define END 6      /* MPI_Finalize */

/* C3 modes (Restore is the restarted processes below) */
#define RUN 0
#define NDLOG 1    /* NonDet-Log */
#define ROLOG 2    /* RecvOnly-Log */

/* message log records (RecKind) */
#define NONE 0
#define LATE 1     /* a late message: its receive op, source, identity */
#define WILD 2     /* a wildcard receive's choice: op and source */
#define COLL 3     /* a collective's outputs: communicator, number */

mtype = { START, INIT, DONE, ALL, LOGGED };

/* -DREACH=n makes event n an assertion violation, to show that the search
   reaches it (run_spin.sh --expect-violation; ctest model.protocol.reaches):
   1 late message logged, 2 early message registered, 3 wildcard choice
   logged, 4 crossing collective logged by a member with cut <= s, 5 a rank
   takes checkpoint 2 while another is still in period 1, 6 early send
   suppressed on restart, 7 late message replayed from the log, 8 collective
   re-executed from the log, 9 non-blocking collective open at the line
   completed from the log, 10 checkpoint 2 committed, 11 a checkpoint
   abandoned (a rank reached MPI_Finalize first) */
#ifdef REACH
#define REACHED(n) assert(REACH != n)
#else
#define REACHED(n) skip
#endif

#define PR(p,q) ((p)*NR+(q))
#define IX(r,e) ((r)*MAXE+(e)-1)
#define IXC(r,e,c) (IX(r,e)*NC+(c))
#define LI(r,e,i) (IX(r,e)*NLOG+(i))
#define RI(r,e,i) (IX(r,e)*NREG+(i))
#define CS(c,s) ((c)*NS+(s))
#define MEMBERS(c) ((c) == 0 -> 3 : 2)
#define ISMEMBER(r,c) ((c) == 0 || (r) != 0)
#define OP(r) op[(r)*NPC+pc[r]]
#define ARG(r) arg[(r)*NPC+pc[r]]

/* application messages: epoch, logging bit, sequence number, identity */
chan app[NR*NR] = [2] of { byte, bit, byte, byte };
/* control messages: kind, epoch, k (INIT count, LOGGED outcome), max cut
   of communicator 0 and 1 (DONE, ALL) */
chan ctl[NR*NR] = [4] of { mtype, byte, byte, byte, byte };

/* the program and the tree */
byte op[NM];
byte arg[NM];
byte parent[NR];
byte nkids[NR];

/* per rank (L-> in Protocol.cpp) */
byte pc[NR];
byte ep[NR];        /* Epoch: checkpoints taken */
byte mode[NR];
byte want[NR];      /* Initiated: highest epoch this rank knows was begun */
bit fin[NR];        /* reached MPI_Finalize */
byte sent[NR*NR];   /* SentEp: sends to q this epoch = next sequence number */
byte recvd[NR*NR];  /* RecvEp */
byte early[NR*NR];  /* EarlyEp */
byte lateGot[NR*NR];
byte lateWant[NR*NR];  /* from INIT (or 0 at ALL); UNSET: not known yet */
byte futWant[NR*NR];   /* INIT of the next epoch, come early */
byte ncs[NR*NC];    /* n(C): collectives started on C */
byte ncc[NR*NC];    /* collectives completed on C */
byte maxc[NR*NC];   /* max cut(C) from ALL, for the current epoch */
byte cst[NC*NS];    /* MPI: members that started collective s on C */

/* per rank and epoch */
byte ipc[NR*MAXE];        /* image: where execution resumes */
byte cut[NR*MAXE*NC];     /* image: cut_r(C) = n(C) at the checkpoint */
byte iopen[NR*MAXE*NC];   /* image: collectives open at the checkpoint */
byte agmax[NR*MAXE*NC];   /* DONE payload: max cut over the subtree */
bit doneSent[NR*MAXE];
byte doneKids[NR*MAXE];
byte initOut[NR*MAXE];    /* INIT Issends not yet completed */
bit allGot[NR*MAXE];
bit pend[NR*MAXE];        /* period ended: log written, back to Run */
bit loggedSent[NR*MAXE];
byte loggedKids[NR*MAXE];
bit worst[NR*MAXE];       /* outcome: 1 = a rank finished before taking it */
bit fnsh[NR*MAXE];        /* this rank took it in MPI_Finalize: no image */
bit fwd[NR*MAXE];         /* START forwarded */
bit begun[MAXE+1];        /* a rank began checkpoint e on its own */
bit committed[MAXE+1];
bit abandoned[MAXE+1];

/* message log file of rank r, epoch e */
byte lk[NR*MAXE*NLOG];
byte la[NR*MAXE*NLOG];
byte lb[NR*MAXE*NLOG];
byte lid[NR*MAXE*NLOG];
byte ln[NR*MAXE];
/* early registry saved in image e of rank r: source, sequence number;
   rgid is for the checks only */
byte rgp[NR*MAXE*NREG];
byte rgs[NR*MAXE*NREG];
byte rgid[NR*MAXE*NREG];
byte rgn[NR*MAXE];

/* history, for the checks only: per message (sender*NPC + pc of the send)
   the sender's epoch at the send and the receiver's at the receive; per
   receive (receiver*NPC + pc) what it got and the epoch if the receiver
   was in NonDet-Log and the sender still logging (must replay the same) */
byte msEp[NM];
byte mrEp[NM];
byte origId[NM];
byte origNd[NM];

/* restart from line E */
byte E;
byte rpc[NR];
byte rsent[NR*NR];
byte rn[NR*NC];
bit rfromLog[NR*NC];
byte ropenS[NR*NC];
byte rcst[NC*NS];
byte rmax[NC];
bit lu[NR*NLOG];
bit ru[NR*NREG];
bit rgot[NM];
bit rwait[NR];
byte rsrc[NR];
bit rdone[NR];

/* temporaries of one atomic step (not part of the state) */
hidden mtype t_kind;
hidden byte t_e, t_k, t_a, t_b, t_E, t_seq, t_id, t_q, t_m, t_c, t_s, t_i;
hidden byte t_lg, t_f;
hidden byte kq, cc, cq, ce, aq, ai, pe, pq, pm, pe2, pok;
hidden byte kr, km, ki, kc, ks, kn, kg, kx, kmax, xq;

inline sendctl(p, q, kind, ee, kk, aa, bb) {
  assert(nfull(ctl[PR(p,q)]));
  ctl[PR(p,q)]!kind, ee, kk, aa, bb
}

inline sendKids(r, kind, ee, kk, aa, bb) {
  for (kq : 0 .. NR-1) {
    if
    :: kq != r && parent[kq] == r -> sendctl(r, kq, kind, ee, kk, aa, bb)
    :: else -> skip
    fi
  }
}

inline addLog(r, ee, kind, aa, bb, id) {
  assert(ln[IX(r,ee)] < NLOG);
  lk[LI(r,ee,ln[IX(r,ee)])] = kind;
  la[LI(r,ee,ln[IX(r,ee)])] = aa;
  lb[LI(r,ee,ln[IX(r,ee)])] = bb;
  lid[LI(r,ee,ln[IX(r,ee)])] = id;
  ln[IX(r,ee)]++
}

/* startCheckpoint(): the image (program counter, cuts, the early registry
   collected in the last epoch), counters moved to the new epoch, INIT(e,k)
   by Issend to each rank this one sent k > 0 messages in the old epoch,
   NonDet-Log. isFin: taken in MPI_Finalize, without an image. */
inline takeCkpt(r, isFin) {
  ce = ep[r] + 1;
  assert(mode[r] == RUN && ce <= MAXE);
  ipc[IX(r,ce)] = pc[r] + 1;
  fnsh[IX(r,ce)] = isFin;
  for (cc : 0 .. NC-1) {
    cut[IXC(r,ce,cc)] = ncs[r*NC+cc];
    iopen[IXC(r,ce,cc)] = ncs[r*NC+cc] - ncc[r*NC+cc];
    if
    :: agmax[IXC(r,ce,cc)] < ncs[r*NC+cc] -> agmax[IXC(r,ce,cc)] = ncs[r*NC+cc]
    :: else -> skip
    fi
  }
  for (cq : 0 .. NR-1) {
    lateGot[PR(r,cq)] = recvd[PR(r,cq)];
    recvd[PR(r,cq)] = early[PR(r,cq)];
    early[PR(r,cq)] = 0;
    lateWant[PR(r,cq)] = futWant[PR(r,cq)];
    futWant[PR(r,cq)] = UNSET;
    if
    :: cq != r && sent[PR(r,cq)] > 0 ->
       initOut[IX(r,ce)]++;
       sendctl(r, cq, INIT, ce, sent[PR(r,cq)], 0, 0)
    :: else -> skip
    fi;
    sent[PR(r,cq)] = 0
  }
  lateWant[PR(r,r)] = 0;
  if
  :: ce == 2 && ((ep[0] == 1 && mode[0] != RUN) || (ep[1] == 1 && mode[1] != RUN) ||
                 (ep[2] == 1 && mode[2] != RUN)) -> REACHED(5)
  :: else -> skip
  fi;
  ep[r] = ce;
  mode[r] = NDLOG
}

/* ALL(e, max cuts): forwarded down; ranks that sent no INIT sent nothing
   late; NonDet-Log -> RecvOnly-Log; provisional collective records past
   the max cut dropped (nobody re-executes those from a log). */
inline onAll(r, ee, m0, m1) {
  assert(ep[r] == ee && mode[r] != RUN && !allGot[IX(r,ee)]);
  allGot[IX(r,ee)] = 1;
  maxc[r*NC+0] = m0;
  maxc[r*NC+1] = m1;
  sendKids(r, ALL, ee, 0, m0, m1);
  for (aq : 0 .. NR-1) {
    if
    :: lateWant[PR(r,aq)] == UNSET -> lateWant[PR(r,aq)] = 0
    :: else -> skip
    fi
  }
  if
  :: mode[r] == NDLOG -> mode[r] = ROLOG
  :: else -> skip
  fi;
#ifndef BUG_NO_PRUNE
  for (ai : 0 .. NLOG-1) {
    if
    :: lk[LI(r,ee,ai)] == COLL && lb[LI(r,ee,ai)] >= maxc[r*NC+la[LI(r,ee,ai)]] ->
       lk[LI(r,ee,ai)] = NONE
    :: else -> skip
    fi
  }
#endif
}

/* The root commits checkpoint e: the recovery line must be consistent. */
inline checkLine(ee) {
  for (km : 0 .. NM-1) {
    if
    :: op[km] == SEND && msEp[km] != UNSET ->
       xq = arg[km];
       kn = 0;
       for (ki : 0 .. NLOG-1) {
         if
         :: lk[LI(xq,ee,ki)] == LATE && lid[LI(xq,ee,ki)] == km -> kn++
         :: else -> skip
         fi
       }
       kg = 0;
       for (ki : 0 .. NREG-1) {
         if
         :: ki < rgn[IX(xq,ee)] && rgid[RI(xq,ee,ki)] == km -> kg++
         :: else -> skip
         fi
       }
       if
       :: msEp[km] < ee ->
          /* sent before the sender's checkpoint: arrived; if after the
             receiver's checkpoint (late), logged exactly once */
          assert(mrEp[km] != UNSET);
          if
          :: mrEp[km] >= ee -> assert(kn == 1)
          :: else -> assert(kn == 0)
          fi;
          assert(kg == 0)
       :: else ->
          /* sent after the sender's checkpoint: if received before the
             receiver's, an orphan unless in the early registry (once) */
          assert(kn == 0);
          if
          :: mrEp[km] != UNSET && mrEp[km] < ee -> assert(kg == 1)
          :: else -> assert(kg == 0)
          fi
       fi
    :: else -> skip
    fi
  }
  /* collective s on C crossed the line iff min cut <= s < max cut: logged
     by exactly the members with cut <= s (they re-execute it), and by a
     member whose non-blocking collective s was open at its checkpoint */
  for (kc : 0 .. NC-1) {
    kmax = 0;
    for (kr : 0 .. NR-1) {
      if
      :: ISMEMBER(kr,kc) && cut[IXC(kr,ee,kc)] > kmax -> kmax = cut[IXC(kr,ee,kc)]
      :: else -> skip
      fi
    }
    for (kr : 0 .. NR-1) {
      for (ks : 0 .. NS-1) {
        kn = 0;
        for (ki : 0 .. NLOG-1) {
          if
          :: lk[LI(kr,ee,ki)] == COLL && la[LI(kr,ee,ki)] == kc && lb[LI(kr,ee,ki)] == ks -> kn++
          :: else -> skip
          fi
        }
        kx = (ISMEMBER(kr,kc) &&
              ((cut[IXC(kr,ee,kc)] <= ks && ks < kmax) ||
               (ks < cut[IXC(kr,ee,kc)] && ks + iopen[IXC(kr,ee,kc)] >= cut[IXC(kr,ee,kc)])));
        assert(kn == kx);
        if
        :: kn && cut[IXC(kr,ee,kc)] <= ks -> REACHED(4)
        :: else -> skip
        fi
      }
    }
  }
}

inline commit(ee) {
  /* the root commits only after every rank's period ended */
  for (kr : 0 .. NR-1) {
    assert(pend[IX(kr,ee)])
  }
  if
  :: worst[IX(0,ee)] -> abandoned[ee] = 1; REACHED(11)
  :: else -> checkLine(ee); committed[ee] = 1;
     if
     :: ee == 2 -> REACHED(10)
     :: else -> skip
     fi
  fi
}

/* After each step of rank r: DONE up (the root: ALL down), the period's
   end, LOGGED up (the root: the commit record). */
inline progress(r) {
  pe = ep[r];
  if
  :: pe > 0 && !doneSent[IX(r,pe)] && initOut[IX(r,pe)] == 0 &&
     doneKids[IX(r,pe)] == nkids[r] ->
     doneSent[IX(r,pe)] = 1;
     if
     :: r == 0 -> onAll(r, pe, agmax[IXC(r,pe,0)], agmax[IXC(r,pe,1)])
     :: else -> sendctl(r, parent[r], DONE, pe, 0, agmax[IXC(r,pe,0)], agmax[IXC(r,pe,1)])
     fi
  :: else -> skip
  fi;
  if
  :: pe > 0 && mode[r] == ROLOG && allGot[IX(r,pe)] ->
     pok = 1;
     for (pq : 0 .. NR-1) {
       assert(lateGot[PR(r,pq)] <= lateWant[PR(r,pq)]);
#ifndef BUG_LEAVE_LOG_EARLY
       if
       :: lateGot[PR(r,pq)] < lateWant[PR(r,pq)] -> pok = 0
       :: else -> skip
       fi
#endif
     }
     for (pq : 0 .. NC-1) {
       if
       :: ISMEMBER(r,pq) && ncc[r*NC+pq] < maxc[r*NC+pq] -> pok = 0
       :: else -> skip
       fi
     }
     if
     :: pok ->
        /* every message sent to r before its sender's checkpoint arrived */
        for (pm : 0 .. NM-1) {
          assert(!(op[pm] == SEND && arg[pm] == r && msEp[pm] < pe) || mrEp[pm] != UNSET)
        }
        pend[IX(r,pe)] = 1;
        mode[r] = RUN
     :: else -> skip
     fi
  :: else -> skip
  fi;
  for (pe2 : 1 .. MAXE) {
    if
    :: pend[IX(r,pe2)] && !loggedSent[IX(r,pe2)] && loggedKids[IX(r,pe2)] == nkids[r] ->
       loggedSent[IX(r,pe2)] = 1;
       if
       :: fnsh[IX(r,pe2)] -> worst[IX(r,pe2)] = 1
       :: else -> skip
       fi;
       if
       :: r == 0 -> commit(pe2)
       :: else -> sendctl(r, parent[r], LOGGED, pe2, worst[IX(r,pe2)], 0, 0)
       fi
    :: else -> skip
    fi
  }
}

inline onCtl(r, from) {
  if
  :: t_kind == START ->
     assert(t_e <= ep[r] + 1);
     if
     :: t_e > ep[r] && t_e > want[r] -> want[r] = t_e
     :: else -> skip
     fi;
     if
     :: !fwd[IX(r,t_e)] -> fwd[IX(r,t_e)] = 1; sendKids(r, START, t_e, 0, 0, 0)
     :: else -> skip
     fi
  :: t_kind == INIT ->
     initOut[IX(from,t_e)]--;   /* the sender's Issend completes */
     if
     :: t_e == ep[r] ->
        assert(lateWant[PR(r,from)] == UNSET && !allGot[IX(r,t_e)]);
        lateWant[PR(r,from)] = t_k
     :: t_e == ep[r] + 1 ->
        assert(futWant[PR(r,from)] == UNSET);
        futWant[PR(r,from)] = t_k;
        if
        :: want[r] < t_e -> want[r] = t_e
        :: else -> skip
        fi
     :: else -> assert(false)
     fi
  :: t_kind == DONE ->
     doneKids[IX(r,t_e)]++;
     if
     :: agmax[IXC(r,t_e,0)] < t_a -> agmax[IXC(r,t_e,0)] = t_a
     :: else -> skip
     fi;
     if
     :: agmax[IXC(r,t_e,1)] < t_b -> agmax[IXC(r,t_e,1)] = t_b
     :: else -> skip
     fi
  :: t_kind == ALL -> onAll(r, t_e, t_a, t_b)
  :: t_kind == LOGGED ->
     loggedKids[IX(r,t_e)]++;
     if
     :: t_k -> worst[IX(r,t_e)] = 1
     :: else -> skip
     fi
  fi
}

/* classify() in ProtocolMessages.cpp: late, intra-epoch, early. */
inline classify(r, from, wild) {
  mrEp[t_id] = ep[r];
  origId[r*NPC+pc[r]] = t_id;
  if
  :: t_E + 1 == ep[r] ->
     /* late: a late message after the period ended would be lost */
     assert(mode[r] != RUN);
     lateGot[PR(r,from)]++;
     addLog(r, ep[r], LATE, from, pc[r], t_id);
     REACHED(1)
  :: t_E == ep[r] ->
     recvd[PR(r,from)]++;
     if
     :: mode[r] == NDLOG && !t_lg -> mode[r] = ROLOG
     :: mode[r] == NDLOG && t_lg ->
        origNd[r*NPC+pc[r]] = ep[r];
        if
        :: wild -> addLog(r, ep[r], WILD, from, pc[r], t_id); REACHED(3)
        :: else -> skip
        fi
     :: else -> skip
     fi
  :: t_E == ep[r] + 1 ->
     /* early: registered for the image of checkpoint t_E */
     early[PR(r,from)]++;
     assert(rgn[IX(r,t_E)] < NREG);
     rgp[RI(r,t_E,rgn[IX(r,t_E)])] = from;
     rgs[RI(r,t_E,rgn[IX(r,t_E)])] = t_seq;
     rgid[RI(r,t_E,rgn[IX(r,t_E)])] = t_id;
     rgn[IX(r,t_E)]++;
     REACHED(2);
     if
     :: want[r] < t_E -> want[r] = t_E
     :: else -> skip
     fi
  :: else -> assert(false)
  fi
}

#define CTL(s) \
  :: d_step { nempty(ctl[PR(s,r)]) -> \
       ctl[PR(s,r)]?t_kind,t_e,t_k,t_a,t_b; onCtl(r, s); progress(r); skip }

#define RECVFROM(s) \
  :: d_step { !fin[r] && OP(r) == RECV && (ARG(r) == s || ARG(r) == ANY) && \
              nempty(app[PR(s,r)]) -> \
       app[PR(s,r)]?t_E,t_lg,t_seq,t_id; \
       classify(r, s, ARG(r) == ANY); pc[r]++; progress(r); skip }

proctype rank(byte r) {
end:
  do
  CTL(0)
  CTL(1)
  CTL(2)
  :: d_step { ep[r] > 0 && !doneSent[IX(r,ep[r])] && initOut[IX(r,ep[r])] == 0 &&
              doneKids[IX(r,ep[r])] == nkids[r] -> progress(r); skip }
  :: d_step { !fin[r] && OP(r) == SITE && mode[r] == RUN && want[r] > ep[r] ->
       /* told (START, INIT or an early message): checkpoint here */
       assert(want[r] == ep[r] + 1);
       takeCkpt(r, 0);
       pc[r]++;
       progress(r); skip }
  :: d_step { !fin[r] && OP(r) == SITE && mode[r] == RUN && want[r] <= ep[r] &&
              ep[r] < MAXE && MAYBEGIN(r) ->
       begun[ep[r]+1] = 1;
       /* this rank begins a checkpoint on its own (timer, signal, forced) */
       takeCkpt(r, 0);
       want[r] = ep[r];
       if
       :: r == 0 -> fwd[IX(r,ep[r])] = 1; sendKids(r, START, ep[r], 0, 0, 0)
       :: else -> sendctl(r, 0, START, ep[r], 0, 0, 0)
       fi;
       pc[r]++;
       progress(r); skip }
  :: d_step { !fin[r] && OP(r) == SITE && !(mode[r] == RUN && want[r] > ep[r]) ->
       pc[r]++;
       progress(r); skip }
  :: d_step { !fin[r] && OP(r) == SEND ->
       t_q = ARG(r);
       t_m = r*NPC + pc[r];
       assert(nfull(app[PR(r,t_q)]));
       app[PR(r,t_q)]!ep[r], (mode[r] == NDLOG), sent[PR(r,t_q)], t_m;
       sent[PR(r,t_q)]++;
       msEp[t_m] = ep[r];
       pc[r]++; skip }
  RECVFROM(0)
  RECVFROM(1)
  RECVFROM(2)
  :: d_step { !fin[r] && OP(r) == CST ->
       t_c = ARG(r);
       cst[CS(t_c, ncs[r*NC+t_c])]++;
       ncs[r*NC+t_c]++;
       pc[r]++; skip }
  :: d_step { !fin[r] && OP(r) == CWT &&
              cst[CS(ARG(r), ncc[r*NC+ARG(r)])] == MEMBERS(ARG(r)) ->
       t_c = ARG(r);
       t_s = ncc[r*NC+t_c];
       ncc[r*NC+t_c]++;
       /* log the outputs: provisionally until ALL, then below max cut */
       if
#ifndef BUG_COLL_NOT_LOGGED
       :: mode[r] != RUN && (!allGot[IX(r,ep[r])] || t_s < maxc[r*NC+t_c]) ->
#else
       :: mode[r] != RUN && allGot[IX(r,ep[r])] && t_s < maxc[r*NC+t_c] ->
#endif
          addLog(r, ep[r], COLL, t_c, t_s, 0)
       :: else -> skip
       fi;
       pc[r]++;
       progress(r); skip }
  :: d_step { !fin[r] && OP(r) == END -> fin[r] = 1; skip }
  :: d_step { fin[r] && mode[r] == RUN && want[r] > ep[r] ->
       /* MPI_Finalize before taking it: takes part without an image */
       takeCkpt(r, 1);
       progress(r); skip }
  od
}

/* After the run: the restarted processes, the checks and the program
   (restart.pml). */
#include "restart.pml"
