/** Calendar days of the Effects: which day it is in the brand's time zone, and how a day reads. */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The day (YYYY-MM-DD) it is at `now` in `timeZone`. */
export function dayIn(timeZone: string, now: Date): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(now);
}

/** Minutes `timeZone` is ahead of UTC at `instant`. */
function offsetMinutes(timeZone: string, instant: Date): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    })
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  );
  const wallClock = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return Math.round((wallClock - instant.getTime()) / 60_000);
}

/** The moment `day` starts in `timeZone`: when its Effect is published. */
export function startOfDay(day: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // Twice, so a change of offset between UTC midnight and local midnight (daylight saving) is met.
  let guess = midnightUtc - offsetMinutes(timeZone, new Date(midnightUtc)) * 60_000;
  guess = midnightUtc - offsetMinutes(timeZone, new Date(guess)) * 60_000;
  return new Date(guess);
}

/** How a day reads on the page and in the mail: "November 21, 2026". */
export function dayLabel(day: string): string {
  return new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" }).format(
    new Date(`${day}T00:00:00Z`),
  );
}
