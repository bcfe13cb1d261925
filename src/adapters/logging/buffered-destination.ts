import { closeSync, openSync, writeSync } from 'node:fs';

/** Where finished log lines go: a file descriptor, a terminal prettifier, a test's array. */
export interface LogDestination {
  write(line: string): void;
  /** Writes what it holds now, when it holds lines back (this file's destination does). */
  flush?(): void;
}

/** A destination that holds lines back, and `close()` for the one that made it. */
export interface BufferedDestination extends Required<LogDestination> {
  /**
   * Writes what is held, stops the periodic flush, no longer waits for the process's exit
   * and closes the file it opened (not a descriptor it was given). Lines written after it
   * are dropped. Calling it again does nothing.
   */
  close(): void;
}

/**
 * Calls `flush` from time to time until the function it returns is called: how a
 * destination's held lines get written while the server is quiet.
 */
export type FlushSchedule = (flush: () => void) => () => void;

/** Characters of log lines gathered before one write. */
const BLOCK_CHARACTERS = 4096;
/** The longest a line waits while the server is quiet. */
const FLUSH_EVERY_MS = 250;
/** Lines held while the reader is not keeping up; past this, new lines are dropped rather than memory grown. */
const MAX_HELD_CHARACTERS = 1024 * 1024;
/** At exit or close, how long a reader that is still there (but slow) is waited for. */
const EXIT_PATIENCE_MS = 200;

/**
 * Where production log lines go (stdout by default): written in blocks of up to 4 KB
 * rather than with one system call per line, and at least every 250 ms, so that a quiet
 * server's lines still show up at once to the eye; `flush()` writes what is held now (the
 * "listening" line at start). Whatever is left is written when the process exits, also
 * after an uncaught error, or when the destination is closed.
 *
 * It never lets logging hold the process: a reader that is slow (the pipe is full) leaves
 * lines held, up to about 1 MiB, for the next attempt; a reader that has gone (EPIPE, a
 * closed pipe) makes it drop lines from then on; and the last write at exit gives up after
 * a moment. (A destination that retries a failed final write for ever when the reader has
 * gone, as pino's does, keeps a process told to stop from exiting.) Only a process killed outright
 * (SIGKILL, out of memory) loses its last quarter second.
 *
 * However many destinations are open, they share one timer (`schedule`, by default) and
 * one `exit` listener, and a closed one leaves neither behind: a process that composes
 * Gatehouse many times (a test suite) does not pile them up.
 */
export function bufferedDestination(
  dest: number | string = 1,
  options: { schedule?: FlushSchedule } = {},
): BufferedDestination {
  const ownsFile = typeof dest === 'string';
  const fd = typeof dest === 'number' ? dest : openSync(dest, 'a');
  // Lines as text until they are written: one conversion to bytes per block, not per line.
  let heldText = '';
  // Bytes a partial write left over (the reader took only part of a block).
  let heldBytes: Buffer | undefined;
  let gone = false;
  let closed = false;

  /** Writes what the descriptor takes now; true when nothing is left to write. */
  const writeHeld = (): boolean => {
    if (closed || gone || (heldText === '' && heldBytes === undefined)) return true;
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
  const stopSchedule = (options.schedule ?? everyQuarterSecond)(flush);
  atExit.add(writeHeld);

  return {
    write(line: string) {
      if (closed || gone || heldSize() + line.length > MAX_HELD_CHARACTERS) return;
      heldText += line;
      if (heldText.length >= BLOCK_CHARACTERS) flush();
    },
    flush,
    close() {
      if (closed) return;
      stopSchedule();
      atExit.delete(writeHeld);
      writePatiently([writeHeld]);
      // From here nothing touches the descriptor: once closed, its number may be another file's.
      closed = true;
      heldText = '';
      heldBytes = undefined;
      if (ownsFile) closeSync(fd);
    },
  };
}

/**
 * The default schedule: one unreferenced interval (it never keeps the process alive) for
 * every open destination, started with the first and cleared with the last.
 */
const everyQuarterSecond: FlushSchedule = (() => {
  const flushes = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  return (flush) => {
    flushes.add(flush);
    timer ??= setInterval(() => flushes.forEach((each) => each()), FLUSH_EVERY_MS).unref();
    return () => {
      flushes.delete(flush);
      if (flushes.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  };
})();

/**
 * The final writes of the open destinations, made by one `exit` listener that is there
 * only while at least one destination is open.
 */
const atExit = (() => {
  const writers = new Set<() => boolean>();
  const onExit = () => writePatiently([...writers]);
  return {
    add(writer: () => boolean) {
      if (writers.size === 0) process.on('exit', onExit);
      writers.add(writer);
    },
    delete(writer: () => boolean) {
      if (!writers.delete(writer)) return;
      if (writers.size === 0) process.off('exit', onExit);
    },
  };
})();

/** Retries the writers that have lines left, for at most EXIT_PATIENCE_MS in all: a slow reader is waited for, briefly. */
function writePatiently(writers: readonly (() => boolean)[]): void {
  const giveUpAt = performance.now() + EXIT_PATIENCE_MS;
  let unfinished = writers.filter((write) => !write());
  while (unfinished.length > 0 && performance.now() < giveUpAt) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    unfinished = unfinished.filter((write) => !write());
  }
}
