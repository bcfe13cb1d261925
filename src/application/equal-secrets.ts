import { constantTimeEqual } from '@oslojs/crypto/subtle';

const utf8 = new TextEncoder();

/** Whether two secret strings are equal, compared in time that does not depend on where they differ. */
export function equalSecrets(a: string, b: string): boolean {
  const left = utf8.encode(a);
  const right = utf8.encode(b);
  return left.length === right.length && constantTimeEqual(left, right);
}
