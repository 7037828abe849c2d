/**
 * The one calendar-day helper, for the site and the sender alike: a day written YYYY-MM-DD, which
 * day (and time) it is in the brand's time zone, when a day starts there, and how a day reads.
 * No imports: the site's build and the core both use it.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The UTC day (YYYY-MM-DD) of `now`: the day the per-day mail limits count in. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * One formatter per time zone, made on first use: making one costs fifty times what formatting a
 * moment does, and the build's feeds and the growth report ask when each day they cover starts
 * (two readings a day), the schedule which day it is on every tick.
 */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();
function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    wallClockFormats.set(timeZone, format);
  }
  return format;
}

/** The wall clock in `timeZone` at `instant`, as numbers. */
function wallClock(timeZone: string, instant: Date) {
  const parts = Object.fromEntries(
    wallClockFormat(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  );
  return parts as Record<"year" | "month" | "day" | "hour" | "minute" | "second", number>;
}

const two = (n: number) => String(n).padStart(2, "0");

/** The day (YYYY-MM-DD) and time (HH:MM) it is at `now` in `timeZone`. */
export function dayAndTimeIn(timeZone: string, now: Date): { day: string; time: string } {
  const { year, month, day, hour, minute } = wallClock(timeZone, now);
  return {
    day: `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}`,
    time: `${two(hour)}:${two(minute)}`,
  };
}

/** The day (YYYY-MM-DD) it is at `now` in `timeZone`. */
export const dayIn = (timeZone: string, now: Date): string => dayAndTimeIn(timeZone, now).day;

/** Minutes `timeZone` is ahead of UTC at `instant`. */
function offsetMinutes(timeZone: string, instant: Date): number {
  const at = wallClock(timeZone, instant);
  const wall = Date.UTC(at.year, at.month - 1, at.day, at.hour, at.minute, at.second);
  return Math.round((wall - instant.getTime()) / 60_000);
}

/** The moment `day` starts in `timeZone`: when its Effect is published. */
export function startOfDay(day: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // Twice, so a change of offset between UTC midnight and local midnight (daylight saving) is met.
  let guess = midnightUtc - offsetMinutes(timeZone, new Date(midnightUtc)) * 60_000;
  guess = midnightUtc - offsetMinutes(timeZone, new Date(guess)) * 60_000;
  return new Date(guess);
}

// Made once: making a formatter costs fifty times what formatting a day does, and a build of
// thousands of Effects labels each day a few times (its page, its mail, its card). Made when
// first used: the first formatter of a process costs about 20 ms of CPU, which a command that
// labels no day (most of them load this module) need not pay.
let dayLabelFormat: Intl.DateTimeFormat | undefined;

/** How a day reads on the page and in the mail: "November 21, 2026". */
export function dayLabel(day: string): string {
  dayLabelFormat ??= new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" });
  return dayLabelFormat.format(new Date(`${day}T00:00:00Z`));
}

/**
 * How a moment reads in a mail, in `timeZone` (the brand's) and in words, never a UTC timestamp:
 * "Wednesday, November 25 at 2:00 PM (Eastern Standard Time)".
 */
export function momentLabel(instant: Date, timeZone: string): string {
  const format = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("en-US", { timeZone, ...options }).formatToParts(instant);
  const joined = (options: Intl.DateTimeFormatOptions) =>
    format(options)
      .map((part) => part.value)
      .join("")
      // ICU writes a narrow no-break space before AM and PM; a plain one reads the same everywhere.
      .replace(/[\u202f\u00a0]/g, " ");
  const day = joined({ weekday: "long", month: "long", day: "numeric" });
  const time = joined({ hour: "numeric", minute: "2-digit" });
  const zone =
    format({ timeZoneName: "long" }).find((part) => part.type === "timeZoneName")?.value ?? timeZone;
  return `${day} at ${time} (${zone})`;
}
