import { openSync, writeSync } from 'node:fs';

/** Where finished log lines go: a file descriptor, a terminal prettifier, a test's array. */
export interface LogDestination {
  write(line: string): void;
  /** Writes what it holds now, when it holds lines back (this file's destination does). */
  flush?(): void;
}

/** Characters of log lines gathered before one write. */
const BLOCK_CHARACTERS = 4096;
/** The longest a line waits while the server is quiet. */
const FLUSH_EVERY_MS = 250;
/** Lines held while the reader is not keeping up; past this, new lines are dropped rather than memory grown. */
const MAX_HELD_CHARACTERS = 1024 * 1024;
/** At exit, how long a reader that is still there (but slow) is waited for. */
const EXIT_PATIENCE_MS = 200;

/**
 * Where production log lines go (stdout by default): written in blocks of up to 4 KB
 * rather than with one system call per line, and at least every 250 ms, so that a quiet
 * server's lines still show up at once to the eye; `flush()` writes what is held now (the
 * "listening" line at start). Whatever is left is written when the process exits, also
 * after an uncaught error.
 *
 * It never lets logging hold the process: a reader that is slow (the pipe is full) leaves
 * lines held, up to about 1 MiB, for the next attempt; a reader that has gone (EPIPE, a
 * closed pipe) makes it drop lines from then on; and the last write at exit gives up after
 * a moment. (A destination that retries a failed final write for ever when the reader has
 * gone, as pino's does, keeps a process told to stop from exiting.) Only a process killed outright
 * (SIGKILL, out of memory) loses its last quarter second.
 */
export function bufferedDestination(dest: number | string = 1): Required<LogDestination> {
  const fd = typeof dest === 'number' ? dest : openSync(dest, 'a');
  // Lines as text until they are written: one conversion to bytes per block, not per line.
  let heldText = '';
  // Bytes a partial write left over (the reader took only part of a block).
  let heldBytes: Buffer | undefined;
  let gone = false;

  /** Writes what the descriptor takes now; true when everything held was written. */
  const writeHeld = (): boolean => {
    if (gone || (heldText === '' && heldBytes === undefined)) return true;
    let data =
      heldBytes && heldText !== ''
        ? Buffer.concat([heldBytes, Buffer.from(heldText)])
        : (heldBytes ?? Buffer.from(heldText));
    heldText = '';
    try {
      while (data.length > 0) data = data.subarray(writeSync(fd, data));
    } catch (error) {
      if ((error as { code?: string }).code !== 'EAGAIN') gone = true; // the reader has gone for good
    }
    heldBytes = gone || data.length === 0 ? undefined : data;
    return heldBytes === undefined;
  };
  const heldSize = () => heldText.length + (heldBytes?.length ?? 0);

  const flush = () => void writeHeld();
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.on('exit', () => {
    const giveUpAt = performance.now() + EXIT_PATIENCE_MS;
    while (!writeHeld() && !gone && performance.now() < giveUpAt)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  });

  return {
    write(line: string) {
      if (gone || heldSize() + line.length > MAX_HELD_CHARACTERS) return;
      heldText += line;
      if (heldText.length >= BLOCK_CHARACTERS) flush();
    },
    flush,
  };
}
