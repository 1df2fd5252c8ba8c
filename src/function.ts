/** The KRM function: reads the functionConfig and applies what it asks for, in Porch's order. */
import { readFunctionConfig } from './config/function-config';
import type { ResourceList } from './krm/resource-list';
import { fanOut } from './fanout';
import { mergeUpstream } from './merge';
import { applyPackageVariant } from './variant';

export function packageVariantFunction(list: ResourceList): void {
  const config = readFunctionConfig(list);
  mergeUpstream(list, config.options);
  switch (config.kind) {
    case 'none':
    case 'options':
      return;
    case 'package-variant':
      applyPackageVariant(list, config.variant, config.objects);
      return;
    case 'package-variant-set':
      fanOut(list, config.variantSet, config.objects);
  }
}
