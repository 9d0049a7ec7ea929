// The types that flow from a definition to the client: a `Client` built with `jobs` knows each
// job's name, input and output, and the ids it returns remember the output. Types only: nothing
// here exists at run time.
//
// A client's type parameter `D` is the union of its definitions; `never` (no `jobs`) is the
// untyped client, which takes any name and input and gives `unknown` outputs.

import type { EnqueueOptions } from './validateEnqueue.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { JobRecord } from '../store/types.js';

declare const jobOutput: unique symbol;

/**
 * A job id returned by `enqueue`: a string (a ULID) that remembers the job's output type, so
 * `waitForResult(id)` and `get(id)` give a `JobRecord` whose `output` is typed. Any string is
 * accepted where a job id is; a plain one gives `output: unknown`.
 */
export type JobId<Output = unknown> = string & { readonly [jobOutput]: Output };

/** `unknown` for `any` and XState's `NonReducibleUnknown`: an untyped side stays unknown. */
type Known<T> = 0 extends 1 & T ? unknown : unknown extends T ? unknown : T;

/** A definition's input type (`work`'s annotation; a pipeline machine's `types.input`). */
export type InputOf<Def> = Def extends { readonly __types?: { input: infer I; output: unknown } }
  ? Known<I>
  : unknown;

/** A definition's output type (`work`'s result; a pipeline machine's `types.output`). */
export type OutputOf<Def> = Def extends { readonly __types?: { input: unknown; output: infer O } }
  ? Known<O>
  : unknown;

/** How enqueue names a job: one of the client's names or definitions (any, when untyped). */
export type JobRef<D extends AnyDefinition> = [D] extends [never] ? string | AnyDefinition : D['name'] | D;

/** The definitions `ref` stands for (never for a name on an untyped client). */
type DefinitionOf<D extends AnyDefinition, Ref> = Ref extends AnyDefinition
  ? Ref
  : [D] extends [never]
    ? never
    : D extends AnyDefinition
      ? Ref extends D['name']
        ? D
        : never
      : never;

/** The input `ref`'s job takes; unknown when nothing is known of it. */
export type InputFor<D extends AnyDefinition, Ref> = [DefinitionOf<D, Ref>] extends [never]
  ? unknown
  : InputOf<DefinitionOf<D, Ref>>;

/** The output `ref`'s job gives; unknown when nothing is known of it. */
export type OutputFor<D extends AnyDefinition, Ref> = [DefinitionOf<D, Ref>] extends [never]
  ? unknown
  : OutputOf<DefinitionOf<D, Ref>>;

/** enqueue's arguments after the machine: the input may be left out when it may be undefined. */
export type EnqueueArgs<Input> = undefined extends Input
  ? [input?: Input, options?: EnqueueOptions]
  : [input: Input, options?: EnqueueOptions];

/** One job of an `enqueueMany` on an untyped client. */
export interface EnqueueItem {
  machine: string | AnyDefinition;
  input?: unknown;
  options?: EnqueueOptions;
}

/**
 * One job of an `enqueueMany`: `ref` (a name or definition of the client's) and that job's
 * input, optional when it may be undefined.
 */
export type EnqueueItemFor<D extends AnyDefinition, Ref> =
  undefined extends InputFor<D, Ref>
    ? { machine: Ref; input?: InputFor<D, Ref>; options?: EnqueueOptions }
    : { machine: Ref; input: InputFor<D, Ref>; options?: EnqueueOptions };

/**
 * `enqueueMany`'s items, typed from their machines (`Refs`, inferred): each input is checked
 * against its own job's, extra fields included, as for `enqueue`.
 */
export type EnqueueItems<D extends AnyDefinition, Refs extends readonly unknown[]> = {
  [K in keyof Refs]: EnqueueItemFor<D, Refs[K]>;
};

/** The ids `enqueueMany(items)` resolves with, in order, each remembering its job's output. */
export type JobIdsOf<D extends AnyDefinition, Refs extends readonly unknown[]> = {
  -readonly [K in keyof Refs]: JobId<OutputFor<D, Refs[K]>>;
};

/** The records `enqueueManyAndWait(items)` resolves with, in order, each typed by its job's output. */
export type JobRecordsOf<D extends AnyDefinition, Refs extends readonly unknown[]> = {
  -readonly [K in keyof Refs]: JobRecord<OutputFor<D, Refs[K]>>;
};
