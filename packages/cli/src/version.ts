/** Replaced by the package's version when build-cli.mjs bundles the CLI (esbuild `define`). */
declare const SIGNET_CLI_VERSION: string

export const VERSION: string = typeof SIGNET_CLI_VERSION === 'string' ? SIGNET_CLI_VERSION : '0.0.0-source'
