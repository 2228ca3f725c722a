import type { HourlyVolume } from "@/lib/inbox/inbox-stats";

const SERIES = [
  { key: "processed", color: "#15803d", label: "processed" },
  { key: "ignored", color: "#64748b", label: "ignored" },
  { key: "pending", color: "#2563eb", label: "pending" },
  { key: "failed", color: "#dc2626", label: "failed" },
] as const;

/** Events per hour, stacked by status, as an SVG (rendered on the server, with a table for screen readers). */
export function VolumeChart({ data, title }: { data: HourlyVolume[]; title: string }) {
  const width = 720;
  const height = 160;
  const barWidth = width / Math.max(data.length, 1);
  const max = Math.max(1, ...data.map((hour) => SERIES.reduce((sum, series) => sum + hour[series.key], 0)));
  return (
    <figure className="chart" style={{ margin: 0 }}>
      <figcaption className="row">
        <strong>{title}</strong>
        <span className="spacer" />
        <span className="legend">
          {SERIES.map((series) => (
            <span key={series.key} style={{ ["--swatch" as string]: series.color }}>
              {series.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height + 16}`} role="img" aria-label={`${title}: events per hour by status`}>
        {data.map((hour, index) => {
          let y = height;
          return (
            <g key={hour.hour.toISOString()}>
              <title>
                {`${hour.hour.toISOString().slice(11, 16)} UTC: ${SERIES.map((series) => `${hour[series.key]} ${series.label}`).join(", ")}`}
              </title>
              {SERIES.map((series) => {
                const h = (hour[series.key] / max) * (height - 4);
                y -= h;
                return <rect key={series.key} x={index * barWidth + 1} y={y} width={barWidth - 2} height={h} fill={series.color} />;
              })}
              {index % 3 === 0 ? (
                <text x={index * barWidth + 2} y={height + 12} fontSize="10" fill="#4d5562">
                  {hour.hour.toISOString().slice(11, 16)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th>Hour (UTC)</th>
            {SERIES.map((series) => (
              <th key={series.key}>{series.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.map((hour) => (
            <tr key={hour.hour.toISOString()}>
              <td>{hour.hour.toISOString()}</td>
              {SERIES.map((series) => (
                <td key={series.key}>{hour[series.key]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
