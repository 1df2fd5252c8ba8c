// Writes a bundle's V8 code cache (dist/function.js.cache, dist/update.js.cache), which
// src/cli/bundle-loader.ts loads the bundle with: the bundle is compiled as the entry compiles it,
// what it is loaded for is carried out on a small package in a scratch directory (a function run for
// function.js, an update for update.js, so that the functions they call are compiled too), then the
// compiled code is serialised. scripts/build.mjs bundles this file (it imports the loader from src/)
// and runs it once a bundle, in a process of its own, whose output it discards.
//
// Usage (as scripts/build.mjs runs it): node <this, bundled> dist/function.js|dist/update.js
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cacheFileOf, compileBundle } from '../src/cli/bundle-loader';

const kptfile = (name) => `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ${name}
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: ${name} package
pipeline:
  mutators:
  - image: gcr.io/kpt-fn/set-namespace:v0.4.1
    configMap:
      namespace: shop
`;

const deployment = ({ image, replicas, env, label }) => `apiVersion: apps/v1
kind: Deployment
metadata: # kpt-merge: shop/web
  name: web
  namespace: shop
  labels:
    app: web${label ? `\n    ${label}` : ''}
  annotations:
    internal.kpt.dev/upstream-identifier: 'apps|Deployment|shop|web'
spec:
  replicas: ${replicas} # scaled by the HPA
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: ${image} # kpt-set: \${image}
        args: ["--port", "8080"]
        ports:
        - name: http
          containerPort: 8080
          protocol: TCP
        env:
        - name: LOG_LEVEL
          value: info${env ? `\n        - name: ${env}\n          value: "true"` : ''}
        resources:
          limits: {cpu: 500m, memory: 256Mi}
`;

const crd = (extra) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: 'A Widget is a made-up resource whose description is long enough to be folded
          over two lines, as controller-gen writes them.'
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer${extra ? `\n              color:\n                type: string` : ''}
`;

const widget = (size) => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  size: ${size}
`;

const configMap = (data) => `# settings
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  config.yaml: |
    server:
      port: 8080
${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join('\n')}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
    targetPort: http
`;

function writePackage(root, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function versions(dir) {
  const origin = {
    Kptfile: kptfile('web'),
    'deployment.yaml': deployment({ image: 'nginx:1.25', replicas: 2 }),
    'crd.yaml': crd(false),
    'widget.yaml': widget(1),
    'settings.yaml': configMap({ a: '1' }),
    'README.md': '# web\n',
    'sub/Kptfile': kptfile('sub'),
    'sub/sa.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n',
  };
  const upstream = {
    ...origin,
    'deployment.yaml': deployment({ image: 'nginx:1.26', replicas: 2, env: 'FAST' }),
    'crd.yaml': crd(true),
    'widget.yaml': widget(2),
    'settings.yaml': configMap({ a: '1', b: '2' }),
    'README.md': '# web\n\nVersion 2.\n',
    'added.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: added\ntype: Opaque\n',
  };
  // Local changed the image too: a conflict, and its result, are part of the run.
  const local = { ...origin, 'deployment.yaml': deployment({ image: 'nginx:1.25-local', replicas: 5, label: 'team: shop' }), 'local.yaml': widget(7).replace('name: w', 'name: mine') };
  const paths = {};
  for (const [name, files] of Object.entries({ origin, upstream, local })) writePackage((paths[name] = join(dir, name)), files);
  return { paths, local, upstream };
}

/** A ResourceList that asks the function to merge: its items tagged with their version. */
function mergeList(v) {
  const item = (text, path, source) => {
    const annotations = `  annotations:\n    config.kubernetes.io/path: '${path}'${source ? `\n    config.kubernetes.io/merge-source: ${source}` : ''}\n`;
    const lines = text.replace(/^metadata:\n/m, `metadata:\n${annotations}`).trimEnd().split('\n');
    return lines.map((line, i) => `${i === 0 ? '- ' : '  '}${line}\n`).join('');
  };
  const items = [item(v.local['widget.yaml'], 'widget.yaml'), item(v.local['widget.yaml'], 'widget.yaml', 'original'), item(v.upstream['widget.yaml'], 'widget.yaml', 'updated')];
  return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items.join('')}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data: {}\n`;
}

const bundle = process.argv[2];
if (!bundle) {
  process.stderr.write('usage: node code-cache.js dist/function.js|dist/update.js\n');
  process.exit(2);
}
/** Runs what the bundle is loaded for on a small package, then writes the code cache. */
async function train() {
  const compiled = compileBundle(bundle);
  const { main, runUpdate } = compiled.run();
  const scratch = mkdtempSync(join(tmpdir(), 'pv-code-cache-'));
  try {
    const v = versions(scratch);
    if (runUpdate) {
      // The update command answers with a promise (it waits for git).
      const updated = await runUpdate([v.paths.local, '--origin', v.paths.origin, '--upstream', v.paths.upstream]);
      if (updated !== 0) throw new Error(`the training update exited ${updated}`);
    } else {
      const merged = await main([], () => ({ text: mergeList(v) }));
      if (merged !== 0) throw new Error(`the training function run exited ${merged}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  writeFileSync(cacheFileOf(bundle), compiled.script.createCachedData());
}

train().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
