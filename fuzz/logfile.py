"""Writes message log files (rt/store/MessageLog.h) for tests and fuzz seeds:
the header, records of each kind and collective blocks, with the checksum
of the records computed as the MPI layer does (FNV-1a, 64 bits)."""
import struct

MAGIC = 0x31474f4c43434343
HEADER = "<QQIIQQ"     # magic, version, rank, ranks, bytes, sum
RECORD = "<BBHiiIQQQ"  # kind, ev, nvals, src, tag, pad, op, comm, bytes
LATE, WILD, EVENT, COLL = range(4)


def fnv(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def record(kind, payload=b"", src=0, nvals=0, nbytes=None, ev=0, op=3):
    """One record; nbytes, if given, is claimed instead of the payload's
    real length."""
    n = len(payload) if nbytes is None else nbytes
    return struct.pack(RECORD, kind, ev, nvals, src, 7, 0, op, 0x44000000,
                       n) + payload


def block(data, claimed=None):
    """One output block of a collective record."""
    return struct.pack("<Q", len(data) if claimed is None else claimed) + data


def events(*vals, ev=6):
    return record(EVENT, struct.pack("<%dq" % len(vals), *vals),
                  nvals=len(vals), ev=ev)


def sound_records():
    """One record of each kind."""
    return (record(LATE, b"hello", src=1) + record(WILD, src=0) +
            events(1, -1) + record(COLL, block(b"\x01\x02\x03") + block(b"")))


def log_file(records, version=2, rank=1, ranks=2, magic=MAGIC, nbytes=None,
             checksum=None):
    n = len(records) if nbytes is None else nbytes
    s = fnv(records) if checksum is None else checksum
    return struct.pack(HEADER, magic, version, rank, ranks, n, s) + records


def seeds():
    """Sound logs of rank 1 of version 2, as the log fuzzer reads them."""
    late = b"".join(record(LATE, bytes(range(i * 7 % 251, i * 7 % 251 + 4 * i)),
                           src=i % 2, op=i) for i in range(6))
    coll = b"".join(record(COLL, block(struct.pack("<4d", 1.0, 2.5, -3.0, i)) +
                           block(struct.pack("<q", i)), op=i, ev=i % 2)
                    for i in range(3))
    return {"empty": log_file(b""), "one_of_each": log_file(sound_records()),
            "late": log_file(late), "wild_events": log_file(
                record(WILD, src=0) + events(0) + events(3, 1, 2, ev=2) +
                record(WILD, src=1, op=9) + events(-1, 0, ev=7)),
            "collectives": log_file(coll),
            "mixed_4_ranks": log_file(late + coll + sound_records(), ranks=4)}
