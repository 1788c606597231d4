//===- Store.h - Images and commit records in CCC_DIR -----------*- C++ -*-===//
//
// File naming and the commit protocol on disk:
//   NAME.vSEQ.rRANK.ccc   one rank's image of checkpoint version SEQ
//   NAME.vSEQ.rRANK.log   one rank's message log of that version (MPI,
//                         non-blocking protocol), written after the image
//   NAME.vSEQ.commit      written after every rank's image is durable; a
//                         version without it never counts
//   NAME.completed        written when the job finished normally (exit
//                         status 0): the newest version committed then;
//                         a later run starts afresh unless newer ones exist
//   *.tmp                 files being written (renamed when complete)
// Shared by the runtime and the `ckpt` tool.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_STORE_H
#define CCC_RT_STORE_H

#include <cstddef>
#include <cstdint>

namespace ccc {
constexpr size_t kPathMax = 4096 + 512;

void imagePath(char *Buf, const char *Dir, const char *Name, uint64_t Version,
               uint32_t Rank);
void commitPath(char *Buf, const char *Dir, const char *Name, uint64_t Version);
void logPath(char *Buf, const char *Dir, const char *Name, uint64_t Version,
             uint32_t Rank);

// Committed versions of NAME in DIR, newest first. Returns how many (at most
// Max).
int listCommitted(const char *Dir, const char *Name, uint64_t *Out, int Max);
// The job size a commit record names ("ranks N"), or 0 if it cannot be
// read.
uint32_t commitRanks(const char *Dir, const char *Name, uint64_t Version);
// The highest version of any file (image, commit or tmp) of NAME, or 0;
// LowestOwn (if given): the lowest version of an image or log of Rank, or 0.
uint64_t highestVersion(const char *Dir, const char *Name, uint32_t Rank = 0,
                        uint64_t *LowestOwn = nullptr);

// The record that the job finished normally: the newest committed version
// at its end (0 if none), and when (seconds since the epoch).
void completedPath(char *Buf, const char *Dir, const char *Name);
bool writeCompleted(const char *Dir, const char *Name, uint64_t Version,
                    uint32_t NRanks);
// False if NAME has no completion record (or an unreadable one).
bool readCompleted(const char *Dir, const char *Name, uint64_t *Version,
                   int64_t *When);
// When Version's commit record was written (seconds since the epoch), or -1.
int64_t commitTime(const char *Dir, const char *Name, uint64_t Version);

// fsync of a directory (after a rename in it).
bool syncDirectory(const char *Dir);
// Durably renames Tmp to Final (fsync of the directory included).
bool publish(const char *Tmp, const char *Final, const char *Dir);
// Writes the commit record of Version (after all images are durable);
// Protocol (MPI jobs) names the coordination protocol that wrote it.
bool writeCommit(const char *Dir, const char *Name, uint64_t Version,
                 uint32_t NRanks, char *Err, size_t ErrCap,
                 const char *Protocol = nullptr, int ThreadLevel = -1);
// The MPI thread level a commit record names ("thread N"), or -1.
int commitThread(const char *Dir, const char *Name, uint64_t Version);
// The protocol a commit record names ("protocol P") into Out, or false if
// it names none (a serial program's, or one older than the field).
bool commitProtocol(const char *Dir, const char *Name, uint64_t Version,
                    char *Out, size_t Cap);
// Deletes all but the newest Keep committed versions, and images of
// versions that were never committed and are older than the newest commit.
// The commit records (in Dir) go first so a crash leaves no half-deleted
// version that looks committed; images and logs are in ImageDir. A serial
// program's pruning (an MPI job's is spread over its ranks: RankPruning.h).
void pruneVersions(const char *Dir, const char *ImageDir, const char *Name,
                   int Keep);
// The oldest version the image at Path, of version V, refers to (V for a
// full image); 0 if its header cannot be read or is not V's (then every
// older image may be needed); IfMissing if there is no such file.
uint64_t imageChainBase(const char *Path, uint64_t V, uint64_t IfMissing);
// Deletes the images and logs in ImageDir (of every rank) older than
// version Oldest, except images that one of version Oldest or newer refers
// to, or older than Tip (if not 0).
void pruneImages(const char *ImageDir, const char *Name, uint64_t Oldest,
                 uint64_t Tip);
// Removes NAME's *.tmp files of Rank left by a killed writer.
void removeStaleTemporaries(const char *Dir, const char *Name, uint32_t Rank);
// mkdir -p.
bool makeDirectories(const char *Dir);

// Parses "NAME.vSEQ.rRANK.ccc" / ".log" / "NAME.vSEQ.commit"; Kind is 'i',
// 'l' or 'c'.
bool parseStoreName(const char *File, char *Name, size_t NameCap,
                    uint64_t *Version, uint32_t *Rank, char *Kind);
} // namespace ccc
#endif
