import {
  builtinSchemaFor,
  fieldSchema,
  type FieldSchema,
  type KeyedListSchema,
  type ListSchema,
  type TypeHandle,
} from '../../src/merge/schema/builtin-table';

function root(group: string, kind: string): TypeHandle {
  const type = builtinSchemaFor(group, kind);
  if (!type) throw new Error(`no built-in schema for ${group}/${kind}`);
  return type;
}

/** Steps through struct fields and list items: `at(deployment, 'spec', 'template', 'spec', 'containers', '[]', 'ports')`. */
function at(type: TypeHandle, ...path: string[]): FieldSchema | undefined {
  let current: FieldSchema | undefined = { shape: 'struct', semantics: 'granular', type, markers: {} };
  for (const step of path) {
    if (!current) return undefined;
    if (step === '[]') {
      if (current.shape !== 'list' || !current.item) throw new Error(`${step}: not a list of objects`);
      current = { shape: 'struct', semantics: 'granular', type: current.item, markers: {} };
    } else {
      if (current.shape !== 'struct') throw new Error(`${step}: parent is a ${current.shape}`);
      current = fieldSchema(current.type, step);
    }
  }
  return current;
}

function list(schema: FieldSchema | undefined): ListSchema {
  if (schema?.shape !== 'list') throw new Error(`expected a list, got ${JSON.stringify(schema)}`);
  return schema;
}

function keyed(schema: FieldSchema | undefined): KeyedListSchema {
  const l = list(schema);
  if (l.semantics !== 'map') throw new Error(`expected a keyed list, got ${l.semantics}`);
  return l;
}

const deployment = () => root('apps', 'Deployment');
const podSpecPath = ['spec', 'template', 'spec'];

