// Enqueue input refused before anything is written (code INVALID_INPUT).

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';

/** Enqueue input that cannot be accepted; nothing was written. `field` names the culprit. */
export class ValidationError extends MachinistError {
  constructor(message: string, ids: ErrorIds = {}) {
    super(CODE.INVALID_INPUT, message, ids);
  }
}

/** One problem an input schema found: where (`input.sizes[1]`) and what. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * An input that the job's declared schema (`defineJob({ input })`, Standard Schema) refuses;
 * nothing was written. `field` is the first issue's path, `issues` lists every one.
 * A ValidationError (code INVALID_INPUT), so callers that handle those handle it too.
 */
export class InputSchemaError extends ValidationError {
  readonly issues: readonly InputIssue[];
  constructor(machine: string, issues: readonly InputIssue[]) {
    const shown = issues.slice(0, 10).map((i) => `${i.path}: ${i.message}`);
    if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
    super(`input of '${machine}' does not match its schema: ${shown.join('; ')}`, {
      machine,
      field: issues[0]?.path ?? 'input',
    });
    this.issues = issues;
  }
}
