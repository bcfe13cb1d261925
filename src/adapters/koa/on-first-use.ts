/**
 * `make` is called at the first use and its result kept for every later one; a failed
 * attempt (a module that could not be imported) is forgotten, so the next use tries again.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
}
