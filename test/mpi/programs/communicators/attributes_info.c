// attributes_info.c - proves info objects, attributes with copy and delete
// callbacks, a user error handler and an added error class made before a
// checkpoint exist again after a restart, as a library that caches state
// on communicators uses them:
//   - a communicator keyval whose copy callback shares a reference-counted
//     State (counting copies in program memory) and whose delete callback
//     drops the reference; attributes on MPI_COMM_WORLD and on a
//     MPI_Comm_dup of it (made before the loop, used in it), another dup
//     made and freed in the middle of the loop, one more after it;
//   - a datatype keyval on a contiguous type and an MPI_Type_dup of it
//     (the dup is the halo type of the loop);
//   - an info object kept across the loop, changed in it (MPI_Info_set,
//     MPI_Info_delete), and an MPI_Info_dup of it made before;
//   - an error handler with a user function on the working communicator,
//     called with MPI_Comm_call_errhandler every 50 steps with an error code
//     of an error class the program added (MPI_Add_error_class/code/string).
// Every rank checkpoints at the top of the step loop and exchanges a row
// with its ring neighbours on the dup.
//   usage: attributes_info STEPS [same]
// Rank 0 prints, after the last step, what the callbacks counted, the
// attributes' values, the info's keys and values, the error class, code
// and string, and a hash per rank; a restart must not run the program's
// callbacks again for what the first run did (their counts would differ).
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct State {
  int Refs;
  long Touched;
};

static long CopyCalls, DeleteCalls, TypeCopyCalls, TypeDeleteCalls;
static long HandlerCalls, HandlerBad, ExtraCount;
static struct State WorldState, TypeState;
static MPI_Comm Work;
static int MyClass, MyCode;

static int copyState(MPI_Comm Old, int Key, void *Extra, void *In, void *Out,
                     int *Flag) {
  (void)Old;
  (void)Key;
  ++CopyCalls;
  ++*(long *)Extra;
  struct State *S = In;
  S->Refs++;
  *(void **)Out = S;
  *Flag = 1;
  return MPI_SUCCESS;
}

static int deleteState(MPI_Comm C, int Key, void *Val, void *Extra) {
  (void)C;
  (void)Key;
  ++DeleteCalls;
  ++*(long *)Extra;
  ((struct State *)Val)->Refs--;
  return MPI_SUCCESS;
}

static int copyType(MPI_Datatype Old, int Key, void *Extra, void *In, void *Out,
                    int *Flag) {
  (void)Old;
  (void)Key;
  (void)Extra;
  ++TypeCopyCalls;
  ((struct State *)In)->Refs++;
  *(void **)Out = In;
  *Flag = 1;
  return MPI_SUCCESS;
}

static int deleteType(MPI_Datatype T, int Key, void *Val, void *Extra) {
  (void)T;
  (void)Key;
  (void)Extra;
  ++TypeDeleteCalls;
  ((struct State *)Val)->Refs--;
  return MPI_SUCCESS;
}

