// How a transition is labelled on every chart: the event, its guard in brackets, `after Nms`
// for a delay, `always` for an eventless transition, `done(id)` / `error(id)` for an invoke's
// ending. One function so that Mermaid, DOT, SVG and the dashboard say the same thing.

import type { GraphEdge } from '../store/chartModel.js';

export function edgeLabel(edge: GraphEdge): string {
  let label: string;
  switch (edge.kind) {
    case 'after':
      label = `after ${typeof edge.delay === 'number' ? `${edge.delay}ms` : (edge.delay ?? '?')}`;
      break;
    case 'always':
      label = 'always';
      break;
    case 'done':
      label = `done(${edge.actor})`;
      break;
    case 'error':
      label = `error(${edge.actor})`;
      break;
    case 'state-done':
      label = 'done';
      break;
    default:
      label = edge.event;
  }
  return edge.guard ? `${label} [${edge.guard}]` : label;
}
