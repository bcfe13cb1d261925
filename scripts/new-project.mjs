#!/usr/bin/env node
/**
 * `npm run new -- <target-dir> [--name <package-name>] [--authProvider <choice>] [--database <choice>]`, also the
 * `create-gatehouse` bin, so that `npm exec` runs it from a packed tarball. Plain Node.js:
 * an installed tarball has the template's dependencies only, none of its dev tools.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, usage } from './new-project/command-line.mjs';
import { planProject } from './new-project/plan-project.mjs';
import { writeProject } from './new-project/write-project.mjs';
import { nextSteps } from './new-project/next-steps.mjs';

const templateRoot = fileURLToPath(new URL('..', import.meta.url));
// `npm run new` runs this in the template's root; INIT_CWD is where the command was typed.
const cwd = process.env.npm_lifecycle_event === 'new' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();

const commandLine = parseCommandLine(process.argv.slice(2));
if (commandLine.kind === 'help') {
  console.log(usage());
  process.exit(0);
}
if (commandLine.kind === 'error') {
  console.error(`create-gatehouse: ${commandLine.message}\nRun with --help for the usage.`);
  process.exit(2);
}

const target = resolve(cwd, commandLine.target);
const outcome = planProject({
  templateRoot: resolve(templateRoot),
  target,
  name: commandLine.name,
  authProvider: commandLine.authProvider,
  database: commandLine.database,
});
if (outcome.problems) {
  console.error(
    `create-gatehouse: refused; nothing was written.\n${outcome.problems.map((problem) => `  - ${problem}`).join('\n')}\nRun with --help for the usage.`,
  );
  process.exit(1);
}
try {
  writeProject(outcome.plan);
} catch (error) {
  console.error(
    `create-gatehouse: could not create ${target}; nothing was left behind: ${error instanceof Error ? error.message : error}`,
  );
  process.exit(1);
}
console.log(nextSteps(outcome.plan, cwd));
