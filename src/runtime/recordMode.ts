// What a job's record keeps (docs/concepts.md, Minimal records): 'full' (the default) keeps its
// audit log, its stream entries and, once it ended, the record for the retention window;
// 'minimal' keeps none of them for a job that ends done (its record goes as it ends, once its
// waiters have the result) and keeps a failed or cancelled one whole, without a log.

import { DefinitionError } from '../errors.js';

export type RecordMode = 'full' | 'minimal';

/** A definition's `record` option, checked: a DefinitionError names the field. */
export function validateRecordMode(where: string, machine: string, record: unknown): void {
  if (record !== undefined && record !== 'full' && record !== 'minimal')
    throw new DefinitionError(
      `${where}: record must be 'full' or 'minimal' (got ${JSON.stringify(record)})`,
      {
        machine,
        field: 'record',
      },
    );
}
