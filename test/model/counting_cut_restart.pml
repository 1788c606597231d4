/*
 * Part of the model of the cut that replaces the logging bit, included at
 * the end of counting_cut.pml (whose definitions and state it uses): init
 * sets the program every rank runs, waits for the run to end committed,
 * computes the cut, restarts the ranks from the line and checks the run
 * across it.
 */

#define PP(r, i, o, x, y) op[(r) * NPC + (i)] = o; a1[(r) * NPC + (i)] = x; a2[(r) * NPC + (i)] = y

init {
  atomic {
#if PROG == 1
    /* rank 2's ND decides the value it sends to 1, which 1 sends on to 0
       as its tag; 0 and 1 exchange a message between sites each way */
    PP(0, 0, SITE, 0, 0);
    PP(0, 1, SEND, 1, 0);
    PP(0, 2, SITE, 0, 0);
    PP(0, 3, RECV, ANYS, ANYT);
    PP(0, 4, RECV, ANYS, ANYT);
    PP(0, 5, SITE, 0, 0);
    PP(0, 6, END, 0, 0);
    PP(1, 0, SITE, 0, 0);
    PP(1, 1, RECV, 0, 0);
    PP(1, 2, SEND, 0, 0);
    PP(1, 3, SITE, 0, 0);
    PP(1, 4, RECV, 2, 0);
    PP(1, 5, SEND, 0, TX);
    PP(1, 6, SITE, 0, 0);
    PP(1, 7, END, 0, 0);
    PP(2, 0, SITE, 0, 0);
    PP(2, 1, ND, 0, 0);
    PP(2, 2, SEND, 1, 0);
    PP(2, 3, SITE, 0, 0);
    PP(2, 4, END, 0, 0);
#elif PROG == 3
    /* rank 1: a synchronous send to 2 on tag 0, a test of it, a send on
       tag 1, a wait; rank 2 takes tag 0 first if its ND gives 1, else
       tag 1 first */
    PP(0, 0, SITE, 0, 0);
    PP(0, 1, END, 0, 0);
    PP(1, 0, SITE, 0, 0);
    PP(1, 1, ISSEND, 2, 0);
    PP(1, 2, TESTS, 0, 0);
    PP(1, 3, SEND, 2, 1);
    PP(1, 4, WAITS, 0, 0);
    PP(1, 5, SITE, 0, 0);
    PP(1, 6, END, 0, 0);
    PP(2, 0, SITE, 0, 0);
    PP(2, 1, ND, 0, 0);
    PP(2, 2, RECV, 1, TXC);
    PP(2, 3, RECV, 1, TXD);
    PP(2, 4, SITE, 0, 0);
    PP(2, 5, END, 0, 0);
#else
    /* rank 1 sends on tag 0, then tag 1; rank 0 takes them by tag, tag 1
       first, if rank 2's value is 1, else by MPI_ANY_TAG */
    PP(0, 0, SITE, 0, 0);
    PP(0, 1, RECV, 2, 0);
    PP(0, 2, RECV, 1, TXA);
    PP(0, 3, RECV, 1, TXB);
    PP(0, 4, SITE, 0, 0);
    PP(0, 5, END, 0, 0);
    PP(1, 0, SITE, 0, 0);
    PP(1, 1, SEND, 0, 0);
    PP(1, 2, SEND, 0, 1);
    PP(1, 3, SITE, 0, 0);
    PP(1, 4, END, 0, 0);
    PP(2, 0, SITE, 0, 0);
    PP(2, 1, ND, 0, 0);
    PP(2, 2, SEND, 0, 0);
    PP(2, 3, SITE, 0, 0);
    PP(2, 4, END, 0, 0);
#endif
    run watch();
    run rank(0);
    run rank(1);
    run rank(2)
  }
  /* the commit, whenever its conditions hold (the ranks may go on) */
#ifdef BUG_COMMIT_EARLY
  (ck[0] && ck[1] && ck[2] && LATEIN) -> commitRun = 1;
#else
  (gotAll[0] && gotAll[1] && gotAll[2] && LATEIN) -> commitRun = 1;
#endif
  (rdone[0] && rdone[1] && rdone[2]);
  atomic {
    /* the version commits: ALL reached every rank (a rank leaves only
       then), every late message arrived; the log holds exactly the
       messages received after the receiver's line and sent before the
       sender's */
    for (t_c : 0 .. NCH - 1) {
      committed = (rcvd[t_c] >= S[t_c]);
      assert(committed);
      for (t_p : 1 .. NPL - 1) {
        lateLogged = ((lateV[PL(t_c, t_p)] != 0) == (t_p > R0[t_c] && t_p <= S[t_c]));
        assert(lateLogged)
      }
    }
    for (t_r : 0 .. NR * NR - 1) {
      assert(len(net[t_r]) == 0)
    }
    /* restart: the cut, then every rank from its image */
    phase = 1;
    computeCut();
    for (t_c : 0 .. NCH - 1) {
      sent[t_c] = S[t_c];
      rcvd[t_c] = R0[t_c]
    }
    for (t_r : 0 .. NR - 1) {
      for (t_s : 0 .. NR - 1) {
        pseq[PR(t_r, t_s)] = S[CH(t_r, t_s, 0)] + S[CH(t_r, t_s, 1)]
      }
      pc[t_r] = ipc[t_r];
      x[t_r] = ix[t_r];
      y[t_r] = iy[t_r];
      fin[t_r] = 0;
      rdone[t_r] = 0;
      ev[t_r] = 0
    }
    run rank(0);
    run rank(1);
    run rank(2)
  }
  (rdone[0] && rdone[1] && rdone[2]);
  atomic {
    /* every place of every channel received once, nothing left over */
    for (t_c : 0 .. NCH - 1) {
      receivedOnce = (rcvd[t_c] == sent[t_c]);
      assert(receivedOnce);
      for (t_p : 1 .. NPL - 1) {
        nothingLeft = (lateV[PL(t_c, t_p)] == 0);
        assert(nothingLeft)
      }
    }
    for (t_r : 0 .. NR * NR - 1) {
      nothingLeft = (len(net[t_r]) == 0);
      assert(nothingLeft)
    }
    over = 1
  }
}
