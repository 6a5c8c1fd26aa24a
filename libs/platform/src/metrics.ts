import { collectDefaultMetrics, Registry } from 'prom-client';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app: `vigil-${app}` });
  collectDefaultMetrics({ register: registry });
  return registry;
}
