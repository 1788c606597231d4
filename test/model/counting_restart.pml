/*
 * Part of the model of the protocol without a header, included at the end
 * of counting.pml (whose definitions and state it uses): init sets the
 * program every rank runs, waits for the run to end committed, restarts
 * the ranks from the line and checks the run across it.
 */

#define P0(i,o,x,y,z) op[i] = o; a1[i] = x; a2[i] = y; a3[i] = z
#define PS(r,i,o,x) op[(r)*NPC+(i)] = o; a1[(r)*NPC+(i)] = x

init {
  atomic {
#if PROG == 1
    /* rank 0: a wildcard receive and a receive from 1 on the same
       channel, the first cancelled, the second waited for first, the
       first open across a site (posted again if the cancel succeeded); a
       persistent wildcard receive on tag 1 open across a site, started
       again; a probe for any message, then its receive */
    P0(0, SITE, 0, 0, 0);
    P0(1, IRECV, 0, ANYS, 0);
    P0(2, IRECV, 1, 1, 0);
    P0(3, CANCEL, 0, 0, 0);
    P0(4, WAIT, 1, 0, 0);
    P0(5, SITE, 0, 0, 0);
    P0(6, WAIT, 0, 0, 0);
    P0(7, REPOST, 0, ANYS, 0);
    P0(8, WAIT, 0, 0, 0);
    P0(9, PSTART, 2, ANYS, 1);
    P0(10, SITE, 0, 0, 0);
    P0(11, WAIT, 2, 0, 0);
    P0(12, PSTART, 2, ANYS, 1);
    P0(13, WAIT, 2, 0, 0);
    P0(14, SITE, 0, 0, 0);
    P0(15, PROBE, 0, ANYS, ANYT);
    P0(16, IRECVP, 3, 0, 0);
    P0(17, WAIT, 3, 0, 0);
    P0(18, SITE, 0, 0, 0);
    P0(19, END, 0, 0, 0);
    /* rank 1: tag 0, tag 0, tag 1; rank 2: tag 0, tag 1 */
    PS(1,0,SITE,0); PS(1,1,SEND,0); PS(1,2,SITE,0); PS(1,3,SEND,0);
    PS(1,4,SITE,0); PS(1,5,SEND,1); PS(1,6,SITE,0); PS(1,7,END,0);
    PS(2,0,SITE,0); PS(2,1,SEND,0); PS(2,2,SITE,0); PS(2,3,SEND,1);
    PS(2,4,SITE,0); PS(2,5,END,0);
#else
    /* rank 0: a receive from 1 with MPI_ANY_TAG left open; a matched
       probe from anyone on tag 0 (may take 1's first message only if the
       open receive took another); a site with the first receive open; a
       wildcard receive for the rest, then one for tag 1 */
    P0(0, SITE, 0, 0, 0);
    P0(1, IRECV, 0, 1, ANYT);
    P0(2, MPROBE, 1, ANYS, 0);
    P0(3, WAIT, 1, 0, 0);
    P0(4, SITE, 0, 0, 0);
    P0(5, WAIT, 0, 0, 0);
    P0(6, IRECV, 2, ANYS, ANYT);
    P0(7, SITE, 0, 0, 0);
    P0(8, WAIT, 2, 0, 0);
    P0(9, IRECV, 3, ANYS, ANYT);
    P0(10, WAIT, 3, 0, 0);
    P0(11, SITE, 0, 0, 0);
    P0(12, END, 0, 0, 0);
    /* rank 1: tag 0, tag 0, tag 1; rank 2: tag 0 */
    PS(1,0,SITE,0); PS(1,1,SEND,0); PS(1,2,SITE,0); PS(1,3,SEND,0);
    PS(1,4,SITE,0); PS(1,5,SEND,1); PS(1,6,SITE,0); PS(1,7,END,0);
    PS(2,0,SITE,0); PS(2,1,SEND,0); PS(2,2,SITE,0); PS(2,3,END,0);
#endif
    for (t_k : 0 .. NP-1) {
      ndCh[t_k] = UNSET
    }
    for (t_k : 0 .. 3) {
      prCh[t_k] = UNSET
    }
    for (t_k : 0 .. NM-1) {
      got[t_k] = 0
    }
    pc[1] = 0; pc[2] = 0;
    run receiver();
    run sender(1);
    run sender(2)
  }
  /* the run ends with the version committed */
  (rdone[0] && rdone[1] && rdone[2]);
  assert(committed);
  atomic {
    for (t_c : 0 .. NCH-1) {
      assert(len(net[t_c]) == 0)
    }
    /* restart from the line. Senders: image counts; suppress the places
       the receiver matched before its line beyond them (early) */
    phase = 1;
    for (t_c : 0 .. NCH-1) {
      sent[t_c] = S[t_c];
      t_n = 0;
      for (t_p : 1 .. NPL-1) {
        if
        :: bef[PL(t_c,t_p)] -> t_n++
        :: else -> skip
        fi
      }
      for (t_p : 1 .. NPL-1) {
#if defined(BUG_NO_SUPPRESS)
        sup[PL(t_c,t_p)] = 0
#elif defined(BUG_COUNT_ONLY)
        sup[PL(t_c,t_p)] = (t_p > S[t_c] && t_p <= t_n)
#else
        sup[PL(t_c,t_p)] = (bef[PL(t_c,t_p)] && t_p > S[t_c])
#endif
      }
      nextLate[t_c] = 1;
      advanceLate(t_c)
    }
    /* the line: a message sent before its sender's checkpoint and
       received after the receiver's (late) is in the log, at its place;
       one sent after and received before (early) is suppressed; no other
       is either */
    for (t_c : 0 .. NCH-1) {
      for (t_p : 1 .. NPL-1) {
        t_ok = 0;
        for (t_k : 0 .. NP-1) {
          if
          :: t_k < linePost && kSeenBefore[t_k] && kSt[t_k] == SEEN &&
             kCh[t_k] == t_c && kPl[t_k] == t_p -> t_ok = 1
          :: else -> skip
          fi
        }
        if
        :: origId[PL(t_c,t_p)] == 0 -> skip   /* never sent */
        :: t_p <= S[t_c] && !t_ok ->
           lateLogged = (late[PL(t_c,t_p)] == origId[PL(t_c,t_p)] + 1);
           assert(lateLogged)
        :: t_p > S[t_c] && t_ok ->
           earlySuppressed = (late[PL(t_c,t_p)] == 0 && sup[PL(t_c,t_p)]);
           assert(earlySuppressed)
        :: else ->
           notLateNotEarly = (late[PL(t_c,t_p)] == 0 && !sup[PL(t_c,t_p)]);
           assert(notLateNotEarly)
        fi
      }
    }
    for (t_k : 1 .. 2) {
      pc[t_k] = ipc[t_k];
      fin[t_k] = 0;
      rdone[t_k] = 0
    }
    /* receiver: postings matched and seen before the line stay (counted
       received); those open at the line are posted again in posting
       order, a hole or a logged outcome narrowed to its channel; those
       posted after the line are gone */
    for (t_k : 0 .. NP-1) {
      if
      :: t_k < linePost && kSeenBefore[t_k] && kSt[t_k] == SEEN -> skip
      :: t_k < linePost && kSeenBefore[t_k] && kSt[t_k] != SEEN -> assert(kSt[t_k] == SEENC)
      :: t_k < linePost && !kSeenBefore[t_k] ->
         if
         :: kSt[t_k] == SEEN -> got[kId[t_k]]--
         :: else -> skip
         fi;
         kSt[t_k] = POSTED;
         lPl[t_k] = UNSET;
         if
         :: ndCh[t_k] != UNSET && ndCh[t_k] != CANC ->
            kSrc[t_k] = CSRC(ndCh[t_k]);
            kTag[t_k] = CTAG(ndCh[t_k])
         :: else ->
            /* its cancel, asked for before the line, is asked for again
               (the layer need not post it at all) */
            if
            :: kCanReq[t_k] -> kSt[t_k] = CANCD
            :: else -> skip
            fi
         fi
      :: else ->
         if
         :: t_k < npost && kSt[t_k] == SEEN -> got[kId[t_k]]--
         :: else -> skip
         fi;
         kSt[t_k] = 0
      fi
    }
    npost = linePost;
    npr = inpr;
    for (t_j : 0 .. NSL-1) {
      slotP[t_j] = islotP[t_j];
      slotAct[t_j] = islotAct[t_j];
#ifdef BUG_PERSISTENT_INACTIVE
      if
      :: t_j == 2 && islotAct[t_j] -> slotAct[t_j] = 0; kSt[islotP[t_j]] = 0
      :: else -> skip
      fi;
#endif
      if
      :: t_j == 2 && slotAct[t_j] && kSt[slotP[t_j]] == POSTED -> REACHED(7)
      :: else -> skip
      fi
    }
    pc[0] = ipc[0];
    fin[0] = 0;
    rdone[0] = 0;
    run receiver();
    run sender(1);
    run sender(2)
  }
  (rdone[0] && rdone[1] && rdone[2]);
  atomic {
    /* every message received exactly once, nothing left over */
    for (t_k : 0 .. NM-1) {
      receivedOnce = (got[t_k] == 0 || got[t_k] == 1) && (op[t_k] != SEND || got[t_k] == 1);
      assert(receivedOnce)
    }
    for (t_c : 0 .. NCH-1) {
      nothingLeft = (len(net[t_c]) == 0);
      for (t_p : 1 .. NPL-1) {
        nothingLeft = nothingLeft && late[PL(t_c,t_p)] == 0 && !sup[PL(t_c,t_p)]
      }
      assert(nothingLeft)
    }
    /* per channel, messages went to receives in posting order */
    for (t_k : 0 .. NP-1) {
      for (t_j : 0 .. NP-1) {
        inPostingOrder = (!(t_j < t_k && t_k < npost && kSt[t_j] == SEEN && kSt[t_k] == SEEN &&
                            kCh[t_j] == kCh[t_k]) || kPl[t_j] < kPl[t_k]);
        assert(inPostingOrder)
      }
    }
  }
}
