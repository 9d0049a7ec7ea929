// A strict parser of the Mermaid `stateDiagram-v2` subset that chart/toMermaid.ts emits. Mermaid's
// own parser ships inside the `mermaid` package and needs a DOM (DOMPurify) even to parse, and
// `@mermaid-js/parser` has no state-diagram grammar, so tests check the text with this instead:
// it refuses anything outside the subset (a line it cannot read, an unbalanced block, a `--`
// outside a composite state, an id used before it is declared, a class never defined) and
// returns the diagram's structure for comparison with the graph it was drawn from.

export interface ParsedState {
  id: string;
  label: string;
  /** The composite state whose block declares it (null: top level). */
  parent: string | null;
  /** For a composite state with `--`: how many regions (concurrent parts) it has. */
  regions: number;
  composite: boolean;
}

export interface ParsedTransition {
  from: string;
  to: string;
  label: string | null;
  /** The block the line is in (null: top level). */
  scope: string | null;
}

export interface ParsedDiagram {
  states: Map<string, ParsedState>;
  transitions: ParsedTransition[];
  classDefs: Map<string, string>;
  classes: Map<string, Set<string>>;
}

const ID = '[A-Za-z_][A-Za-z0-9_]*';
const RE = {
  declare: new RegExp(`^state "([^":;#]*)" as (${ID})$`),
  open: new RegExp(`^state (${ID}) \\{$`),
  close: /^\}$/,
  divider: /^--$/,
  transition: new RegExp(`^(\\[\\*\\]|${ID}) --> (\\[\\*\\]|${ID})(?: : ([^:;#]+))?$`),
  classDef: /^classDef ([A-Za-z_][\w-]*) ((?:[a-z-]+:[^,;\s]+)(?:,[a-z-]+:[^,;\s]+)*)$/,
  klass: new RegExp(`^class (${ID}(?:,${ID})*) ([A-Za-z_][\\w-]*)$`),
  direction: /^direction (TB|BT|LR|RL)$/,
  comment: /^%%/,
};

export class MermaidSyntaxError extends Error {
  constructor(line: number, text: string, why: string) {
    super(`line ${line}: ${why}: ${JSON.stringify(text)}`);
  }
}

export function parseStateDiagram(text: string): ParsedDiagram {
  const lines = text.split('\n');
  if (lines[0] !== 'stateDiagram-v2')
    throw new MermaidSyntaxError(1, lines[0] ?? '', 'header must be stateDiagram-v2');
  const states = new Map<string, ParsedState>();
  const transitions: ParsedTransition[] = [];
  const classDefs = new Map<string, string>();
  const classUses: { ids: string[]; name: string; line: number; text: string }[] = [];
  const stack: { id: string; items: number; lastWasDivider: boolean }[] = [];
  const scope = () => stack[stack.length - 1]?.id ?? null;
  const item = () => {
    const top = stack[stack.length - 1];
    if (top) {
      top.items++;
      top.lastWasDivider = false;
    }
  };
  lines.slice(1).forEach((raw, i) => {
    const n = i + 2;
    const line = raw.trim();
    if (line === '' || RE.comment.test(line)) return;
    let m: RegExpExecArray | null;
    if ((m = RE.declare.exec(line))) {
      if (states.has(m[2]!)) throw new MermaidSyntaxError(n, raw, `state ${m[2]} declared twice`);
      states.set(m[2]!, { id: m[2]!, label: m[1]!, parent: scope(), regions: 0, composite: false });
      item();
    } else if ((m = RE.open.exec(line))) {
      const s = states.get(m[1]!);
      if (!s) throw new MermaidSyntaxError(n, raw, `composite ${m[1]} was not declared`);
      if (s.composite) throw new MermaidSyntaxError(n, raw, `composite ${m[1]} opened twice`);
      if (s.parent !== scope())
        throw new MermaidSyntaxError(n, raw, `composite ${m[1]} opened outside its scope`);
      s.composite = true;
      item();
      stack.push({ id: s.id, items: 0, lastWasDivider: false });
    } else if (RE.close.test(line)) {
      const top = stack.pop();
      if (!top) throw new MermaidSyntaxError(n, raw, 'closing brace without a block');
      if (top.items === 0) throw new MermaidSyntaxError(n, raw, `empty composite ${top.id}`);
      if (top.lastWasDivider) throw new MermaidSyntaxError(n, raw, `composite ${top.id} ends with --`);
    } else if (RE.divider.test(line)) {
      const top = stack[stack.length - 1];
      if (!top) throw new MermaidSyntaxError(n, raw, '-- outside a composite state');
      if (top.items === 0 || top.lastWasDivider) throw new MermaidSyntaxError(n, raw, 'misplaced --');
      const s = states.get(top.id)!;
      s.regions = Math.max(s.regions, 1) + 1;
      top.lastWasDivider = true;
    } else if ((m = RE.transition.exec(line))) {
      const [from, to] = [m[1]!, m[2]!];
      if (from === '[*]' && to === '[*]') throw new MermaidSyntaxError(n, raw, '[*] --> [*]');
      for (const id of [from, to])
        if (id !== '[*]' && !states.has(id)) throw new MermaidSyntaxError(n, raw, `undeclared state ${id}`);
      transitions.push({ from, to, label: m[3]?.trim() ?? null, scope: scope() });
      item();
    } else if ((m = RE.classDef.exec(line))) {
      classDefs.set(m[1]!, m[2]!);
    } else if ((m = RE.klass.exec(line))) {
      classUses.push({ ids: m[1]!.split(','), name: m[2]!, line: n, text: raw });
    } else if (RE.direction.test(line)) {
      item();
    } else {
      throw new MermaidSyntaxError(n, raw, 'not a stateDiagram-v2 statement of the supported subset');
    }
  });
  if (stack.length)
    throw new MermaidSyntaxError(lines.length, '', `unclosed composite ${stack[stack.length - 1]!.id}`);
  const classes = new Map<string, Set<string>>();
  for (const use of classUses) {
    if (!classDefs.has(use.name))
      throw new MermaidSyntaxError(use.line, use.text, `class ${use.name} has no classDef`);
    for (const id of use.ids) {
      if (!states.has(id)) throw new MermaidSyntaxError(use.line, use.text, `undeclared state ${id}`);
      const set = classes.get(id) ?? new Set<string>();
      set.add(use.name);
      classes.set(id, set);
    }
  }
  return { states, transitions, classDefs, classes };
}
