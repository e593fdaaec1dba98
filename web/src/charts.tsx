/**
 * Hand-written SVG charts. Each is one <svg role="img"> whose aria-label (and <title>) states
 * every number it draws, so a screen reader — or a test — reads what the eye sees.
 */
import { useWidth } from './ui.tsx';

const ROW = 28;
const BAR = 16;
const CHAR = 7; // average glyph width of the 12.5px label font

function fit(text: string, px: number): string {
  const max = Math.max(3, Math.floor(px / CHAR));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface BarPart {
  value: number;
  className?: string;
}

export interface BarRow {
  label: string;
  /** null: nothing to draw (shown as `missing`). */
  value: number | null;
  /** The number as printed beside the bar (default: value with `format`). */
  valueText?: string;
  /** This row's own scale, where rows measure different things. */
  domain?: [number, number];
  /** 0–1: how much to trust the value; drawn as the bar's opacity. */
  opacity?: number;
  /** Stacked pieces instead of one bar (their sum is `value`). */
  parts?: BarPart[];
  className?: string;
  /** More words for the tooltip and the accessible description. */
  detail?: string;
}

export interface BarChartProps {
  title: string;
  rows: BarRow[];
  /** Scale of rows without their own (default 0 … largest value). */
  domain?: [number, number];
  format?: (v: number) => string;
  /** Dashed reference line, e.g. the middle of a 0–1 scale. */
  marker?: { at: number; label: string };
  /** What a null value means ("not scored"). */
  missing?: string;
  /** Label column for at least this many characters (to line up charts shown together). */
  labelChars?: number;
  /** Each label on its own line above its bar at every width (long labels, such as operation names). */
  stacked?: boolean;
  /** Width of the value column in characters (default: about 13). */
  valueChars?: number;
}

export function BarChart({ title, rows, domain, format = (v) => String(v), marker, missing = 'no data', labelChars = 4, stacked: alwaysStacked = false, valueChars }: BarChartProps) {
  const [ref, width] = useWidth<HTMLDivElement>();
  // Narrow: each label on its own line above its bar. Wide: labels in a column as wide as the
  // longest needs (up to 45%).
  const stacked = alwaysStacked || width < 440;
  const longest = Math.max(...rows.map((r) => r.label.length), labelChars) * CHAR + 14;
  const labelW = stacked ? 0 : Math.round(Math.min(longest, Math.max(96, width * 0.45)));
  const valueW = valueChars ? Math.min(valueChars * CHAR + 8, Math.round(width * 0.45)) : 96;
  const barW = Math.max(40, width - labelW - valueW - 8);
  const rowH = stacked ? ROW + 16 : ROW;
  const barY = stacked ? 18 : (ROW - BAR) / 2;
  const top = marker ? 16 : 4;
  const height = top + rows.length * rowH + 4;
  const maxValue = Math.max(0, ...rows.map((r) => r.value ?? 0));
  const shared: [number, number] = domain ?? [0, maxValue > 0 ? maxValue : 1];
  const text = (r: BarRow) => (r.value === null ? missing : (r.valueText ?? format(r.value)));
  const summary = `${title}: ${rows.map((r) => `${r.label} ${text(r)}${r.detail ? ` (${r.detail})` : ''}`).join('; ')}`;
  const xOf = (v: number, [lo, hi]: [number, number]) => labelW + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo || 1)) * barW;

  return (
    <div ref={ref} className="chart">
      <svg role="img" aria-label={summary} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <title>{summary}</title>
        {marker && (
          <text className="marker" x={xOf(marker.at, shared)} y={10} textAnchor="middle">
            {marker.label}
          </text>
        )}
        {rows.map((r, i) => {
          const y = top + i * rowH;
          const d = r.domain ?? shared;
          const zero = xOf(Math.max(d[0], Math.min(d[1], 0)), d);
          let bars: { x: number; w: number; className?: string }[] = [];
          if (r.value !== null) {
            if (r.parts) {
              let acc = 0;
              bars = r.parts.map((p) => {
                const x0 = xOf(acc, d);
                acc += p.value;
                return { x: x0, w: xOf(acc, d) - x0, className: p.className };
              });
            } else {
              const x = xOf(r.value, d);
              bars = [{ x: Math.min(zero, x), w: Math.max(Math.abs(x - zero), r.value === 0 ? 0 : 1.5), className: r.className }];
            }
          }
          const textY = y + barY + BAR / 2 + 4;
          return (
            <g key={r.label + i} className="row">
              <title>{`${r.label}: ${text(r)}${r.detail ? ` — ${r.detail}` : ''}`}</title>
              {stacked ? (
                <text className="label" x={0} y={y + 12}>
                  {fit(r.label, width)}
                </text>
              ) : (
                <text className="label" x={labelW - 8} y={textY} textAnchor="end">
                  {fit(r.label, labelW - 12)}
                </text>
              )}
              <rect className="track" x={labelW} y={y + barY} width={barW} height={BAR} rx={3} />
              {d[0] < 0 && <line className="zero" x1={zero} x2={zero} y1={y + barY - 3} y2={y + barY + BAR + 3} />}
              {bars
                .filter((b) => b.w > 0)
                .map((b, j) => (
                  <rect key={j} className={`bar ${b.className ?? ''}`} x={b.x} y={y + barY} width={b.w} height={BAR} rx={3} opacity={r.opacity === undefined ? 1 : 0.25 + 0.75 * r.opacity} />
                ))}
              {marker && <line className="marker" x1={xOf(marker.at, d)} x2={xOf(marker.at, d)} y1={y + barY - 4} y2={y + barY + BAR + 4} />}
              <text className={r.value === null ? 'value missing' : 'value'} x={r.value === null ? labelW + 8 : labelW + barW + 8} y={textY}>
                {fit(text(r), r.value === null ? barW - 8 : valueW - 4)}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}

export interface LinePoint {
  date: Date;
  value: number | null;
  /** 0–1, drawn as the dot's opacity. */
  opacity?: number;
}

/** One measure over time: dots at each snapshot's mindsetDate, joined where there is a value. */
export function LineChart({ title, points, domain, format = (v) => String(v) }: { title: string; points: LinePoint[]; domain?: [number, number]; format?: (v: number) => string }) {
  const [ref, width] = useWidth<HTMLDivElement>(280);
  const height = 132;
  const left = 40;
  const right = 12;
  const top = 10;
  const bottom = 22;
  const scored = points.filter((p): p is LinePoint & { value: number } => p.value !== null);
  const values = scored.map((p) => p.value);
  let [lo, hi] = domain ?? [Math.min(...values, 0), Math.max(...values, 0)];
  if (!(hi > lo)) [lo, hi] = [lo - 1, lo + 1];
  const times = points.map((p) => p.date.getTime());
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const x = (t: number) => (t1 === t0 ? (left + width - right) / 2 : left + ((t - t0) / (t1 - t0)) * (width - left - right));
  const y = (v: number) => top + (1 - (v - lo) / (hi - lo)) * (height - top - bottom);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const summary = `${title} over time: ${points.map((p) => `${day(p.date)} ${p.value === null ? 'not scored' : format(p.value)}`).join('; ')}`;
  const path = scored.map((p, i) => `${i ? 'L' : 'M'}${x(p.date.getTime()).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');

  return (
    <div ref={ref} className="chart">
      <svg role="img" aria-label={summary} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <title>{summary}</title>
        <g className="axis">
          <line x1={left} x2={width - right} y1={y(lo)} y2={y(lo)} />
          <line x1={left} x2={width - right} y1={y(hi)} y2={y(hi)} className="grid" />
          <text x={left - 6} y={y(hi) + 4} textAnchor="end">
            {format(hi)}
          </text>
          <text x={left - 6} y={y(lo) + 4} textAnchor="end">
            {format(lo)}
          </text>
          <text x={x(t0)} y={height - 6} textAnchor={t1 === t0 ? 'middle' : 'start'}>
            {day(new Date(t0))}
          </text>
          {t1 !== t0 && (
            <text x={x(t1)} y={height - 6} textAnchor="end">
              {day(new Date(t1))}
            </text>
          )}
        </g>
        {/* A line is a change over time: points of one date are not joined. */}
        {scored.length > 1 && t1 !== t0 && <path className="line" d={path} />}
        {scored.map((p, i) => (
          <circle key={i} className="dot" cx={x(p.date.getTime())} cy={y(p.value)} r={4.5} opacity={p.opacity === undefined ? 1 : 0.3 + 0.7 * p.opacity}>
            <title>{`${day(p.date)}: ${format(p.value)}`}</title>
          </circle>
        ))}
        {scored.length === 0 && (
          <text className="missing" x={(left + width - right) / 2} y={height / 2} textAnchor="middle">
            not scored
          </text>
        )}
      </svg>
    </div>
  );
}

export interface DayCount {
  /** YYYY-MM-DD (UTC) */
  day: string;
  successCount: number;
  errorCount: number;
  totalCount: number;
}

/** Longest range drawn day by day, days without requests included; longer ones show only the days with requests. */
const MAX_FILLED_DAYS = 400;

/** Every day from `from` to `to`, with the counts of `days` and zeros elsewhere. */
function fillDays(from: string, to: string, days: DayCount[]): DayCount[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  const span = Math.round((end - start) / 86_400_000) + 1;
  if (!(span > 0) || span > MAX_FILLED_DAYS) return days;
  const byDay = new Map(days.map((d) => [d.day, d]));
  return Array.from({ length: span }, (_, i) => {
    const day = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, successCount: 0, errorCount: 0, totalCount: 0 };
  });
}

/**
 * Requests per day as stacked columns (succeeded, then failed on top), over every day of the
 * range. The accessible label states each day with requests and how many days had none.
 */
export function DailyChart({ title, from, to, days }: { title: string; from: string; to: string; days: DayCount[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const series = fillDays(from, to, days);
  const height = 170;
  const left = 40;
  const right = 8;
  const top = 10;
  const bottom = 24;
  const plotW = Math.max(40, width - left - right);
  const plotH = height - top - bottom;
  const max = Math.max(1, ...series.map((d) => d.totalCount));
  const colW = plotW / Math.max(1, series.length);
  const barW = Math.max(1, Math.min(28, colW * 0.72));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const text = (d: DayCount) => `${d.day} ${d.totalCount}${d.errorCount ? ` (${d.errorCount} failed)` : ''}`;
  const busy = series.filter((d) => d.totalCount > 0);
  const quiet = series.length - busy.length;
  const summary = `${title}, ${from} to ${to}: ${busy.length ? busy.map(text).join('; ') : 'no requests'}${busy.length && quiet ? `; no requests on the other ${quiet} day${quiet === 1 ? '' : 's'}` : ''}`;
  // Day labels: the first and the last, and between them as many as fit without touching.
  const every = Math.max(1, Math.ceil(78 / colW));
  const labelled = series.map((_, i) => i).filter((i) => i === 0 || i === series.length - 1 || (i % every === 0 && i <= series.length - 1 - every));

  return (
    <div ref={ref} className="chart">
      <svg role="img" aria-label={summary} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <title>{summary}</title>
        <g className="axis">
          <line x1={left} x2={width - right} y1={y(0)} y2={y(0)} />
          <line x1={left} x2={width - right} y1={y(max)} y2={y(max)} className="grid" />
          <text x={left - 6} y={y(max) + 4} textAnchor="end">
            {max}
          </text>
          <text x={left - 6} y={y(0) + 4} textAnchor="end">
            0
          </text>
          {labelled.map((i) => (
            <text key={i} x={left + (i + 0.5) * colW} y={height - 6} textAnchor={i === 0 && series.length > 1 ? 'start' : i === series.length - 1 && series.length > 1 ? 'end' : 'middle'}>
              {series[i]!.day.slice(5)}
            </text>
          ))}
        </g>
        {series.map((d, i) => {
          const x = left + (i + 0.5) * colW - barW / 2;
          return (
            <g key={d.day} className="day">
              <title>{`${d.day}: ${d.totalCount} request${d.totalCount === 1 ? '' : 's'}, ${d.errorCount} failed`}</title>
              {d.successCount > 0 && <rect className="bar" x={x} y={y(d.successCount)} width={barW} height={y(0) - y(d.successCount)} rx={1.5} />}
              {d.errorCount > 0 && <rect className="bar neg" x={x} y={y(d.totalCount)} width={barW} height={y(d.successCount) - y(d.totalCount)} rx={1.5} />}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
