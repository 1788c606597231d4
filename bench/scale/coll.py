"""Bytes one rank receives per collective call, old design against new.

Computed, not simulated: each is a property of the algorithm.

New design: the layer adds nothing, so an 8-byte MPI_Allreduce costs what
MPI's own costs: recursive doubling (MPICH and Open MPI for small vectors),
8 bytes per round, floor(log2 P) rounds, plus one more for the ranks that
fold in the P - 2^floor(log2 P) extra ranks when P is not a power of two.

Old design (main's CollectivesAtEndPoints.cpp): an Allreduce of a small
contiguous vector gathers every member's contribution with its header in
front (`carried`: a 16-byte slot per member, 8 of header word and padding,
8 of data) with MPI_Allgather and combines them in rank order: every rank
must receive the P-1 other slots, 16 (P-1) bytes, whatever the algorithm.
Collectives that do not carry the words (Bcast, Barrier, non-contiguous
types) are preceded by an MPI_Allgather of each member's 4-byte header
word: 4 (P-1) bytes received per rank on top of the collective itself.
"""


def log2floor(p):
    return p.bit_length() - 1


def allreduce8_new(p):
    if p <= 1:
        return 0
    rounds = log2floor(p) + (0 if p & (p - 1) == 0 else 1)
    return 8 * rounds


def allreduce8_old(p):
    return 16 * (p - 1)


def header_words_old(p):
    return 4 * (p - 1)
