import {
  describeWindow,
  inWindow,
  knownTimeZone,
  localClock,
  outsideWindow,
} from "../../../providers/day2/maintenance-window";

// 2026-11-23 is a Monday (UTC).
const at = (iso: string) => new Date(iso);
const utc = (hhmm: string, day = "23") => at(`2026-11-${day}T${hhmm}:00Z`);

test("a daily window in UTC: start inclusive, end exclusive, across midnight when end < start", () => {
  const night = { start: "22:00", end: "04:00" };
  expect(["22:00", "23:59", "00:00", "03:59"].map((t) => inWindow(utc(t), night))).toEqual([true, true, true, true]);
  expect(["04:00", "12:00", "21:59"].map((t) => inWindow(utc(t), night))).toEqual([false, false, false]);
  const day = { start: "09:30", end: "17:00" };
  expect(["09:29", "09:30", "16:59", "17:00"].map((t) => inWindow(utc(t), day))).toEqual([false, true, true, false]);
  expect(outsideWindow(utc("12:00"), night, "patch")).toBe(
    "outside the patch window daily 22:00–04:00 UTC (now Mon 12:00 UTC); it opens at 22:00",
  );
  expect(outsideWindow(utc("12:00"), undefined)).toBeUndefined();
});

test("days: the window opens only on the listed days; the early hours after midnight belong to the day it opened", () => {
  const friNight = { start: "22:00", end: "04:00", days: ["Fri" as const] };
  // Fri 2026-11-27 23:00 and Sat 03:00 are in it; Sat 23:00 and Fri 03:00 (Thursday's night) are not.
  expect(inWindow(utc("23:00", "27"), friNight)).toBe(true);
  expect(inWindow(utc("03:00", "28"), friNight)).toBe(true);
  expect(inWindow(utc("23:00", "28"), friNight)).toBe(false);
  expect(inWindow(utc("03:00", "27"), friNight)).toBe(false);
  const weekdays = { start: "01:00", end: "05:00", days: ["Mon" as const, "Tue" as const] };
  expect([utc("02:00", "23"), utc("02:00", "24"), utc("02:00", "25")].map((d) => inWindow(d, weekdays))).toEqual([
    true,
    true,
    false,
  ]);
  expect(outsideWindow(utc("02:00", "25"), weekdays, "reboot")).toBe(
    "outside the reboot window Mon, Tue 01:00–05:00 UTC (now Wed 02:00 UTC); it opens at 01:00 on Mon, Tue",
  );
});

test("a time zone: the local weekday and time decide, daylight saving time included (IANA tz database)", () => {
  // Europe/Berlin is UTC+1 in November (CET) and UTC+2 in July (CEST).
  const berlin = { start: "22:00", end: "23:00", timeZone: "Europe/Berlin" };
  expect(inWindow(at("2026-11-23T21:30:00Z"), berlin)).toBe(true);
  expect(inWindow(at("2026-11-23T22:30:00Z"), berlin)).toBe(false);
  expect(inWindow(at("2026-07-13T20:30:00Z"), berlin)).toBe(true);
  expect(inWindow(at("2026-07-13T21:30:00Z"), berlin)).toBe(false);
  // The weekday is the local one: Sunday 23:30 UTC is Monday 08:30 in Tokyo (UTC+9, no DST).
  expect(localClock(at("2026-11-22T23:30:00Z"), "Asia/Tokyo")).toEqual({
    day: "Mon",
    minute: 8 * 60 + 30,
    hhmm: "08:30",
  });
  expect(
    inWindow(at("2026-11-22T23:30:00Z"), { start: "08:00", end: "09:00", days: ["Mon"], timeZone: "Asia/Tokyo" }),
  ).toBe(true);
  expect(describeWindow({ start: "08:00", end: "09:00", days: ["Mon"], timeZone: "Asia/Tokyo" })).toBe(
    "Mon 08:00–09:00 Asia/Tokyo",
  );
  expect([knownTimeZone("Europe/Berlin"), knownTimeZone("Europe/Berln"), knownTimeZone("UTC")]).toEqual([
    true,
    false,
    true,
  ]);
});
