/** Types of tree-patch.cjs for the TypeScript tests. */
export declare function lineHunks(a: string[], b: string[]): [number, number, string[]][];
export declare function diffTrees(from: string, to: string): string;
export declare function applyTreePatch(root: string, patch: string): void;
