// Reads Prometheus text as a scraper would: parsed by a third-party parser (not prom-client),
// then looked up by series name and labels.
//
// parse-prometheus-text-format 1.1 folds a histogram's samples into one, dropping its labels
// (its flattenMetrics keeps only unlabelled _count/_sum): histograms are read a second time with
// their TYPE line as `untyped`, which the parser reads as plain `<name>_count`, `<name>_sum`
// and `<name>_bucket` samples with their labels (one family per run of lines: merged here).

import parsePrometheusTextFormat, {
  type ParsedFamily,
  type ParsedSample,
} from 'parse-prometheus-text-format';

export class Scrape {
  readonly families: Map<string, ParsedFamily>;

  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    for (const f of parsePrometheusTextFormat(untyped)) {
      if (!/_(count|sum|bucket)$/.test(f.name)) continue;
      const seen = this.families.get(f.name);
      if (seen) seen.metrics.push(...f.metrics);
      else this.families.set(f.name, f);
    }
  }

  family(name: string): ParsedFamily {
    const f = this.families.get(name);
    if (!f) throw new Error(`no series ${name} in:\n${this.text}`);
    return f;
  }

  /** Samples of a series whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): ParsedSample[] {
    return this.family(name).metrics.filter((m) =>
      Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
    );
  }

  /** The value of a counter or gauge with exactly these labels (0 when absent). */
  value(name: string, labels: Record<string, string> = {}): number {
    const m = this.family(name).metrics.find((s) => sameLabels(s.labels ?? {}, labels));
    return m?.value === undefined ? 0 : Number(m.value);
  }

  /** A histogram's observation count for exactly these labels (0 when absent). */
  count(name: string, labels: Record<string, string>): number {
    this.family(name);
    return this.families.has(`${name}_count`) ? this.value(`${name}_count`, labels) : 0;
  }

  /** Every value a label takes in a series. */
  labelValues(name: string, label: string): Set<string> {
    return new Set(
      this.family(name)
        .metrics.map((m) => m.labels?.[label])
        .filter((v) => v !== undefined),
    );
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
