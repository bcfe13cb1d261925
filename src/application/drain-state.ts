import { injectable } from 'tsyringe';

/** Whether the process is shutting down: readiness turns 503 the moment draining starts. */
@injectable()
export class DrainState {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  startDraining(): void {
    this.#draining = true;
  }
}
