import type { HourlyVolume } from "@/lib/inbox/queries/inbox-stats";
import { formatTime, zonedParts, zoneLabel } from "@/lib/time/format-time";

const SERIES = [
  { key: "processed", color: "#15803d", label: "processed" },
  { key: "ignored", color: "#64748b", label: "ignored" },
  { key: "pending", color: "#2563eb", label: "pending" },
  { key: "failed", color: "#dc2626", label: "failed" },
] as const;

/** A round axis maximum at or above `max` (1, 2, 5 x 10^n), so the gridlines read as plain numbers. */
function niceCeiling(max: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(max, 1)));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((value) => value >= max) ?? 10 * magnitude;
}

/**
 * Events per hour, stacked by status, as an SVG (rendered on the server, with a table for screen
 * readers). Hours are labelled in the console's display zone, like every table.
 */
export function VolumeChart({ data, title, zone }: { data: HourlyVolume[]; title: string; zone: string }) {
  const width = 720;
  const height = 150;
  const gutter = 36;
  const barWidth = (width - gutter) / Math.max(data.length, 1);
  const top = niceCeiling(Math.max(1, ...data.map((hour) => SERIES.reduce((sum, series) => sum + hour[series.key], 0))));
  const hourLabel = (hour: Date) => zonedParts(hour, zone).time.slice(0, 5);
  const zoneName = zoneLabel(zonedParts(data.at(-1)?.hour ?? new Date(0), zone).offsetMinutes);
  return (
    <figure className="chart" style={{ margin: 0 }}>
      <figcaption className="row">
        <strong>
          {title} ({zoneName})
        </strong>
        <span className="spacer" />
        <span className="legend">
          {SERIES.map((series) => (
            <span key={series.key} style={{ ["--swatch" as string]: series.color }}>
              {series.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height + 18}`} role="img" aria-label={`${title}: events per hour by status, up to ${top} per hour`}>
        {[0, top / 2, top].map((tick) => {
          const y = height - (tick / top) * (height - 4);
          return (
            <g key={tick}>
              <line x1={gutter} x2={width} y1={y} y2={y} stroke="#d3d8df" strokeDasharray={tick === 0 ? undefined : "3 3"} />
              <text className="axis" x={gutter - 4} y={y + 3} textAnchor="end">
                {Number.isInteger(tick) ? tick : tick.toFixed(1)}
              </text>
            </g>
          );
        })}
        {data.map((hour, index) => {
          let y = height;
          const x = gutter + index * barWidth;
          return (
            <g key={hour.hour.toISOString()}>
              <title>{`${formatTime(hour.hour, zone, { seconds: false })}: ${SERIES.map((series) => `${hour[series.key]} ${series.label}`).join(", ")}`}</title>
              {SERIES.map((series) => {
                const h = (hour[series.key] / top) * (height - 4);
                y -= h;
                return <rect key={series.key} x={x + 1} y={y} width={barWidth - 2} height={h} fill={series.color} />;
              })}
              {index % 3 === 0 ? (
                <text className="axis" x={x + 2} y={height + 14}>
                  {hourLabel(hour.hour)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <div className="sr-only">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th>Hour ({zoneName})</th>
              {SERIES.map((series) => (
                <th key={series.key}>{series.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.map((hour) => (
              <tr key={hour.hour.toISOString()}>
                <td>{formatTime(hour.hour, zone, { seconds: false })}</td>
                {SERIES.map((series) => (
                  <td key={series.key}>{hour[series.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
