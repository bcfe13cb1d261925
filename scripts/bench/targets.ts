/**
 * The bench's targets and their one-line reading: met, or missed and by how much. A target
 * compares one measured value with a goal, in the unit it is read in (a ratio to a
 * reference, milliseconds, bytes); a value not measured in this run reads "not measured".
 */
export interface Target {
  name: string;
  /** The measured value; undefined when this run did not measure it. */
  value: number | undefined;
  goal: number;
  /** `atLeast`: the value must reach the goal (a ratio of throughput); `atMost`: stay under it (a cost). */
  direction: 'atLeast' | 'atMost';
  unit: 'x' | 'ms' | 'bytes';
}

export interface TargetReading {
  target: Target;
  met: boolean | undefined;
  line: string;
}

export function readTarget(target: Target): TargetReading {
  const { name, value, goal, direction, unit } = target;
  const want = `${direction === 'atLeast' ? 'at least' : 'at most'} ${format(goal, unit)}`;
  if (value === undefined) return { target, met: undefined, line: `n/a   ${name}: not measured (target ${want})` };
  const met = direction === 'atLeast' ? value >= goal : value <= goal;
  const by = met ? '' : ` by ${format(Math.abs(value - goal), unit)}`;
  return {
    target,
    met,
    line: `${met ? 'met ' : 'MISS'}  ${name}: ${format(value, unit)}, target ${want}${met ? '' : `: missed${by}`}`,
  };
}

function format(value: number, unit: Target['unit']): string {
  if (unit === 'x') return `${value.toFixed(2)}x`;
  if (unit === 'ms') return `${Math.round(value * 10) / 10} ms`;
  return `${Math.round(value)} bytes`;
}
