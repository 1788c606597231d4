/*
 * Part of the protocol's model, included at the end of protocol.pml (whose
 * definitions and state it uses): the ranks restarted from a committed
 * recovery line in Restore mode, the checks that their re-execution is
 * consistent, and init, which sets the program every rank runs.
 */

/* ---- Restart from line E: Restore mode ---- */

#define RRECVFROM(s) \
  :: d_step { rwait[r] && (rsrc[r] == s || rsrc[r] == ANY) && nempty(app[PR(s,r)]) -> \
       app[PR(s,r)]?t_E,t_lg,t_seq,t_id; \
       assert(t_E == E && !rgot[t_id]); \
       rgot[t_id] = 1; \
       if \
       :: origNd[r*NPC+rpc[r]] == E -> assert(t_id == origId[r*NPC+rpc[r]]) \
       :: else -> skip \
       fi; \
       rwait[r] = 0; rsrc[r] = 0; rpc[r]++; skip }

proctype restarted(byte r) {
  do
  :: op[r*NPC+rpc[r]] == END -> break
  :: d_step { op[r*NPC+rpc[r]] == SITE -> rpc[r]++; skip }
  :: d_step { op[r*NPC+rpc[r]] == SEND ->
       t_q = arg[r*NPC+rpc[r]];
       t_m = r*NPC + rpc[r];
       t_seq = rsent[PR(r,t_q)];
       rsent[PR(r,t_q)]++;
       /* suppress it if its receiver registered (r, seq) as early */
       t_f = 0;
       for (t_i : 0 .. NREG-1) {
         if
         :: !t_f && t_i < rgn[IX(t_q,E)] && !ru[t_q*NREG+t_i] &&
            rgp[RI(t_q,E,t_i)] == r && rgs[RI(t_q,E,t_i)] == t_seq ->
            t_f = 1;
            ru[t_q*NREG+t_i] = 1;
            assert(rgid[RI(t_q,E,t_i)] == t_m)
         :: else -> skip
         fi
       }
       if
       :: t_f -> assert(mrEp[t_m] != UNSET && mrEp[t_m] < E && msEp[t_m] >= E); REACHED(6)
       :: else ->
          assert(nfull(app[PR(r,t_q)]));
          app[PR(r,t_q)]!E, 0, t_seq, t_m
       fi;
       rpc[r]++; skip }
  :: d_step { op[r*NPC+rpc[r]] == RECV && !rwait[r] ->
       /* a late message of this receive op comes from the log; a logged
          wildcard choice narrows the source */
       t_f = 0;
       for (t_i : 0 .. NLOG-1) {
         if
         :: !t_f && !lu[r*NLOG+t_i] && lb[LI(r,E,t_i)] == rpc[r] &&
            (lk[LI(r,E,t_i)] == LATE || lk[LI(r,E,t_i)] == WILD) ->
            t_f = lk[LI(r,E,t_i)] == LATE;
            lu[r*NLOG+t_i] = 1;
            if
            :: lk[LI(r,E,t_i)] == LATE ->
               t_id = lid[LI(r,E,t_i)];
               assert(!rgot[t_id] && t_id == origId[r*NPC+rpc[r]]);
               assert(msEp[t_id] < E && mrEp[t_id] >= E);
               rgot[t_id] = 1;
               REACHED(7)
            :: else -> rwait[r] = 1; rsrc[r] = la[LI(r,E,t_i)]
            fi
         :: else -> skip
         fi
       }
       if
       :: t_f -> rpc[r]++
       :: !t_f && !rwait[r] -> rwait[r] = 1; rsrc[r] = arg[r*NPC+rpc[r]]
       :: else -> skip
       fi; skip }
  RRECVFROM(0)
  RRECVFROM(1)
  RRECVFROM(2)
  :: d_step { op[r*NPC+rpc[r]] == CST ->
       t_c = arg[r*NPC+rpc[r]];
       t_s = rn[r*NC+t_c];
       rn[r*NC+t_c]++;
       ropenS[r*NC+t_c] = t_s;
       t_f = 0;
       for (t_i : 0 .. NLOG-1) {
         if
         :: !t_f && !lu[r*NLOG+t_i] && lk[LI(r,E,t_i)] == COLL &&
            la[LI(r,E,t_i)] == t_c && lb[LI(r,E,t_i)] == t_s ->
            t_f = 1;
            lu[r*NLOG+t_i] = 1;
            REACHED(8)
         :: else -> skip
         fi
       }
       rfromLog[r*NC+t_c] = t_f;
       if
       :: !t_f ->
          /* not logged: MPI's collective, so every member must call it */
          assert(t_s >= rmax[t_c]);
          rcst[CS(t_c,t_s)]++
       :: else -> skip
       fi;
       rpc[r]++; skip }
  :: d_step { op[r*NPC+rpc[r]] == CWT &&
              (rfromLog[r*NC+arg[r*NPC+rpc[r]]] ||
               rcst[CS(arg[r*NPC+rpc[r]], ropenS[r*NC+arg[r*NPC+rpc[r]]])] ==
                 MEMBERS(arg[r*NPC+rpc[r]])) ->
       rfromLog[r*NC+arg[r*NPC+rpc[r]]] = 0;
       rpc[r]++; skip }
  od;
  rdone[r] = 1
}

