// plain_object.c - state a checkpoint must save: a file-static counter and
// an external array.
static long Count;
long Hist[16];

void bump(void) {
  ++Count;
  ++Hist[Count % 16];
}

long total(void) { return Count * 1000 + Hist[3]; }
