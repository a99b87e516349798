// Every timestamp the dashboard shows goes through here, in one time zone: the browser's own ("local") or UTC,
// as the switch in the top bar says. The choice is remembered in localStorage; the API always speaks UTC ISO.

const ZONE_STORAGE = 'conveyor.timeZone';
const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';

/** 'local' or 'utc'. */
export function timeZoneMode() {
  return localStorage.getItem(ZONE_STORAGE) === 'utc' ? 'utc' : 'local';
}

export function setTimeZoneMode(mode) {
  localStorage.setItem(ZONE_STORAGE, mode === 'utc' ? 'utc' : 'local');
}

/** The zone in use, for Intl: undefined is the browser's own. */
function zone() {
  return timeZoneMode() === 'utc' ? 'UTC' : undefined;
}

/** The zone in use, as the top bar names it: "UTC", or "Europe/Paris (UTC+01:00)". */
export function zoneLabel() {
  if (timeZoneMode() === 'utc') return 'UTC';
  return `${LOCAL_ZONE} (UTC${offsetText(-new Date().getTimezoneOffset())})`;
}

/** The zone in use, short: "UTC" or "Europe/Paris". */
export function zoneName() {
  return timeZoneMode() === 'utc' ? 'UTC' : LOCAL_ZONE;
}

function offsetText(minutes) {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A timestamp as date and time to the second, in the zone in use. */
export function timestamp(iso) {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, {
    timeZone: zone(),
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** A time of day to the millisecond, for events that follow each other closely. */
export function preciseTime(iso) {
  if (!iso) return '—';
  return new Date(iso).toLocaleTimeString(undefined, {
    timeZone: zone(),
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
  });
}

/** A time of day to the minute (chart axes). */
export function clockTime(iso) {
  return new Date(iso).toLocaleTimeString(undefined, { timeZone: zone(), hour: '2-digit', minute: '2-digit' });
}

/** An ISO instant as the value of a `datetime-local` input, in the zone in use ('' for none). */
export function toInputValue(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const shifted = timeZoneMode() === 'utc' ? d : new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/** A `datetime-local` input's value, read in the zone in use, as an ISO instant ('' for none). */
export function fromInputValue(value) {
  if (!value) return '';
  const d = timeZoneMode() === 'utc' ? new Date(`${value}Z`) : new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}
