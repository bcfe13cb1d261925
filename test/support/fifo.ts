import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';

/** Makes a named pipe (FIFO) at `path`, as `mkfifo` does: Node has no call for it. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * Opens the pipe for writing and closes it at once, from another process, after `afterMs`:
 * a reader waiting on the pipe then reads its end. It is what lets code that waits on a
 * pipe fail its test instead of hanging the test process for ever (a blocking read stops
 * this process's timers too). `stop()` ends the helper if nobody ever read.
 */
export function releaseFifoLater(path: string, afterMs: number): { stop(): void } {
  const helper: ChildProcess = spawn('timeout', ['30', 'sh', '-c', `sleep ${afterMs / 1000}; : > "$1"`, 'sh', path], {
    stdio: 'ignore',
  });
  return {
    stop: () => {
      if (helper.exitCode === null && helper.pid !== undefined) helper.kill();
    },
  };
}

/** Releases a reader waiting on the pipe now, if there is one (opening for writing without waiting). */
export function releaseFifo(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: no reader has it open; ENOENT: already gone.
  }
}
