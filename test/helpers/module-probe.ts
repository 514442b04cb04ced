/**
 * Loaded into a service under test (`node --import`): prints `module-probe: <url>` on stderr for
 * every module the process resolves whose address holds `MODULE_PROBE` (a fragment of a path),
 * so that a test can tell whether a package was loaded at all.
 */
import { registerHooks } from 'node:module';

const fragment = process.env.MODULE_PROBE ?? '';
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (fragment && resolved.url.includes(fragment)) process.stderr.write(`module-probe: ${resolved.url}\n`);
    return resolved;
  },
});
