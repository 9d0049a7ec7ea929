// What N jobs retain, per job, from two heap snapshots of one process (bench/probes/heldMemory.ts
// DIR writes base.heapsnapshot and held.heapsnapshot): objects counted by kind and constructor,
// closures by name and the file and line that made them, self sizes summed; rows of at least 4 B
// a job. DETAIL=1 splits objects further by their properties and by what first retains them
// (`<- field of Owner`).
//
//   node bench/heapDiff.mjs DIR/base.heapsnapshot DIR/held.heapsnapshot N

import { readFileSync } from 'node:fs';

const DETAIL = process.env.DETAIL === '1';

/** Counts and self sizes by row key, for one snapshot. */
function load(path) {
  const s = JSON.parse(readFileSync(path, 'utf8'));
  const m = s.snapshot.meta;
  const nf = m.node_fields;
  const ef = m.edge_fields;
  const NT = m.node_types[0];
  const ET = m.edge_types[0];
  const nlen = nf.length;
  const elen = ef.length;
  const iType = nf.indexOf('type');
  const iName = nf.indexOf('name');
  const iSize = nf.indexOf('self_size');
  const iEc = nf.indexOf('edge_count');
  const eType = ef.indexOf('type');
  const eName = ef.indexOf('name_or_index');
  const eTo = ef.indexOf('to_node');
  const { nodes, edges, strings } = s;
  const count = nodes.length / nlen;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * nlen + iEc] * elen;
  }
  firstEdge[count] = edges.length;
  const edgeName = (e) => {
    const t = ET[edges[e + eType]];
    return t === 'element' || t === 'hidden' ? `[${edges[e + eName]}]` : strings[edges[e + eName]];
  };
  const edgeTo = (ni, name) => {
    for (let e = firstEdge[ni]; e < firstEdge[ni + 1]; e += elen)
      if (edgeName(e) === name) return edges[e + eTo] / nlen;
    return -1;
  };
  const nameOf = (ni) => strings[nodes[ni * nlen + iName]];
  // A closure's line (when the snapshot has locations) and script (its shared info's).
  const line = new Map();
  if (s.locations) {
    const ll = m.location_fields.length;
    for (let i = 0; i < s.locations.length; i += ll) line.set(s.locations[i] / nlen, s.locations[i + 2] + 1);
  }
  const scriptOf = (ni) => {
    const shared = edgeTo(ni, 'shared');
    const script = shared < 0 ? -1 : edgeTo(shared, 'script');
    if (script < 0) return '?';
    const name = edgeTo(script, 'name');
    return (name < 0 ? nameOf(script) : nameOf(name)).replace(/.*\/(src|dist|node_modules)\//, '$1/');
  };
  // The first strong retainer of each node (DETAIL).
  const retainer = new Int32Array(count).fill(-1);
  const retainedAs = new Array(count);
  if (DETAIL)
    for (let i = 0; i < count; i++)
      for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += elen) {
        if (ET[edges[e + eType]] === 'weak') continue;
        const to = edges[e + eTo] / nlen;
        if (retainer[to] === -1) {
          retainer[to] = i;
          retainedAs[to] = edgeName(e);
        }
      }
  const props = (ni) => {
    const out = [];
    for (let e = firstEdge[ni]; e < firstEdge[ni + 1]; e += elen)
      if (ET[edges[e + eType]] === 'property') out.push(strings[edges[e + eName]]);
    return out.join(',').slice(0, 120);
  };
  const rows = new Map();
  for (let i = 0; i < count; i++) {
    const type = NT[nodes[i * nlen + iType]];
    let name = nameOf(i);
    if (type.includes('string') || type === 'number') name = '';
    else if (type === 'closure')
      name = `${name || '(anon)'} @ ${scriptOf(i)}${line.has(i) ? `:${line.get(i)}` : ''}`;
    else if (type === 'code') name = name.slice(0, 40);
    if (DETAIL) {
      if (type === 'object' && /^(Object|Array|Promise|Timeout|system \/ Context)$/.test(name))
        name += ` {${props(i)}}`;
      const r = retainer[i];
      if (r >= 0 && type !== 'closure' && type !== 'code')
        name += `  <- ${retainedAs[i]} of ${NT[nodes[r * nlen + iType]]}:${nameOf(r).slice(0, 40)}`;
    }
    const key = `${type} | ${name}`;
    const row = rows.get(key) ?? { n: 0, size: 0 };
    row.n++;
    row.size += nodes[i * nlen + iSize];
    rows.set(key, row);
  }
  return rows;
}

const [basePath, heldPath, n] = process.argv.slice(2);
const N = Number(n);
if (!basePath || !heldPath || !(N > 0))
  throw new Error('usage: heapDiff.mjs base.heapsnapshot held.heapsnapshot N');
const base = load(basePath);
const out = [];
for (const [key, row] of load(heldPath)) {
  const was = base.get(key) ?? { n: 0, size: 0 };
  const count = (row.n - was.n) / N;
  const size = (row.size - was.size) / N;
  if (Math.abs(size) >= 4 || Math.abs(count) >= 0.5) out.push([key, count, size]);
}
out.sort((a, b) => b[2] - a[2]);
for (const [key, count, size] of out)
  console.log(`${count.toFixed(2).padStart(7)} ${size.toFixed(0).padStart(6)} B  ${key}`);
console.log(`listed: ${out.reduce((t, r) => t + r[2], 0).toFixed(0)} B a job`);
