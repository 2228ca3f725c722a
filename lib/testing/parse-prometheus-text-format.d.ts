// Types for parse-prometheus-text-format (the package ships none): its prom2json-compatible output.
declare module "parse-prometheus-text-format" {
  type Labels = Record<string, string>;
  export type PrometheusFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: { value?: string; labels?: Labels; buckets?: Record<string, string>; count?: string; sum?: string }[];
  };
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
