// One data file, one MemoryStore: a lock file beside it (`<file>.lock`, holding the pid and host
// of its holder) taken when a store opens the file and removed when it closes. Two stores
// writing one file would each overwrite the jobs the other acknowledged (the last writer wins),
// so a second opener is refused while the holder lives. A lock whose holder is dead (SIGKILL, a
// crash, a power cut) is stale and is taken over: there is nothing to protect any more.
//
// The lock is made by link(2) of a complete temporary file, so it never exists half written;
// a stale one is moved aside by rename(2) and checked before it is deleted, so that of two
// processes taking over the same stale lock, only one gets it.

import { hostname } from 'node:os';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { DataFileLockedError, DataFileUnwritableError, MachinistError } from '../../errors.js';
import { CODE } from '../../errorCodes.js';

interface Holder {
  pid: number;
  host: string;
}

/** Locks held by stores of this process: a pid of ours in a lock not here is stale. */
const heldHere = new Map<string, DataFileLock>();
// A process that exits without close() leaves no lock behind (SIGKILL still does: stale).
const releaseAll = () => {
  for (const lock of [...heldHere.values()]) lock.release();
};

export class DataFileLock {
  private released = false;

  private constructor(readonly path: string) {
    if (heldHere.size === 0) process.once('exit', releaseAll);
    heldHere.set(path, this);
  }

  /** Takes the lock of `file`, or throws DataFileLockedError naming the live holder. */
  static acquire(file: string): DataFileLock {
    const path = `${file}.lock`;
    const me: Holder = { pid: process.pid, host: hostname() };
    const tmp = writeTemp(file, path, me);
    try {
      // Bounded: each turn either takes the lock, refuses, or removes one stale lock.
      for (let turn = 0; turn < 5; turn++) {
        try {
          linkSync(tmp, path);
          return new DataFileLock(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const holder = readHolder(path);
        if (holder === 'gone') continue;
        if (holder && isAlive(holder, path)) throw lockedError(file, path, holder);
        removeStale(path, holder);
      }
      throw new MachinistError(CODE.DATA_FILE_LOCKED, `MemoryStore: could not take the lock ${path}`);
    } finally {
      unlinkSync(tmp);
    }
  }

  /**
   * Puts the lock file back if it went (its directory was removed and made again while the store
   * could not write): called when the data file is written again.
   */
  restore(file: string): void {
    if (this.released || readHolder(this.path) !== 'gone') return;
    const tmp = writeTemp(file, this.path, { pid: process.pid, host: hostname() });
    try {
      linkSync(tmp, this.path);
    } catch {
      // Another process took it meanwhile: its own start refused nothing, so nothing to undo here.
    } finally {
      unlinkSync(tmp);
    }
  }

  /** Removes the lock (once), if it is still ours; the file is then free for another store. */
  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.path);
    if (heldHere.size === 0) process.removeListener('exit', releaseAll);
    try {
      const holder = readHolder(this.path);
      if (holder !== 'gone' && holder?.pid === process.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/** The lock's content in a temporary file beside it; a directory we cannot write is refused. */
function writeTemp(file: string, path: string, me: Holder): string {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(me) + '\n');
  } catch (err) {
    throw new DataFileUnwritableError(file, err);
  }
  return tmp;
}

/** The holder named in the lock file, null when it names none (unreadable), 'gone' if no file. */
function readHolder(path: string): Holder | null | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  try {
    const h = JSON.parse(text) as Holder;
    return Number.isInteger(h.pid) && typeof h.host === 'string' ? h : null;
  } catch {
    return null;
  }
}

function isAlive(h: Holder, path: string): boolean {
  // Another host's pid cannot be checked from here (a file on a shared disk): assume it lives.
  if (h.host !== hostname()) return true;
  // Our own pid: held by a store of ours, or left by an earlier process that had our pid
  // (a container's pid 1 after a restart).
  if (h.pid === process.pid) return heldHere.has(path);
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves the stale lock aside; deletes it if it is still the stale one, else puts it back. */
function removeStale(path: string, stale: Holder | null): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // another took it over first
    throw err;
  }
  const moved = readHolder(aside);
  const same = moved === stale || (moved && stale && moved !== 'gone' && moved.pid === stale.pid);
  if (!same) {
    // A fresh lock another process took meanwhile: give it back (link fails if a third has one).
    try {
      linkSync(aside, path);
    } catch {
      // The third one holds it; the next turn reads and refuses.
    }
  }
  unlinkSync(aside);
}

function lockedError(file: string, path: string, h: Holder): DataFileLockedError {
  const who = h.pid === process.pid ? `another MemoryStore in this process (pid ${h.pid})` : `pid ${h.pid}`;
  return new DataFileLockedError(
    file,
    h.pid,
    `MemoryStore: the data file ${file} is in use by ${who} on ${h.host}; two stores on one file ` +
      `lose each other's jobs. Stop that process, or use another file. If it is not running any more, ` +
      `delete ${path}.`,
  );
}