static void handler(MPI_Comm *C, int *Code, ...) {
  int Class;
  MPI_Error_class(*Code, &Class);
  ++HandlerCalls;
  if (*C != Work || Class != MyClass)
    ++HandlerBad;
}

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Steps = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;

  int Key, TypeKey;
  MPI_Comm_create_keyval(copyState, deleteState, &Key, &ExtraCount);
  MPI_Type_create_keyval(copyType, deleteType, &TypeKey, NULL);
  WorldState.Refs = 1;
  MPI_Comm_set_attr(MPI_COMM_WORLD, Key, &WorldState);
  MPI_Comm_dup(MPI_COMM_WORLD, &Work); // copies the attribute

  MPI_Errhandler Handler;
  MPI_Comm_create_errhandler(handler, &Handler);
  MPI_Comm_set_errhandler(Work, Handler);
  MPI_Errhandler_free(&Handler); // Work keeps it
  MPI_Add_error_class(&MyClass);
  MPI_Add_error_code(MyClass, &MyCode);
  MPI_Add_error_string(MyCode, "attributes_info: a step asked for help");

  MPI_Datatype Row, RowDup;
  MPI_Type_contiguous(8, MPI_UINT64_T, &Row);
  MPI_Type_commit(&Row);
  TypeState.Refs = 1;
  MPI_Type_set_attr(Row, TypeKey, &TypeState);
  MPI_Type_dup(Row, &RowDup); // copies it
  MPI_Type_commit(&RowDup);

  MPI_Info Info, Copy;
  MPI_Info_create(&Info);
  MPI_Info_set(Info, "model", "ocean");
  MPI_Info_set(Info, "grid", "48x48");
  MPI_Info_dup(Info, &Copy);

  uint64_t X[8], In[8];
  for (int J = 0; J < 8; ++J)
    X[J] = mix64((uint64_t)Rank * 8 + J);
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    MPI_Sendrecv(X, 1, RowDup, Next, 1, In, 1, RowDup, Prev, 1, Work,
                 MPI_STATUS_IGNORE);
    for (int J = 0; J < 8; ++J)
      X[J] = mix64(X[J] ^ In[(J + 1) % 8] ^ (uint64_t)S);
    struct State *Got;
    int Flag;
    MPI_Comm_get_attr(Work, Key, &Got, &Flag);
    if (Flag)
      Got->Touched++;
    if (S % 50 == 25)
      MPI_Comm_call_errhandler(Work, MyCode);
    if (S % 100 == 0) {
      char V[32];
      snprintf(V, sizeof V, "%ld", S);
      MPI_Info_set(Info, "last_step", V);
    }
    // Read back every step, as a library reads its hints: after a restart
    // the info must hold what it held at the checkpoint.
    char Last[32] = "none";
    MPI_Info_get(Info, "last_step", sizeof Last - 1, Last, &Flag);
    X[S % 8] += (uint64_t)strtol(Last, NULL, 10);
    if (S == Steps / 2) {
      MPI_Info_delete(Info, "grid");
      MPI_Comm Tmp;
      MPI_Comm_dup(Work, &Tmp); // copy callback, then delete at the free
      MPI_Comm_free(&Tmp);
    }
  }

  MPI_Comm After;
  MPI_Comm_dup(Work, &After);
  struct State *W, *D, *A, *T;
  int FW, FD, FA, FT, FTag;
  void *TagUb;
  MPI_Comm_get_attr(MPI_COMM_WORLD, Key, &W, &FW);
  MPI_Comm_get_attr(Work, Key, &D, &FD);
  MPI_Comm_get_attr(After, Key, &A, &FA);
  MPI_Type_get_attr(RowDup, TypeKey, &T, &FT);
  MPI_Comm_get_attr(Work, MPI_TAG_UB, &TagUb, &FTag);
  int Refs = WorldState.Refs;
  MPI_Comm_free(&After);

  char Lines[512] = "";
  int NKeys;
  MPI_Info_get_nkeys(Info, &NKeys);
  for (int K = 0; K < NKeys; ++K) {
    char Name[MPI_MAX_INFO_KEY + 1], Val[64];
    int F;
    MPI_Info_get_nthkey(Info, K, Name);
    MPI_Info_get(Info, Name, sizeof Val - 1, Val, &F);
    snprintf(Lines + strlen(Lines), sizeof Lines - strlen(Lines), " %s=%s",
             Name, Val);
  }
  int CopyKeys;
  MPI_Info_get_nkeys(Copy, &CopyKeys);
  char Str[MPI_MAX_ERROR_STRING];
  int Len, Class;
  MPI_Error_string(MyCode, Str, &Len);
  MPI_Error_class(MyCode, &Class);

  uint64_t Hash = 0;
  for (int J = 0; J < 8; ++J)
    Hash = mix64(Hash ^ X[J]);
  long Mine[10] = {CopyCalls,
                   DeleteCalls,
                   TypeCopyCalls,
                   HandlerCalls,
                   HandlerBad,
                   ExtraCount,
                   Refs,
                   WorldState.Touched,
                   (long)FA + FD + FW + FT,
                   (long)(T == &TypeState)};
  long *All = malloc(10 * Size * sizeof *All);
  uint64_t *Hashes = malloc(Size * sizeof *Hashes);
  MPI_Gather(Mine, 10, MPI_LONG, All, 10, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(&Hash, 1, MPI_UINT64_T, Hashes, 1, MPI_UINT64_T, 0,
             MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("attributes_info: ranks=%d steps=%ld\n", Size, Steps);
    printf("info:%s (dup has %d keys)\n", Lines, CopyKeys);
    printf("error class %s code %s string \"%s\"\n",
           Class == MyClass ? "same" : "differs",
           MyCode > MyClass ? "after class" : "before class", Str);
    printf("attributes: world %s, dup %s, after-dup %s, tag_ub %d\n",
           W == &WorldState ? "world state" : "other",
           D == &WorldState ? "world state" : "other",
           A == &WorldState ? "world state" : "other", FTag);
    for (int R = 0; R < Size; ++R) {
      long *M = All + 10 * R;
      printf("rank %d copies %ld deletes %ld type_copies %ld handler %ld "
             "(bad %ld) extra %ld refs %ld touched %ld found %ld type_attr "
             "%ld hash %016llx\n",
             R, M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7], M[8], M[9],
             (unsigned long long)Hashes[R]);
    }
  }
  free(All);
  free(Hashes);
  MPI_Info_free(&Copy);
  MPI_Info_free(&Info);
  MPI_Type_free(&RowDup);
  MPI_Type_free(&Row);
  MPI_Comm_free(&Work);
  MPI_Comm_free_keyval(&Key);
  MPI_Type_free_keyval(&TypeKey);
  MPI_Finalize();
  return 0;
}
