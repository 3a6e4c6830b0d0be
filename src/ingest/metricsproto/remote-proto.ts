/**
 * The Prometheus remote write / remote read messages in .proto syntax, transcribed from the
 * published definitions (prometheus/prompb types.proto and remote.proto, as of Prometheus 2.42,
 * gogoproto options dropped). proto.ts parses this with protobufjs at module load.
 *
 * It is a TS string rather than a remote.proto file beside the module because the build (tsc ->
 * dist/) and the Dockerfile copy only compiled JS, so a .proto file would be missing from the
 * image. Field numbers and types must stay exactly as published: they are the wire format.
 */
export const REMOTE_PROTO = `
syntax = "proto3";
package prometheus;

// ---- types.proto ----

message MetricMetadata {
  enum MetricType {
    UNKNOWN        = 0;
    COUNTER        = 1;
    GAUGE          = 2;
    HISTOGRAM      = 3;
    GAUGEHISTOGRAM = 4;
    SUMMARY        = 5;
    INFO           = 6;
    STATESET       = 7;
  }
  MetricType type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
}

message Sample {
  double value    = 1;
  // ms since the epoch
  int64 timestamp = 2;
}

message Exemplar {
  repeated Label labels = 1;
  double value = 2;
  int64 timestamp = 3;
}

// A native (sparse) histogram, integer or float.
message Histogram {
  enum ResetHint {
    UNKNOWN = 0;
    YES     = 1;
    NO      = 2;
    GAUGE   = 3;
  }
  oneof count {
    uint64 count_int   = 1;
    double count_float = 2;
  }
  double sum = 3;
  sint32 schema = 4;
  double zero_threshold = 5;
  oneof zero_count {
    uint64 zero_count_int   = 6;
    double zero_count_float = 7;
  }
  repeated BucketSpan negative_spans  = 8;
  repeated sint64     negative_deltas = 9;
  repeated double     negative_counts = 10;
  repeated BucketSpan positive_spans  = 11;
  repeated sint64     positive_deltas = 12;
  repeated double     positive_counts = 13;
  ResetHint reset_hint = 14;
  int64 timestamp = 15;
}

message BucketSpan {
  sint32 offset = 1;
  uint32 length = 2;
}

message TimeSeries {
  repeated Label labels         = 1;
  repeated Sample samples       = 2;
  repeated Exemplar exemplars   = 3;
  repeated Histogram histograms = 4;
}

message Label {
  string name  = 1;
  string value = 2;
}

message Labels {
  repeated Label labels = 1;
}

message LabelMatcher {
  enum Type {
    EQ  = 0;
    NEQ = 1;
    RE  = 2;
    NRE = 3;
  }
  Type type    = 1;
  string name  = 2;
  string value = 3;
}

message ReadHints {
  int64 step_ms = 1;
  string func = 2;
  int64 start_ms = 3;
  int64 end_ms = 4;
  repeated string grouping = 5;
  bool by = 6;
  int64 range_ms = 7;
}

message Chunk {
  int64 min_time_ms = 1;
  int64 max_time_ms = 2;
  enum Encoding {
    UNKNOWN         = 0;
    XOR             = 1;
    HISTOGRAM       = 2;
    FLOAT_HISTOGRAM = 3;
  }
  Encoding type = 3;
  bytes data    = 4;
}

message ChunkedSeries {
  repeated Label labels = 1;
  repeated Chunk chunks = 2;
}

// ---- remote.proto ----

message WriteRequest {
  repeated TimeSeries timeseries = 1;
  // used by Cortex for the request source; reserved upstream
  reserved 2;
  repeated MetricMetadata metadata = 3;
}

message ReadRequest {
  repeated Query queries = 1;
  enum ResponseType {
    SAMPLES             = 0;
    STREAMED_XOR_CHUNKS = 1;
  }
  repeated ResponseType accepted_response_types = 2;
}

message ReadResponse {
  repeated QueryResult results = 1;
}

message Query {
  int64 start_timestamp_ms = 1;
  int64 end_timestamp_ms = 2;
  repeated LabelMatcher matchers = 3;
  ReadHints hints = 4;
}

message QueryResult {
  repeated TimeSeries timeseries = 1;
}

message ChunkedReadResponse {
  repeated ChunkedSeries chunked_series = 1;
  int64 query_index = 2;
}
`
