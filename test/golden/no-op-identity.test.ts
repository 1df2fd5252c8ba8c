import { join } from 'node:path';
import { parseResourceList, serializeResourceList } from '../../src/krm/resource-list';
import { corpusFiles, REPO_ROOT, runFunction } from '../helpers';

const corpus = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'));

describe('a no-op run returns its input byte for byte', () => {
  it.each(corpus.map((c) => [c.name, c.text]))('%s', (_name, text) => {
    const { output, exitCode } = runFunction(text);
    expect(exitCode).toBe(0);
    expect(output).toBe(text);
  });
});

// kpt sends compact sequences; hand-written inputs may be re-indented when an item changes.
const fromKpt = corpus.filter((c) => c.name.endsWith('-from-kpt.yaml'));

describe('a changed item is re-rendered with its comments, quoting and number spelling', () => {
  it.each(fromKpt.map((c) => [c.name, c.text]))('%s', (_name, text) => {
    const list = parseResourceList(text);
    for (const item of list.items) item.markChanged();
    expect(serializeResourceList(list)).toBe(text);
  });
});
