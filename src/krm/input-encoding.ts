/**
 * Input that is not UTF-8 (see utf8.ts) passes through a run that changes nothing, byte for byte.
 * A run that would rewrite the package cannot promise that, so it stops with this result instead.
 */
import type { KrmResource } from './resource';
import { inputItemAt, inputPosition, type ResourceList } from './resource-list';
import { errorResult, type Result } from './results';

function itemName(index: number, resource: KrmResource): string {
  return resource.kind && resource.name ? `items[${index}] (${resource.kind} ${resource.name})` : `items[${index}]`;
}

export function invalidUtf8Result(list: ResourceList, offset: number): Result {
  const { line, col } = inputPosition(list, offset);
  const byte = (list.source!.text.charCodeAt(offset) - 0xdc00).toString(16).toUpperCase();
  const item = inputItemAt(list, offset);
  const where = item ? itemName(item.index, item.resource) : 'the ResourceList';
  const message = `${where} is not valid UTF-8: byte 0x${byte} at line ${line}, column ${col}; a run that changes the package would write it back altered, so nothing was changed (fix the file's encoding)`;
  const resource = item?.resource;
  const file = resource?.fileRef();
  return errorResult(message, { ...(resource?.isKrmObject ? { resourceRef: resource.ref() } : {}), ...(file ? { file } : {}) });
}
