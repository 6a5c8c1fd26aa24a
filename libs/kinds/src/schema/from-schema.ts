/**
 * The TypeScript type a JSON Schema describes, for the subset kinds and tools declare: `type`
 * (one or a list), `const`, `enum`, `items`, `properties` with `required`. Anything else is
 * `unknown`, never a wrong type. With it one schema is both the validator (Ajv) and the type of
 * what passed it (`defineKind`'s input, `defineTool`'s arguments).
 */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: readonly (infer T)[] }
      ? OfType<T, S>
      : S extends { type: infer T }
        ? OfType<T, S>
        : unknown;

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : Record<string, unknown>;
