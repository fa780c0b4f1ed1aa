/** Types of build-server.mjs (plain JavaScript, so that ensure-deps can run it before anything is installed or built). */
export declare const SERVER_BUNDLE: string
export declare function serverBundleIsStale(): boolean
export declare function buildServer(options?: { force?: boolean }): Promise<boolean>
export declare const ADMIN_BUNDLE: string
export declare function adminBundleIsStale(): boolean
export declare function buildAdmin(options?: { force?: boolean }): Promise<boolean>
