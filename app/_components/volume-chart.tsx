import type { OverviewView } from "@/lib/console/get-overview-view";
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
 * Events per hour, stacked by status, as SVG (rendered on the server, with a table for screen
 * readers). Hours are labelled in the console's display zone, like every table. The SVG has no
 * viewBox: bars are laid out in percentages of its width and labels in CSS pixels, so the labels
 * keep their size on a phone instead of shrinking with the drawing.
 */
export function VolumeChart({ data, title, zone }: { data: OverviewView["volume"]; title: string; zone: string }) {
  const plotHeight = 150;
  const height = plotHeight + 18;
  const slot = 100 / Math.max(data.length, 1);
  const top = niceCeiling(Math.max(1, ...data.map((hour) => SERIES.reduce((sum, series) => sum + hour[series.key], 0))));
  const ticks = [0, top / 2, top].map((tick) => ({ tick, y: plotHeight - (tick / top) * (plotHeight - 4) }));
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
      <div className="chart-area" role="img" aria-label={`${title}: events per hour by status, up to ${top} per hour`}>
        <svg className="chart-scale" width={36} height={height} aria-hidden="true">
          {ticks.map(({ tick, y }) => (
            <text key={tick} className="axis" x={32} y={y + 4} textAnchor="end">
              {Number.isInteger(tick) ? tick : tick.toFixed(1)}
            </text>
          ))}
        </svg>
        <svg className="chart-plot" height={height} aria-hidden="true">
          {ticks.map(({ tick, y }) => (
            <line key={tick} x1="0" x2="100%" y1={y} y2={y} stroke="#d3d8df" strokeDasharray={tick === 0 ? undefined : "3 3"} />
          ))}
          {data.map((hour, index) => {
            let y = plotHeight;
            return (
              <g key={hour.hour.toISOString()}>
                <title>{`${formatTime(hour.hour, zone, { seconds: false })}: ${SERIES.map((series) => `${hour[series.key]} ${series.label}`).join(", ")}`}</title>
                {SERIES.map((series) => {
                  const h = (hour[series.key] / top) * (plotHeight - 4);
                  y -= h;
                  return (
                    <rect key={series.key} x={`${(index + 0.1) * slot}%`} y={y} width={`${slot * 0.8}%`} height={h} fill={series.color} />
                  );
                })}
                {index % 3 === 0 ? (
                  // Every third hour is labelled; on a narrow chart only every sixth, so labels never touch.
                  <text className={index % 6 === 0 ? "axis" : "axis minor"} x={`${index * slot}%`} dx={2} y={height - 4}>
                    {hourLabel(hour.hour)}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
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
