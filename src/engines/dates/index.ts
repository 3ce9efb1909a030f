/**
 * Calendar arithmetic in UTC days (which have no daylight-saving hours), for engines and for the
 * code around them: dates travel as ISO strings (`YYYY-MM-DD`), instants as `Date` or epoch ms.
 */

export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` (UTC) of an instant. */
export const isoDay = (at: Date | number) => new Date(at).toISOString().slice(0, 10);

/** The UTC day number of an instant (days since 1970-01-01). */
export const utcDay = (ms: number) => Math.floor(ms / DAY_MS);

/** The instant `days` days before `now`. */
export const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

/** Days elapsed from one instant to another, with the fraction (negative if `to` is earlier). */
export const daysElapsed = (fromMs: number, toMs: number) => (toMs - fromMs) / DAY_MS;

/** Whole days from the day `day` (`YYYY-MM-DD`) to the UTC day of `now`; 0 for a day not yet past. */
export const daysSince = (day: string, now: Date) => Math.max(0, Math.round(daysElapsed(Date.parse(day), utcDay(now.getTime()) * DAY_MS)));
