// The refusal of a construct the compiler (compileSteps.ts, compileTransitions.ts) does not
// reproduce exactly: thrown where it is found, caught at the compiler's entry, where it means
// "leave this machine to the XState runtime" (and explainNotCompiled shows its message). It never
// leaves the compiler.

import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';

export class NotCompilable extends MachinistError {
  constructor(why: string) {
    super(CODE.NOT_COMPILABLE, why);
  }
}

export function refuse(why: string): never {
  throw new NotCompilable(why);
}