describe('builtin schema table', () => {
  describe('kind lookup', () => {
    it('finds built-in kinds by group and kind, core group as ""', () => {
      expect(builtinSchemaFor('apps', 'Deployment')?.name).toBe('apps.v1.Deployment');
      expect(builtinSchemaFor('', 'Service')?.name).toBe('core.v1.Service');
      expect(builtinSchemaFor('', 'ConfigMap')?.name).toBe('core.v1.ConfigMap');
    });

    it('takes the newest stable version when a group serves several', () => {
      expect(builtinSchemaFor('batch', 'CronJob')?.name).toBe('batch.v1.CronJob');
      expect(builtinSchemaFor('autoscaling', 'HorizontalPodAutoscaler')?.name).toBe('autoscaling.v1.HorizontalPodAutoscaler');
      expect(builtinSchemaFor('policy', 'PodDisruptionBudget')?.name).toBe('policy.v1.PodDisruptionBudget');
    });

    it('returns undefined for CRD kinds and for a known kind in the wrong group', () => {
      expect(builtinSchemaFor('example.com', 'Widget')).toBeUndefined();
      expect(builtinSchemaFor('kpt.dev', 'Kptfile')).toBeUndefined();
      expect(builtinSchemaFor('', 'Deployment')).toBeUndefined();
      expect(builtinSchemaFor('apps', 'toString')).toBeUndefined();
    });

    it('leaves out request envelopes registered in every group', () => {
      expect(builtinSchemaFor('apps', 'DeleteOptions')).toBeUndefined();
      expect(builtinSchemaFor('', 'WatchEvent')).toBeUndefined();
    });

    it('shares one handle per type', () => {
      const fromDeployment = at(deployment(), ...podSpecPath);
      const fromPod = at(root('', 'Pod'), 'spec');
      expect(fromDeployment?.shape === 'struct' && fromPod?.shape === 'struct').toBe(true);
      if (fromDeployment?.shape === 'struct' && fromPod?.shape === 'struct') {
        expect(fromDeployment.type).toBe(fromPod.type);
      }
    });
  });

  describe('pod template lists', () => {
    it('keys containers by name (patch-merge-key)', () => {
      const containers = keyed(at(deployment(), ...podSpecPath, 'containers'));
      expect(containers.keys).toEqual(['name']);
      expect(containers.keyDefaults).toEqual({});
      expect(containers.elements).toBe('object');
      expect(containers.item?.name).toBe('core.v1.Container');
      expect(containers.markers).toEqual({ patchStrategy: 'merge', patchMergeKey: 'name' });
    });

    it('keys container ports by containerPort and protocol, protocol defaulting to TCP', () => {
      const ports = keyed(at(deployment(), ...podSpecPath, 'containers', '[]', 'ports'));
      expect(ports.keys).toEqual(['containerPort', 'protocol']);
      expect(ports.keyDefaults).toEqual({ protocol: 'TCP' });
      expect(ports.markers.patchMergeKey).toBe('containerPort');
      expect(ports.markers.listMapKeys).toEqual(['containerPort', 'protocol']);
    });

    it('keeps init container ports keyed the same way, ephemeral container ports atomic', () => {
      expect(keyed(at(deployment(), ...podSpecPath, 'initContainers', '[]', 'ports')).keys).toEqual([
        'containerPort',
        'protocol',
      ]);
      expect(list(at(deployment(), ...podSpecPath, 'ephemeralContainers', '[]', 'ports')).semantics).toBe('atomic');
    });

    it('treats args and command as atomic lists of scalars', () => {
      for (const field of ['args', 'command']) {
        const l = list(at(deployment(), ...podSpecPath, 'containers', '[]', field));
        expect(l.semantics).toBe('atomic');
        expect(l.elements).toBe('scalar');
        expect(l.item).toBeUndefined();
      }
    });

    it('keys env by name and volumeMounts by mountPath', () => {
      expect(keyed(at(deployment(), ...podSpecPath, 'containers', '[]', 'env')).keys).toEqual(['name']);
      expect(keyed(at(deployment(), ...podSpecPath, 'containers', '[]', 'volumeMounts')).keys).toEqual(['mountPath']);
    });

    it('keys volumes by name, keeping the retainKeys part of the strategy as a marker', () => {
      const volumes = keyed(at(deployment(), ...podSpecPath, 'volumes'));
      expect(volumes.keys).toEqual(['name']);
      expect(volumes.markers.patchStrategy).toBe('merge,retainKeys');
    });

    it('treats tolerations (no keys, no strategy) as atomic', () => {
      const tolerations = list(at(deployment(), ...podSpecPath, 'tolerations'));
      expect(tolerations.semantics).toBe('atomic');
      expect(tolerations.elements).toBe('object');
      expect(tolerations.item?.name).toBe('core.v1.Toleration');
      expect(tolerations.markers).toEqual({});
    });

    it('keys topologySpreadConstraints by both list-map-keys', () => {
      const tsc = keyed(at(deployment(), ...podSpecPath, 'topologySpreadConstraints'));
      expect(tsc.keys).toEqual(['topologyKey', 'whenUnsatisfiable']);
      expect(tsc.keyDefaults).toEqual({});
    });

    it('reports map values: nodeSelector of scalars, resource limits of quantities', () => {
      expect(at(deployment(), ...podSpecPath, 'nodeSelector')).toEqual({
        shape: 'map',
        semantics: 'granular',
        value: { shape: 'scalar' },
      });
      expect(at(deployment(), ...podSpecPath, 'containers', '[]', 'resources', 'limits')).toEqual({
        shape: 'map',
        semantics: 'granular',
        value: { shape: 'scalar' },
      });
    });
  });

  describe('Service', () => {
    it('keys spec.ports by port and protocol, protocol defaulting to TCP', () => {
      const ports = keyed(at(root('', 'Service'), 'spec', 'ports'));
      expect(ports.keys).toEqual(['port', 'protocol']);
      expect(ports.keyDefaults).toEqual({ protocol: 'TCP' });
      expect(ports.item?.name).toBe('core.v1.ServicePort');
    });

    it('treats clusterIPs (list-type atomic) as atomic', () => {
      const ips = list(at(root('', 'Service'), 'spec', 'clusterIPs'));
      expect(ips.semantics).toBe('atomic');
      expect(ips.markers).toEqual({ listType: 'atomic' });
    });
  });

  describe('ObjectMeta', () => {
    it('makes finalizers a set: patch strategy merge on a list of scalars, no key', () => {
      const finalizers = list(at(deployment(), 'metadata', 'finalizers'));
      expect(finalizers.semantics).toBe('set');
      expect(finalizers.elements).toBe('scalar');
      expect(finalizers.markers).toEqual({ patchStrategy: 'merge' });
    });

    it('makes labels and annotations granular string maps', () => {
      for (const field of ['labels', 'annotations']) {
        expect(at(deployment(), 'metadata', field)).toEqual({ shape: 'map', semantics: 'granular', value: { shape: 'scalar' } });
      }
    });

    it('keys ownerReferences by uid', () => {
      expect(keyed(at(deployment(), 'metadata', 'ownerReferences')).keys).toEqual(['uid']);
    });

    it('reports scalar fields as scalars and absent fields as unknown', () => {
      expect(at(deployment(), 'metadata', 'name')).toEqual({ shape: 'scalar' });
      expect(at(deployment(), 'metadata', 'noSuchField')).toBeUndefined();
      expect(at(deployment(), 'metadata', 'hasOwnProperty')).toBeUndefined();
    });
  });

  describe('structs', () => {
    it('marks LabelSelector atomic (x-kubernetes-map-type on the definition)', () => {
      const selector = at(deployment(), 'spec', 'selector');
      expect(selector?.shape).toBe('struct');
      if (selector?.shape === 'struct') {
        expect(selector.semantics).toBe('atomic');
        expect(selector.type.name).toBe('meta.v1.LabelSelector');
      }
      expect(at(deployment(), 'spec', 'template')).toMatchObject({ shape: 'struct', semantics: 'granular' });
    });

    it('keeps a struct patch strategy as a marker', () => {
      expect(at(deployment(), 'spec', 'strategy')).toMatchObject({ shape: 'struct', markers: { patchStrategy: 'retainKeys' } });
    });

    it('returns undefined below opaque values', () => {
      expect(at(root('apps', 'ControllerRevision'), 'data')).toBeUndefined();
      expect(at(deployment(), 'metadata', 'managedFields', '[]', 'fieldsV1')).toBeUndefined();
    });

    it('follows the recursive JSONSchemaProps of CustomResourceDefinition', () => {
      const versionSchema = at(root('apiextensions.k8s.io', 'CustomResourceDefinition'), 'spec', 'versions', '[]', 'schema', 'openAPIV3Schema');
      expect(versionSchema?.shape).toBe('struct');
      if (versionSchema?.shape !== 'struct') return;
      const properties = fieldSchema(versionSchema.type, 'properties');
      expect(properties?.shape === 'map' && properties.value?.shape === 'struct' && properties.value.type).toBe(versionSchema.type);
    });
  });

  describe('lists where the markers disagree', () => {
    it('keys a list-type map without a patch strategy, keeping the markers for kyaml compatibility', () => {
      const conditions = keyed(at(root('certificates.k8s.io', 'CertificateSigningRequest'), 'status', 'conditions'));
      expect(conditions.keys).toEqual(['type']);
      expect(conditions.markers).toEqual({ listType: 'map', listMapKeys: ['type'] });
    });

    it('lets patch strategy merge win over list-type atomic (Job status.conditions)', () => {
      const conditions = keyed(at(root('batch', 'Job'), 'status', 'conditions'));
      expect(conditions.keys).toEqual(['type']);
      expect(conditions.markers.listType).toBe('atomic');
    });
  });
});
