/**
 * The hand-written part of the report ("Where the time goes"): it lives between these markers in the report
 * file, and each run carries it over from the file it replaces, so regenerating the numbers never loses it.
 */
export const ANALYSIS_START = '<!-- where-the-time-goes:start (written by hand; npm run bench keeps it) -->';
export const ANALYSIS_END = '<!-- where-the-time-goes:end -->';

/** The marked block of an earlier report, markers included; undefined when there is none. */
export function keptAnalysis(previousReport: string | undefined): string | undefined {
  if (previousReport === undefined) return undefined;
  const start = previousReport.indexOf(ANALYSIS_START);
  const end = previousReport.indexOf(ANALYSIS_END);
  if (start < 0 || end < start) return undefined;
  return previousReport.slice(start, end + ANALYSIS_END.length);
}
