/** The textual form of a UUID (any version, either case): one pattern for every place that checks ids by hand. */
export const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

export const UUID_RE = new RegExp(`^${UUID_PATTERN}$`);

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
