/** Annotation keys kpt and the KRM functions spec put on items. */
export const PATH = 'internal.config.kubernetes.io/path';
export const INDEX = 'internal.config.kubernetes.io/index';
export const LEGACY_PATH = 'config.kubernetes.io/path';
export const LEGACY_INDEX = 'config.kubernetes.io/index';
export const ID = 'internal.config.kubernetes.io/id';
export const LEGACY_ID = 'config.k8s.io/id';
export const KPT_RESOURCE_ID = 'internal.config.k8s.io/kpt-resource-id';
export const LOCAL_CONFIG = 'config.kubernetes.io/local-config';

/** Annotations that tie an item to its place in the package; a clone must not carry them. */
export const POSITION_ANNOTATIONS = [INDEX, LEGACY_INDEX, ID, LEGACY_ID, KPT_RESOURCE_ID] as const;
