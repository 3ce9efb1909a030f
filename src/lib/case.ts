/**
 * The API's field names are snake_case and the engines' camelCase: one rule maps a request body
 * onto an engine's input, so a field is named once in the schema and once in the engine, not a
 * third time in a hand mapping. The engine's input type checks the result (`satisfies`).
 */

/** `trade_value` → `tradeValue`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
export type CamelKeys<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

export function camelKeys<T extends object>(fields: T): CamelKeys<T> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [camelCase(key), value])) as CamelKeys<T>;
}

/**
 * The fields as an engine's input, checked both ways at compile time: every required field is
 * there and no field is left over (a field renamed on one side only fails, where `satisfies` would
 * let a spread's extra field through and drop it silently).
 */
export const exactly =
  <Input>() =>
  <T extends Input & Record<Exclude<keyof T, keyof Input>, never>>(fields: T): Input =>
    fields;

/** `tradeValue` → `trade_value`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;
export type SnakeKeys<T> = { [K in keyof T as K extends string ? SnakeCase<K> : K]: T[K] };
