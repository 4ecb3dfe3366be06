/**
 * When a disruptive day-2 job (rolling reboot, patching) may start a batch: on some days of the week, between two
 * times of day, in a time zone — the shape of kured's `--reboot-days`, `--start-time`, `--end-time` and `--time-zone`
 * (kubereboot/kured cmd/kured/main.go, pkg/timewindow/timewindow.go `Contains`, which checks the weekday first and
 * then the times within that same day). kured's window never crosses midnight; ours may, as `patching.window` always
 * could: a window that ends before it starts belongs to the day it starts on (`22:00`–`04:00` on Fri is open until
 * Saturday 04:00, not Friday 00:00–04:00). Time zones are IANA names resolved by the ICU data Node ships (`Intl.DateTimeFormat`). Pure.
 */

export const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface MaintenanceWindow {
  /** `HH:MM`, 24-hour, in `timeZone`. */
  start: string;
  /** `HH:MM`; earlier than `start`: the window crosses midnight. */
  end: string;
  /** Days on which the window opens; absent: every day. */
  days?: readonly Weekday[];
  /** IANA time zone (`Europe/Berlin`); absent: UTC. */
  timeZone?: string;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether the runtime knows this IANA time zone. */
export function knownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The weekday and minute of the day `now` is in a time zone. */
export function localClock(now: Date, timeZone = "UTC"): { day: Weekday; minute: number; hhmm: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const part = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  const day = WEEKDAYS.find((d) => d === part("weekday")) ?? "Sun";
  const hh = part("hour").padStart(2, "0");
  const mm = part("minute").padStart(2, "0");
  return { day, minute: Number(hh) * 60 + Number(mm), hhmm: `${hh}:${mm}` };
}

/** Whether `now` lies in the window (start inclusive, end exclusive). */
export function inWindow(now: Date, w: MaintenanceWindow): boolean {
  const { day, minute } = localClock(now, w.timeZone);
  const s = minutesOf(w.start);
  const e = minutesOf(w.end);
  const opensOn = (d: Weekday) => !w.days || w.days.length === 0 || w.days.includes(d);
  if (s < e) return minute >= s && minute < e && opensOn(day);
  // Crossing midnight: the evening part belongs to today, the early-morning part to yesterday.
  const yesterday = WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7];
  return (minute >= s && opensOn(day)) || (minute < e && opensOn(yesterday));
}

/** The window in words: `Mon, Tue 22:00–04:00 Europe/Berlin`, `daily 01:00–05:00 UTC`. */
export function describeWindow(w: MaintenanceWindow): string {
  const days = w.days && w.days.length > 0 ? w.days.join(", ") : "daily";
  return `${days} ${w.start}–${w.end} ${w.timeZone ?? "UTC"}`;
}

/** Why a job may not start a batch now, or undefined when it may (always, without a window). */
export function outsideWindow(now: Date, w: MaintenanceWindow | undefined, what = "maintenance"): string | undefined {
  if (!w || inWindow(now, w)) return undefined;
  const { day, hhmm } = localClock(now, w.timeZone);
  return `outside the ${what} window ${describeWindow(w)} (now ${day} ${hhmm} ${w.timeZone ?? "UTC"}); it opens at ${w.start}${w.days && w.days.length > 0 ? ` on ${w.days.join(", ")}` : ""}`;
}
