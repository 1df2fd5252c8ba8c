/** An operating-system error as a short phrase (`EACCES: permission denied`), without the paths it names. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const syscall = (error as NodeJS.ErrnoException).syscall;
  // Node writes `CODE: description, syscall 'path'`; the path is ours to name.
  if (code && syscall) return error.message.split(`, ${syscall}`)[0] ?? error.message;
  return error.message;
}