#define P(r,i,o,a) op[(r)*NPC+(i)] = o; arg[(r)*NPC+(i)] = a

#define RESOLVED(e) ((ep[0] < e && ep[1] < e && ep[2] < e) || committed[e] || abandoned[e])
#if MAXE > 1
#define ALLRESOLVED (RESOLVED(1) && RESOLVED(2))
#else
#define ALLRESOLVED RESOLVED(1)
#endif

init {
  atomic {
#if MAXE == 1
    /* rank 0: send to 1, two wildcard receives, a collective on world;
       then a wildcard receive and a collective on world */
    P(0,0,SITE,0); P(0,1,SEND,1); P(0,2,RECV,ANY); P(0,3,RECV,ANY);
    P(0,4,CST,0); P(0,5,CWT,0); P(0,6,SITE,0); P(0,7,RECV,ANY);
    P(0,8,CST,0); P(0,9,CWT,0); P(0,10,SITE,0); P(0,11,END,0);
    /* rank 1: send to 0, receive from 0, a collective on {1,2}, on world;
       then send to 0, a collective on world */
    P(1,0,SITE,0); P(1,1,SEND,0); P(1,2,RECV,0); P(1,3,CST,1);
    P(1,4,CWT,1); P(1,5,CST,0); P(1,6,CWT,0); P(1,7,SITE,0);
    P(1,8,SEND,0); P(1,9,CST,0); P(1,10,CWT,0); P(1,11,SITE,0);
    P(1,12,END,0);
    /* rank 2: send to 0, a non-blocking collective on {1,2} open across
       a site, a collective on world; then one more on world */
    P(2,0,SITE,0); P(2,1,SEND,0); P(2,2,CST,1); P(2,3,SITE,0);
    P(2,4,CWT,1); P(2,5,CST,0); P(2,6,CWT,0); P(2,7,SITE,0);
    P(2,8,CST,0); P(2,9,CWT,0); P(2,10,SITE,0); P(2,11,END,0);
#else
    /* two checkpoints in flight: a short program, sites between every
       exchange. rank 0: send to 1, three wildcard receives (two from 1,
       one from 2), a collective on world between */
    P(0,0,SITE,0); P(0,1,SEND,1); P(0,2,RECV,ANY); P(0,3,SITE,0);
    P(0,4,CST,0); P(0,5,CWT,0); P(0,6,RECV,ANY); P(0,7,SITE,0);
    P(0,8,RECV,ANY); P(0,9,SITE,0); P(0,10,END,0);
    /* rank 1: send to 0, receive from 0, world, send to 0 */
    P(1,0,SITE,0); P(1,1,SEND,0); P(1,2,RECV,0); P(1,3,SITE,0);
    P(1,4,CST,0); P(1,5,CWT,0); P(1,6,SITE,0); P(1,7,SEND,0);
    P(1,8,SITE,0); P(1,9,END,0);
    /* rank 2: world, send to 0 */
    P(2,0,SITE,0); P(2,1,CST,0); P(2,2,CWT,0); P(2,3,SITE,0);
    P(2,4,SEND,0); P(2,5,SITE,0); P(2,6,END,0);
#endif
#ifdef CHAIN
    parent[0] = UNSET; parent[1] = 0; parent[2] = 1;
    nkids[0] = 1; nkids[1] = 1; nkids[2] = 0;
#else
    parent[0] = UNSET; parent[1] = 0; parent[2] = 0;
    nkids[0] = 2; nkids[1] = 0; nkids[2] = 0;
#endif
    for (t_i : 0 .. NM-1) {
      msEp[t_i] = UNSET;
      mrEp[t_i] = UNSET
    }
    for (t_i : 0 .. NR*NR-1) {
      futWant[t_i] = UNSET
    }
    run rank(0);
    run rank(1);
    run rank(2)
  }
  /* every rank finished and every checkpoint begun is committed or
     abandoned. Atomic: the temporaries are not part of the state. */
  atomic {
    (fin[0] && fin[1] && fin[2] && ALLRESOLVED);
    /* a checkpoint is abandoned only if a rank reached MPI_Finalize first */
    for (t_e : 1 .. MAXE) {
      assert(!abandoned[t_e] ||
             fnsh[IX(0,t_e)] || fnsh[IX(1,t_e)] || fnsh[IX(2,t_e)]);
      assert(!committed[t_e] ||
             !(fnsh[IX(0,t_e)] || fnsh[IX(1,t_e)] || fnsh[IX(2,t_e)]))
    }
    /* restart from a committed line (either, when both are) */
    if
    :: committed[1] -> E = 1
#if MAXE > 1
    :: committed[2] -> E = 2
#endif
    :: else -> E = 0
    fi;
    if
    :: E == 0 -> goto done
    :: else -> skip
    fi;
    for (t_i : 0 .. NR*NR-1) {
      assert(len(app[t_i]) == 0)
    }
    for (t_c : 0 .. NC-1) {
      rmax[t_c] = 0;
      for (kr : 0 .. NR-1) {
        if
        :: ISMEMBER(kr,t_c) && cut[IXC(kr,E,t_c)] > rmax[t_c] -> rmax[t_c] = cut[IXC(kr,E,t_c)]
        :: else -> skip
        fi
      }
    }
    for (kr : 0 .. NR-1) {
      rpc[kr] = ipc[IX(kr,E)];
      for (t_c : 0 .. NC-1) {
        rn[kr*NC+t_c] = cut[IXC(kr,E,t_c)];
        if
        :: iopen[IXC(kr,E,t_c)] > 0 ->
           /* a non-blocking collective open at the checkpoint: its outputs
              must be in the log */
           assert(iopen[IXC(kr,E,t_c)] == 1);
           ropenS[kr*NC+t_c] = cut[IXC(kr,E,t_c)] - 1;
           t_f = 0;
           for (t_i : 0 .. NLOG-1) {
             if
             :: !t_f && lk[LI(kr,E,t_i)] == COLL && la[LI(kr,E,t_i)] == t_c &&
                lb[LI(kr,E,t_i)] == ropenS[kr*NC+t_c] ->
                t_f = 1;
                lu[kr*NLOG+t_i] = 1
             :: else -> skip
             fi
           }
           assert(t_f);
           REACHED(9);
           rfromLog[kr*NC+t_c] = 1
        :: else -> skip
        fi
      }
    }
    for (t_i : 0 .. NM-1) {
      rgot[t_i] = (mrEp[t_i] != UNSET && mrEp[t_i] < E)
    }
    run restarted(0);
    run restarted(1);
    run restarted(2)
  }
  (rdone[0] && rdone[1] && rdone[2]);
  atomic {
    for (kr : 0 .. NR-1) {
      /* the log is used up, every early send was suppressed once */
      for (t_i : 0 .. NLOG-1) {
        assert(lk[LI(kr,E,t_i)] == NONE || lu[kr*NLOG+t_i])
      }
      for (t_i : 0 .. NREG-1) {
        assert(t_i >= rgn[IX(kr,E)] || ru[kr*NREG+t_i])
      }
    }
    /* every message received exactly once over the line and the restart */
    for (t_i : 0 .. NM-1) {
      assert(op[t_i] != SEND || rgot[t_i])
    }
    for (t_i : 0 .. NR*NR-1) {
      assert(len(app[t_i]) == 0)
    }
  }
done:
  skip
}
