import { GraphError, invalidParam } from './errors';
import { KNOWN_FIELDS, fieldValue } from './fields';
import { isPlainObject } from './params';
import type { SandboxStore } from './store';
import type { AnyRecord, ObjectKind } from './types';

interface Filter {
  field: string;
  operator: string;
  value: unknown;
}

const OPERATORS = [
  'EQUAL',
  'NOT_EQUAL',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
  'IN',
  'NOT_IN',
  'CONTAIN',
  'NOT_CONTAIN',
  'STARTS_WITH',
];

/** Parses Meta's `filtering=[{"field","operator","value"}]` (JSON-encoded in the query string). */
export function parseFiltering(raw: unknown, kind: ObjectKind): Filter[] {
  if (raw === undefined || raw === '') return [];
  let parsed = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw invalidParam('filtering', 'must be a JSON-encoded array');
    }
  }
  if (!Array.isArray(parsed)) throw invalidParam('filtering', 'must be a JSON-encoded array');
  return parsed.map((entry) => {
    if (!isPlainObject(entry) || typeof entry.field !== 'string' || typeof entry.operator !== 'string') {
      throw invalidParam('filtering', 'each filter needs field, operator and value');
    }
    const operator = entry.operator.toUpperCase();
    const field = entry.field;
    if (!OPERATORS.includes(operator))
      throw invalidParam('filtering', `unsupported operator ${entry.operator}`);
    if (!KNOWN_FIELDS[kind].includes(resolveField(field))) {
      throw new GraphError(
        400,
        100,
        `(#100) Filtering field '${field}' with operation '${operator.toLowerCase()}' is not supported`,
      );
    }
    if ((operator === 'IN' || operator === 'NOT_IN') && !Array.isArray(entry.value)) {
      throw invalidParam('filtering', `${operator} needs an array value`);
    }
    return { field, operator, value: entry.value };
  });
}

/** `campaign.id` → `campaign_id`, `adset.id` → `adset_id`. */
function resolveField(field: string): string {
  return field.endsWith('.id') ? `${field.slice(0, -3)}_id` : field;
}

function matches(actual: unknown, { operator, value }: Filter): boolean {
  const a = actual === undefined || actual === null ? '' : String(actual);
  const b = value === undefined || value === null ? '' : String(value);
  switch (operator) {
    case 'EQUAL':
      return a === b;
    case 'NOT_EQUAL':
      return a !== b;
    case 'GREATER_THAN':
      return Number(a) > Number(b);
    case 'GREATER_THAN_OR_EQUAL':
      return Number(a) >= Number(b);
    case 'LESS_THAN':
      return Number(a) < Number(b);
    case 'LESS_THAN_OR_EQUAL':
      return Number(a) <= Number(b);
    case 'IN':
      return (value as unknown[]).map(String).includes(a);
    case 'NOT_IN':
      return !(value as unknown[]).map(String).includes(a);
    case 'CONTAIN':
      return a.toLowerCase().includes(b.toLowerCase());
    case 'NOT_CONTAIN':
      return !a.toLowerCase().includes(b.toLowerCase());
    case 'STARTS_WITH':
      return a.startsWith(b);
    default:
      return false;
  }
}

export function applyFilters<T extends AnyRecord>(records: T[], filters: Filter[], store: SandboxStore): T[] {
  if (filters.length === 0) return records;
  return records.filter((record) =>
    filters.every((filter) => matches(fieldValue(record, resolveField(filter.field), store), filter)),
  );
}
