import { openSync, writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

/** Bytes of log lines gathered before one write. */
const BLOCK_BYTES = 4096;
/** The longest a line waits while the server is quiet. */
const FLUSH_EVERY_MS = 250;
/** Lines held while the reader is not keeping up; past this, new lines are dropped rather than memory grown. */
const MAX_HELD_BYTES = 1024 * 1024;
/** At exit, how long a reader that is still there (but slow) is waited for. */
const EXIT_PATIENCE_MS = 200;

/**
 * Where production log lines go (stdout by default): written in blocks of up to 4 KB
 * rather than with one system call per line, and at least every 250 ms, so that a quiet
 * server's lines still show up at once to the eye. Whatever is left is written when the
 * process exits, also after an uncaught error.
 *
 * It never lets logging hold the process: a reader that is slow (the pipe is full) leaves
 * lines held, up to 1 MiB, for the next attempt; a reader that has gone (EPIPE, a closed
 * pipe) makes it drop lines from then on; and the last write at exit gives up after a
 * moment. (pino's own destination retries a failed final write for ever when the reader
 * has gone, so a process told to stop never exits.) Only a process killed outright
 * (SIGKILL, out of memory) loses its last quarter second.
 */
export function bufferedDestination(dest: number | string = 1): DestinationStream & { flush(): void } {
  const fd = typeof dest === 'number' ? dest : openSync(dest, 'a');
  let held: Buffer[] = [];
  let heldBytes = 0;
  let gone = false;

  /** Writes what the descriptor takes now; true when everything held was written. */
  const writeHeld = (): boolean => {
    if (gone || heldBytes === 0) return true;
    let data = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held);
    try {
      while (data.length > 0) data = data.subarray(writeSync(fd, data));
    } catch (error) {
      if ((error as { code?: string }).code !== 'EAGAIN') gone = true; // the reader has gone for good
    }
    held = gone || data.length === 0 ? [] : [data];
    heldBytes = held.length === 0 ? 0 : data.length;
    return heldBytes === 0;
  };

  const flush = () => void writeHeld();
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.on('exit', () => {
    const giveUpAt = performance.now() + EXIT_PATIENCE_MS;
    while (!writeHeld() && !gone && performance.now() < giveUpAt)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  });

  return {
    write(line: string) {
      if (gone || heldBytes + line.length > MAX_HELD_BYTES) return;
      const bytes = Buffer.from(line);
      held.push(bytes);
      heldBytes += bytes.length;
      if (heldBytes >= BLOCK_BYTES) flush();
    },
    flush,
  };
}
