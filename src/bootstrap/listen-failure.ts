/**
 * The one line a person needs when the port cannot be had, instead of Node's stack trace:
 * which address, and how to choose another. Undefined for any other failure, which keeps
 * its stack.
 */
export function listenFailure(error: unknown, host: string, port: number): string | undefined {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'EADDRINUSE') {
    return `Port ${port} on ${host} is already in use (another Gatehouse still running?): stop it, or choose another port, e.g. PORT=${port === 3000 ? 3002 : port + 1}.`;
  }
  if (code === 'EACCES') {
    return `Port ${port} on ${host} needs privileges this process does not have: choose a port above 1023, e.g. PORT=3000.`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `${host} is not an address of this machine: set HOST to one that is (127.0.0.1 by default).`;
  }
  return undefined;
}
