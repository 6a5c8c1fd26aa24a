/** What createTracing reads: the telemetry section of the config (libs/config) and the app. */
export interface TracingSettings {
  otelEndpoint: string | undefined;
  otelProtocol: 'http/protobuf' | 'http/json';
  otelServiceName: string | undefined;
  otelCaptureContent: boolean;
}

export interface TracingTarget {
  /** `api`, `worker`, `watcher`, `notifier`: the service is `vigil-<app>` unless OTEL_SERVICE_NAME says. */
  app: string;
  /** The code version, as /version shows it. */
  version: string;
  /** Removes secret values from text recorded on a span (libs/platform's scrubbing). */
  scrub: (text: string) => string;
}
