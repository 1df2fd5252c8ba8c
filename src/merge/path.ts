/** A field's place inside a resource, printed as `spec.containers[name=app].ports[containerPort=80,protocol=TCP]`. */
export type PathSegment =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'key'; readonly label: string };

export type FieldPath = readonly PathSegment[];

export const ROOT: FieldPath = [];

export function childField(path: FieldPath, name: string): FieldPath {
  return [...path, { type: 'field', name }];
}

export function childKey(path: FieldPath, label: string): FieldPath {
  return [...path, { type: 'key', label }];
}

export function formatPath(path: FieldPath): string {
  let out = '';
  for (const segment of path) {
    if (segment.type === 'field') out += out === '' ? segment.name : /^[A-Za-z0-9_-]+$/.test(segment.name) ? `.${segment.name}` : `[${JSON.stringify(segment.name)}]`;
    else out += `[${segment.label}]`;
  }
  return out;
}
