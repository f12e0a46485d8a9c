/**
 * OTLP/HTTP export of spans and metrics, when `telemetry.otlp` is set: core's spans (one per call
 * and per hook, with server, tool, call id, hook id and verdict; never arguments or results) and
 * the metrics in Effect's registry (core's MetricNames, the hub's counters). JSON encoding over
 * fetch. Exporters flush when the scope closes.
 */
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { type OtlpExporter, OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { Plan } from "../config/Plan.ts"
import { VERSION } from "../runtime/Gateway.ts"

/** The telemetry Layer for a plan (empty when no OTLP endpoint is configured). */
export const telemetryLayer = (plan: Plan) => {
  const base = plan.telemetry.otlp
  if (base === undefined) return Layer.empty as Layer.Layer<OtlpExporter.Flusher>
  const root = base.replace(/\/+$/, "")
  const resource = { serviceName: plan.telemetry.serviceName, serviceVersion: VERSION }
  const interval = plan.telemetry.exportIntervalMs
  return Layer.mergeAll(
    OtlpTracer.layer({ url: `${root}/v1/traces`, resource, exportInterval: interval }),
    OtlpMetrics.layer({ url: `${root}/v1/metrics`, resource, exportInterval: interval })
  ).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
}
