/** The types of dependency-cruiser.config.mjs, for the docs test that reads its layer list. */

/** The gateway's layers, bottom up: the folders of each. */
export declare const GATEWAY_LAYERS: ReadonlyArray<ReadonlyArray<string>>

/** The rules and options dependency-cruiser reads. */
declare const config: object
export default config
