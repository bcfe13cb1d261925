import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes the plan into a hidden folder beside the target, then moves it into place, so
 * that a failure half-way (a full disk) leaves no half-made project, and removes any
 * parent folder it had to create.
 * @param {import('./plan-project.mjs').ProjectPlan} plan
 */
export function writeProject(plan) {
  const parent = dirname(plan.target);
  const createdParent = mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.${basename(plan.target)}.partial-${randomBytes(4).toString('hex')}`);
  /** @type {string[]} */
  const moved = [];
  try {
    for (const file of plan.files) {
      const path = join(staging, ...file.path.split('/'));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content, { mode: file.mode });
    }
    if (!existsSync(plan.target)) {
      renameSync(staging, plan.target);
      return;
    }
    // An empty directory that already exists (perhaps the current one) keeps its identity.
    if (readdirSync(plan.target).length > 0) throw new Error(`${plan.target} is no longer empty`);
    for (const entry of readdirSync(staging)) {
      renameSync(join(staging, entry), join(plan.target, entry));
      moved.push(join(plan.target, entry));
    }
    rmSync(staging, { recursive: true });
  } catch (error) {
    for (const path of moved) rmSync(path, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
    if (createdParent) rmSync(createdParent, { recursive: true, force: true });
    throw error;
  }
}
