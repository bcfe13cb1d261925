import { WritesRecordingStore } from './writes-recording-store.js';

/**
 * A session store that remembers every key written to it, so that a test can ask which of
 * them still hold a record, through `get` as any caller would: "nothing was stored",
 * "only the flow and the client's count". The records themselves live in the store it wraps.
 */
export class KeyRecordingStore extends WritesRecordingStore {
  /** The keys ever written that hold a record now, in the order first written. */
  async held(): Promise<string[]> {
    const held: string[] = [];
    for (const key of new Set(this.writes.map((write) => write.key))) {
      if ((await this.get(key)) !== undefined) held.push(key);
    }
    return held;
  }
}
