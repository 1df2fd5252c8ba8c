/** Types of kpt-get-model.cjs for the TypeScript tests. */
export declare function fetchedText(text: string): string;
export declare function applyKptGetModel(root: string): void;
