/**
 * A sandbox's limits (docs/sandboxes.md): policy of the self-serve tier, not a dealer's figure, so
 * they are not tunable per organization. Changing one changes the documented promise.
 */

/** Requests a day of a `lak_test_` key; a test key cannot be raised above it. */
export const TEST_KEY_DAILY_LIMIT = 1000;

/** A sandbox is refused, then purged, this many days after it was created. */
export const SANDBOX_LIFETIME_DAYS = 30;

/** Sandboxes one client address may create per UTC day (counted exactly in D1). */
export const SANDBOXES_PER_ADDRESS_PER_DAY = 10;
